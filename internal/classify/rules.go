// Package classify recognises what an LLM inference server's log lines mean:
// which startup phase a line marks, how far a progress bar has got, whether a
// line is a failure (and of which cause), a benign look-alike, or the ready
// signal. The knowledge lives in per-server profiles that are plain data.
//
// Every rule names literals that any match must contain; one Aho-Corasick
// automaton per profile (prefilter.go) finds them all in one pass, and a
// rule's regular expression only runs on a line where its literal occurred.
// One big alternation would be about 100 times slower.
package classify

import (
	"strconv"
	"strings"

	"vigil/internal/verdict"
)

// Matcher matches a line: one of its literals must occur in the message,
// then Re (if set) must match it. The literal test is what keeps matching
// cheap: a rule's regular expression only runs on lines that could match.
type Matcher struct {
	// Lit is one literal or several separated by "|".
	Lit  string
	lits []string
	// Re, when set, must match too.
	Re *lazyRegexp
	// Fold makes the literal test case-insensitive (Lit must be lower case).
	Fold bool
}

func (m *Matcher) match(msg, lower string) bool {
	hay := msg
	if m.Fold {
		hay = lower
	}
	hit := false
	for _, l := range m.lits {
		if strings.Contains(hay, l) {
			hit = true
			break
		}
	}
	if !hit {
		return false
	}
	return m.Re == nil || m.Re.matches(msg, func() string { return foldString(msg) })
}

// PhaseRule marks the start of a phase.
type PhaseRule struct {
	// ID is a stable name for the rule, e.g. "vllm.phase.start_load"
	// ("vllm.bar.shards" for a progress bar's description).
	ID string
	Matcher
	Phase verdict.Phase
	// Back lets this marker move the phase backwards (llama.cpp loads the
	// multimodal projector after warming up the text model).
	Back bool
	// Ends: the line is printed as the step before it ends (it reports
	// that step's total). Offline, a copy without a stamp is dated by the
	// next stamp: the time since the last one was the step it ends.
	Ends bool
	// Lasted names the phase whose length the line reports ("Graph
	// capturing finished in 19 secs"): when no line announced that phase
	// before, it is taken to have begun that long before this line (vLLM
	// 0.8-0.10 print no line when the capture begins).
	Lasted verdict.Phase
}

// Seconds is the first length of time msg gives in seconds ("in 19
// secs", "takes 4.39 seconds", "took 2.5s"), and whether it gives one.
func Seconds(msg string) (float64, bool) {
	for i := 0; i < len(msg); i++ {
		if !isDigit(msg[i]) || i > 0 && (isDigit(msg[i-1]) || msg[i-1] == '.') {
			continue
		}
		j := i + digits(msg[i:])
		if j < len(msg) && msg[j] == '.' {
			if d := digits(msg[j+1:]); d > 0 {
				j += 1 + d
			}
		}
		k := j
		if k < len(msg) && msg[k] == ' ' {
			k++
		}
		for _, unit := range [...]string{"seconds", "second", "secs", "sec", "s"} {
			if strings.HasPrefix(msg[k:], unit) && (k+len(unit) == len(msg) || !isLetter(msg[k+len(unit)])) {
				f, err := strconv.ParseFloat(msg[i:j], 64)
				return f, err == nil
			}
		}
		i = j
	}
	return 0, false
}

// FailureRule recognises a line that explains, or announces, a failure.
type FailureRule struct {
	// ID is a stable name for the rule, e.g. "sglang.kv_pool".
	ID string
	Matcher
	// Cause is what the line proves. Empty for echoes such as "Received
	// sigquit from a child process", which announce a failure whose cause
	// is printed elsewhere.
	Cause verdict.Cause
	// Fatal means the line alone says the startup is over; vigil decides
	// once the rest of the failure's output has arrived. Other failure
	// lines are remembered and decide when the process dies.
	Fatal bool
	// Wrapper means the line only announces errors that the lines right
	// after it spell out (pydantic's "1 validation error for X", then the
	// field's own error): a cause found on those lines is the root.
	Wrapper bool
	// MessageBelow: a line that ends in ":" is a header whose message is
	// on the unprefixed lines after it (a Rust panic since 1.73); the judge
	// gives one no rule knows PanicMessage.
	MessageBelow bool
	// ByKill: the line reads a SIGKILL (a shell's "Killed", exit code -9)
	// as the kernel's OOM killer's; KillsOwn: after this line the server
	// SIGKILLs its own processes (SGLang's launcher on a child's sigquit),
	// so a ByKill line after it is no sign of the host's memory.
	ByKill, KillsOwn bool
	// Quotes: the line announces a failure and quotes the error after
	// "<literal>...: " (TensorRT-LLM's "Failed to initialize executor on
	// rank 0: CUDA error ..."), or between quotes when the literal ends in
	// one (vLLM's "Worker failed with error '...', please check ..."), or
	// all of the rest when the literal ends in ": " (TGI's "Error:
	// Backend(Warmup(Generation(\"Not enough memory ...\")))"); Quoted
	// returns that error's text, whose own rule names the cause.
	Quotes bool
	// Supersedes is the ID of a rule whose line, when it is the exception
	// this line was raised from (the same process, within a second
	// before), this line explains better: vLLM's "Unable to load Ray
	// which is required for multi-node inference" raised from "No module
	// named 'ray'" is a parallel size larger than the node, not a missing
	// package.
	Supersedes string
	// NoneBefore: the line announces that another process failed, and
	// its cause holds only when no exception came before it (vLLM's
	// "WorkerProc initialization failed due to an exception in a
	// background process"): a worker's own exception, printed first, is
	// the account; with none, the worker died without a word.
	NoneBefore bool
	// Because names a notable warning that says why this failure
	// happened, after its literal and ": " (TGI's "Could not import Flash
	// Attention enabled models: CUDA is not available" before "Sharded
	// Qwen2 requires Flash Attention enabled models"). When that warning
	// came and its reason has a rule with a cause, the reason is the root.
	Because string
	// Reached is the phase the line itself shows the server got to, when
	// it is one of that phase's own lines gone wrong (vLLM's "Available KV
	// cache memory: -2.14 GiB"): unlike an error that names a step, it
	// moves the phase there.
	Reached verdict.Phase
	// Title is a short description used in the verdict's summary.
	Title string
	// Hint is what to do about it. "{flag:--x}" is replaced by " (now V)"
	// when the command line sets --x to V.
	Hint string
	// PhaseHints replace Hint for a failure in their phase: a GPU out of
	// memory while the weights load, or in the first forward passes that
	// follow, is not helped by a lower memory fraction (vLLM's
	// --gpu-memory-utilization, SGLang's --mem-fraction-static), which
	// only sizes the KV cache after them.
	PhaseHints map[verdict.Phase]string
}

// Quoted is the error a Quotes rule's line quotes: the text after the
// first ": " that follows the rule's literal in msg, for a literal that
// ends in a quote the text from there to the line's last such quote, for
// one that ends in ": " all the text after it; "" when there is none
// (also for a nil rule).
func (r *FailureRule) Quoted(msg string) string {
	if r == nil || !r.Quotes {
		return ""
	}
	for _, l := range r.lits {
		i := strings.Index(msg, l)
		if l == "" || i < 0 {
			continue
		}
		rest := msg[i+len(l):]
		switch q := l[len(l)-1]; {
		case strings.HasSuffix(l, ": "):
			return rest
		case q == '\'' || q == '"':
			if j := strings.LastIndexByte(rest, q); j >= 0 {
				return rest[:j]
			}
			return rest
		default:
			_, quoted, _ := strings.Cut(rest, ": ")
			return quoted
		}
	}
	return ""
}

// afterLiteral is the text after the first ": " that follows the first of
// lits found in s, or "".
func afterLiteral(lits []string, s string) string {
	for _, l := range lits {
		if i := strings.Index(s, l); i >= 0 {
			_, q, _ := strings.Cut(s[i+len(l):], ": ")
			return q
		}
	}
	return ""
}

// Reason is what a notable warning's line gives as its reason: the text
// after the first ": " that follows the rule's literal in line, or "".
func (r *NotableRule) Reason(line string) string {
	return strings.TrimSpace(afterLiteral(r.lits, line))
}

// Rule literal constructors keep the profile tables short.
func lit(s string) Matcher { return Matcher{Lit: s} }
func re(litStr, expr string) Matcher {
	return Matcher{Lit: litStr, Re: newLazyRegexp(expr)}
}
func fold(s string) Matcher { return Matcher{Lit: s, Fold: true} }

// Progress is the state of a tqdm-style progress bar.
type Progress struct {
	Desc    string
	Percent int
	Done    int
	Total   int
	// Rate is items per second, when the bar shows it.
	Rate float64
	// ETA is the remaining time the bar itself estimates ("00:13"), or "".
	ETA string
}

// ParseProgress reads a tqdm-style bar from a message: "DESC: 42%|████▏
// | 22/52 [00:03<00:04, 7.10it/s]", or the custom bar_format of SGLang and
// vLLM, "DESC: 50% Completed | 2/4 [...]" (matchProgress).
func ParseProgress(msg string) (Progress, bool) {
	if !strings.Contains(msg, "%") || !strings.Contains(msg, "/") {
		return Progress{}, false
	}
	m, ok := matchProgress(msg)
	if !ok {
		return Progress{}, false
	}
	p := Progress{Desc: strings.TrimSpace(m[0]), Percent: atoi(m[1]), Done: atoi(m[2]), Total: atoi(m[3]), ETA: strings.TrimSpace(m[5])}
	if p.ETA == "?" {
		p.ETA = ""
	}
	if m[6] != "" {
		r := atof(m[6])
		if m[7] == "s/it" && r > 0 {
			r = 1 / r
		}
		p.Rate = r
	}
	if p.Total <= 0 || p.Done > p.Total || p.Percent > 100 {
		return Progress{}, false
	}
	return p, true
}

func atoi(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil {
		return 0
	}
	return n
}

func atof(s string) float64 {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0
	}
	return f
}

// prepare splits every matcher's literals once, before any matching, so
// that classifying is safe from many goroutines.
func prepare(ms ...*Matcher) {
	for _, m := range ms {
		m.lits = strings.Split(m.Lit, "|")
	}
}

func init() {
	for i := range benign {
		prepare(&benign[i])
	}
	for i := range waiting {
		prepare(&waiting[i].Matcher)
	}
	for i := range commonFailures {
		prepare(&commonFailures[i].Matcher)
	}
	for i := range kernelRules {
		prepare(&kernelRules[i].Matcher)
	}
	for i := range commonNotable {
		prepare(&commonNotable[i].Matcher)
	}
	for _, p := range []*Profile{sglang, vllm, trtllm, llamacpp, tgi, generic} {
		for i := range p.Phases {
			prepare(&p.Phases[i].Matcher)
		}
		for i := range p.ProgressPhases {
			prepare(&p.ProgressPhases[i].Matcher)
		}
		for i := range p.Failures {
			prepare(&p.Failures[i].Matcher)
		}
		for i := range p.Ready {
			prepare(&p.Ready[i])
		}
		for i := range p.NoHTTPReady {
			prepare(&p.NoHTTPReady[i])
		}
		for i := range p.Notable {
			prepare(&p.Notable[i].Matcher)
		}
	}
}
