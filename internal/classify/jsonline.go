package classify

import (
	"encoding/json"
	"strconv"
	"strings"
)

// jsonRecord is a structured log line as the servers write it when told to:
// TGI's --json-output (tracing's JSON layer: the launcher's message under
// "fields", the router's at the top, the shard's rank in "span"), and the
// usual Python JSON formatters a vLLM or SGLang logging config may name
// ("levelname", "msg", "time"). encoding/json matches keys in any case.
type jsonRecord struct {
	Timestamp string  `json:"timestamp"`
	Time      string  `json:"time"`
	Level     string  `json:"level"`
	LevelName string  `json:"levelname"`
	Message   *string `json:"message"`
	Msg       *string `json:"msg"`
	Fields    struct {
		Message *string `json:"message"`
	} `json:"fields"`
	Span struct {
		Rank *int `json:"rank"`
	} `json:"span"`
	// Log is Docker's json-file record of one line a container wrote
	// ({"log":"...\n","stream":"stderr","time":"...Z"}, as under
	// /var/lib/docker/containers): the line itself, server header and all.
	Log *string `json:"log"`
}

// CutDockerJSON reads a record of Docker's json-file log: the line the
// container wrote (without its newline) and the runtime's ISO stamp ("" for
// none). ok is false for any other line.
func CutDockerJSON(line string) (inner, stamp string, ok bool) {
	if !strings.HasPrefix(line, `{"log":`) || !strings.HasSuffix(line, "}") {
		return "", "", false
	}
	var r jsonRecord
	if json.Unmarshal([]byte(line), &r) != nil || r.Log == nil {
		return "", "", false
	}
	if isISOStamp(r.Time) {
		stamp = r.Time
	}
	return strings.TrimRight(*r.Log, "\r\n"), stamp, true
}

// CutJSON reads a structured log line: its message, level, ISO stamp (""
// when the record's time is no "...Z" stamp) and rank. ok is false for
// anything but a JSON object with a message.
func CutJSON(line string) (msg, level, stamp, source string, ok bool) {
	if !strings.HasPrefix(line, "{\"") || !strings.HasSuffix(line, "}") {
		return "", "", "", "", false
	}
	var r jsonRecord
	if json.Unmarshal([]byte(line), &r) != nil {
		return "", "", "", "", false
	}
	var m *string
	for _, c := range []*string{r.Fields.Message, r.Message, r.Msg} {
		if c != nil {
			m = c
			break
		}
	}
	if m == nil {
		return "", "", "", "", false
	}
	// (A Python shard's message keeps its newline.)
	msg = strings.TrimRight(*m, " \t\r\n")
	lv := r.Level
	if lv == "" {
		lv = r.LevelName
	}
	level = levelName(strings.ToUpper(lv))
	for _, t := range []string{r.Timestamp, r.Time} {
		if isISOStamp(t) {
			stamp = t
			break
		}
	}
	if r.Span.Rank != nil {
		source = "rank " + strconv.Itoa(*r.Span.Rank)
	}
	return msg, level, stamp, source, true
}

// SplitJSONRecord splits a structured record whose message holds several
// lines (TGI's --json-output carries a shard's whole traceback in one
// record) into one record per line, each with the record's time, level
// and rank, so that every line is judged as it is in the text format. ok
// is false for any other line, which is the common case and cheap.
func SplitJSONRecord(line string) (records []string, ok bool) {
	if !strings.HasPrefix(line, "{\"") || !strings.Contains(line, `\n`) {
		return nil, false
	}
	msg, level, stamp, source, ok := CutJSON(line)
	if !ok || !strings.Contains(msg, "\n") {
		return nil, false
	}
	type fields struct {
		Message string `json:"message"`
	}
	type span struct {
		Rank int `json:"rank"`
	}
	type record struct {
		Timestamp string `json:"timestamp,omitempty"`
		Level     string `json:"level,omitempty"`
		Fields    fields `json:"fields"`
		Span      *span  `json:"span,omitempty"`
	}
	r := record{Timestamp: stamp, Level: level}
	if n, err := strconv.Atoi(strings.TrimPrefix(source, "rank ")); err == nil && source != "" {
		r.Span = &span{Rank: n}
	}
	for part := range strings.SplitSeq(msg, "\n") {
		r.Fields.Message = part
		b, err := json.Marshal(r)
		if err != nil {
			return nil, false
		}
		records = append(records, string(b))
	}
	return records, true
}

// isISOStamp: "2024-02-21T05:09:46.814956Z", the fraction optional.
func isISOStamp(s string) bool {
	if !pattern(s, "9999-99-99T99:99:99") || !strings.HasSuffix(s, "Z") {
		return false
	}
	f := s[19 : len(s)-1]
	return f == "" || f[0] == '.' && len(f) > 1 && digits(f[1:]) == len(f)-1
}
