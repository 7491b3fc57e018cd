// Package apikey finds the API key vigil must send to a server: the one
// given with --api-key or VIGIL_API_KEY, else the one the server was given
// in its own command line or environment (so that `vigil run -- vllm serve
// M --api-key K` needs no second copy of K), else OPENAI_API_KEY.
//
// The key is a secret: callers hand it to a redact.Redactor before
// printing anything a server answered.
package apikey

import (
	"bufio"
	"os"
	"strings"

	"github.com/spf13/pflag"
)

// EnvVar is vigil's own variable for the key.
const EnvVar = "VIGIL_API_KEY"

// Source says where a key came from, for a note that never shows it.
type Source string

const (
	None     Source = ""
	Flag     Source = "--api-key"
	Env      Source = "$" + EnvVar
	Server   Source = "the server's command line"
	ServerEn Source = "the server's environment"
	OpenAI   Source = "$OPENAI_API_KEY"
)

// Option is the --api-key flag of every command that sends requests.
type Option struct {
	Value string
}

// Register adds --api-key to fs.
func (o *Option) Register(fs *pflag.FlagSet) {
	fs.StringVar(&o.Value, "api-key", "", "API key to send as a bearer token (default: $"+EnvVar+
		", else the server's own --api-key under run, else $OPENAI_API_KEY)")
}

// Resolve picks the key: the flag, $VIGIL_API_KEY, the server's own (argv
// and kind as launched; nil when vigil only watches), then
// $OPENAI_API_KEY.
func (o Option) Resolve(getenv func(string) string, kind string, argv []string) (string, Source) {
	if o.Value != "" {
		return o.Value, Flag
	}
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	if k := getenv(EnvVar); k != "" {
		return k, Env
	}
	if k, src := FromServer(kind, argv, getenv); k != "" {
		return k, src
	}
	if k := getenv("OPENAI_API_KEY"); k != "" {
		return k, OpenAI
	}
	return "", None
}

// serverEnv is the variable each server reads its key from when its
// command line has none.
var serverEnv = map[string]string{
	"vllm": "VLLM_API_KEY",
	"tgi":  "API_KEY",
}

// FromServer returns the key a server was started with: --api-key VALUE
// or --api-key=VALUE (SGLang, vLLM, TensorRT-LLM, llama-server, TGI; the
// first when repeated, the first of a comma list for llama-server),
// llama-server's --api-key-file (its first line), else the server's own
// variable in the environment it inherits (VLLM_API_KEY, TGI's API_KEY).
func FromServer(kind string, argv []string, getenv func(string) string) (string, Source) {
	for i := 0; i < len(argv); i++ {
		a := argv[i]
		if a == "--" {
			break
		}
		name, v, hasValue := strings.Cut(a, "=")
		if name != "--api-key" && name != "--api_key" && name != "--api-key-file" {
			continue
		}
		if !hasValue {
			if i+1 >= len(argv) || strings.HasPrefix(argv[i+1], "-") {
				continue
			}
			v = argv[i+1]
			i++
		}
		if name == "--api-key-file" {
			v = firstLine(v)
		} else if kind == "llamacpp" {
			v, _, _ = strings.Cut(v, ",")
		}
		if v = strings.TrimSpace(v); v != "" {
			return v, Server
		}
	}
	if getenv != nil {
		if name, ok := serverEnv[kind]; ok {
			if k := getenv(name); k != "" {
				return k, ServerEn
			}
		}
	}
	return "", None
}

func firstLine(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if l := strings.TrimSpace(sc.Text()); l != "" {
			return l
		}
	}
	return ""
}
