package classify

import (
	"path/filepath"
	"slices"
	"testing"
)

func TestGuessURL(t *testing.T) {
	tests := []struct {
		name, kind string
		argv       []string
		dir        string // the server's working directory
		want       string
	}{
		{"sglang default port", "sglang", []string{"python", "-m", "sglang.launch_server", "--model-path", "m"}, "", "http://127.0.0.1:30000"},
		{"host and port", "vllm", []string{"vllm", "serve", "m", "--host", "10.0.0.5", "--port=9000"}, "", "http://10.0.0.5:9000"},
		{"wildcard host", "vllm", []string{"vllm", "serve", "m", "--host", "0.0.0.0"}, "", "http://127.0.0.1:8000"},
		{"tgi hostname, ipv6", "tgi", []string{"text-generation-launcher", "--hostname", "::1", "--port", "8081"}, "", "http://[::1]:8081"},
		{"unknown kind", "", []string{"./server"}, "", "http://127.0.0.1:8000"},
		{"bad port is ignored", "llamacpp", []string{"llama-server", "--port", "x"}, "", "http://10.0.0.7:18150"},
		// llama.cpp's container images set LLAMA_ARG_* (common/arg.cpp).
		{"llama.cpp's port and host variables", "llamacpp", []string{"llama-server", "-m", "x.gguf"}, "", "http://10.0.0.7:18150"},
		{"env before the command", "llamacpp", []string{"env", "LLAMA_ARG_PORT=18151", "llama-server"}, "", "http://10.0.0.7:18151"},
		{"a flag wins over the variable", "llamacpp", []string{"llama-server", "--port", "9000"}, "", "http://10.0.0.7:9000"},
		{"tgi's PORT", "tgi", []string{"text-generation-launcher"}, "", "http://127.0.0.1:8088"},
		{"another kind's variable", "vllm", []string{"vllm", "serve", "m"}, "", "http://127.0.0.1:8000"},
		// Unix sockets: llama-server's --host PATH.sock, vLLM's --uds.
		{"llama-server on a socket", "llamacpp", []string{"llama-server", "--host", "/run/llama.sock"}, "", "unix:///run/llama.sock"},
		{"llama-server's socket variable", "llamacpp", []string{"env", "LLAMA_ARG_HOST=/run/l.sock", "llama-server"}, "", "unix:///run/l.sock"},
		{"llama-server on a socket, under a prefix", "llamacpp", []string{"llama-server", "--host", "/run/llama.sock", "--api-prefix", "/llm"}, "", "http+unix://%2Frun%2Fllama.sock/llm"},
		{"llama-server on a relative socket", "llamacpp", []string{"llama-server", "--host", "l.sock"}, "", "unix://" + mustAbs(t, "l.sock")},
		{"vLLM --uds", "vllm", []string{"vllm", "serve", "m", "--uds", "/tmp/v.sock"}, "", "unix:///tmp/v.sock"},
		{"vLLM --uds=", "vllm", []string{"vllm", "serve", "m", "--uds=/tmp/v.sock", "--port", "9000"}, "", "unix:///tmp/v.sock"},
		// vigil watch reads the process's working directory.
		{"a watched server's relative socket", "llamacpp", []string{"llama-server", "--host", "l.sock"}, "/srv/llm", "unix:///srv/llm/l.sock"},
		{"a watched server's absolute socket", "vllm", []string{"vllm", "serve", "m", "--uds", "/tmp/v.sock"}, "/srv/llm", "unix:///tmp/v.sock"},
		// llama-server --api-prefix: every route is under it.
		{"llama-server's --api-prefix", "llamacpp", []string{"llama-server", "--port", "9000", "--api-prefix", "/llm"}, "", "http://10.0.0.7:9000/llm"},
		{"--api-prefix= with a slash after", "llamacpp", []string{"llama-server", "--api-prefix=/a/b/"}, "", "http://10.0.0.7:18150/a/b"},
		{"--api-prefix without its slash", "llamacpp", []string{"env", "LLAMA_ARG_API_PREFIX=llm", "llama-server"}, "", "http://10.0.0.7:18150/llm"},
		{"another kind has no prefix flag", "vllm", []string{"vllm", "serve", "m", "--api-prefix", "/llm"}, "", "http://127.0.0.1:8000"},
		{"a .sock host elsewhere is a host", "sglang", []string{"python", "-m", "sglang.launch_server", "--host", "x.sock"}, "", "http://x.sock:30000"},
	}
	env := map[string]string{"LLAMA_ARG_PORT": "18150", "LLAMA_ARG_HOST": "10.0.0.7", "PORT": "8088"}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := GuessURL(tt.kind, tt.argv, func(k string) string { return env[k] }, tt.dir); got != tt.want {
				t.Errorf("GuessURL = %s, want %s", got, tt.want)
			}
		})
	}
}

func TestModelFromArgv(t *testing.T) {
	tests := []struct {
		name string
		argv []string
		want string
	}{
		{"sglang", []string{"python", "-m", "sglang.launch_server", "--model-path", "Qwen/Qwen3-8B"}, "Qwen/Qwen3-8B"},
		{"vllm serve", []string{"vllm", "serve", "meta/Llama", "--port", "1"}, "meta/Llama"},
		{"equals", []string{"x", "--model=a/b"}, "a/b"},
		{"tgi", []string{"text-generation-launcher", "--model-id", "m"}, "m"},
		{"gguf", []string{"llama-server", "-m", "/m/q4.gguf"}, "/m/q4.gguf"},
		{"python -m is no model", []string{"python", "-m", "server"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ModelFromArgv(tt.argv); got != tt.want {
				t.Errorf("ModelFromArgv = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestFlagValue(t *testing.T) {
	argv := []string{"x", "--mem-fraction-static", "0.9", "--max_model_len=4096"}
	for _, tt := range []struct {
		flag, want string
		ok         bool
	}{
		{"--mem-fraction-static", "0.9", true},
		{"--max-model-len", "4096", true},
		{"--tp", "", false},
	} {
		if got, ok := FlagValue(argv, tt.flag); got != tt.want || ok != tt.ok {
			t.Errorf("FlagValue(%s) = %q, %v; want %q, %v", tt.flag, got, ok, tt.want, tt.ok)
		}
	}
}

func TestReadyLineHidden(t *testing.T) {
	for _, tt := range []struct {
		name   string
		server string
		argv   []string
		want   bool
	}{
		{"warning", "sglang", []string{"python3", "-m", "sglang.launch_server", "--log-level", "warning"}, true},
		{"underscores and upper case", "sglang", []string{"sglang", "serve", "--log_level", "ERROR"}, true},
		{"info", "sglang", []string{"python3", "-m", "sglang.launch_server", "--log-level", "info"}, false},
		{"debug", "sglang", []string{"python3", "-m", "sglang.launch_server", "--log-level", "debug"}, false},
		{"no flag", "sglang", []string{"python3", "-m", "sglang.launch_server"}, false},
		{"a server without the flag", "vllm", []string{"vllm", "serve", "x", "--log-level", "warning"}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := ReadyLineHidden(Lookup(tt.server), tt.argv); got != tt.want {
				t.Errorf("ReadyLineHidden(%s, %q) = %v, want %v", tt.server, tt.argv, got, tt.want)
			}
		})
	}
}

func mustAbs(t *testing.T, p string) string {
	t.Helper()
	abs, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	return abs
}

// TestServerArgv: the server's words are read out of a shell's -c script
// (a virtualenv activated first, an exec, a redirection), and argv is
// left as it is otherwise.
func TestServerArgv(t *testing.T) {
	tests := []struct {
		name string
		argv []string
		want []string
	}{
		{"no shell", []string{"vllm", "serve", "m", "--port", "9000"}, []string{"vllm", "serve", "m", "--port", "9000"}},
		{"a venv first", []string{"bash", "-c", "source /opt/venv/bin/activate && exec vllm serve Qwen/Qwen3-8B --port 9000"},
			[]string{"exec", "vllm", "serve", "Qwen/Qwen3-8B", "--port", "9000"}},
		{"-lc and quotes", []string{"/bin/bash", "-lc", `cd /srv; python -m sglang.launch_server --model-path "/models/my model" --port '30001' 2>&1 | tee log`},
			[]string{"python", "-m", "sglang.launch_server", "--model-path", "/models/my model", "--port", "30001", "2>&1"}},
		{"a redirection's &", []string{"sh", "-c", "llama-server -m /m/x.gguf --port 8081 >server.log 2>&1 &"},
			[]string{"llama-server", "-m", "/m/x.gguf", "--port", "8081", ">server.log", "2>&1"}},
		{"escapes", []string{"sh", "-c", `llama-server -m /m/a\ b.gguf --api-prefix "/l\"m"`}, []string{"llama-server", "-m", "/m/a b.gguf", "--api-prefix", `/l"m`}},
		{"no server named: the last command", []string{"sh", "-c", "cd /srv && ./start.sh --port 7000"}, []string{"./start.sh", "--port", "7000"}},
		{"a script file", []string{"bash", "start.sh", "-c", "x"}, []string{"bash", "start.sh", "-c", "x"}},
		{"-c without a script", []string{"sh", "-x", "-c"}, []string{"sh", "-x", "-c"}},
		{"an empty script", []string{"sh", "-c", " ; "}, []string{"sh", "-c", " ; "}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ServerArgv(tt.argv); !slices.Equal(got, tt.want) {
				t.Errorf("ServerArgv(%q) = %q, want %q", tt.argv, got, tt.want)
			}
		})
	}
	// What the guesses read from a wrapped command line.
	wrapped := ServerArgv([]string{"bash", "-c", "source venv/bin/activate && exec python -m sglang.launch_server --model-path Qwen/Qwen3-8B --port 30001"})
	if kind, url, model := DetectCommand(wrapped), GuessURL("sglang", wrapped, func(string) string { return "" }, ""), ModelFromArgv(wrapped); kind != "sglang" || url != "http://127.0.0.1:30001" || model != "Qwen/Qwen3-8B" {
		t.Errorf("from a wrapped SGLang: kind %q, URL %q, model %q", kind, url, model)
	}
}
