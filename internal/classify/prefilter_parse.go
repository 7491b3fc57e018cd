package classify

import (
	"strings"

	"vigil/internal/ansi"
)

// ParseFast takes a line of server output apart. It recognises the
// prefixes of SGLang, vLLM, TensorRT-LLM, TGI, llama.cpp, uvicorn and
// torch's C++ logs, in any combination that these servers print them.
//
// It returns exactly what the simple reference parser of the tests returns
// (FuzzParse compares the two): the prefixes that nearly every line
// carries (vLLM's process tag and header, SGLang's stamp and ranks,
// uvicorn's level) are taken apart by hand, and every other pattern's
// regular expression only runs when the line starts the way that pattern
// needs. A line with no prefix at all costs a few byte comparisons.
func ParseFast(line string) Parsed {
	line = ansi.Strip(line)
	p := Parsed{Raw: line}
	// strings.TrimRight(line, " \t") by hand: it builds its byte set on
	// every call.
	msg := trimBlanksRight(line)
	if strings.HasPrefix(msg, "{\"") {
		if inner, stamp, ok := CutDockerJSON(msg); ok {
			// The container's line is parsed as any line; the runtime's
			// time stamps it, as docker logs -t's does.
			q := ParseFast(inner)
			if stamp != "" {
				q.Stamp, q.StampKind = stamp, "iso"
			}
			return q
		}
		if m, level, stamp, source, ok := CutJSON(msg); ok {
			p.Msg, p.Level, p.Source = m, level, source
			if stamp != "" {
				p.Stamp, p.StampKind = stamp, "iso"
			}
			return p
		}
	}
	if MayHaveContainer(msg) {
		var n int
		n, p.Stamp, p.StampKind = CutContainer(msg)
		msg = msg[n:]
	}
	if task, n := CutSrunLabel(msg); n > 0 {
		p.Source = "task " + task
		msg = msg[n:]
	}
	if strings.HasPrefix(msg, "[") {
		if port, n := cutRouterPort(msg); n > 0 {
			p.Source = "port " + port
			msg = msg[n:]
		}
	}
	// Ray's driver re-prints a remote actor's lines under its own tag
	// ("(APIServer pid=5332) (DPEngineCoreActor pid=5862) INFO ..."): the
	// innermost tag names the process.
	for range 2 {
		if !strings.HasPrefix(msg, "(") {
			break
		}
		src, n, ok := cutVLLMProc(msg)
		if !ok {
			break
		}
		p.Source = src
		msg = msg[n:]
	}
	if p.Source != "" && strings.HasPrefix(msg, " ") {
		// Users' logs show an ERROR line's header a space further than
		// the tag's own ("(VllmWorker rank=2 pid=9320)  ERROR 05-17
		// ..."): the header still is one. (Other spaces there indent a
		// traceback's frame and stay.)
		if t := strings.TrimLeft(msg, " "); len(t) > 0 && t[0] >= 'C' && t[0] <= 'W' {
			if _, _, _, ok := cutVLLMHeader(t); ok {
				msg = t
			}
		}
	}
	switch {
	case strings.HasPrefix(msg, "INFO") || strings.HasPrefix(msg, "WARNING") || strings.HasPrefix(msg, "ERROR") ||
		strings.HasPrefix(msg, "DEBUG") || strings.HasPrefix(msg, "CRITICAL"):
		if level, stamp, n, ok := cutVLLMHeader(msg); ok {
			p.Level = levelName(level)
			p.Stamp, p.StampKind = stamp, "vllm"
			msg = msg[n:]
		} else if level := levelWord(msg, ' '); level != "" {
			// A level before a Python logger's local time: Ray Serve's
			// "ERROR 2025-05-23 00:42:04,876 default_... -- ...",
			// InstructLab's "INFO 2025-03-19 08:17:28,422 instructlab...".
			if k := LocalDateTime(msg[len(level)+1:]); k > 0 {
				p.Level = levelName(level)
				p.Stamp, p.StampKind = msg[len(level)+1:len(level)+1+k], "sglang"
				msg = msg[len(level)+k+2:]
			}
		}
	case strings.HasPrefix(msg, "[20") || strings.HasPrefix(msg, "[19"):
		if stamp, ranks, n, ok := cutSGLangHeader(msg); ok {
			p.Stamp, p.StampKind = stamp, "sglang"
			if r := strings.TrimSpace(ranks); r != "" {
				p.Source = r
			}
			msg = msg[n:]
		}
	case strings.HasPrefix(msg, "[gpu_id="):
		if gpu, n, ok := cutGPUID(msg); ok {
			p.Source = "GPU" + gpu
			msg = msg[n:]
		}
	case len(msg) > 20 && msg[4] == '-' && msg[10] == 'T':
		if stamp, level, n, ok := cutTGIHeader(msg); ok {
			p.Stamp, p.StampKind = stamp, "iso"
			p.Level = levelName(level)
			msg = msg[n:]
			// (A " rank=" that digits alone follow holds the last "=".)
			if i := strings.LastIndexByte(msg, '=') - 5; i >= 0 && msg[i:i+6] == " rank=" && isDigits(msg[i+6:]) {
				p.Source = "rank " + msg[i+6:]
				msg = msg[:i]
			}
		}
	}
	if strings.HasPrefix(msg, "[") {
		if stamp, rank, level, n, ok := cutTRTHeader(msg); ok {
			if stamp != "" {
				p.Stamp, p.StampKind = stamp, "trtllm"
			}
			if rank != "" {
				p.Source = rank
			}
			p.Level = levelName(level)
			msg = msg[n:]
		} else if m := mayMatch(strings.HasPrefix(msg, "[TensorRT-LLM]["), trtCppRe.Get().FindStringSubmatch, msg); m != nil {
			p.Level = levelName(m[1])
			msg = msg[len(m[0]):]
		} else if m := mayMatch(mayGlog(msg), glogRe.Get().FindStringSubmatch, msg); m != nil {
			if m[1] != "" && p.Source == "" {
				p.Source = "rank" + m[1]
			}
			p.Level = levelName(m[2])
			msg = msg[len(m[0]):]
		}
	}
	if level, n, ok := cutUvicorn(msg); ok {
		p.Level = levelName(level)
		msg = msg[n:]
	} else if p.Level == "" && len(msg) > 2 && msg[1] == ' ' || len(msg) > 14 && isDigit(msg[0]) {
		// llamaPrefixRe needs "X " with X one of IWED, or a leading digit.
		if strings.IndexByte("IWED", msg[0]) >= 0 && msg[1] == ' ' || isDigit(msg[0]) {
			msg = cutLlama(&p, msg)
		}
	}
	if p.Level == "" && len(msg) > 4 && strings.IndexByte("sqrc", msg[0]) >= 0 {
		if n := cutLlamaBareTag(msg); n > 0 {
			msg = msg[n:]
		}
	}
	if p.Level == "" && strings.Contains(msg, "Warning: ") && pyWarningRe.Get().MatchString(msg) {
		p.Level = "warning"
	}
	p.Msg = msg
	return p
}

func mayMatch(ok bool, find func(string) []string, s string) []string {
	if !ok {
		return nil
	}
	return find(s)
}

// trimBlanksRight is strings.TrimRight(s, " \t").
func trimBlanksRight(s string) string {
	n := len(s)
	for n > 0 && (s[n-1] == ' ' || s[n-1] == '\t') {
		n--
	}
	return s[:n]
}

func isDigit(b byte) bool { return '0' <= b && b <= '9' }

func isLetter(b byte) bool { return 'a' <= b|0x20 && b|0x20 <= 'z' }

// MayHaveContainer is a cheap test that every line CutContainer cuts
// passes (explain asks it of every line of a log): a date first (a
// runtime's or Docker Desktop's stamp), a journal's "Mmm dd hh:mm:ss",
// or a first word and spaces before "|" (docker compose).
func MayHaveContainer(s string) bool {
	switch {
	case strings.HasPrefix(s, "[pod/"):
		return true
	case len(s) < 4 || !isDigit(s[0]) && !isLetter(s[0]):
		return false
	case isDigit(s[0]) && len(s) > 20 && s[4] == '-':
		return true
	case len(s) > 16 && s[3] == ' ' && s[9] == ':':
		return true
	}
	// docker compose: the service's name, spaces, "|" (a "|" further on,
	// as in llama-server's "slot ... id  0 | task 7", is no prefix).
	i := strings.IndexByte(s, ' ')
	if i <= 0 {
		return false
	}
	for i < len(s) && s[i] == ' ' {
		i++
	}
	return i < len(s) && s[i] == '|'
}

// CutContainer is the length of what a container runtime or the journal
// puts before a server's line, and the stamp it carries: docker compose's
// service ("qwen3.5-9b  | "), then kubectl's or docker's --timestamps
// ("2026-09-22T06:49:56.336833841Z ", unless a level follows: that is
// TGI's own header) or Docker Desktop's time ("2026-05-01 18:57:24.911 | ",
// or "2025-02-04 21:21:40 ");
// or journalctl's ("Aug 23 18:09:57 dgx vllm.sh[742182]: ").
func CutContainer(s string) (n int, stamp, kind string) {
	if k, t, kind := journalPrefix(s); k > 0 {
		return k, s[:t], kind
	}
	_, n = ComposeService(s)
	r := s[n:]
	if pattern(r, "9999-99-99T99:99:99") {
		k := 19
		if k < len(r) && r[k] == '.' && k+1 < len(r) && isDigit(r[k+1]) {
			k += 1 + digits(r[k+1:])
		}
		switch {
		case k < len(r) && r[k] == 'Z':
			k++
		case k < len(r) && (r[k] == '+' || r[k] == '-') && pattern(r[k+1:], "99:99"):
			k += 6 // CRI-O's and podman's local time
		default:
			return n, "", ""
		}
		if k < len(r) && r[k] == ' ' && !tgiLevelAt(r[k+1:]) {
			m := k + 1
			// A node's container log (the CRI format, as in
			// /var/log/containers): the stream, and F for a full line or
			// P for part of a longer one.
			if len(r) >= m+9 && (r[m:m+7] == "stdout " || r[m:m+7] == "stderr ") && (r[m+7] == 'F' || r[m+7] == 'P') && r[m+8] == ' ' {
				m += 9
			}
			return n + m, r[:k], "iso"
		}
	} else if pattern(r, "9999-99-99 99:99:99.999 | ") {
		return n + 26, r[:23], "sglang"
	} else if k := LocalDateTime(r); k > 0 && len(r) > k+1 {
		// Docker Desktop's log view without milliseconds (a user's log,
		// 2025-02: "2025-02-04 21:21:40 [2025-02-04 05:21:40 TP0] ..."),
		// and the local times that wrappers' Python loggers print:
		// NVIDIA NIM's "2024-07-23 22:27:23,428 [INFO] ...", Ray's
		// "2025-01-13 10:12:19,545\tINFO worker.py:...", KServe's
		// "2024-07-01 07:28:04.488 1 kserve ERROR ...".
		return n + k + 1, r[:k], "sglang"
	}
	return n, "", ""
}

// LocalDateTime is the length of the local date and time s opens with
// ("2024-07-23 22:27:23", with a fraction of a second after "." or ","
// as Python logging's asctime prints it) when a space or a tab follows
// it; 0 for none.
func LocalDateTime(s string) int {
	if !pattern(s, "9999-99-99 99:99:99") {
		return 0
	}
	k := 19
	if k+1 < len(s) && (s[k] == '.' || s[k] == ',') {
		if d := digits(s[k+1:]); d >= 1 && d <= 9 {
			k += 1 + d
		}
	}
	if k < len(s) && (s[k] == ' ' || s[k] == '\t') {
		return k
	}
	return 0
}

// ComposeService is the docker compose service a line is from
// ("qwen3.5-9b  | ...") and the length of that prefix, or "" and 0. The pod
// and container that kubectl logs --prefix puts before a line, in
// brackets ("[pod/vllm-7d9f8/vllm] ..."), name its stream the same way
// ("pod/vllm-7d9f8/vllm").
func ComposeService(s string) (name string, n int) {
	if strings.HasPrefix(s, "[pod/") {
		return kubectlPrefix(s)
	}
	// (The name is what comes before the first space; most lines have
	// none that "| " follows, and are passed over without reading it.)
	i := strings.IndexByte(s, ' ')
	if i <= 0 {
		return "", 0
	}
	j := i + 1
	for j < len(s) && s[j] == ' ' {
		j++
	}
	if !strings.HasPrefix(s[j:], "| ") || !serviceName(s[:i]) {
		return "", 0
	}
	return s[:i], j + 2
}

// cutRouterPort reads the port llama-server's router puts before a line
// of the model server it started (tools/server/server-models.cpp, LOG("[%5d]
// %s", port, ...)): "[35373] 0.19.885.338 I srv ...". Only before the
// child's own clock: other bracketed numbers are no port.
func cutRouterPort(s string) (port string, n int) {
	i := 1
	for i < len(s) && s[i] == ' ' {
		i++
	}
	d := digits(s[i:])
	if d == 0 || d > 5 || !strings.HasPrefix(s[i+d:], "] ") {
		return "", 0
	}
	if _, ok := RelativeTime(s[i+d+2:]); !ok {
		return "", 0
	}
	return s[i : i+d], i + d + 2
}

// journalPrefix is the length of journalctl's prefix, its time's length
// and that time's stamp kind; 0 for none. The prefix is the time, the
// host, the identifier (with its "[pid]") and ": "; the time is one of
// systemd's logs-show.c: short's "Aug 23 18:09:57" (the day padded with
// a space), short-precise's "Aug 23 18:09:57.123456", short-iso's
// "2026-08-23T18:09:57+02:00" (older: "+0200") and short-iso-precise's
// "2026-08-23T18:09:57.123456+02:00".
func journalPrefix(s string) (n, t int, kind string) {
	switch {
	case len(s) >= 20 && s[0] >= 'A' && s[0] <= 'Z' && s[1] >= 'a' && s[1] <= 'z' && s[2] >= 'a' && s[2] <= 'z' && s[3] == ' ' &&
		(s[4] == ' ' || isDigit(s[4])) && pattern(s[5:], "9 99:99:99"):
		t, kind = 15, "syslog"
	case pattern(s, "9999-99-99T99:99:99"):
		t, kind = 19, "iso"
	default:
		return 0, 0, ""
	}
	if t < len(s) && s[t] == '.' && digits(s[t+1:]) == 6 {
		t += 7
	}
	if kind == "iso" {
		// (Only with its zone: "Z" ends docker's and kubectl's stamps.)
		switch {
		case t < len(s) && (s[t] == '+' || s[t] == '-') && pattern(s[t+1:], "99:99"):
			t += 6
		case t < len(s) && (s[t] == '+' || s[t] == '-') && pattern(s[t+1:], "9999"):
			t += 5
		default:
			return 0, 0, ""
		}
	}
	if t+1 >= len(s) || s[t] != ' ' {
		return 0, 0, ""
	}
	host := strings.IndexByte(s[t+1:], ' ')
	if host <= 0 {
		return 0, 0, ""
	}
	rest := s[t+1+host+1:]
	end := strings.Index(rest, ": ")
	if end <= 0 || strings.IndexByte(rest[:end], ' ') >= 0 {
		return 0, 0, ""
	}
	return t + 1 + host + 1 + end + 2, t, kind
}

// kubectlPrefix reads kubectl logs --prefix's "[pod/POD/CONTAINER] "
// (kubectl's logs.go): the stream's name and the prefix's length.
func kubectlPrefix(s string) (name string, n int) {
	end := strings.Index(s, "] ")
	if end < 0 {
		return "", 0
	}
	pod, container, ok := strings.Cut(s[len("[pod/"):end], "/")
	if !ok || !serviceName(pod) || container != "" && !serviceName(container) {
		return "", 0
	}
	return s[1:end], end + 2
}

// serviceName reports whether s is a compose service's name: a letter or
// digit, then letters, digits, '_', '.' or '-'.
func serviceName(s string) bool {
	if s == "" || !isLetter(s[0]) && !isDigit(s[0]) {
		return false
	}
	for i := 1; i < len(s); i++ {
		if c := s[i]; !isLetter(c) && !isDigit(c) && c != '_' && c != '.' && c != '-' {
			return false
		}
	}
	return true
}

// tgiLevelAt reports whether s opens with TGI's padded level and a space.
func tgiLevelAt(s string) bool {
	if strings.HasPrefix(s, " ") {
		s = s[1:]
	}
	for _, l := range [...]string{"TRACE ", "DEBUG ", "INFO ", "WARN ", "ERROR "} {
		if strings.HasPrefix(s, l) {
			return true
		}
	}
	return false
}

// digits is the length of the run of ASCII digits at the start of s.
func digits(s string) int {
	n := 0
	for n < len(s) && isDigit(s[n]) {
		n++
	}
	return n
}

// pattern reports whether s starts with the shape pat, where '9' stands
// for a digit and any other byte for itself.
func pattern(s, pat string) bool {
	if len(s) < len(pat) {
		return false
	}
	for i := 0; i < len(pat); i++ {
		if pat[i] == '9' {
			if !isDigit(s[i]) {
				return false
			}
		} else if s[i] != pat[i] {
			return false
		}
	}
	return true
}

// cutTGIHeader matches tgiHeaderRe,
// `^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z)\s+(TRACE|DEBUG|INFO|WARN|ERROR)\s+`
// then targets (`(?:(?:shard-manager|download|webserver|warmup|\w*text_generation\w*(?:::\w+)*): )*`)
// and a source position (`(?:[\w/.-]+\.rs:\d+: )?`). Every part has one
// way to match: a word ends at a byte that is no word byte, so the
// regexp's backtracking never finds a shorter match that works.
func cutTGIHeader(msg string) (stamp, level string, n int, ok bool) {
	if !pattern(msg, "9999-99-99T99:99:99") {
		return
	}
	i := 19
	if i < len(msg) && msg[i] == '.' {
		if d := digits(msg[i+1:]); d > 0 {
			i += 1 + d
		}
	}
	if i >= len(msg) || msg[i] != 'Z' {
		return
	}
	i++
	stamp = msg[:i]
	sp := spaces(msg[i:])
	if sp == 0 {
		return "", "", 0, false
	}
	i += sp
	for _, l := range [...]string{"TRACE", "DEBUG", "INFO", "WARN", "ERROR"} {
		if strings.HasPrefix(msg[i:], l) {
			level = l
			break
		}
	}
	if level == "" {
		return "", "", 0, false
	}
	i += len(level)
	sp = spaces(msg[i:])
	if sp == 0 {
		return "", "", 0, false
	}
	i += sp
	for {
		t := tgiTarget(msg[i:])
		if t == 0 || !strings.HasPrefix(msg[i+t:], ": ") {
			break
		}
		i += t + 2
	}
	return stamp, level, i + tgiSource(msg[i:]), true
}

// tgiTarget is the length of the target at the start of s (0: none), as
// the first alternative of tgiHeaderRe's target that is followed by ": ".
func tgiTarget(s string) int {
	for _, w := range [...]string{"shard-manager", "download", "webserver", "warmup"} {
		if strings.HasPrefix(s, w) && strings.HasPrefix(s[len(w):], ": ") {
			return len(w)
		}
	}
	// \w*text_generation\w*: a word holding text_generation, then
	// (::\w+)*: more words after "::".
	n := words(s)
	if !strings.Contains(s[:n], "text_generation") {
		return 0
	}
	for strings.HasPrefix(s[n:], "::") {
		w := words(s[n+2:])
		if w == 0 {
			break
		}
		n += 2 + w
	}
	return n
}

// tgiSource is the length of a source position ("router/src/server.rs:1812: ")
// at the start of s, or 0.
func tgiSource(s string) int {
	n := 0
	for n < len(s) && (isWordByte(s[n]) || s[n] == '/' || s[n] == '.' || s[n] == '-') {
		n++
	}
	if n < 4 || s[n-3:n] != ".rs" || n >= len(s) || s[n] != ':' {
		return 0
	}
	d := digits(s[n+1:])
	if d == 0 || !strings.HasPrefix(s[n+1+d:], ": ") {
		return 0
	}
	return n + 1 + d + 2
}

// words is the length of the run of \w bytes at the start of s.
func words(s string) int {
	n := 0
	for n < len(s) && isWordByte(s[n]) {
		n++
	}
	return n
}

func isWordByte(b byte) bool {
	return isDigit(b) || 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' || b == '_'
}

// spaces is the length of the run of \s bytes at the start of s.
func spaces(s string) int {
	n := 0
	for n < len(s) && isSpace(s[n]) {
		n++
	}
	return n
}

// cutVLLMProc matches vllmProcRe, `^\((?:([^()]*?) )?pid=(\d+)(?:, ip=[^()\s]+)?\) ?`:
// the tag ends at the first parenthesis after the opening one, and its
// content ends with "pid=" and digits, after a space unless it is all of
// it. A tag without a name is named by its pid.
func cutVLLMProc(msg string) (src string, n int, ok bool) {
	k := 1
	for k < len(msg) && msg[k] != '(' && msg[k] != ')' {
		k++
	}
	if k == len(msg) || msg[k] != ')' {
		return "", 0, false
	}
	seg := msg[1:k]
	// Ray names the node of a remote actor: "(RayWorkerWrapper pid=2301,
	// ip=10.233.64.12) ".
	if j := strings.LastIndex(seg, ", ip="); j >= 0 && j+5 < len(seg) && strings.IndexByte(seg[j+5:], ' ') < 0 {
		seg = seg[:j]
	}
	// The last " pid=" that digits alone follow is where the last "="
	// is. A Ray task has no actor's name: "(pid=13210) INFO ...".
	i := strings.LastIndexByte(seg, '=') - 4
	switch {
	case i == -1 && strings.HasPrefix(seg, "pid="):
	case i < 0 || seg[i:i+5] != " pid=":
		return "", 0, false
	}
	d := seg[i+5:]
	if d == "" || digits(d) != len(d) {
		return "", 0, false
	}
	n = k + 1
	if n < len(msg) && msg[n] == ' ' {
		n++
	}
	if i <= 0 {
		return "pid " + d, n, true
	}
	return seg[:i], n, true
}

// cutVLLMHeader matches vllmHeaderRe,
// `^(DEBUG|INFO|WARNING|ERROR|CRITICAL) (\d\d-\d\d \d\d:\d\d:\d\d)(?:\.\d+)? \[?[^\]\s:]+:\d+\] ?`.
func cutVLLMHeader(msg string) (level, stamp string, n int, ok bool) {
	level = levelWord(msg, ' ')
	if level == "" {
		return
	}
	i := len(level) + 1
	if !pattern(msg[i:], "99-99 99:99:99") {
		return "", "", 0, false
	}
	stamp = msg[i : i+14]
	i += 14
	if i < len(msg) && msg[i] == '.' {
		if d := digits(msg[i+1:]); d > 0 {
			i += 1 + d
		}
	}
	if i >= len(msg) || msg[i] != ' ' {
		return "", "", 0, false
	}
	i++
	// "\[?[^\]\s:]+": "[" is itself in the class, so with or without the
	// optional bracket the run ends at the same place; it must not be empty.
	j := i
	if j < len(msg) && msg[j] == '[' {
		j++
	}
	for j < len(msg) && msg[j] != ']' && msg[j] != ':' && !isSpace(msg[j]) {
		j++
	}
	if j == i || j >= len(msg) || msg[j] != ':' {
		return "", "", 0, false
	}
	j++
	d := digits(msg[j:])
	if d == 0 || j+d >= len(msg) || msg[j+d] != ']' {
		return "", "", 0, false
	}
	n = j + d + 1
	if n < len(msg) && msg[n] == ' ' {
		n++
	}
	return level, stamp, n, true
}

// cutSGLangHeader matches sglangHeaderRe,
// `^\[(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(?:\.\d{1,6})?)((?: [A-Z_]+\d+)*)\] ?`.
func cutSGLangHeader(msg string) (stamp, ranks string, n int, ok bool) {
	if !pattern(msg, "[9999-99-99 99:99:99") {
		return
	}
	i := 20
	if i < len(msg) && msg[i] == '.' {
		// More than six digits cannot be followed by " " or "]".
		d := digits(msg[i+1:])
		if d < 1 || d > 6 {
			return "", "", 0, false
		}
		i += 1 + d
	}
	stamp = msg[1:i]
	r := i
	for i < len(msg) && msg[i] == ' ' {
		j := i + 1
		for j < len(msg) && (msg[j] >= 'A' && msg[j] <= 'Z' || msg[j] == '_') {
			j++
		}
		if j == i+1 {
			return "", "", 0, false
		}
		d := digits(msg[j:])
		if d == 0 {
			return "", "", 0, false
		}
		i = j + d
	}
	if i >= len(msg) || msg[i] != ']' {
		return "", "", 0, false
	}
	ranks = msg[r:i]
	n = i + 1
	if n < len(msg) && msg[n] == ' ' {
		n++
	}
	return stamp, ranks, n, true
}

// cutGPUID matches sglangGPURe, `^\[gpu_id=(\d+)\] ?`.
func cutGPUID(msg string) (gpu string, n int, ok bool) {
	i := len("[gpu_id=")
	d := digits(msg[i:])
	if d == 0 || i+d >= len(msg) || msg[i+d] != ']' {
		return "", 0, false
	}
	n = i + d + 1
	if n < len(msg) && msg[n] == ' ' {
		n++
	}
	return msg[i : i+d], n, true
}

// cutUvicorn matches uvicornRe, `^(DEBUG|INFO|WARNING|ERROR|CRITICAL):\s+`.
func cutUvicorn(msg string) (level string, n int, ok bool) {
	level = levelWord(msg, ':')
	if level == "" {
		return "", 0, false
	}
	n = len(level) + 1
	if n >= len(msg) || !isSpace(msg[n]) {
		return "", 0, false
	}
	for n < len(msg) && isSpace(msg[n]) {
		n++
	}
	return level, n, true
}

// cutTRTHeader matches trtHeaderRe,
// `^(?:\[(\d\d/\d\d/\d{4}-\d\d:\d\d:\d\d)\] )?\[TRT-LLM(?: AUTO-DEPLOY)?\] (?:\[((?:MPI_Rank|RANK) \d+)\] )?\[([FEWIV])\](?: \[[a-z_][a-z0-9_]*\](?:\[(RANK \d+)\])? )? ?`,
// by hand: it returns the stamp, the rank (either rank submatch) and the
// level submatches and the match's length. (A stamp or rank that is there but not followed by
// the rest fails the match: without it, the text in its place is no
// "[TRT-LLM] " or level.) Every TensorRT-LLM line passes here, and the
// expression's submatches cost a backtracking run and an allocation.
func cutTRTHeader(msg string) (stamp, rank, level string, n int, ok bool) {
	s := msg
	if len(s) >= 22 && s[0] == '[' && pattern(s[1:], "99/99/9999-99:99:99] ") {
		stamp, s = s[1:20], s[22:]
	}
	switch {
	case strings.HasPrefix(s, "[TRT-LLM] "):
		s = s[len("[TRT-LLM] "):]
	case strings.HasPrefix(s, "[TRT-LLM AUTO-DEPLOY] "):
		s = s[len("[TRT-LLM AUTO-DEPLOY] "):]
	default:
		return "", "", "", 0, false
	}
	for _, tag := range [...]string{"[MPI_Rank ", "[RANK "} {
		if strings.HasPrefix(s, tag) {
			if d := digits(s[len(tag):]); d > 0 && strings.HasPrefix(s[len(tag)+d:], "] ") {
				rank, s = s[1:len(tag)+d], s[len(tag)+d+2:]
			}
			break
		}
	}
	if len(s) < 3 || s[0] != '[' || strings.IndexByte("FEWIV", s[1]) < 0 || s[2] != ']' {
		return "", "", "", 0, false
	}
	level, s = s[1:2], s[3:]
	if _, r, k := trtModuleTag(s); k > 0 {
		s = s[k:]
		if rank == "" {
			rank = r
		}
	}
	if s != "" && s[0] == ' ' {
		s = s[1:]
	}
	return stamp, rank, level, len(msg) - len(s), true
}

// cutLlamaBareTag reads llama.cpp's module tag at the start of a line
// that has no prefix (--no-log-prefix: "srv  llama_server: model loaded",
// "cmn          init: ..."): llamaBareTagRe. It returns the length of the
// tag and its spaces, 0 when msg does not start with one.
func cutLlamaBareTag(msg string) int {
	for _, tag := range [...]string{"srv", "slot", "que", "res", "cmn", "spec"} {
		if !strings.HasPrefix(msg, tag+" ") {
			continue
		}
		i := len(tag)
		for i < len(msg) && msg[i] == ' ' {
			i++
		}
		j := i
		for j < len(msg) && (isLetter(msg[j]) || isDigit(msg[j]) || msg[j] == '_') {
			j++
		}
		if j > i && j < len(msg) && msg[j] == ':' {
			return i
		}
		return 0
	}
	return 0
}

// CutSrunLabel reads the label Slurm's srun --label puts before each
// task's line ("0: ", padded to the widest task number: " 3: "), when a
// bracketed header follows it ("0: [08/04/2026-19:08:13] [TRT-LLM] ...",
// multi-node TensorRT-LLM's and SGLang's Slurm logs): srunLabelRe. It
// returns the task number and the label's length, 0 when there is none.
func CutSrunLabel(msg string) (task string, n int) {
	i := 0
	for i < len(msg) && i < 6 && msg[i] == ' ' {
		i++
	}
	d := digits(msg[i:])
	if d == 0 || d > 5 || !strings.HasPrefix(msg[i+d:], ": [") {
		return "", 0
	}
	return msg[i : i+d], i + d + 2
}

// trtModuleTag reads the logger's module tag that TensorRT-LLM 1.3 puts
// after the level, with the rank after it ("[I] [_torch][RANK 0] ...",
// "[E] [executor] ..."): ` \[[a-z_][a-z0-9_]*\](?:\[(RANK \d+)\])? `.
// It returns the tag, the rank ("RANK 0" or "") and the length read, 0
// when s does not start with one.
func trtModuleTag(s string) (tag, rank string, n int) {
	if len(s) < 4 || s[0] != ' ' || s[1] != '[' || !(s[2] == '_' || s[2] >= 'a' && s[2] <= 'z') {
		return "", "", 0
	}
	i := 3
	for i < len(s) && (s[i] == '_' || s[i] >= 'a' && s[i] <= 'z' || isDigit(s[i])) {
		i++
	}
	if i >= len(s) || s[i] != ']' {
		return "", "", 0
	}
	tag = s[2:i]
	i++
	if strings.HasPrefix(s[i:], "[RANK ") {
		if d := digits(s[i+6:]); d > 0 && i+6+d < len(s) && s[i+6+d] == ']' {
			rank = s[i+1 : i+6+d]
			i += 7 + d
		}
	}
	if i >= len(s) || s[i] != ' ' {
		return "", "", 0
	}
	return tag, rank, i + 1
}

// mayGlog: glogRe needs "[rank" or "[" with a level letter and a digit.
func mayGlog(msg string) bool {
	return strings.HasPrefix(msg, "[rank") || len(msg) > 2 && strings.IndexByte("IWEF", msg[1]) >= 0 && isDigit(msg[2])
}

// levelWord is the level name msg starts with, followed by sep, or "".
func levelWord(msg string, sep byte) string {
	if msg == "" {
		return ""
	}
	var l string
	switch msg[0] {
	case 'D':
		l = "DEBUG"
	case 'I':
		l = "INFO"
	case 'W':
		l = "WARNING"
	case 'E':
		l = "ERROR"
	case 'C':
		l = "CRITICAL"
	default:
		return ""
	}
	if len(msg) > len(l) && msg[len(l)] == sep && msg[:len(l)] == l {
		return l
	}
	return ""
}
