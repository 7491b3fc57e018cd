package classify

import (
	"path/filepath"
	"strings"
	"sync"

	"vigil/internal/litset"
	v "vigil/internal/verdict"
)

// Class is what one line means.
type Class struct {
	Parsed
	// Phase is set when the line marks a phase; Back allows it to move the
	// phase backwards.
	Phase v.Phase
	Back  bool
	// PhaseRule is the marker or progress-bar rule that set Phase.
	PhaseRule *PhaseRule
	// Progress is set when the line is a progress bar.
	Progress *Progress
	// Failure is the failure rule the line matched, if any.
	Failure *FailureRule
	// Exception is true for the last line of a Python traceback that no
	// rule explains ("ValueError: ...").
	Exception bool
	// Traceback is true for "Traceback (most recent call last):".
	Traceback bool
	// Benign is true for a line that looks alarming but is not.
	Benign bool
	// Ready is true for the server's ready line; NoHTTP too when that
	// line says the server serves no HTTP (Profile.NoHTTPReady).
	Ready, NoHTTP bool
	// Waiting is IsWaiting(Msg) and Listening SaysListening(Msg), read
	// in the same scan as the rules.
	Waiting, Listening bool
	// Kernel is set when the line reports a kernel's tuned-config lookup
	// (tuned, fallback or default); KernelRule is the rule that read it.
	Kernel     *KernelConfig
	KernelRule *KernelRule
	// Notable is the notable-warning rule the line matched: a warning that
	// changes results or speed. A line that fails the start is never
	// notable.
	Notable *NotableRule
}

// IsError reports whether the line is an error, whether or not a rule
// knows it: a failure rule's line, a traceback, an exception, or a line
// whose level is error or critical (llama.cpp "E", "ERROR", "CRITICAL",
// glog "E"/"F"). Benign lines and warnings (CORS, deprecations) are not.
// When no rule explains a failure these are the evidence to show first.
func (c *Class) IsError() bool {
	if c.Benign {
		return false
	}
	return c.Failure != nil || c.Exception || c.Traceback || c.Level == "error" || c.Level == "critical"
}

// Classify tells what one line of this server's output means.
func (pr *Profile) Classify(line string) Class {
	// The prefilter (prefilter.go) evaluates the rules below in this
	// order, each only when its literal occurs in the message.
	return prefilterOf(pr).classify(pr, line)
}

// commandKinds maps a word of a command line to the server it starts.
var commandKinds = map[string]string{
	"sglang.launch_server":               "sglang",
	"sglang.launch_server.py":            "sglang",
	"launch_server.py":                   "sglang",
	"vllm.entrypoints.openai.api_server": "vllm",
	"vllm.entrypoints.api_server":        "vllm",
	"trtllm-serve":                       "trtllm",
	"tensorrt_llm.commands.serve":        "trtllm",
	"llama-server":                       "llamacpp",
	"llama-server.exe":                   "llamacpp",
	"text-generation-launcher":           "tgi",
	"text_generation_launcher":           "tgi",
	"text-generation-server":             "tgi",
	"sglang.srt.entrypoints.http_server": "sglang",
	"vllm.entrypoints.cli.main":          "vllm",
	"text_generation_server.cli":         "tgi",
	"sglang.srt.server":                  "sglang",
}

// DetectCommand names the server a command line starts, or "". When a
// command wraps another (a scenario player, a container entrypoint), the
// last recognised word wins.
func DetectCommand(argv []string) string {
	kind := ""
	for i, a := range argv {
		base := filepath.Base(a)
		if k, ok := commandKinds[base]; ok && k != "" {
			kind = k
			continue
		}
		if k, ok := commandKinds[a]; ok && k != "" {
			kind = k
			continue
		}
		// "sglang serve MODEL", "vllm serve MODEL".
		if (base == "sglang" || base == "vllm") && i+1 < len(argv) && argv[i+1] == "serve" {
			kind = base
		}
	}
	return kind
}

// DetectLog names the server whose output this line is, or "": the first
// of v.Servers one of whose Detect literals the line holds. The judge asks
// it of every line until it knows the server, so the literals are looked
// for in one pass (detectLits) rather than one search each.
func DetectLog(line string) string {
	lits, masks := detectLits()
	found := lits.Scan(line)
	if found == 0 {
		// llama.cpp's default prefix, its time since the process started
		// and a level letter ("0.00.510.178 E srv    load_model: ..."),
		// is its own.
		if _, ok := ClockOf(line); ok || llamaServerTag(line) {
			return "llamacpp"
		}
		if sglangUvicorn(line) || sglangRanks(line) {
			return "sglang"
		}
		if vllmEngineHeader(line) {
			return "vllm"
		}
		return ""
	}
	for i, name := range v.Servers {
		if found&masks[i] != 0 {
			return name
		}
	}
	return ""
}

// llamaServerTag reports whether line holds llama-server's own tag
// (tools/server/server-common.h SRV_* and SLT_*: "srv  %12.*s: ",
// "slot %12.*s: id "): a function's name cut or padded to twelve columns
// ("srv    load_model: ", "slot update_slots: id  0 | ..."). A tail of
// its lines names no other literal of llama.cpp's.
func llamaServerTag(line string) bool {
	for _, tag := range [...]string{"srv  ", "slot "} {
		for off := 0; ; {
			i := strings.Index(line[off:], tag)
			if i < 0 {
				break
			}
			p := off + i + len(tag)
			if p+14 <= len(line) && line[p+12] == ':' && line[p+13] == ' ' && paddedName(line[p:p+12]) {
				return true
			}
			off = p
		}
	}
	return false
}

// paddedName reports whether s is spaces, then one or more of a C
// function name's bytes.
func paddedName(s string) bool {
	i := 0
	for i < len(s) && s[i] == ' ' {
		i++
	}
	if i == len(s) {
		return false
	}
	for ; i < len(s); i++ {
		if c := s[i]; !isLetter(c) && !isDigit(c) && c != '_' {
			return false
		}
	}
	return true
}

// sglangUvicorn reports whether line holds uvicorn's line as SGLang
// formats it (utils.py set_uvicorn_logging_configs: "[%(asctime)s]
// %(levelprefix)s %(message)s", the date in full): "[2026-05-19
// 09:38:33] INFO:     Uvicorn running on ...". The other servers' uvicorn
// lines carry no date ("(APIServer pid=1) INFO:     Started server
// process"), and a log that begins there names no server otherwise.
func sglangUvicorn(line string) bool {
	// A search for the padding after the level ("INFO:     "), then the
	// level and the date before it.
	for off := 0; ; {
		k := strings.Index(line[off:], ":  ")
		if k < 0 {
			return false
		}
		i := off + k
		for _, l := range [...]struct{ level, pad string }{{"] INFO", ":     "}, {"] WARNING", ":  "}, {"] ERROR", ":    "}} {
			if at := i - len(l.level); at >= 20 && strings.HasSuffix(line[:i], l.level) && strings.HasPrefix(line[i:], l.pad) &&
				pattern(line[at-20:], "[9999-99-99 99:99:99") {
				return true
			}
		}
		off = i + 1
	}
}

// sglangRanks reports whether line holds SGLang's header with its rank
// tags ("[2026-02-25 16:40:53 TP9] ", "[... DP0 TP3 EP3] "): a log cut
// after its start names SGLang on every rank's line, not only TP0's.
func sglangRanks(line string) bool {
	for off := 0; ; {
		k := strings.IndexByte(line[off:], '[')
		if k < 0 {
			return false
		}
		if _, ranks, _, ok := cutSGLangHeader(line[off+k:]); ok && ranks != "" {
			return true
		}
		off += k + 1
	}
}

// vllmEngineFiles are the source files of vLLM's own engine, workers
// and API server, as its logger names them ("[gpu_model_runner.py:1329]").
// Not the model executor's (weight_utils.py, loader.py, custom_all_reduce
// .py, parallel_state.py): older SGLang imported those from vLLM, and
// they print vLLM's header in SGLang's log.
var vllmEngineFiles = []string{
	"gpu_model_runner", "gpu_worker", "model_runner", "worker", "llm_engine", "async_llm_engine",
	"async_llm", "core", "core_client", "kv_cache_utils", "api_server", "launcher", "multiproc_executor",
	"ray_distributed_executor", "backends", "monitor", "decorators", "loggers", "serving_chat", "serving_completion",
}

// vllmEngineHeader reports whether line holds vLLM's header (its month,
// day and time, then the file) naming one of vLLM's engine files
// ("INFO 05-06 10:12:16 [gpu_model_runner.py:1347] Model loading took
// ..."): a log cut after vLLM's banner, from 0.8 and 0.9, whose lines
// carry no process tag, names vLLM by little else.
func vllmEngineHeader(line string) bool {
	for off := 0; ; {
		k := strings.Index(line[off:], ".py:")
		if k < 0 {
			return false
		}
		i := off + k
		off = i + 1
		d := digits(line[i+4:])
		if d == 0 || i+4+d >= len(line) || line[i+4+d] != ']' {
			continue
		}
		for _, f := range vllmEngineFiles {
			if !strings.HasSuffix(line[:i], f) {
				continue
			}
			p := i - len(f)
			if p > 0 && line[p-1] == '[' {
				p--
			}
			if p == 0 || line[p-1] != ' ' {
				continue
			}
			p--
			if p >= 14 && pattern(line[p-14:p], "99-99 99:99:99") {
				return true
			}
			if n := trailingDigits(line[:p]); n > 0 && p-n-1 >= 14 && line[p-n-1] == '.' && pattern(line[p-n-1-14:p-n-1], "99-99 99:99:99") {
				return true
			}
		}
	}
}

// trailingDigits is the number of ASCII digits s ends with.
func trailingDigits(s string) int {
	n := 0
	for n < len(s) && isDigit(s[len(s)-1-n]) {
		n++
	}
	return n
}

// detectLits holds every profile's Detect literals; detectMasks[i] has
// the bits of v.Servers[i]'s.
// Built on first use: a command that reads no log does not pay for it.
var detectLits = sync.OnceValues(func() (*litset.Set, []uint64) {
	groups := make([][]string, len(v.Servers))
	for i, name := range v.Servers {
		groups[i] = Profiles[name].Detect
	}
	return litset.NewGroups(groups...)
})

// Index is the position of ph in the profile's phase order, or -1.
func (pr *Profile) Index(ph v.Phase) int {
	for i, p := range pr.Order {
		if p == ph {
			return i
		}
	}
	return -1
}
