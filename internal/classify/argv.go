package classify

import (
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"vigil/internal/endpoint"
)

// What the servers' command lines say about their address and model, as
// data: the flags are the same across servers (TGI spells the host
// --hostname), so one table serves every profile; the default port is the
// profile's.
var (
	hostFlags  = []string{"--host", "--hostname"}
	portFlags  = []string{"--port"}
	modelFlags = []string{"--model-path", "--model", "--model-id", "--model_path", "--model_id", "--hf-repo", "-hf"}
	// modelFileFlags name a model only with a .gguf file after them
	// (llama.cpp's -m; python's "-m module" is not a model).
	modelFileFlags = []string{"-m", "--model-file"}
	// fallbackPort is the port of a server whose kind is not known.
	fallbackPort = 8000
)

// GuessURL finds the server's URL in its command line: its host and port
// flags, else the variables its kind reads them from (Profile.PortEnv,
// HostEnv: an "env NAME=VALUE" before the command, else getenv, the
// environment the server is started with; nil when it is not known),
// else the kind's default port on 127.0.0.1. Wildcard addresses become
// 127.0.0.1. dir is the server's working directory, which a relative
// socket path is read from ("" when it is vigil's own, as for a server
// vigil launches).
func GuessURL(kind string, argv []string, getenv func(string) string, dir string) string {
	host, port := "127.0.0.1", 0
	pr := Lookup(kind)
	if v := envValue(pr.HostEnv, argv, getenv); v != "" && v != "0.0.0.0" && v != "::" && v != "[::]" {
		host = v
	}
	if n, err := strconv.Atoi(envValue(pr.PortEnv, argv, getenv)); err == nil && n > 0 {
		port = n
	}
	for i := 0; i < len(argv); i++ {
		name, val, hasVal := strings.Cut(argv[i], "=")
		if !hasVal && i+1 < len(argv) {
			val = argv[i+1]
		}
		switch {
		case slices.Contains(hostFlags, name):
			if val != "" && val != "0.0.0.0" && val != "::" && val != "[::]" {
				host = val
			}
		case slices.Contains(portFlags, name):
			if n, err := strconv.Atoi(val); err == nil {
				port = n
			}
		}
	}
	if sock := socketPath(pr, argv, host, dir); sock != "" {
		return endpoint.SocketURL(sock, pathPrefix(pr, argv, getenv))
	}
	if port == 0 {
		port = Lookup(kind).DefaultPort
		if port == 0 {
			port = fallbackPort
		}
	}
	if strings.Contains(host, ":") && !strings.HasPrefix(host, "[") {
		host = "[" + host + "]"
	}
	return fmt.Sprintf("http://%s:%d", host, port) + pathPrefix(pr, argv, getenv)
}

// pathPrefix is the path argv (or the environment) has the server serve
// its routes under (Profile.PrefixFlag), as "/llm", or "".
func pathPrefix(pr *Profile, argv []string, getenv func(string) string) string {
	if pr.PrefixFlag == "" {
		return ""
	}
	prefix := envValue(pr.PrefixEnv, argv, getenv)
	if val, ok := lastFlagValue(argv, pr.PrefixFlag); ok {
		prefix = val
	}
	prefix = strings.TrimRight(prefix, "/")
	if prefix == "" || strings.ContainsAny(prefix, "?# \t") {
		return ""
	}
	if prefix[0] != '/' {
		prefix = "/" + prefix
	}
	return prefix
}

// socketPath is the Unix socket argv puts the server on, as an absolute
// path (a relative one is taken from dir, or from vigil's working
// directory when dir is ""), or "".
func socketPath(pr *Profile, argv []string, host, dir string) string {
	path := ""
	if pr.SocketFlag != "" {
		path, _ = lastFlagValue(argv, pr.SocketFlag)
	}
	if path == "" && pr.HostSocket && strings.HasSuffix(host, ".sock") {
		path = host
	}
	if path == "" {
		return ""
	}
	if dir != "" && !filepath.IsAbs(path) {
		path = filepath.Join(dir, path)
	}
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	return path
}

// PicksAnyPort reports whether argv asks for port 0, which has the kernel
// pick a free port (llama-server --port 0): the guessed URL's port is then
// only a default, and the server prints the one it got.
func PicksAnyPort(argv []string) bool {
	for i := 0; i < len(argv); i++ {
		name, val, hasVal := strings.Cut(argv[i], "=")
		if !hasVal && i+1 < len(argv) {
			val = argv[i+1]
		}
		if slices.Contains(portFlags, name) {
			return val == "0"
		}
	}
	return false
}

// envValue is the value of the variable name for a command: from an
// "env NAME=VALUE" word of argv, else from getenv; "" for none.
func envValue(name string, argv []string, getenv func(string) string) string {
	if name == "" {
		return ""
	}
	for _, a := range argv {
		if k, v, ok := strings.Cut(a, "="); ok && k == name {
			return v
		}
	}
	if getenv != nil {
		return getenv(name)
	}
	return ""
}

// ModelFromArgv finds the model a server command line serves: a model flag
// (SGLang's --model-path, vLLM's and trtllm-serve's --model or "serve
// MODEL", TGI's --model-id, llama.cpp's -hf), else a .gguf file after -m.
func ModelFromArgv(argv []string) string {
	value := func(i int, a string) string {
		if _, v, ok := strings.Cut(a, "="); ok {
			return v
		}
		if i+1 < len(argv) {
			return argv[i+1]
		}
		return ""
	}
	for i, a := range argv {
		name, _, _ := strings.Cut(a, "=")
		switch {
		case slices.Contains(modelFlags, name):
			return value(i, a)
		case name == "serve":
			if i+1 < len(argv) && !strings.HasPrefix(argv[i+1], "-") {
				return argv[i+1]
			}
		}
	}
	for i, a := range argv {
		if slices.Contains(modelFileFlags, a) && i+1 < len(argv) && strings.HasSuffix(argv[i+1], ".gguf") {
			return argv[i+1]
		}
	}
	return ""
}

// lastFlagValue is the value of flag's last "--x V" or "--x=V" in argv,
// which is the one a server's argument parser keeps.
func lastFlagValue(argv []string, flag string) (val string, ok bool) {
	for i, a := range argv {
		name, v, hasVal := strings.Cut(a, "=")
		if name != flag {
			continue
		}
		if !hasVal {
			v = ""
			if i+1 < len(argv) {
				v = argv[i+1]
			}
		}
		val, ok = v, true
	}
	return val, ok
}

// FlagValue finds "--x V", "--x=V" (and the underscore spelling) in argv.
func FlagValue(argv []string, flag string) (string, bool) {
	alt := "--" + strings.ReplaceAll(strings.TrimPrefix(flag, "--"), "-", "_")
	for i, a := range argv {
		for _, f := range []string{flag, alt} {
			if a == f && i+1 < len(argv) {
				return argv[i+1], true
			}
			if strings.HasPrefix(a, f+"=") {
				return a[len(f)+1:], true
			}
		}
	}
	return "", false
}

// ServesNoHTTP reports whether argv starts the server in a mode with no
// HTTP endpoint at all (trtllm-serve --grpc): nothing to probe, nothing
// to send a smoke request to.
func ServesNoHTTP(kind string, argv []string) bool {
	p := Lookup(kind)
	if p == nil || p.NoHTTPFlag == "" {
		return false
	}
	return slices.Contains(argv, p.NoHTTPFlag)
}

// ReadyLineHidden reports whether argv sets the server's log level above
// info, which hides its ready line (an info line).
func ReadyLineHidden(p *Profile, argv []string) bool {
	if p == nil || p.LogLevelFlag == "" {
		return false
	}
	level, ok := FlagValue(argv, p.LogLevelFlag)
	if !ok {
		return false
	}
	switch strings.ToLower(level) {
	case "warning", "warn", "error", "critical", "fatal":
		return true
	}
	return false
}
