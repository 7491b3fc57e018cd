package classify

import (
	"regexp"
	"strings"
)

// Parsed is one line of server output with the decorations that servers add
// (ANSI colours, process prefixes, timestamps, levels) taken apart, so that
// rules can match the message itself.
type Parsed struct {
	// Raw is the line with ANSI escapes removed.
	Raw string
	// Msg is the message after every recognised prefix.
	Msg string
	// Source names the process or rank that printed the line
	// ("TP1", "EngineCore_DP0", "Worker_TP3", "MPI_Rank 2"), or "".
	Source string
	// Level is the normalised log level when the format carries one:
	// "debug", "info", "warning", "error", "critical", or "".
	Level string
	// Stamp is the timestamp text the line carries, if any, and its layout
	// name ("sglang", "vllm", "iso", "trtllm").
	Stamp, StampKind string
}

// Warning reports whether the line is a warning (or quieter) by its level.
// A warning never fails a startup on its own.
func (p *Parsed) Warning() bool {
	return p.Level == "warning" || p.Level == "debug"
}

var (
	ansiRe = regexp.MustCompile(`\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07`)
	// vLLM decorates every line of a child process: "(EngineCore_DP0 pid=7502) ".
	vllmProcRe = regexp.MustCompile(`^\(([^()]*?) pid=(\d+)\) ?`)
	// vLLM's logging header, with or without the brackets of versions
	// before 2025-02: "INFO 05-19 10:11:12 [core.py:77] ".
	vllmHeaderRe = regexp.MustCompile(`^(DEBUG|INFO|WARNING|ERROR|CRITICAL) (\d\d-\d\d \d\d:\d\d:\d\d)(?:\.\d+)? \[?[^\]\s:]+:\d+\] ?`)
	// SGLang: "[2026-05-24 00:52:39 DP0 TP1] ", milliseconds optional.
	sglangHeaderRe = regexp.MustCompile(`^\[(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(?:\.\d{1,6})?)((?: [A-Z_]+\d+)*)\] ?`)
	// Older SGLang: "[gpu_id=0] ".
	sglangGPURe = regexp.MustCompile(`^\[gpu_id=(\d+)\] ?`)
	// TensorRT-LLM: "[05/19/2026-10:00:00] [TRT-LLM] [MPI_Rank 1] [I] ".
	trtHeaderRe = regexp.MustCompile(`^(?:\[(\d\d/\d\d/\d{4}-\d\d:\d\d:\d\d)\] )?\[TRT-LLM\] (?:\[(MPI_Rank \d+)\] )?\[([FEWIV])\] ?`)
	// TensorRT-LLM's C++ runtime: "[TensorRT-LLM][INFO] ".
	trtCppRe = regexp.MustCompile(`^\[TensorRT-LLM\]\[(ERROR|WARNING|INFO|VERBOSE|DEBUG)\] ?`)
	// TGI (tracing, compact): "2026-01-08T10:00:00.123456Z  INFO shard-manager: text_generation_launcher: ".
	tgiHeaderRe = regexp.MustCompile(`^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z)\s+(TRACE|DEBUG|INFO|WARN|ERROR)\s+((?:(?:shard-manager|download|webserver|warmup|\w*text_generation\w*(?:::\w+)*): )*)(?:[\w/.-]+\.rs:\d+: )?`)
	// uvicorn's level prefix, padded: "INFO:     ".
	uvicornRe = regexp.MustCompile(`^(DEBUG|INFO|WARNING|ERROR|CRITICAL):\s+`)
	// llama.cpp's log prefix (common/log.cpp, build 10587 3f545bec; the
	// default since mid-2025, before that with --log-prefix): the time since
	// the process started "M.SS.mmm.uuu" (optional), a level letter, and on
	// the server's own lines a subsystem tag padded to five columns
	// ("srv  ", "slot ", "cmn  ", "que  ", "res  ", "spec "), which is
	// dropped so that rules see "llama_server: model loaded".
	llamaPrefixRe = regexp.MustCompile(`^(?:(\d+\.\d\d\.\d\d\d\.\d\d\d) )?([IWED]) (?:(?:srv|slot|que|res|cmn|spec) +)?`)
	// glog-style C++ lines from torch/NCCL: "[rank0]:[W1218 20:27:21.4 ProcessGroupNCCL.cpp:629] ".
	glogRe = regexp.MustCompile(`^(?:\[rank(\d+)\]:)?\[([IWEF])\d{4} [\d:.]+ [^\]]*\] ?`)
	// Python's warnings module: "/path/x.py:12: UserWarning: ...".
	pyWarningRe = regexp.MustCompile(`^\S+:\d+: \w*Warning: `)
)

var levelNames = map[string]string{
	"DEBUG": "debug", "TRACE": "debug", "V": "debug", "VERBOSE": "debug", "D": "debug",
	"INFO": "info", "I": "info",
	"WARNING": "warning", "WARN": "warning", "W": "warning",
	"ERROR": "error", "E": "error",
	"CRITICAL": "critical", "F": "critical",
}

// StripANSI removes terminal colour and control sequences.
func StripANSI(s string) string {
	if !strings.Contains(s, "\x1b") {
		return s
	}
	return ansiRe.ReplaceAllString(s, "")
}

// Parse takes a line of server output apart. It recognises the prefixes of
// SGLang, vLLM, TensorRT-LLM, TGI, llama.cpp, uvicorn and torch's C++ logs,
// in any combination that these servers print them.
func Parse(line string) Parsed {
	raw := StripANSI(line)
	p := Parsed{Raw: raw}
	msg := strings.TrimRight(raw, " \t")
	// Leading spaces are kept for traceback frames ("  File ..."), so only
	// prefixes that start at column 0 are considered.
	if m := vllmProcRe.FindStringSubmatch(msg); m != nil {
		p.Source = m[1]
		msg = msg[len(m[0]):]
	}
	switch {
	case strings.HasPrefix(msg, "INFO") || strings.HasPrefix(msg, "WARNING") || strings.HasPrefix(msg, "ERROR") ||
		strings.HasPrefix(msg, "DEBUG") || strings.HasPrefix(msg, "CRITICAL"):
		if m := vllmHeaderRe.FindStringSubmatch(msg); m != nil {
			p.Level = levelNames[m[1]]
			p.Stamp, p.StampKind = m[2], "vllm"
			msg = msg[len(m[0]):]
		}
	case strings.HasPrefix(msg, "[20") || strings.HasPrefix(msg, "[19"):
		if m := sglangHeaderRe.FindStringSubmatch(msg); m != nil {
			p.Stamp, p.StampKind = m[1], "sglang"
			if r := strings.TrimSpace(m[2]); r != "" {
				p.Source = r
			}
			msg = msg[len(m[0]):]
		}
	case strings.HasPrefix(msg, "[gpu_id="):
		if m := sglangGPURe.FindStringSubmatch(msg); m != nil {
			p.Source = "GPU" + m[1]
			msg = msg[len(m[0]):]
		}
	case len(msg) > 20 && msg[4] == '-' && msg[10] == 'T':
		if m := tgiHeaderRe.FindStringSubmatch(msg); m != nil {
			p.Stamp, p.StampKind = m[1], "iso"
			p.Level = levelNames[m[2]]
			msg = msg[len(m[0]):]
			// TGI tags shard lines with a trailing span field.
			if i := strings.LastIndex(msg, " rank="); i >= 0 && isDigits(msg[i+6:]) {
				p.Source = "rank " + msg[i+6:]
				msg = msg[:i]
			}
		}
	}
	if strings.HasPrefix(msg, "[") {
		if m := trtHeaderRe.FindStringSubmatch(msg); m != nil {
			if m[1] != "" {
				p.Stamp, p.StampKind = m[1], "trtllm"
			}
			if m[2] != "" {
				p.Source = m[2]
			}
			p.Level = levelNames[m[3]]
			msg = msg[len(m[0]):]
		} else if m := trtCppRe.FindStringSubmatch(msg); m != nil {
			p.Level = levelNames[m[1]]
			msg = msg[len(m[0]):]
		} else if m := glogRe.FindStringSubmatch(msg); m != nil {
			if m[1] != "" && p.Source == "" {
				p.Source = "rank" + m[1]
			}
			p.Level = levelNames[m[2]]
			msg = msg[len(m[0]):]
		}
	}
	if m := uvicornRe.FindStringSubmatch(msg); m != nil {
		p.Level = levelNames[m[1]]
		msg = msg[len(m[0]):]
	} else if p.Level == "" && len(msg) > 2 && msg[1] == ' ' || len(msg) > 14 && isDigit(msg[0]) {
		msg = cutLlama(&p, msg)
	}
	if p.Level == "" && pyWarningRe.MatchString(msg) {
		p.Level = "warning"
	}
	p.Msg = msg
	return p
}

// cutLlama takes llama.cpp's prefix off msg, setting p's level and stamp.
func cutLlama(p *Parsed, msg string) string {
	m := llamaPrefixRe.FindStringSubmatch(msg)
	if m == nil {
		return msg
	}
	p.Level = levelNames[m[2]]
	if m[1] != "" {
		p.Stamp, p.StampKind = m[1], "llamacpp"
	}
	return msg[len(m[0]):]
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
