package smoke

import (
	"strings"
	"testing"
)

func TestGarbage(t *testing.T) {
	tests := []struct {
		name   string
		text   string
		bad    bool
		reason string // a prefix of the reason, when bad
	}{
		{name: "sane sentence", text: "The capital of France is Paris."},
		{name: "answer padded by a fake server", text: strings.Repeat("The capital of France is Paris. ", 5) + "The capital"},
		{name: "longer answer", text: "Paris is the capital and largest city of France, on the Seine."},
		{name: "excited but sane", text: "Paris!!! It is the capital of France!"},
		{name: "French answer", text: "La capitale de la France est Paris."},
		{name: "Chinese answer", text: "法国的首都是巴黎。"},
		{name: "Japanese answer mixes kana and kanji", text: "フランスの首都はパリです。"},
		{name: "English with a Chinese name", text: "The capital of France is Paris (巴黎)."},
		{name: "markdown rule", text: "Paris.\n\n----------\n\nDone."},
		{name: "big number", text: "About 1000000 people visit."},
		{name: "reasoning start", text: "<think>\nOkay, the user asks for the capital of France. That is Paris."},
		{name: "one truncated multibyte character", text: "The capital of France is Paris, or in Chinese 巴\uFFFD"},

		{name: "empty", text: "", bad: true, reason: "empty answer"},
		{name: "blank", text: " \n\t ", bad: true, reason: "empty answer"},
		{name: "bangs, one token each", text: strings.Repeat("!", 32), bad: true, reason: "garbage: run of 32 '!'"},
		{name: "bangs in words from a fake server", text: strings.Repeat("!!!!!!!! ", 8), bad: true, reason: "garbage: run of 64 '!'"},
		{name: "bangs after a start", text: "The capital!!!!!!!!!!!!!!!!", bad: true, reason: "garbage: run of 16 '!'"},
		{name: "long run of another symbol", text: strings.Repeat("?", 30), bad: true, reason: "garbage: run of 30 '?'"},
		{name: "replacement characters", text: "Par\uFFFD\uFFFD\uFFFDis", bad: true, reason: "garbage: 3 replacement characters"},
		{name: "invalid UTF-8", text: "\xff\xfe\xfd ok", bad: true, reason: "garbage: 3 replacement characters"},
		{name: "control characters", text: "a\x00b\x01c\x02d", bad: true, reason: "garbage: 3 control characters"},
		{name: "one word repeated", text: "The the the the the the the the the the", bad: true, reason: `garbage: one token repeated: "the" ×9`},
		{name: "two words repeated", text: strings.Repeat("of the ", 10), bad: true, reason: `garbage: one token repeated: "of the" ×10`},
		{name: "repetition after a sane start", text: "Paris is" + strings.Repeat(" Paris", 12), bad: true, reason: `garbage: one token repeated: "Paris" ×12`},
		{name: "CJK character repeated", text: strings.Repeat("的", 20), bad: true, reason: `garbage: one token repeated: "的" ×20`},
		{name: "unk tokens", text: strings.Repeat("<unk>", 12), bad: true, reason: `garbage: one token repeated: "<unk>" ×12`},
		{name: "script soup", text: "sizeof ветеран 阳光 مرحبا Ελλάδα", bad: true, reason: "garbage: mixes 5 scripts"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reason, bad := Garbage(tt.text)
			if bad != tt.bad {
				t.Fatalf("Garbage(%.60q) = %q, %v; want bad %v", tt.text, reason, bad, tt.bad)
			}
			if bad && !strings.HasPrefix(reason, tt.reason) {
				t.Errorf("got reason %q, want it to start with %q", reason, tt.reason)
			}
			if !bad && reason != "" {
				t.Errorf("got reason %q for a sane answer", reason)
			}
		})
	}
}
