package openai

import (
	"encoding/json"
	"testing"
)

func TestParseChunk(t *testing.T) {
	tests := []struct {
		name    string
		data    string
		want    Chunk
		wantErr bool
	}{
		{name: "done", data: "[DONE]", want: Chunk{Done: true, Tokens: -1, Prompt: -1}},
		{name: "chat delta", data: `{"choices":[{"index":0,"delta":{"content":" Paris"},"finish_reason":null}]}`,
			want: Chunk{Text: true, Tokens: -1, Prompt: -1}},
		{name: "python spacing", data: `{"choices": [{"index": 0, "delta": {"content": " Paris"}}]}`,
			want: Chunk{Text: true, Tokens: -1, Prompt: -1}},
		{name: "vLLM role-only first chunk", data: `{"choices":[{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}]}`,
			want: Chunk{Tokens: -1, Prompt: -1}},
		{name: "null content", data: `{"choices":[{"delta":{"role":"assistant","content":null}}]}`,
			want: Chunk{Tokens: -1, Prompt: -1}},
		{name: "reasoning model", data: `{"choices":[{"delta":{"content":null,"reasoning_content":"Okay,"}}]}`,
			want: Chunk{Text: true, Tokens: -1, Prompt: -1}},
		{name: "completion text", data: `{"choices":[{"index":0,"text":" the","logprobs":null,"finish_reason":null}]}`,
			want: Chunk{Text: true, Tokens: -1, Prompt: -1}},
		{name: "logprobs content is not text", data: `{"choices":[{"delta":{},"logprobs":{"content":[{"token":"x"}]}}]}`,
			want: Chunk{Tokens: -1, Prompt: -1}},
		{name: "key-like text inside a string", data: `{"choices":[{"delta":{"role":"a\"content\":\"x"}}]}`,
			want: Chunk{Tokens: -1, Prompt: -1}},
		{name: "finish chunk", data: `{"choices":[{"index":0,"delta":{},"finish_reason":"length"}]}`,
			want: Chunk{Finished: true, Tokens: -1, Prompt: -1}},
		{name: "usage chunk", data: `{"choices":[],"usage":{"prompt_tokens":1024,"total_tokens":1280,"completion_tokens":256,"completion_tokens_details":null}}`,
			want: Chunk{Tokens: 256, Prompt: 1024}},
		{name: "SGLang generate", data: `{"text":"Paris is","meta_info":{"id":"1","prompt_tokens":9,"completion_tokens":2,"finish_reason":null}}`,
			want: Chunk{Text: true, Tokens: 2, Prompt: 9}},
		{name: "in-band error object", data: `{"error":{"object":"error","message":"CUDA out of memory","code":500}}`,
			want: Chunk{Tokens: -1, Prompt: -1, Err: "CUDA out of memory"}},
		{name: "top-level error object", data: `{"object":"error","message":"bad request","code":400}`,
			want: Chunk{Tokens: -1, Prompt: -1, Err: "bad request"}},
		{name: "finish reason named error is not an error", data: `{"choices":[{"delta":{},"finish_reason":"error"}]}`,
			want: Chunk{Finished: true, Tokens: -1, Prompt: -1}},
		{name: "not JSON", data: `{"choices":[{"delta":{"content`, wantErr: true},
		{name: "plain text", data: `hello`, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if !tt.wantErr && tt.data != "[DONE]" && !json.Valid([]byte(tt.data)) {
				t.Fatalf("test data is not valid JSON")
			}
			got, err := ParseChunk([]byte(tt.data))
			if (err != nil) != tt.wantErr {
				t.Fatalf("got error %v, want error %v", err, tt.wantErr)
			}
			if !tt.wantErr && got != tt.want {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

func BenchmarkParseChunk(b *testing.B) {
	data := []byte(`{"id":"chatcmpl-7f3a","object":"chat.completion.chunk","created":1767225600,"model":"Qwen/Qwen2.5-7B-Instruct","choices":[{"index":0,"delta":{"content":" hi"},"logprobs":null,"finish_reason":null}]}`)
	for b.Loop() {
		ParseChunk(data)
	}
}

// TestChunkParserAgreesWithParseChunk feeds realistic streams through the
// memoising parser and checks every event against a fresh parse.
func TestChunkParserAgreesWithParseChunk(t *testing.T) {
	tokens := []string{" Paris", "", `\"`, `\\`, `\\\"`, ` a": "b`, "\u00e9", " ok", `"},"x":{"content":"`}
	chat := func(tok, finish string) string {
		q, _ := json.Marshal(tok)
		return `{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":` +
			string(q) + `},"logprobs":null,"finish_reason":` + finish + `}]}`
	}
	sglang := func(tok string) string {
		q, _ := json.Marshal(tok)
		return `{"id":"1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"role":null,"content":` +
			string(q) + `,"reasoning_content":null,"tool_calls":null},"logprobs":null,"finish_reason":null,"matched_stop":null}],"usage":null}`
	}
	var streams = map[string][]string{}
	var s1, s2 []string
	s1 = append(s1, `{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}]}`)
	for _, tok := range tokens {
		s1 = append(s1, chat(tok, "null"))
		s2 = append(s2, sglang(tok))
	}
	s1 = append(s1, chat("", `"length"`), `{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[],"usage":{"prompt_tokens":5,"total_tokens":15,"completion_tokens":10}}`,
		`{"error":{"message":"boom"}}`, chat("x", "null"), `{"choices":[{"delta":{"content":"x"}}]`, "[DONE]")
	streams["vLLM chat"], streams["SGLang chat"] = s1, s2
	streams["reasoning then content"] = []string{
		`{"choices":[{"delta":{"content":null,"reasoning_content":"Okay"}}]}`,
		`{"choices":[{"delta":{"content":null,"reasoning_content":""}}]}`,
		`{"choices":[{"delta":{"content":"Paris","reasoning_content":null}}]}`,
		`{"choices":[{"delta":{"content":"","reasoning_content":null}}]}`,
	}
	streams["generate"] = []string{
		`{"text":"a","meta_info":{"completion_tokens":1,"finish_reason":null}}`,
		`{"text":"ab","meta_info":{"completion_tokens":2,"finish_reason":null}}`,
		`{"text":"ab","meta_info":{"completion_tokens":2,"finish_reason":{"type":"stop"}}}`,
	}
	for name, events := range streams {
		t.Run(name, func(t *testing.T) {
			var cp ChunkParser
			for i, ev := range events {
				want, wantErr := ParseChunk([]byte(ev))
				got, err := cp.Parse([]byte(ev))
				if got != want || (err != nil) != (wantErr != nil) {
					t.Errorf("event %d %s: got %+v, %v; want %+v, %v", i, ev, got, err, want, wantErr)
				}
			}
		})
	}
}

func BenchmarkChunkParser(b *testing.B) {
	data := []byte(`{"id":"chatcmpl-7f3a","object":"chat.completion.chunk","created":1767225600,"model":"Qwen/Qwen2.5-7B-Instruct","choices":[{"index":0,"delta":{"content":" hi"},"logprobs":null,"finish_reason":null}]}`)
	var cp ChunkParser
	for b.Loop() {
		cp.Parse(data)
	}
}
