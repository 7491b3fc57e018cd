package smoke

import (
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"

	"vigil/internal/classify"
)

// embeddings answers the OpenAI embeddings API with vectors chosen by the
// input's text.
func embeddings(vec func(text string) string) func(map[string]any) (int, string) {
	return func(b map[string]any) (int, string) {
		in, _ := b["input"].([]any)
		var data []string
		for i, t := range in {
			s, _ := t.(string)
			data = append(data, fmt.Sprintf(`{"object":"embedding","index":%d,"embedding":%s}`, i, vec(s)))
		}
		return 200, `{"object":"list","data":[` + strings.Join(data, ",") + `],"model":"m"}`
	}
}

// bagOfWords is a sane embedding: texts that share words point alike.
func bagOfWords(text string) string {
	words := []string{"capital", "france", "paris", "city", "bananas", "potassium", "source"}
	v := make([]float64, len(words)+1)
	v[len(words)] = 0.1
	for i, w := range words {
		if strings.Contains(strings.ToLower(text), w) {
			v[i] = 1
		}
	}
	b, _ := json.Marshal(v)
	return string(b)
}

func rerank(body string) func(map[string]any) (int, string) {
	return func(b map[string]any) (int, string) {
		if b["query"] != rerankQuery || len(b["documents"].([]any)) != len(rerankDocs) {
			return 400, `{"error":"bad request"}`
		}
		return 200, body
	}
}

func TestCheckPooling(t *testing.T) {
	notFound := status(404, `{"detail":"Not Found"}`)
	tests := []struct {
		name       string
		routes     map[string]func(map[string]any) (int, string)
		opts       Options
		wantOK     bool
		wantReason string // prefix
		wantPath   string
		unchecked  bool
		wantHits   []string
	}{
		{name: "vLLM serves an embedding model's routes alone", wantOK: true, wantPath: "/v1/embeddings",
			opts:     Options{Model: "BAAI/bge-m3", Server: "vllm"},
			routes:   map[string]func(map[string]any) (int, string){"/v1/embeddings": embeddings(bagOfWords)},
			wantHits: []string{"POST /v1/chat/completions", "POST /v1/completions", "POST /v1/embeddings"}},
		{name: "the command line says so: no generation asked", wantOK: true, wantPath: "/v1/embeddings",
			opts:     Options{Model: "bge", Server: "llamacpp", Pooling: classify.Embedding},
			routes:   map[string]func(map[string]any) (int, string){"/v1/embeddings": embeddings(bagOfWords), "/v1/chat/completions": chat("garbage")},
			wantHits: []string{"POST /v1/embeddings"}},
		{name: "SGLang's model info says so", wantOK: true, wantPath: "/v1/embeddings",
			opts: Options{Model: "gte", Server: "sglang"},
			routes: map[string]func(map[string]any) (int, string){
				"/model_info":    status(200, `{"model_path":"Alibaba-NLP/gte-Qwen2-1.5B-instruct","is_generation":false}`),
				"/v1/embeddings": embeddings(bagOfWords), "/v1/chat/completions": status(500, `{"error":"x"}`)},
			wantHits: []string{"GET /model_info", "POST /v1/embeddings"}},
		{name: "older SGLang's model info", wantOK: true, wantPath: "/v1/embeddings",
			opts: Options{Model: "gte"},
			routes: map[string]func(map[string]any) (int, string){
				"/get_model_info": status(200, `{"model_path":"gte","is_generation":false}`),
				"/v1/embeddings":  embeddings(bagOfWords)},
			wantHits: []string{"GET /model_info", "GET /get_model_info", "POST /v1/embeddings"}},
		{name: "NaN written by Python", wantReason: "the embeddings hold NaN or infinity", opts: Options{Model: "m", Pooling: classify.Embedding},
			routes: map[string]func(map[string]any) (int, string){"/v1/embeddings": embeddings(func(string) string { return "[NaN, 0.5]" })}},
		{name: "NaN written as null", wantReason: "the embeddings hold NaN (null)", opts: Options{Model: "m", Pooling: classify.Embedding},
			routes: map[string]func(map[string]any) (int, string){"/v1/embeddings": embeddings(func(string) string { return "[null, 0.5]" })}},
		{name: "all zeros", wantReason: "an all-zero embedding for input 0", opts: Options{Model: "m", Pooling: classify.Embedding},
			routes: map[string]func(map[string]any) (int, string){"/v1/embeddings": embeddings(func(string) string { return "[0, 0, 0]" })}},
		{name: "one vector for every text", wantReason: "the same embedding for every text", opts: Options{Model: "m", Pooling: classify.Embedding},
			routes: map[string]func(map[string]any) (int, string){"/v1/embeddings": embeddings(func(string) string { return "[0.3, -0.2, 0.9]" })}},
		{name: "a paraphrase no closer than an unrelated sentence", wantReason: "the embeddings cannot tell a paraphrase from an unrelated sentence (cosine 0.00 against 1.00)",
			opts: Options{Model: "m", Pooling: classify.Embedding},
			routes: map[string]func(map[string]any) (int, string){"/v1/embeddings": embeddings(func(s string) string {
				if strings.HasPrefix(s, "Paris") {
					return "[0, 1]"
				}
				return "[1, 0]"
			})}},
		{name: "a route that answers every request alike is not judged", unchecked: true,
			wantReason: "the model generates no text and answered neither an embeddings nor a ranking request: /v1/embeddings answered, but not with this API's answer, /v1/rerank answered, but not with this API's answer",
			opts:       Options{Model: "m", Pooling: classify.Embedding},
			routes:     map[string]func(map[string]any) (int, string){"/v1/embeddings": chat(paris), "/v1/rerank": chat(paris)}},
		{name: "a missing embedding", wantReason: "no embedding for input 2 of 3", opts: Options{Model: "m", Pooling: classify.Embedding},
			routes: map[string]func(map[string]any) (int, string){"/v1/embeddings": status(200, `{"data":[{"index":0,"embedding":[1,0]},{"index":1,"embedding":[1,0.1]}]}`)}},
		{name: "a reranker", wantOK: true, wantPath: "/v1/rerank", opts: Options{Model: "bge-reranker", Server: "vllm", Pooling: classify.Embedding},
			routes: map[string]func(map[string]any) (int, string){"/v1/embeddings": notFound,
				"/v1/rerank": rerank(`{"results":[{"index":0,"relevance_score":0.98},{"index":1,"relevance_score":0.0001}]}`)}},
		{name: "llama.cpp's reranker: its embeddings are zeros", wantOK: true, wantPath: "/v1/rerank", opts: Options{Model: "r", Server: "llamacpp", Pooling: classify.Ranking},
			routes: map[string]func(map[string]any) (int, string){
				"/v1/embeddings": embeddings(func(string) string { return "[-0.0, 0.0, 0.0]" }),
				"/v1/rerank":     rerank(`{"model":"r","object":"list","usage":{"prompt_tokens":20,"total_tokens":20},"results":[{"index":1,"relevance_score":-10.2},{"index":0,"relevance_score":7.5}]}`)}},
		{name: "SGLang's ranking list", wantOK: true, wantPath: "/v1/rerank", opts: Options{Model: "r", Server: "sglang", Pooling: classify.Embedding},
			routes: map[string]func(map[string]any) (int, string){"/v1/rerank": rerank(`[{"score":3.1,"document":"Paris","index":0},{"score":-2.0,"document":"Bananas","index":1}]`)}},
		{name: "a ranking upside down", wantReason: "the ranking puts an unrelated document at or above the answer (0.9 against 0.1)",
			opts:   Options{Model: "r", Pooling: classify.Embedding},
			routes: map[string]func(map[string]any) (int, string){"/v1/rerank": rerank(`{"results":[{"index":1,"relevance_score":0.9},{"index":0,"relevance_score":0.1}]}`)}},
		{name: "a ranking of NaN written as null", wantReason: "the scores hold NaN (null)",
			opts:   Options{Model: "r", Pooling: classify.Ranking},
			routes: map[string]func(map[string]any) (int, string){"/v1/rerank": rerank(`{"results":[{"index":0,"relevance_score":null},{"index":1,"relevance_score":null}]}`)}},
		{name: "a ranking of NaN written by Python", wantReason: "the scores hold NaN or infinity",
			opts:   Options{Model: "r", Pooling: classify.Ranking},
			routes: map[string]func(map[string]any) (int, string){"/v1/rerank": rerank(`{"results":[{"index":0,"relevance_score":NaN},{"index":1,"relevance_score":0.1}]}`)}},
		{name: "a ranking that leaves a document out", wantReason: "no score for document 1 of 2",
			opts:   Options{Model: "r", Pooling: classify.Embedding},
			routes: map[string]func(map[string]any) (int, string){"/v1/rerank": rerank(`{"results":[{"index":0,"relevance_score":0.9}]}`)}},
		{name: "a classifier is not checked", unchecked: true,
			wantReason: "the model generates no text and answered neither an embeddings nor a ranking request: /v1/embeddings HTTP 404, /v1/rerank HTTP 404",
			opts:       Options{Model: "c", Server: "vllm", Pooling: classify.Embedding}, routes: map[string]func(map[string]any) (int, string){}},
		{name: "llama.cpp's embeddings of a model without pooling", unchecked: true,
			wantReason: "the model generates no text and answered neither an embeddings nor a ranking request: /v1/embeddings HTTP 400: Pooling type 'none' is not OAI compatible. Please use a different pooling type, /v1/rerank HTTP 501: This server does not support reranking.",
			opts:       Options{Model: "m", Server: "llamacpp", Pooling: classify.Embedding},
			routes: map[string]func(map[string]any) (int, string){
				"/v1/embeddings": status(400, `{"error":{"code":400,"message":"Pooling type 'none' is not OAI compatible. Please use a different pooling type","type":"invalid_request_error"}}`),
				"/v1/rerank":     status(501, `{"error":{"code":501,"message":"This server does not support reranking. Start it with `+"`--reranking`"+`","type":"not_supported_error"}}`)}},
		{name: "an embedding server's error is a failure", wantReason: "HTTP 500: CUDA error", wantPath: "/v1/embeddings",
			opts:   Options{Model: "m", Pooling: classify.Embedding},
			routes: map[string]func(map[string]any) (int, string){"/v1/embeddings": status(500, `{"error":{"message":"CUDA error"}}`)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := &fakeServer{routes: tt.routes}
			srv := httptest.NewServer(f)
			defer srv.Close()
			opts := tt.opts
			opts.BaseURL = srv.URL
			got := Check(t.Context(), opts)
			if got.OK != tt.wantOK || got.Unchecked != tt.unchecked || !strings.HasPrefix(got.Reason, tt.wantReason) || (tt.wantOK && got.Reason != "") {
				t.Fatalf("got OK %v unchecked %v reason %q, want OK %v unchecked %v reason %q", got.OK, got.Unchecked, got.Reason, tt.wantOK, tt.unchecked, tt.wantReason)
			}
			if tt.wantPath != "" && got.Endpoint != tt.wantPath {
				t.Errorf("got endpoint %q, want %q", got.Endpoint, tt.wantPath)
			}
			if got.OK && (got.Answer == "" || got.Latency <= 0) {
				t.Errorf("got answer %q latency %v", got.Answer, got.Latency)
			}
			if tt.wantHits != nil && strings.Join(f.hits, ",") != strings.Join(tt.wantHits, ",") {
				t.Errorf("got requests %v, want %v", f.hits, tt.wantHits)
			}
		})
	}
}
