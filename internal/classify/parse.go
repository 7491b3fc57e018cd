package classify

import (
	"vigil/internal/lazyre"
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
	// TensorRT-LLM: "[05/19/2026-10:00:00] [TRT-LLM] [MPI_Rank 1] [I] ".
	// 1.x names the rank "[RANK 0]", and AutoDeploy its logger
	// "[TRT-LLM AUTO-DEPLOY]"; 1.3 puts the logger's module, and the
	// rank, after the level ("[I] [_torch][RANK 0] ", "[E] [executor] ").
	trtHeaderRe = lazyre.New(`^(?:\[(\d\d/\d\d/\d{4}-\d\d:\d\d:\d\d)\] )?\[TRT-LLM(?: AUTO-DEPLOY)?\] (?:\[((?:MPI_Rank|RANK) \d+)\] )?\[([FEWIV])\](?: \[[a-z_][a-z0-9_]*\](?:\[(RANK \d+)\])? )? ?`)
	// TensorRT-LLM's C++ runtime: "[TensorRT-LLM][INFO] ".
	trtCppRe = lazyre.New(`^\[TensorRT-LLM\]\[(ERROR|WARNING|INFO|VERBOSE|DEBUG)\] ?`)
	// TGI (tracing, compact): "2026-01-08T10:00:00.123456Z  INFO shard-manager: text_generation_launcher: ".
	tgiHeaderRe = lazyre.New(`^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z)\s+(TRACE|DEBUG|INFO|WARN|ERROR)\s+((?:(?:shard-manager|download|webserver|warmup|\w*text_generation\w*(?:::\w+)*): )*)(?:[\w/.-]+\.rs:\d+: )?`)
	// llama.cpp's log prefix (common/log.cpp, build 10587 3f545bec; the
	// default since mid-2025, before that with --log-prefix): the time since
	// the process started "M.SS.mmm.uuu" (optional), a level letter, and on
	// the server's own lines a subsystem tag padded to five columns
	// ("srv  ", "slot ", "cmn  ", "que  ", "res  ", "spec "), which is
	// dropped so that rules see "llama_server: model loaded".
	llamaPrefixRe = lazyre.New(`^(?:(\d+\.\d\d\.\d\d\d\.\d\d\d) )?([IWED]) (?:(?:srv|slot|que|res|cmn|spec) +)?`)
	// glog-style C++ lines from torch/NCCL: "[rank0]:[W1218 20:27:21.4 ProcessGroupNCCL.cpp:629] ".
	glogRe = lazyre.New(`^(?:\[rank(\d+)\]:)?\[([IWEF])\d{4} [\d:.]+ [^\]]*\] ?`)
	// Python's warnings module: "/path/x.py:12: UserWarning: ...".
	pyWarningRe = lazyre.New(`^\S+:\d+: \w*Warning: `)
)

var levelNames = map[string]string{
	"DEBUG": "debug", "TRACE": "debug", "V": "debug", "VERBOSE": "debug", "D": "debug",
	"INFO": "info", "I": "info",
	"WARNING": "warning", "WARN": "warning", "W": "warning",
	"ERROR": "error", "E": "error",
	"CRITICAL": "critical", "F": "critical",
}

// levelName is levelNames[s] as a switch, which takes no hash of s:
// ParseFast asks it of nearly every line.
func levelName(s string) string {
	switch s {
	case "DEBUG", "TRACE", "V", "VERBOSE", "D":
		return "debug"
	case "INFO", "I":
		return "info"
	case "WARNING", "WARN", "W":
		return "warning"
	case "ERROR", "E":
		return "error"
	case "CRITICAL", "F":
		return "critical"
	}
	return ""
}

// cutLlama takes llama.cpp's prefix off msg, setting p's level and stamp.
func cutLlama(p *Parsed, msg string) string {
	m := llamaPrefixRe.Get().FindStringSubmatch(msg)
	if m == nil {
		return msg
	}
	p.Level = levelName(m[2])
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
