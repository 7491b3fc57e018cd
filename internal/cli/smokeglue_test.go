package cli

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
)

// TestSmokeForReadsTheCommandLine: a server whose command line starts it
// with an embedding model is asked for embeddings, even though its chat
// route answers (llama-server's does, with word salad from an embedding
// model); without the flag, the chat answer is what is judged.
func TestSmokeForReadsTheCommandLine(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/v1/models":
			io.WriteString(w, `{"data":[{"id":"bge"}]}`)
		case "/v1/chat/completions":
			io.WriteString(w, `{"choices":[{"message":{"content":"Saturday reli hol gen ControllerDOCTYPE"}}]}`)
		case "/v1/embeddings":
			var req struct{ Input []string }
			json.NewDecoder(r.Body).Decode(&req)
			var data []string
			for i, text := range req.Input {
				// Alike when they share "France".
				v := "[0.1, 1]"
				if strings.Contains(text, "France") {
					v = "[1, 0.1]"
				}
				data = append(data, `{"index":`+strconv.Itoa(i)+`,"embedding":`+v+`}`)
			}
			io.WriteString(w, `{"data":[`+strings.Join(data, ",")+`]}`)
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	tests := []struct {
		name     string
		argv     []string
		env      map[string]string
		wantOK   bool
		endpoint string
	}{
		{"embeddings flag", []string{"llama-server", "-m", "bge.gguf", "--embeddings"}, nil, true, "/v1/embeddings"},
		{"embeddings variable", []string{"llama-server", "-m", "bge.gguf"}, map[string]string{"LLAMA_ARG_EMBEDDINGS": "1"}, true, "/v1/embeddings"},
		{"a generating server", []string{"llama-server", "-m", "bge.gguf"}, nil, false, "/v1/chat/completions"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			extras := map[string]any{}
			r := smokeFor("", tt.argv, func(k string) string { return tt.env[k] }, extras)(t.Context(), "llamacpp", srv.URL)
			if r.OK != tt.wantOK || r.Endpoint != tt.endpoint {
				t.Fatalf("got OK %v at %s (%s); want OK %v at %s", r.OK, r.Endpoint, r.Reason, tt.wantOK, tt.endpoint)
			}
			if extras["smoke"] == nil {
				t.Error("the outcome is not kept for the verdict")
			}
		})
	}
}
