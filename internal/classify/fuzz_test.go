package classify

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// FuzzParse: ParseFast must return exactly what Parse does, for any line.
func FuzzParse(f *testing.F) {
	for _, l := range edgeLines {
		f.Add(l)
	}
	f.Fuzz(func(t *testing.T, line string) {
		if got, want := ParseFast(line), Parse(line); got != want {
			t.Errorf("ParseFast(%q)\ngot  %+v\nwant %+v", line, got, want)
		}
	})
}

// FuzzClassify: for every profile, the prefiltered Classify must agree
// with testing every rule's literals one by one.
func FuzzClassify(f *testing.F) {
	for _, l := range edgeLines {
		f.Add(l)
	}
	f.Fuzz(func(t *testing.T, line string) {
		for _, pr := range allProfiles {
			got, want := pr.Classify(line), pr.classifySlow(line)
			if !sameClass(got, want) {
				t.Errorf("%s: Classify(%q)\ngot  %s\nwant %s", pr.Name, line, describe(got), describe(want))
			}
		}
	})
}

// FuzzParseProgress: a bar is only ever parsed where MaybeProgress says it
// may be, and a parsed bar is consistent.
func FuzzParseProgress(f *testing.F) {
	for _, l := range edgeLines {
		f.Add(l)
	}
	f.Add("Capturing batches (bs=1 avail_mem=23.56 GB): 100%|██████████| 52/52 [00:05<00:00, 10.36it/s]")
	f.Add("Loading pt checkpoint shards:  25% Completed | 1/4 [00:02<00:06,  2.00s/it]")
	f.Fuzz(func(t *testing.T, msg string) {
		p, ok := ParseProgress(msg)
		if !ok {
			return
		}
		if !MaybeProgress(msg) {
			t.Errorf("MaybeProgress(%q) = false, but ParseProgress parses it", msg)
		}
		if p.Total <= 0 || p.Done < 0 || p.Done > p.Total || p.Percent < 0 || p.Percent > 100 || p.Rate < 0 {
			t.Errorf("ParseProgress(%q) = %+v: inconsistent", msg, p)
		}
	})
}

// FuzzACAuto: the automaton reports every occurrence of every key, ignoring
// ASCII case, and nothing else. Keys are the distinct '|'-separated parts
// of the first input.
func FuzzACAuto(f *testing.F) {
	f.Add("he|she|his|hers", "ushers")
	f.Add("a|aa|aaa|b", "aaaabaa")
	f.Add("load|loading|Loading model|oad", "INFO Loading model weights; LOADED")
	f.Add("abcd|bc|c|bcde", "xabcdex")
	f.Fuzz(func(t *testing.T, keyList, text string) {
		seen := map[string]bool{}
		var keys []string
		for k := range strings.SplitSeq(foldString(keyList), "|") {
			if k != "" && !seen[k] && len(keys) < 32 {
				seen[k] = true
				keys = append(keys, k)
			}
		}
		if len(keys) == 0 {
			return
		}
		a := newACAuto(keys)
		var got []string
		row := a.root
		for i := 0; i < len(text); i++ {
			row = a.step(row, a.class[text[i]])
			if row >= 0 {
				continue
			}
			row = ^row
			st := row / a.nclass
			for _, k := range a.outs[a.outStart[st]:a.outStart[st+1]] {
				got = append(got, fmt.Sprintf("%d@%d", k, i+1))
			}
		}
		var want []string
		folded := foldString(text)
		for end := 1; end <= len(folded); end++ {
			for id, k := range keys {
				if strings.HasSuffix(folded[:end], k) {
					want = append(want, fmt.Sprintf("%d@%d", id, end))
				}
			}
		}
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("keys %q in %q:\ngot  %v\nwant %v", keys, text, got, want)
		}
	})
}

// FuzzTRTHeader: cutTRTHeader matches as trtHeaderRe does.
func FuzzTRTHeader(f *testing.F) {
	for _, s := range []string{
		"[TRT-LLM] [I] Starting TensorRT-LLM init.",
		"[01/08/2026-10:00:00] [TRT-LLM] [MPI_Rank 0] [W] x",
		"[01/08/2026-10:00:00] [TRT-LLM] [E]",
		"[TRT-LLM] [MPI_Rank 12] [E]x",
		"[12/02/2025-08:41:59] [TRT-LLM] [RANK 0] [I] Running autotuner warmup...",
		"[12/20/2025-03:40:47] [TRT-LLM AUTO-DEPLOY] [RANK 0] [I] [stage=compile, transform=compile_model] elapsed time",
		"[TRT-LLM AUTO-DEPLOY] [W] x",
		"[TRT-LLM] [RANK ] [E] x",
		"[TRT-LLM  AUTO-DEPLOY] [W] x",
		"[TRT-LLM] [MPI_Rank ] [E] x",
		"[TRT-LLM] [MPI_Rank 1][E] x",
		"[TRT-LLM] [X] x",
		"[01/08/2026-10:00:00][TRT-LLM] [I] x",
		"[1/08/2026-10:00:00] [TRT-LLM] [I] x",
		"[TRT-LLM] [V]  two spaces",
		"[TRT-LLM] [F",
		"[TRT-LLM]",
		"[09/04/2026-00:01:25] [TRT-LLM] [I] [_torch][RANK 1] ATTENTION RUNTIME FEATURES",
		"[TRT-LLM] [E] [executor] Failed to initialize executor on rank 0",
		"[TRT-LLM] [I] [_torch][RANK 0]  two spaces",
		"[TRT-LLM] [I] [_torch][RANK ] x",
		"[TRT-LLM] [I] [Torch] x",
		"[TRT-LLM] [RANK 2] [I] [_torch][RANK 0] x",
		"[TRT-LLM] [I] [a]",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, msg string) {
		stamp, rank, level, n, ok := cutTRTHeader(msg)
		m := trtHeaderRe.Get().FindStringSubmatch(msg)
		if ok != (m != nil) {
			t.Fatalf("cutTRTHeader(%q) ok = %v, expression %q", msg, ok, m)
		}
		if ok && (stamp != m[1] || rank != cmp.Or(m[2], m[4]) || level != m[3] || n != len(m[0])) {
			t.Fatalf("cutTRTHeader(%q) = %q %q %q %d, expression %q", msg, stamp, rank, level, n, m)
		}
	})
}

// FuzzLevelName: levelName is the levelNames map.
func FuzzLevelName(f *testing.F) {
	for k := range levelNames {
		f.Add(k)
	}
	f.Add("")
	f.Add("info")
	f.Add("WARNINGS")
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := levelName(s), levelNames[s]; got != want {
			t.Fatalf("levelName(%q) = %q, want %q", s, got, want)
		}
	})
}
