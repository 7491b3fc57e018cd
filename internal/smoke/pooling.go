package smoke

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"strings"

	"vigil/internal/openai"
)

// An embedding or ranking model (vllm serve BAAI/bge-m3, sglang
// --is-embedding, llama-server --embeddings or --rerank) generates no
// text: its smoke check asks for what it serves and judges the numbers. A
// broken model answers NaN, zeros, or one vector whatever the text; one
// with random or scrambled weights cannot tell a paraphrase from an
// unrelated sentence, which any sane embedding model, however small, can.

const (
	embeddingsPath = "/v1/embeddings"
	rerankPath     = "/v1/rerank"
)

// Generates reports whether endpoint, the route that answered a smoke
// request (Result.Endpoint, "" for none), is one that generates text.
func Generates(endpoint string) bool {
	return endpoint != embeddingsPath && endpoint != rerankPath
}

// embedTexts: the first two say the same thing in other words, the third
// something else.
var embedTexts = []string{
	"The capital of France is Paris.",
	"Paris is the capital city of France.",
	"Bananas are a good source of potassium.",
}

// rerankQuery is answered by the first of rerankDocs only.
const rerankQuery = "What is the capital of France?"

var rerankDocs = []string{
	"Paris is the capital and largest city of France.",
	"Bananas are a good source of potassium.",
}

// sameVector: cosines at least this close to 1 are one vector.
const sameVector = 0.9999

// poolingAttempt is one way of asking a model that generates no text.
// ask returns a description of the answer, and why it is bad ("" when it
// is sane); err is a failed request.
type poolingAttempt struct {
	path string
	ask  func(ctx context.Context, c *openai.Client, model string) (answer, bad string, err error)
}

var poolingAttempts = []poolingAttempt{
	{path: embeddingsPath, ask: askEmbeddings},
	{path: rerankPath, ask: askRerank},
}

func askEmbeddings(ctx context.Context, c *openai.Client, model string) (string, string, error) {
	req := map[string]any{"input": embedTexts}
	if model != "" {
		req["model"] = model
	}
	var out struct {
		Data []struct {
			Index int `json:"index"`
			// A pointer each: llama.cpp writes a NaN as null.
			Embedding []*float64 `json:"embedding"`
		} `json:"data"`
	}
	if err := c.Do(ctx, http.MethodPost, embeddingsPath, req, &out); err != nil {
		if nonFinite(err) {
			return "", "the embeddings hold NaN or infinity", nil
		}
		return "", "", err
	}
	if len(out.Data) == 0 {
		return "", "", errNotServed
	}
	vecs := make([][]float64, len(embedTexts))
	for _, d := range out.Data {
		if d.Index < 0 || d.Index >= len(vecs) {
			return "", fmt.Sprintf("an embedding for input %d of %d", d.Index, len(vecs)), nil
		}
		v := make([]float64, len(d.Embedding))
		for i, x := range d.Embedding {
			if x == nil {
				return "", "the embeddings hold NaN (null)", nil
			}
			v[i] = *x
		}
		vecs[d.Index] = v
	}
	return judgeEmbeddings(vecs)
}

// judgeEmbeddings judges the embeddings of embedTexts, in order.
func judgeEmbeddings(vecs [][]float64) (answer, bad string, err error) {
	for i, v := range vecs {
		switch {
		case len(v) == 0:
			return "", fmt.Sprintf("no embedding for input %d of %d", i, len(vecs)), nil
		case len(v) != len(vecs[0]):
			return "", fmt.Sprintf("embeddings of different lengths (%d and %d)", len(vecs[0]), len(v)), nil
		}
		norm := 0.0
		for _, x := range v {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return "", "the embeddings hold NaN or infinity", nil
			}
			norm += x * x
		}
		if norm == 0 {
			return "", fmt.Sprintf("an all-zero embedding for input %d", i), nil
		}
	}
	para, other := cosine(vecs[0], vecs[1]), cosine(vecs[0], vecs[2])
	answer = fmt.Sprintf("%d embeddings of %d dimensions; cosine %.2f to a paraphrase, %.2f to an unrelated sentence", len(vecs), len(vecs[0]), para, other)
	switch {
	case para >= sameVector && other >= sameVector:
		return answer, "the same embedding for every text", nil
	case para <= other:
		return answer, fmt.Sprintf("the embeddings cannot tell a paraphrase from an unrelated sentence (cosine %.2f against %.2f): random or broken weights?", para, other), nil
	}
	return answer, "", nil
}

func cosine(a, b []float64) float64 {
	var ab, aa, bb float64
	for i := range a {
		ab += a[i] * b[i]
		aa += a[i] * a[i]
		bb += b[i] * b[i]
	}
	return ab / math.Sqrt(aa*bb)
}

// rankItem is one document's score: vLLM, llama.cpp and the Jina and
// Cohere APIs they follow name it relevance_score, SGLang score.
// Raw, as llama.cpp writes a NaN as null.
type rankItem struct {
	Index     int             `json:"index"`
	Relevance json.RawMessage `json:"relevance_score"`
	Score     json.RawMessage `json:"score"`
}

func askRerank(ctx context.Context, c *openai.Client, model string) (string, string, error) {
	req := map[string]any{"query": rerankQuery, "documents": rerankDocs}
	if model != "" {
		req["model"] = model
	}
	var raw json.RawMessage
	if err := c.Do(ctx, http.MethodPost, rerankPath, req, &raw); err != nil {
		if nonFinite(err) {
			return "", "the scores hold NaN or infinity", nil
		}
		return "", "", err
	}
	// {"results": [...]} (vLLM, llama.cpp), or the list alone (SGLang).
	var items []rankItem
	if raw = bytes.TrimSpace(raw); len(raw) > 0 && raw[0] == '[' {
		if err := json.Unmarshal(raw, &items); err != nil {
			return "", "", fmt.Errorf("decoding the answer: %w", err)
		}
	} else {
		var out struct {
			Results []rankItem `json:"results"`
		}
		if err := json.Unmarshal(raw, &out); err != nil {
			return "", "", fmt.Errorf("decoding the answer: %w", err)
		}
		items = out.Results
	}
	if len(items) == 0 {
		return "", "", errNotServed
	}
	scores := make([]*float64, len(rerankDocs))
	for _, it := range items {
		if it.Index < 0 || it.Index >= len(scores) {
			return "", fmt.Sprintf("a score for document %d of %d", it.Index, len(scores)), nil
		}
		raw := it.Relevance
		if len(raw) == 0 {
			raw = it.Score
		}
		if len(raw) == 0 {
			continue
		}
		if string(raw) == "null" {
			return "", "the scores hold NaN (null)", nil
		}
		var f float64
		if err := json.Unmarshal(raw, &f); err != nil {
			return "", "", fmt.Errorf("decoding the answer: %w", err)
		}
		scores[it.Index] = &f
	}
	for i, s := range scores {
		if s == nil {
			return "", fmt.Sprintf("no score for document %d of %d", i, len(scores)), nil
		}
	}
	answer := fmt.Sprintf("score %.3g for the answer, %.3g for an unrelated document", *scores[0], *scores[1])
	if *scores[0] <= *scores[1] {
		return answer, fmt.Sprintf("the ranking puts an unrelated document at or above the answer (%.3g against %.3g): random or broken weights?", *scores[1], *scores[0]), nil
	}
	return answer, "", nil
}

// errNotServed: the route answered, but not what the API answers (a
// server that takes every POST for a generation request): it is not
// judged as this API's answer.
var errNotServed = errors.New("answered, but not with this API's answer")

// nonFinite reports whether an answer failed to decode on a NaN or an
// infinity, which JSON cannot carry and Python's json module writes.
func nonFinite(err error) bool {
	var se *json.SyntaxError
	if !errors.As(err, &se) {
		return false
	}
	msg := se.Error()
	return strings.Contains(msg, "character 'N'") || strings.Contains(msg, "character 'I'")
}

// noPooling: the server does not serve this API, or not for its model
// (llama.cpp without --rerank answers 501; with a model whose pooling is
// "none" it answers 400 to the OpenAI embeddings route).
func noPooling(err error) bool {
	if noRoute(err) || errors.Is(err, errNotServed) {
		return true
	}
	var se *openai.StatusError
	if !errors.As(err, &se) || (se.Code != http.StatusBadRequest && se.Code != http.StatusUnprocessableEntity) {
		return false
	}
	body := strings.ToLower(se.Body)
	return strings.Contains(body, "does not support") || strings.Contains(body, "not supported") || strings.Contains(body, "not oai compatible")
}

// generatesText asks SGLang's /model_info (older versions':
// /get_model_info) whether the model generates text; known is false when the server does
// not say.
func generatesText(ctx context.Context, c *openai.Client) (generates, known bool) {
	for _, path := range []string{"/model_info", "/get_model_info"} {
		var info struct {
			IsGeneration *bool `json:"is_generation"`
		}
		err := c.Do(ctx, http.MethodGet, path, nil, &info)
		switch {
		case err == nil && info.IsGeneration != nil:
			return *info.IsGeneration, true
		case err == nil || !noRoute(err):
			return false, false
		}
	}
	return false, false
}
