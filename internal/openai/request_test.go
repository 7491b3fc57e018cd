package openai

import (
	"encoding/json"
	"testing"
)

func TestTemplateBuildsValidJSON(t *testing.T) {
	p := Params{Model: `org/"odd" model`, MaxTokens: 256, IgnoreEOS: true, Stream: true}
	shared := "tab\there \"quoted\" back\\slash \x01 ünïcode 中文 \xff"
	for _, e := range []Endpoint{Completions, Chat, Generate} {
		t.Run(string(e), func(t *testing.T) {
			body := NewTemplate(e, p, shared).Build(nil, "7: ")
			var v map[string]any
			if err := json.Unmarshal(body, &v); err != nil {
				t.Fatalf("invalid JSON %s: %v", body, err)
			}
			var prompt string
			switch e {
			case Completions:
				prompt, _ = v["prompt"].(string)
				if v["max_tokens"] != 256.0 || v["stream_options"] == nil || v["model"] != p.Model {
					t.Errorf("got %s", body)
				}
			case Chat:
				msgs, _ := v["messages"].([]any)
				if len(msgs) == 1 {
					prompt, _ = msgs[0].(map[string]any)["content"].(string)
				}
			case Generate:
				prompt, _ = v["text"].(string)
				sp, _ := v["sampling_params"].(map[string]any)
				if sp["max_new_tokens"] != 256.0 || sp["ignore_eos"] != true || v["stream"] != true {
					t.Errorf("got %s", body)
				}
			}
			want := "7: tab\there \"quoted\" back\\slash \x01 ünïcode 中文 \uFFFD"
			if prompt != want {
				t.Errorf("got prompt %q, want %q", prompt, want)
			}
		})
	}
}

func TestParseBaseURL(t *testing.T) {
	tests := []struct {
		in, want string
		wantErr  bool
	}{
		{in: "http://127.0.0.1:30000", want: "http://127.0.0.1:30000"},
		{in: "http://127.0.0.1:30000/", want: "http://127.0.0.1:30000"},
		{in: "http://host:8000/v1", want: "http://host:8000"},
		{in: "https://gw.example/llm/v1/", want: "https://gw.example/llm"},
		{in: "127.0.0.1:30000", want: "http://127.0.0.1:30000"}, // one parser everywhere: HOST:PORT is accepted
		{in: "ftp://host", wantErr: true},
		{in: "http://", wantErr: true},
		{in: "http://host/?x=1", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseBaseURL(tt.in)
			if (err != nil) != tt.wantErr {
				t.Fatalf("got error %v, want error %v", err, tt.wantErr)
			}
			if got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}
