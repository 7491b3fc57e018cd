package apikey

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/spf13/pflag"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestFromServer(t *testing.T) {
	keyFile := filepath.Join(t.TempDir(), "keys")
	os.WriteFile(keyFile, []byte("\n  file-key-1  \nfile-key-2\n"), 0o600)
	tests := []struct {
		name string
		kind string
		argv []string
		env  map[string]string
		want string
		src  Source
	}{
		{"sglang", "sglang", []string{"python", "-m", "sglang.launch_server", "--model-path", "m", "--api-key", "sg-key"}, nil, "sg-key", Server},
		{"vllm equals", "vllm", []string{"vllm", "serve", "m", "--api-key=v-key"}, nil, "v-key", Server},
		{"vllm repeated: the first", "vllm", []string{"vllm", "serve", "m", "--api-key", "k1", "--api-key", "k2"}, nil, "k1", Server},
		{"vllm from its variable", "vllm", []string{"vllm", "serve", "m"}, map[string]string{"VLLM_API_KEY": "env-key"}, "env-key", ServerEn},
		{"argv beats the variable", "vllm", []string{"vllm", "serve", "--api-key", "a"}, map[string]string{"VLLM_API_KEY": "e"}, "a", Server},
		{"llama-server comma list", "llamacpp", []string{"llama-server", "-m", "x.gguf", "--api-key", "l1,l2"}, nil, "l1", Server},
		{"llama-server key file", "llamacpp", []string{"llama-server", "--api-key-file", keyFile}, nil, "file-key-1", Server},
		{"trtllm", "trtllm", []string{"trtllm-serve", "m", "--api-key", "t-key"}, nil, "t-key", Server},
		{"tgi variable", "tgi", []string{"text-generation-launcher", "--model-id", "m"}, map[string]string{"API_KEY": "tgi-key"}, "tgi-key", ServerEn},
		{"tgi flag", "tgi", []string{"text-generation-launcher", "--api-key", "tg"}, nil, "tg", Server},
		{"API_KEY means nothing to vllm", "vllm", []string{"vllm", "serve"}, map[string]string{"API_KEY": "x"}, "", None},
		{"flag without value", "sglang", []string{"x", "--api-key", "--port", "1"}, nil, "", None},
		{"after -- is not the server's", "sglang", []string{"x", "--", "--api-key", "k"}, nil, "", None},
		{"none", "sglang", []string{"x"}, nil, "", None},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, src := FromServer(tt.kind, tt.argv, env(tt.env))
			if got != tt.want || src != tt.src {
				t.Errorf("FromServer = %q (%s), want %q (%s)", got, src, tt.want, tt.src)
			}
		})
	}
}

func TestResolveOrder(t *testing.T) {
	argv := []string{"vllm", "serve", "m", "--api-key", "server-key"}
	all := map[string]string{EnvVar: "vigil-key", "OPENAI_API_KEY": "openai-key"}
	tests := []struct {
		name string
		flag string
		env  map[string]string
		argv []string
		want string
		src  Source
	}{
		{"flag first", "flag-key", all, argv, "flag-key", Flag},
		{"then VIGIL_API_KEY", "", all, argv, "vigil-key", Env},
		{"then the server's", "", map[string]string{"OPENAI_API_KEY": "openai-key"}, argv, "server-key", Server},
		{"then OPENAI_API_KEY", "", map[string]string{"OPENAI_API_KEY": "openai-key"}, nil, "openai-key", OpenAI},
		{"none", "", nil, nil, "", None},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, src := Option{Value: tt.flag}.Resolve(env(tt.env), "vllm", tt.argv)
			if got != tt.want || src != tt.src {
				t.Errorf("Resolve = %q (%s), want %q (%s)", got, src, tt.want, tt.src)
			}
		})
	}
}

func TestRegister(t *testing.T) {
	var o Option
	fs := pflag.NewFlagSet("x", pflag.ContinueOnError)
	o.Register(fs)
	if err := fs.Parse([]string{"--api-key", "k"}); err != nil || o.Value != "k" {
		t.Errorf("parsed %q, %v", o.Value, err)
	}
}
