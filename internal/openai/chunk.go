package openai

import (
	"bytes"
	"encoding/json"
)

// Chunk is what a benchmark needs from one streamed event, and no more.
type Chunk struct {
	Done     bool   // the "[DONE]" sentinel that ends OpenAI-style streams
	Text     bool   // carries generated text: content, reasoning or completion text
	Finished bool   // a choice has a non-null finish_reason
	Tokens   int    // completion_tokens from usage or SGLang's meta_info; -1 when absent
	Prompt   int    // prompt_tokens next to it; -1 when absent
	Err      string // the server reported an error inside the stream
}

var doneSentinel = []byte("[DONE]")

// ParseChunk inspects one event's data without decoding it.
//
// A streamed 256-token answer is 256 events, so decoding each into structs
// would cost more CPU than everything else the client does. Instead one
// pass visits every colon that ends a key and looks only at the keys it
// needs, wherever they are nested. That covers OpenAI chat
// (choices[].delta.content), completions (choices[].text), reasoning models
// (reasoning_content, reasoning), usage, and SGLang's /generate (text,
// meta_info). A colon inside a string is never mistaken for one after a
// key, because JSON escapes the quotes inside strings.
func ParseChunk(data []byte) (Chunk, error) {
	c, _, err := parseChunk(bytes.TrimSpace(data))
	return c, err
}

// parseChunk is ParseChunk on trimmed data. It also returns where the one
// text value starts (its opening quote), or -1 when there is no single
// text string, for ChunkParser's memo.
func parseChunk(p []byte) (Chunk, int, error) {
	c := Chunk{Tokens: -1, Prompt: -1}
	if bytes.Equal(p, doneSentinel) {
		c.Done = true
		return c, -1, nil
	}
	if len(p) < 2 || p[0] != '{' || p[len(p)-1] != '}' {
		return c, -1, &MalformedError{Detail: "data is not a JSON object: " + clip(string(p), 60)}
	}
	errorish := false
	textAt, texts := -1, 0
	for off := 0; ; {
		i := bytes.IndexByte(p[off:], ':')
		if i < 0 {
			break
		}
		colon := off + i
		off = colon + 1
		key, ok := keyBefore(p, colon)
		if !ok {
			continue
		}
		v := skipSpace(p[off:])
		switch string(key) { // compared without allocating
		case "content", "text", "reasoning_content", "reasoning":
			if len(v) > 0 && v[0] == '"' {
				texts++
				textAt = len(p) - len(v)
				if len(v) >= 2 && v[1] != '"' {
					c.Text = true
				}
			}
		case "finish_reason":
			if len(v) > 0 && v[0] != 'n' { // anything but null
				c.Finished = true
			}
		case "completion_tokens":
			c.Tokens = leadingInt(v)
		case "prompt_tokens":
			c.Prompt = leadingInt(v)
		case "error":
			errorish = errorish || (len(v) > 0 && v[0] != 'n')
		case "object":
			errorish = errorish || bytes.HasPrefix(v, []byte(`"error"`))
		}
	}
	// Errors are rare, so only then is the event decoded properly.
	if errorish {
		c.Err = inbandError(p)
	}
	if texts != 1 || errorish {
		textAt = -1
	}
	return c, textAt, nil
}

// ChunkParser is ParseChunk for the events of one stream, made cheaper by
// what streams look like: consecutive events are byte for byte the same
// except for the token text (same id, created, model, nulls). When the
// bytes before and after the text value equal the previous event's, the
// previous result stands, with Text decided by the new value. Otherwise it
// parses in full. The zero value is ready; it is not safe for concurrent use.
type ChunkParser struct {
	prev    []byte
	at, end int // the previous event's text value: opening and closing quote
	res     Chunk
	ok      bool
}

// Reset forgets the previous event, for a new stream.
func (cp *ChunkParser) Reset() { cp.ok = false }

// Parse is ParseChunk.
func (cp *ChunkParser) Parse(data []byte) (Chunk, error) {
	p := bytes.TrimSpace(data)
	if cp.ok && len(p) > cp.at && bytes.Equal(p[:cp.at+1], cp.prev[:cp.at+1]) {
		if end := stringEnd(p, cp.at); end > 0 && bytes.Equal(p[end:], cp.prev[cp.end:]) {
			c := cp.res
			c.Text = end > cp.at+1
			return c, nil
		}
	}
	c, at, err := parseChunk(p)
	cp.ok = false
	if err == nil && at >= 0 {
		if end := stringEnd(p, at); end > 0 {
			cp.prev = append(cp.prev[:0], p...)
			cp.at, cp.end, cp.res, cp.ok = at, end, c, true
		}
	}
	return c, err
}

// stringEnd returns the index of the quote that closes the JSON string
// opening at p[at], or -1.
func stringEnd(p []byte, at int) int {
	for i := at + 1; i < len(p); {
		j := bytes.IndexByte(p[i:], '"')
		if j < 0 {
			return -1
		}
		if !escaped(p, i+j) {
			return i + j
		}
		i += j + 1
	}
	return -1
}

// keyBefore returns the key that the colon at p[colon] follows, if it
// follows a key: a string whose closing quote is not escaped, then white
// space at most.
func keyBefore(p []byte, colon int) ([]byte, bool) {
	j := colon - 1
	for j >= 0 && isSpace(p[j]) {
		j--
	}
	if j < 0 || p[j] != '"' || escaped(p, j) {
		return nil, false
	}
	k := bytes.LastIndexByte(p[:j], '"')
	for k >= 0 && escaped(p, k) {
		k = bytes.LastIndexByte(p[:k], '"')
	}
	if k < 0 {
		return nil, false
	}
	return p[k+1 : j], true
}

// escaped reports whether p[i] is preceded by an odd number of backslashes.
func escaped(p []byte, i int) bool {
	n := 0
	for i-1-n >= 0 && p[i-1-n] == '\\' {
		n++
	}
	return n%2 == 1
}

func isSpace(b byte) bool { return b == ' ' || b == '\t' || b == '\n' || b == '\r' }

func skipSpace(p []byte) []byte {
	for len(p) > 0 && isSpace(p[0]) {
		p = p[1:]
	}
	return p
}

// leadingInt parses the decimal digits at the start of v; -1 when there are none.
func leadingInt(v []byte) int {
	n, digits := 0, 0
	for _, b := range v {
		if b < '0' || b > '9' {
			break
		}
		n = n*10 + int(b-'0')
		digits++
	}
	if digits == 0 {
		return -1
	}
	return n
}

// inbandError returns the message of an error the server sent inside the
// stream (vLLM and SGLang do this when a request fails after the headers
// went out), or "" when the event is not an error.
func inbandError(p []byte) string {
	var ev struct {
		Object  string          `json:"object"`
		Message string          `json:"message"`
		Error   json.RawMessage `json:"error"`
	}
	if json.Unmarshal(p, &ev) != nil {
		return ""
	}
	if len(ev.Error) > 0 && !bytes.Equal(ev.Error, []byte("null")) {
		return errorMessage(ev.Error)
	}
	if ev.Object == "error" {
		if ev.Message == "" {
			return "error"
		}
		return ev.Message
	}
	return ""
}

// errorMessage pulls a message out of an OpenAI-style error value: an object
// with a message, or a bare string.
func errorMessage(raw json.RawMessage) string {
	var obj struct {
		Message string `json:"message"`
	}
	if json.Unmarshal(raw, &obj) == nil && obj.Message != "" {
		return obj.Message
	}
	var s string
	if json.Unmarshal(raw, &s) == nil && s != "" {
		return s
	}
	return clip(string(raw), 200)
}
