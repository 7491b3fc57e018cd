package classify

import (
	"path/filepath"
	"strings"

	v "vigil/internal/verdict"
)

// Class is what one line means.
type Class struct {
	Parsed
	// Phase is set when the line marks a phase; Back allows it to move the
	// phase backwards.
	Phase v.Phase
	Back  bool
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
	// Ready is true for the server's ready line.
	Ready bool
}

// Classify tells what one line of this server's output means.
func (pr *Profile) Classify(line string) Class {
	c := Class{Parsed: Parse(line)}
	msg := c.Msg
	var lower string
	lowerOf := func() string {
		if lower == "" {
			lower = strings.ToLower(msg)
		}
		return lower
	}
	for i := range pr.Phases {
		r := &pr.Phases[i]
		if r.match(msg, lowerOf()) {
			c.Phase, c.Back = r.Phase, r.Back
			break
		}
	}
	if p, ok := ParseProgress(msg); ok {
		c.Progress = &p
		if c.Phase == "" {
			desc := strings.ToLower(p.Desc)
			for i := range pr.ProgressPhases {
				r := &pr.ProgressPhases[i]
				if r.match(p.Desc, desc) {
					c.Phase = r.Phase
					break
				}
			}
		}
	}
	for i := range pr.Ready {
		if pr.Ready[i].match(msg, lowerOf()) {
			c.Ready = true
			break
		}
	}
	if strings.Contains(msg, "Traceback (most recent call last)") {
		c.Traceback = true
	}
	if c.Warning() {
		c.Benign = true
		return c
	}
	for i := range benign {
		if benign[i].match(msg, lowerOf()) {
			c.Benign = true
			return c
		}
	}
	// Traceback frames and source lines ("  File ...", "    raise X(...)")
	// quote code, not errors.
	if c.Progress != nil || strings.HasPrefix(msg, "  ") || strings.HasPrefix(msg, "\t") {
		return c
	}
	for _, rules := range [][]FailureRule{pr.Failures, commonFailures} {
		for i := range rules {
			if rules[i].match(msg, lowerOf()) {
				c.Failure = &rules[i]
				return c
			}
		}
	}
	if exceptionRe.MatchString(msg) {
		c.Exception = true
	}
	return c
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

// DetectLog names the server whose output this line is, or "".
func DetectLog(line string) string {
	for _, name := range []string{"sglang", "vllm", "trtllm", "llamacpp", "tgi"} {
		for _, d := range Profiles[name].Detect {
			if strings.Contains(line, d) {
				return name
			}
		}
	}
	return ""
}

// Index is the position of ph in the profile's phase order, or -1.
func (pr *Profile) Index(ph v.Phase) int {
	for i, p := range pr.Order {
		if p == ph {
			return i
		}
	}
	return -1
}
