// Package srvconfig reads the effective configuration an inference server
// prints while it starts, and checks expectations against it.
//
// Every server prints its configuration differently (see
// shared/research/lifecycle.md, sections 1.6, 2.6, 3-5):
//
//   - SGLang: server_args=ServerArgs(model_path='...', tp_size=1, ...), one
//     line (since mid-2026 the resolved dict, server_args={'model_path':
//     '...', ...}); later the scheduler's "max_total_num_tokens=..., context_len=..."
//     summary and "Load weight end. type=..., dtype=..." add resolved values.
//   - vLLM: "non-default args: {...}" (a Python dict) or, before May 2025,
//     "args: Namespace(...)"; then "Initializing a V1 LLM engine (v0.11.0)
//     with config: model='...', ..., compilation_config={...}"; the version
//     also comes from "vLLM API server version X" and "vLLM server version
//     X, serving model M"; backends from "Using X attention backend" lines.
//   - TGI: "Args { model_id: \"...\", ... }", on one line or pretty-printed
//     over many (see [Collector]).
//   - TensorRT-LLM: "TensorRT-LLM version: X", "[TRT-LLM] [I]
//     max_seq_len=..., max_batch_size=..." and any "...Args(k=v, ...)" repr.
//   - llama.cpp: many short lines, each giving a pair or a few:
//     "print_info: file type = Q4_K - Medium", "llama_context: n_ctx = 32768",
//     "system_info: ... | CUDA : ARCHS = 860 | USE_GRAPHS = 1 | ...",
//     "build: 7028 (a4e8f0c2) ...", "load_model: loading model '...'".
//
// [Parse] turns one such message into ordered key/value pairs: values as
// printed, strings unquoted, nested structures kept as their printed text,
// and dicts or reprs flattened one level as "parent.key". It respects
// nesting and quoting and survives truncation: a line cut in the middle
// yields the items that were complete, never a half value, and no input
// makes it panic. [Collector] feeds a startup's lines through Parse (joining
// multi-line blocks) and keeps the merged [Config].
//
// [Important] maps each server's own names onto canonical ones (model,
// quantization, dtype, tp, mem_fraction, context_length, ...), [Fingerprint]
// hashes them, and [Lookup] and [Check] serve --expect KEY=VALUE.
package srvconfig

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// KV is one configuration pair, as the server printed it.
type KV struct {
	Key   string `json:"key"`
	Value string `json:"value"`
}

// Config is an ordered list of configuration pairs. A Config built by
// [Collector] or [Config.Merge] has unique keys; Parse's output may repeat a
// key when the server printed it twice (the last one counts).
type Config []KV

// Get returns the last value of key, compared exactly.
func (c Config) Get(key string) (string, bool) {
	for i := len(c) - 1; i >= 0; i-- {
		if c[i].Key == key {
			return c[i].Value, true
		}
	}
	return "", false
}

// get is Get with keys compared case-insensitively and '-' equal to '_'.
func (c Config) get(key string) (string, bool) {
	key = normKey(key)
	for i := len(c) - 1; i >= 0; i-- {
		if normKey(c[i].Key) == key {
			return c[i].Value, true
		}
	}
	return "", false
}

// Merge returns c with the pairs of more applied in order: a new key is
// appended, a known key takes the newer value, except that an unresolved
// newer value (None, null, empty) never hides a resolved one. Later lines of
// a startup are closer to the effective configuration (vLLM's engine config
// after its CLI args, SGLang's scheduler summary after ServerArgs), so they
// win.
// MaxKeys bounds a configuration: a log that prints endless distinct keys
// must not make vigil's memory or work grow with it.
const MaxKeys = 4096

func (c Config) Merge(more []KV) Config {
	index := make(map[string]int, len(c)+len(more)) // a map keeps huge inputs linear
	for i, kv := range c {
		index[kv.Key] = i
	}
	for _, kv := range more {
		i, found := index[kv.Key]
		if !found {
			if len(c) >= MaxKeys {
				continue
			}
			index[kv.Key] = len(c)
			c = append(c, kv)
			continue
		}
		if !isNone(kv.Value) || isNone(c[i].Value) {
			c[i].Value = kv.Value
		}
	}
	return c
}

// Map returns the pairs as a map (the last value of a repeated key).
func (c Config) Map() map[string]string {
	m := make(map[string]string, len(c))
	for _, kv := range c {
		m[kv.Key] = kv.Value
	}
	return m
}

// MarshalJSON writes the pairs as one JSON object, in order, so that
// {"config": cfg} in an event reads like the server's own print.
func (c Config) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	first := true
	last := make(map[string]int, len(c)) // a repeated key: its last value counts
	for i, kv := range c {
		last[kv.Key] = i
	}
	for i, kv := range c {
		if last[kv.Key] != i {
			continue
		}
		if !first {
			b.WriteByte(',')
		}
		first = false
		k, err := marshalString(kv.Key)
		if err != nil {
			return nil, err
		}
		v, err := marshalString(kv.Value)
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

func marshalString(s string) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}

// UnmarshalJSON reads a JSON object of strings back in order. Non-string
// values are kept as their JSON text.
func (c *Config) UnmarshalJSON(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	if tok == nil { // null
		*c = nil
		return nil
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return fmt.Errorf("srvconfig: config is not a JSON object")
	}
	var out Config
	for dec.More() {
		kt, err := dec.Token()
		if err != nil {
			return err
		}
		k, _ := kt.(string)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return err
		}
		var s string
		if json.Unmarshal(raw, &s) != nil {
			s = string(raw)
		}
		out = append(out, KV{Key: k, Value: s})
	}
	*c = out
	return nil
}

// normKey folds a key for comparison: lower case, '-' as '_', no leading
// dashes (so "--tp-size" finds "tp_size").
func normKey(k string) string {
	k = strings.TrimLeft(strings.TrimSpace(k), "-")
	return strings.ToLower(strings.ReplaceAll(k, "-", "_"))
}

// isNone reports a value that says "not set": Python None, JSON null, Rust
// None, or nothing at all.
func isNone(v string) bool {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "", "none", "null", "nil":
		return true
	}
	return false
}
