package openai

import (
	"encoding/json"
	"fmt"
	"strconv"
	"unicode/utf8"
)

// Endpoint is a generation API.
type Endpoint string

const (
	Completions Endpoint = "completions" // POST /v1/completions
	Chat        Endpoint = "chat"        // POST /v1/chat/completions
	Generate    Endpoint = "generate"    // POST /generate, SGLang's native API
)

// ParseEndpoint accepts an endpoint's name.
func ParseEndpoint(s string) (Endpoint, error) {
	switch e := Endpoint(s); e {
	case Completions, Chat, Generate:
		return e, nil
	}
	return "", fmt.Errorf("unknown endpoint %q (want completions, chat or generate)", s)
}

// Path is the endpoint's URL path.
func (e Endpoint) Path() string {
	switch e {
	case Chat:
		return "/v1/chat/completions"
	case Generate:
		return "/generate"
	}
	return "/v1/completions"
}

// Params are the settings shared by every request of a run.
type Params struct {
	Model       string // omitted from the body when empty
	MaxTokens   int
	Temperature float64
	// IgnoreEOS asks the server to generate exactly MaxTokens (SGLang, vLLM,
	// llama.cpp and TRT-LLM accept it), so every request does the same work.
	IgnoreEOS bool
	Stream    bool // with stream_options.include_usage, so the server counts the tokens
}

// Template builds request bodies for many prompts with the same Params,
// without reflection: everything but the prompt is encoded once.
type Template struct {
	head, tail []byte
}

// NewTemplate prepares bodies for endpoint e. Every prompt sent through it
// starts with the varying part given to Build and ends with shared.
func NewTemplate(e Endpoint, p Params, shared string) Template {
	var head, tail []byte
	model := ""
	if p.Model != "" {
		m, _ := json.Marshal(p.Model)
		model = `"model":` + string(m) + `,`
	}
	temp := strconv.FormatFloat(p.Temperature, 'g', -1, 64)
	switch e {
	case Generate:
		head = []byte(`{"text":"`)
		tail = appendJSONChars(nil, shared)
		tail = append(tail, `","sampling_params":{"max_new_tokens":`...)
		tail = strconv.AppendInt(tail, int64(p.MaxTokens), 10)
		tail = append(tail, `,"temperature":`...)
		tail = append(tail, temp...)
		if p.IgnoreEOS {
			tail = append(tail, `,"ignore_eos":true`...)
		}
		tail = append(tail, '}')
		if p.Stream {
			tail = append(tail, `,"stream":true`...)
		}
		tail = append(tail, '}')
		return Template{head: head, tail: tail}
	case Chat:
		head = []byte(`{` + model + `"messages":[{"role":"user","content":"`)
		tail = appendJSONChars(nil, shared)
		tail = append(tail, `"}]`...)
	default:
		head = []byte(`{` + model + `"prompt":"`)
		tail = appendJSONChars(nil, shared)
		tail = append(tail, '"')
	}
	tail = append(tail, `,"max_tokens":`...)
	tail = strconv.AppendInt(tail, int64(p.MaxTokens), 10)
	tail = append(tail, `,"temperature":`...)
	tail = append(tail, temp...)
	if p.IgnoreEOS {
		tail = append(tail, `,"ignore_eos":true`...)
	}
	if p.Stream {
		tail = append(tail, `,"stream":true,"stream_options":{"include_usage":true}`...)
	}
	tail = append(tail, '}')
	return Template{head: head, tail: tail}
}

// Build appends to dst the body whose prompt is varying followed by the
// template's shared text.
func (t Template) Build(dst []byte, varying string) []byte {
	dst = append(dst, t.head...)
	dst = appendJSONChars(dst, varying)
	return append(dst, t.tail...)
}

// appendJSONChars appends s escaped for use inside a JSON string (without
// the quotes). Invalid UTF-8 becomes U+FFFD as encoding/json does.
func appendJSONChars(dst []byte, s string) []byte {
	const hex = "0123456789abcdef"
	for i := 0; i < len(s); {
		b := s[i]
		if b < utf8.RuneSelf {
			switch {
			case b == '"' || b == '\\':
				dst = append(dst, '\\', b)
			case b == '\n':
				dst = append(dst, '\\', 'n')
			case b == '\t':
				dst = append(dst, '\\', 't')
			case b == '\r':
				dst = append(dst, '\\', 'r')
			case b < 0x20:
				dst = append(dst, '\\', 'u', '0', '0', hex[b>>4], hex[b&0xf])
			default:
				dst = append(dst, b)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, `\ufffd`...)
		} else {
			dst = append(dst, s[i:i+size]...)
		}
		i += size
	}
	return dst
}
