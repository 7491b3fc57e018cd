package classify

import (
	"fmt"
	"reflect"
	"testing"
	"unsafe"
)

// TestMemoSameAsClassify: what a Memo answers, the first time and on a
// repeat, is what Classify answers, for every profile and every line of
// the real-shaped log, also when the buffer the line was read from is
// overwritten in between (as explain's read buffers are).
func TestMemoSameAsClassify(t *testing.T) {
	lines := realShapedLog(t, 1<<20)
	profiles := []*Profile{sglang, vllm, tgi, llamacpp, trtllm, generic}
	m := NewMemo()
	for _, pr := range profiles {
		for _, l := range lines {
			if l == "" {
				continue
			}
			buf := []byte(l)
			got := m.Classify(pr, unsafe.String(&buf[0], len(buf)))
			if want := pr.Classify(l); !reflect.DeepEqual(got, want) {
				t.Fatalf("%s, first time: %q\n got %+v\nwant %+v", pr.Name, l, got, want)
			}
			for i := range buf {
				buf[i] = '#'
			}
			if got, want := m.Classify(pr, string([]byte(l))), pr.Classify(l); !reflect.DeepEqual(got, want) {
				t.Fatalf("%s, repeat: %q\n got %+v\nwant %+v", pr.Name, l, got, want)
			}
		}
	}
}

// TestMemoKeys: lines that differ only in their stamp share an entry, and
// each still gets its own Parsed; the same message at another level or of
// another profile is its own entry.
func TestMemoKeys(t *testing.T) {
	m := NewMemo()
	a := "[2026-05-19 10:00:00] Load weight begin. avail mem=78.50 GB"
	b := "[2026-05-19 10:00:07] Load weight begin. avail mem=78.50 GB"
	ca, cb := m.Classify(sglang, a), m.Classify(sglang, b)
	if m.entries != 1 {
		t.Errorf("two stamps of one message: %d entries, want 1", m.entries)
	}
	if ca.Stamp == cb.Stamp || cb.Raw != b || ca.Phase != cb.Phase {
		t.Errorf("parts of the second line: %+v (first %+v)", cb, ca)
	}
	m.Classify(vllm, a)
	m.Classify(sglang, "WARNING: Load weight begin. avail mem=78.50 GB")
	m.Classify(sglang, "Load weight begin. avail mem=78.50 GB")
	if m.entries != 3 || len(m.by) != 3 {
		t.Errorf("another profile, another level: %d entries in %d maps, want 3 in 3", m.entries, len(m.by))
	}
}

// TestMemoAccessAddress: uvicorn's access lines (vLLM, SGLang and
// TensorRT-LLM serve through it) differ in the client's port on every
// request; through a Memo, all those of one request and answer share an
// entry, and each is classified as Classify classifies it, for every
// profile.
func TestMemoAccessAddress(t *testing.T) {
	lines := []string{
		`(APIServer pid=2231) INFO:     %s - "POST /v1/chat/completions HTTP/1.1" 200 OK`,
		`(APIServer pid=2231) INFO:     %s - "GET /health HTTP/1.1" 503 Service Unavailable`,
		`[2026-05-16 06:20:57] INFO:     %s - "GET /health HTTP/1.1" 500 Internal Server Error`,
		`[2026-05-16 06:20:57] INFO:     %s - "POST /generate HTTP/1.1" 200 OK`,
		`INFO:     %s - "GET /v1/models HTTP/1.1" 404 Not Found`,
		`INFO:     %s - "POST /v1/completions HTTP/1.1" 400 Bad Request`,
	}
	// Lines the memo must not share across addresses: a bar's description
	// is the text before it, address and all.
	unshared := []string{
		`INFO:     %s - "GET / HTTP/1.1" 200 OK 50%%|#####     | 5/10 [00:01<00:01, 5.00it/s]`,
	}
	addrs := []string{"127.0.0.1:42375", "127.0.0.1:42409", "10.0.4.21:51890", "10.42.3.1:1", "192.168.100.200:65535"}
	for _, pr := range allProfiles {
		m := NewMemo()
		for _, f := range append(append([]string(nil), lines...), unshared...) {
			for _, a := range addrs {
				l := fmt.Sprintf(f, a)
				if got, want := m.Classify(pr, l), pr.Classify(l); !reflect.DeepEqual(got, want) {
					t.Fatalf("%s: %q\n got %+v\nwant %+v", pr.Name, l, got, want)
				}
			}
		}
		if m.entries != len(lines) {
			t.Errorf("%s: %d entries for %d requests from %d addresses, want one per request", pr.Name, m.entries, len(lines), len(addrs))
		}
	}
}

func TestClientAddr(t *testing.T) {
	for _, tt := range []struct {
		name, msg string
		want      int
	}{
		{"uvicorn", `127.0.0.1:42375 - "GET /health HTTP/1.1" 200 OK`, 15},
		{"long address", `192.168.100.200:65535 - "GET / HTTP/1.1" 200 OK`, 21},
		{"no port", `127.0.0.1: - "GET / HTTP/1.1" 200 OK`, 0},
		{"no quote", `127.0.0.1:80 - GET`, 0},
		{"two dots", `127.0.1:80 - "GET / HTTP/1.1" 200 OK`, 0},
		{"a version", `1.2.3.4:5 is the version`, 0},
		{"a message", `Load weight begin. avail mem=78.50 GB`, 0},
		{"empty", ``, 0},
		{"address only", `127.0.0.1:80`, 0},
		{"port too long", `127.0.0.1:12345678 - "GET / HTTP/1.1"`, 0},
		{"no request after it", `127.0.0.1:42409 - "0000%|0/10`, 0},
		{"a path without a method", `127.0.0.1:42409 - "/health HTTP/1.1" 200 OK`, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := clientAddr(tt.msg); got != tt.want {
				t.Errorf("clientAddr(%q) = %d, want %d", tt.msg, got, tt.want)
			}
		})
	}
}

// TestMemoBounded: a Memo never holds more than its bound, and nil
// classifies without one.
func TestMemoBounded(t *testing.T) {
	m := NewMemo()
	for i := range memoMaxEntries + 10 {
		m.Classify(vllm, fmt.Sprintf("INFO 05-19 10:00:00 x.py:1] line %d", i))
		n := 0
		for _, b := range m.by {
			n += len(b.m)
		}
		if n != m.entries || n > memoMaxEntries || m.bytes > memoMaxBytes+memoMaxMsg {
			t.Fatalf("after %d lines: %d entries (counted %d), %d bytes", i+1, n, m.entries, m.bytes)
		}
	}
	var none *Memo
	l := "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB"
	if got, want := none.Classify(vllm, l), vllm.Classify(l); !reflect.DeepEqual(got, want) {
		t.Errorf("nil memo: %+v, want %+v", got, want)
	}
}

// BenchmarkMemoClassify is BenchmarkClassify through a Memo: the log
// repeats its scenarios' lines, so after the first round every line is a
// repeat (what a crash-looping server's log mostly is).
func BenchmarkMemoClassify(b *testing.B) {
	lines := realShapedLog(b, 8<<20)
	total := 0
	for _, l := range lines {
		total += len(l) + 1
	}
	profiles := []*Profile{sglang, vllm, tgi, llamacpp, trtllm}
	m := NewMemo()
	b.SetBytes(int64(total))
	b.ResetTimer()
	for b.Loop() {
		for i, l := range lines {
			m.Classify(profiles[i%len(profiles)], l)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(lines)), "ns/line")
}

// FuzzMemo: through one Memo, a line and then a line with the same
// message under another stamp are classified as Classify does.
func FuzzMemo(f *testing.F) {
	for _, l := range edgeLines {
		f.Add(l)
	}
	f.Add(`"GET / HTTP/1.1" 200 OK 50%|#####     | 5/10`)
	m := NewMemo()
	f.Fuzz(func(t *testing.T, line string) {
		for _, pr := range allProfiles {
			for _, l := range []string{line, "[2026-05-19 10:00:00] " + line, "[2026-05-19 10:00:01] " + line,
				"INFO:     127.0.0.1:42375 - " + line, "INFO:     127.0.0.1:42409 - " + line} {
				if got, want := m.Classify(pr, l), pr.Classify(l); !reflect.DeepEqual(got, want) {
					t.Fatalf("%s: %q\n got %+v\nwant %+v", pr.Name, l, got, want)
				}
				for range 3 {
					if got, want := m.ClassifyRepeats(pr, "x"+l), pr.Classify("x"+l); !reflect.DeepEqual(got, want) {
						t.Fatalf("%s: repeats: %q\n got %+v\nwant %+v", pr.Name, "x"+l, got, want)
					}
				}
			}
		}
	})
}

// TestMemoRepeats: ClassifyRepeats keeps a message the second time it
// comes, and answers as Classify does each time.
func TestMemoRepeats(t *testing.T) {
	m := NewMemo()
	lines := realShapedLog(t, 1<<18)
	for round := range 3 {
		for _, l := range lines {
			if got, want := m.ClassifyRepeats(vllm, l), vllm.Classify(l); !reflect.DeepEqual(got, want) {
				t.Fatalf("round %d: %q\n got %+v\nwant %+v", round, l, got, want)
			}
		}
	}
	m = NewMemo()
	a := "[2026-05-19 10:00:00] slot launch_slot_: id  0 | task 41267 | processing task"
	m.ClassifyRepeats(sglang, a)
	if m.entries != 0 {
		t.Errorf("a message met once: %d entries, want 0", m.entries)
	}
	m.ClassifyRepeats(sglang, "[2026-05-19 10:00:01] slot launch_slot_: id  0 | task 41267 | processing task")
	if m.entries != 1 {
		t.Errorf("a message met twice: %d entries, want 1", m.entries)
	}
	var none *Memo
	if got, want := none.ClassifyRepeats(vllm, a), vllm.Classify(a); !reflect.DeepEqual(got, want) {
		t.Errorf("nil memo: %+v, want %+v", got, want)
	}
}

// TestMemoBannerServer: through a Memo, every line of the real-shaped log
// names the banner's server as BannerServer does, the first time and on a
// repeat, and the Memo's banner answers stay within their bound.
func TestMemoBannerServer(t *testing.T) {
	m := NewMemo()
	banners := 0
	for range 2 {
		for _, l := range realShapedLog(t, 1<<20) {
			msg := ParseFast(l).Msg
			got, want := m.BannerServer(msg), BannerServer(msg)
			if got != want {
				t.Fatalf("BannerServer(%q) through a Memo = %q, want %q", msg, got, want)
			}
			if want != "" {
				banners++
			}
			if len(m.banners) > memoMaxBanners {
				t.Fatalf("%d banner answers kept, bound %d", len(m.banners), memoMaxBanners)
			}
		}
	}
	if banners == 0 {
		t.Fatal("the log held no banner: the test proves nothing")
	}
	var none *Memo
	if got := none.BannerServer("vLLM API server version 0.11.0"); got != BannerServer("vLLM API server version 0.11.0") {
		t.Errorf("nil memo: %q", got)
	}
}
