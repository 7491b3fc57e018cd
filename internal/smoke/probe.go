package smoke

import (
	"context"
	"fmt"
	"strings"

	"vigil/internal/lazyre"
	"vigil/internal/openai"
)

// A model with random or scrambled weights answers fluent-looking word
// salad that no garbage rule can tell from text. Questions with one
// known answer can: greedy decoding of any sane model, instruct or base,
// large or tiny, gets at least one of them right, while word salad gets
// none. Each probe is asked as a chat question and, for completion
// endpoints, as a text a base model continues.

// Probe is a question with a known answer.
type Probe struct {
	Name string
	// Chat is asked through the chat API, Text through the completion
	// APIs (a base model continues it).
	Chat, Text string
	// Want matches a right answer anywhere in the reply.
	Want *lazyre.Regexp
}

// Probes are asked in this order; the first is [Prompt], whose answer the
// smoke check already has.
var Probes = []Probe{
	{Name: "capital", Chat: Prompt, Text: Prompt, Want: lazyre.New(`(?i)\bparis\b`)},
	{Name: "arithmetic", Chat: "What is 7 + 5? Answer with the number only.", Text: "Question: What is 7 + 5?\nAnswer:",
		Want: lazyre.New(`\b12\b|\btwelve\b`)},
	{Name: "sequence", Chat: "Continue the sequence and give the next number only: 1, 2, 3, 4, 5,", Text: "1, 2, 3, 4, 5,",
		Want: lazyre.New(`\b6\b|\bsix\b`)},
}

// probeTokens bounds the answers to the probes after the first: enough
// for "The answer is 12." or a reasoning model's first words.
const probeTokens = 16

// minRight is how many probes a sane model must get right.
const minRight = 1

// ProbeResult is one probe's answer.
type ProbeResult struct {
	Name   string `json:"name"`
	Answer string `json:"answer"`
	Right  bool   `json:"right"`
	// Err is why the probe got no answer, or "".
	Err string `json:"error,omitempty"`
}

type question struct {
	chat, text string
	maxTokens  int
}

// askProbes asks the probes after the first through the attempt that
// answered it, whose answer is first.
func askProbes(ctx context.Context, c *openai.Client, a attempt, model, first string) []ProbeResult {
	out := []ProbeResult{{Name: Probes[0].Name, Answer: first, Right: Probes[0].Want.Get().MatchString(first)}}
	for _, p := range Probes[1:] {
		answer, err := a.ask(ctx, c, model, question{chat: p.Chat, text: p.Text, maxTokens: probeTokens})
		r := ProbeResult{Name: p.Name, Answer: answer, Right: err == nil && p.Want.Get().MatchString(answer)}
		if err != nil {
			r.Err = openai.Reason(err)
		}
		out = append(out, r)
	}
	return out
}

// wrongAnswers reports whether the probes show a model that does not
// answer at all, and says so with what it answered.
func wrongAnswers(rs []ProbeResult) (string, bool) {
	right, asked := 0, 0
	var said []string
	for _, r := range rs {
		if r.Err != "" {
			continue // a failed request says nothing about the answers
		}
		asked++
		if r.Right {
			right++
		}
		said = append(said, fmt.Sprintf("%s %q", r.Name, clip(strings.TrimSpace(r.Answer), 60)))
	}
	if right >= minRight || asked < len(rs) {
		return "", false
	}
	return fmt.Sprintf("wrong answers to all %d known-answer questions (word salad: random or broken weights?): %s",
		asked, strings.Join(said, "; ")), true
}
