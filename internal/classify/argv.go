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

// What a model that generates no text serves (PoolingOf).
const (
	Embedding = "embed" // embeddings, or nothing judged (a classifier)
	Ranking   = "rank"  // a ranking of documents
)

// PoolingOf reports whether argv (or the environment: an "env NAME=VALUE"
// word, else getenv, which may be nil) starts the server with a model
// that generates no text (Profile.PoolingFlags, RankingFlags): Ranking,
// Embedding, or "" for a model that generates text or is not known to
// be. It reads kind's profile, or every profile when kind is not known.
func PoolingOf(kind string, argv []string, getenv func(string) string) string {
	profiles := []*Profile{Lookup(kind)}
	if _, known := Profiles[kind]; !known {
		profiles = builtins[:]
	}
	set := func(names []string) bool {
		for _, name := range names {
			switch envValue(name, argv, getenv) {
			case "1", "true", "on", "enabled":
				return true
			}
		}
		return false
	}
	pooling := ""
	for _, pr := range profiles {
		if flagAmong(argv, pr.RankingFlags) != "" || set(pr.RankingEnv) {
			return Ranking
		}
		if flagAmong(argv, pr.PoolingFlags) != "" || set(pr.PoolingEnv) {
			pooling = Embedding
		}
	}
	return pooling
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

// shells run a server given to them as a script with -c: vigil run --
// bash -c "source venv/bin/activate && exec vllm serve M --port 9000".
var shells = map[string]bool{"sh": true, "bash": true, "dash": true, "zsh": true, "ksh": true}

// ServerArgv is the server's own command line within argv: argv itself,
// or, for a shell given a script with -c, the words of the script's
// command that names a server (else of its last command). It is what the
// guesses read (the kind, the address, the model, the API key); argv is
// what is launched and shown.
func ServerArgv(argv []string) []string {
	if len(argv) < 3 || !shells[filepath.Base(argv[0])] {
		return argv
	}
	script, ok := "", false
	for i := 1; i < len(argv)-1 && !ok; i++ {
		a := argv[i]
		switch {
		case len(a) > 1 && a[0] == '-' && a[1] != '-' && strings.HasSuffix(a, "c"): // -c, -lc, -ec
			script, ok = argv[i+1], true
		case !strings.HasPrefix(a, "-"):
			return argv // a script file
		}
	}
	cmds := shellCommands(script)
	if !ok || len(cmds) == 0 {
		return argv
	}
	for _, c := range cmds {
		if DetectCommand(c) != "" {
			return c
		}
	}
	return cmds[len(cmds)-1]
}

// shellCommands splits a shell script into its simple commands' words,
// with the shell's quoting: '...' literal, "..." and a backslash escaping
// the next byte; ;, &, |, && and || and newlines end a command (an & after
// > or < is a redirection's: 2>&1). Variables and substitutions are left
// as written: a guess reads only what the script spells out.
func shellCommands(script string) [][]string {
	var cmds [][]string
	var words []string
	var word strings.Builder
	inWord := false
	endWord := func() {
		if inWord {
			words = append(words, word.String())
			word.Reset()
			inWord = false
		}
	}
	endCmd := func() {
		endWord()
		if len(words) > 0 {
			cmds = append(cmds, words)
			words = nil
		}
	}
	for i := 0; i < len(script); i++ {
		c := script[i]
		switch {
		case c == '\'':
			inWord = true
			j := strings.IndexByte(script[i+1:], '\'')
			if j < 0 {
				j = len(script) - i - 1
			}
			word.WriteString(script[i+1 : i+1+j])
			i += j + 1
		case c == '"':
			inWord = true
			for i++; i < len(script) && script[i] != '"'; i++ {
				if script[i] == '\\' && i+1 < len(script) && strings.IndexByte(`"\$`+"`", script[i+1]) >= 0 {
					i++
				}
				word.WriteByte(script[i])
			}
		case c == '\\' && i+1 < len(script):
			inWord = true
			i++
			word.WriteByte(script[i])
		case c == '&' && inWord && (strings.HasSuffix(word.String(), ">") || strings.HasSuffix(word.String(), "<")):
			word.WriteByte(c)
		case c == ';' || c == '&' || c == '|' || c == '\n':
			endCmd()
		case c == ' ' || c == '\t':
			endWord()
		default:
			inWord = true
			word.WriteByte(c)
		}
	}
	endCmd()
	return cmds
}
