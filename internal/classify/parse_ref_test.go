package classify

import (
	"regexp"
	"strings"

	"vigil/internal/ansi"
)

// Parse is the simple reference for ParseFast, written with one regular
// expression per prefix: the tests compare the two (FuzzParse).

var (
	// vLLM decorates every line of a child process: "(EngineCore_DP0 pid=7502) ",
	// Ray a remote actor's with its node: "(RayWorkerWrapper pid=2301, ip=10.0.0.2) ".
	vllmProcRe = regexp.MustCompile(`^\((?:([^()]*?) )?pid=(\d+)(?:, ip=[^()\s]+)?\) ?`)
	// vLLM's logging header, with or without the brackets of versions
	// before 2025-02: "INFO 05-19 10:11:12 [core.py:77] ".
	vllmHeaderRe = regexp.MustCompile(`^(DEBUG|INFO|WARNING|ERROR|CRITICAL) (\d\d-\d\d \d\d:\d\d:\d\d)(?:\.\d+)? \[?[^\]\s:]+:\d+\] ?`)
	// SGLang: "[2026-05-24 00:52:39 DP0 TP1] ", milliseconds optional.
	sglangHeaderRe = regexp.MustCompile(`^\[(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(?:\.\d{1,6})?)((?: [A-Z_]+\d+)*)\] ?`)
	// Older SGLang: "[gpu_id=0] ".
	sglangGPURe = regexp.MustCompile(`^\[gpu_id=(\d+)\] ?`)
	// uvicorn's level prefix, padded: "INFO:     ".
	uvicornRe = regexp.MustCompile(`^(DEBUG|INFO|WARNING|ERROR|CRITICAL):\s+`)
	// What a container runtime puts before a line: docker compose's
	// service, kubectl's and docker's --timestamps (unless it is TGI's
	// own header: a level follows), Docker Desktop's time.
	composeRe      = regexp.MustCompile(`^(?:[A-Za-z0-9][\w.-]* +\| |\[pod/[A-Za-z0-9][\w.-]*/(?:[A-Za-z0-9][\w.-]*)?\] )`)
	runtimeStampRe = regexp.MustCompile(`^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:\d\d)) `)
	criStreamRe    = regexp.MustCompile(`^std(?:out|err) [FP] `)
	tgiLevelRe     = regexp.MustCompile(`^ ?(?:TRACE|DEBUG|INFO|WARN|ERROR) `)
	desktopRe      = regexp.MustCompile(`^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3}) \| `)
	desktopSecRe   = regexp.MustCompile(`^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(?:[.,]\d{1,9})?)[ \t]`)
	// A level before a Python logger's local time (Ray Serve, InstructLab).
	levelLocalRe = regexp.MustCompile(`^(DEBUG|INFO|WARNING|ERROR|CRITICAL) (\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(?:[.,]\d{1,9})?)[ \t]`)
	routerPortRe = regexp.MustCompile(`^\[ *(\d{1,5})\] `)
	journalRe    = regexp.MustCompile(`^([A-Z][a-z]{2} [ 0-9][0-9] \d\d:\d\d:\d\d(?:\.\d{6})?|\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d{6})?[+-]\d\d:?\d\d) [^ ]+ [^ ]+?: `)
)

// Parse takes a line of server output apart. It recognises the prefixes of
// SGLang, vLLM, TensorRT-LLM, TGI, llama.cpp, uvicorn and torch's C++ logs,
// in any combination that these servers print them.
func Parse(line string) Parsed {
	raw := ansi.Strip(line)
	p := Parsed{Raw: raw}
	msg := strings.TrimRight(raw, " \t")
	if inner, stamp, ok := CutDockerJSON(msg); ok {
		q := Parse(inner)
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
	if m := journalRe.FindStringSubmatch(msg); m != nil {
		p.Stamp, p.StampKind = m[1], "syslog"
		if m[1][0] >= '0' && m[1][0] <= '9' {
			p.StampKind = "iso"
		}
		msg = msg[len(m[0]):]
	} else {
		if m := composeRe.FindString(msg); m != "" {
			msg = msg[len(m):]
		}
		if m := runtimeStampRe.FindStringSubmatch(msg); m != nil && !tgiLevelRe.MatchString(msg[len(m[0]):]) {
			p.Stamp, p.StampKind = m[1], "iso"
			msg = msg[len(m[0]):]
			msg = msg[len(criStreamRe.FindString(msg)):]
		} else if m := desktopRe.FindStringSubmatch(msg); m != nil {
			p.Stamp, p.StampKind = m[1], "sglang"
			msg = msg[len(m[0]):]
		} else if m := desktopSecRe.FindStringSubmatch(msg); m != nil && len(msg) > len(m[0]) {
			p.Stamp, p.StampKind = m[1], "sglang"
			msg = msg[len(m[0]):]
		}
	}
	if m := srunLabelRe.FindStringSubmatch(msg); m != nil {
		p.Source = "task " + m[1]
		msg = msg[len(m[0])-1:]
	}
	if m := routerPortRe.FindStringSubmatch(msg); m != nil {
		if _, ok := RelativeTime(msg[len(m[0]):]); ok {
			p.Source = "port " + m[1]
			msg = msg[len(m[0]):]
		}
	}
	// Leading spaces are kept for traceback frames ("  File ..."), so only
	// prefixes that start at column 0 are considered.
	// Ray's driver re-prints a remote actor's lines under its own tag:
	// the innermost tag names the process.
	for range 2 {
		if m := vllmProcRe.FindStringSubmatch(msg); m != nil {
			p.Source = m[1]
			if p.Source == "" {
				p.Source = "pid " + m[2]
			}
			msg = msg[len(m[0]):]
		}
	}
	// A header a space further than the tag's is still one.
	if t := strings.TrimLeft(msg, " "); p.Source != "" && t != msg && vllmHeaderRe.MatchString(t) {
		msg = t
	}
	switch {
	case strings.HasPrefix(msg, "INFO") || strings.HasPrefix(msg, "WARNING") || strings.HasPrefix(msg, "ERROR") ||
		strings.HasPrefix(msg, "DEBUG") || strings.HasPrefix(msg, "CRITICAL"):
		if m := vllmHeaderRe.FindStringSubmatch(msg); m != nil {
			p.Level = levelNames[m[1]]
			p.Stamp, p.StampKind = m[2], "vllm"
			msg = msg[len(m[0]):]
		} else if m := levelLocalRe.FindStringSubmatch(msg); m != nil {
			p.Level = levelNames[m[1]]
			p.Stamp, p.StampKind = m[2], "sglang"
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
		if m := tgiHeaderRe.Get().FindStringSubmatch(msg); m != nil {
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
		if m := trtHeaderRe.Get().FindStringSubmatch(msg); m != nil {
			if m[1] != "" {
				p.Stamp, p.StampKind = m[1], "trtllm"
			}
			if m[2] != "" {
				p.Source = m[2]
			} else if m[4] != "" {
				p.Source = m[4]
			}
			p.Level = levelNames[m[3]]
			msg = msg[len(m[0]):]
		} else if m := trtCppRe.Get().FindStringSubmatch(msg); m != nil {
			p.Level = levelNames[m[1]]
			msg = msg[len(m[0]):]
		} else if m := glogRe.Get().FindStringSubmatch(msg); m != nil {
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
	if p.Level == "" {
		if m := llamaBareTagRe.FindStringSubmatch(msg); m != nil {
			msg = msg[len(m[1]):]
		}
	}
	if p.Level == "" && pyWarningRe.Get().MatchString(msg) {
		p.Level = "warning"
	}
	p.Msg = msg
	return p
}

// srunLabelRe: srun --label's task number before a bracketed header.
var srunLabelRe = regexp.MustCompile(`^ {0,6}(\d{1,5}): \[`)

// llamaBareTagRe: llama.cpp's module tag without its prefix
// (--no-log-prefix), before a function's name.
var llamaBareTagRe = regexp.MustCompile(`^((?:srv|slot|que|res|cmn|spec) +)[A-Za-z0-9_]+:`)
