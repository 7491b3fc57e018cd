package openai

import (
	"bytes"
	"errors"
	"io"
	"testing"
	"time"
)

// FuzzParseChunk: any event data parses without panicking, and the
// memoizing ChunkParser agrees with ParseChunk over a stream of events.
func FuzzParseChunk(f *testing.F) {
	f.Add([]byte(`{"id":"1","choices":[{"index":0,"delta":{"content":"Hi"},"finish_reason":null}]}` + "\n" +
		`{"id":"1","choices":[{"index":0,"delta":{"content":" there"},"finish_reason":null}]}` + "\n" +
		`{"id":"1","choices":[{"index":0,"delta":{},"finish_reason":"stop"}],"usage":{"prompt_tokens":5,"completion_tokens":2}}` + "\n[DONE]"))
	f.Add([]byte(`{"text":"x","meta_info":{"completion_tokens":3,"prompt_tokens":1}}`))
	f.Add([]byte(`{"error":{"message":"boom"}}`))
	f.Add([]byte(`{"choices":[{"text":"\"\\"}]}`))
	f.Fuzz(func(t *testing.T, stream []byte) {
		var cp ChunkParser
		for _, ev := range bytes.Split(stream, []byte("\n")) {
			want, werr := ParseChunk(ev)
			got, gerr := cp.Parse(ev)
			if got != want || (gerr == nil) != (werr == nil) {
				t.Fatalf("ChunkParser.Parse(%q) = %+v, %v; ParseChunk = %+v, %v", ev, got, gerr, want, werr)
			}
		}
	})
}

// FuzzEventReader: any byte stream, in any read sizes, ends in io.EOF or
// an error without panicking, and never yields more data than it read.
func FuzzEventReader(f *testing.F) {
	f.Add([]byte("data: {\"a\":1}\n\n: keep-alive\n\ndata: [DONE]\n\n"), uint8(3))
	f.Add([]byte("event: x\nid: 1\nretry: 5\ndata: a\ndata: b\n\n"), uint8(1))
	f.Add([]byte("data: no newline at end"), uint8(7))
	f.Add([]byte("garbage line\n\n"), uint8(2))
	f.Add([]byte("data:\r\n\r\n"), uint8(1))
	f.Fuzz(func(t *testing.T, stream []byte, step uint8) {
		now := time.Unix(0, 0)
		r := NewEventReader(&trickle{b: stream, step: int(step) + 1}, func() time.Time { return now })
		total := 0
		for i := 0; ; i++ {
			data, _, err := r.Next()
			if err != nil {
				var me *MalformedError
				if err != io.EOF && !errors.As(err, &me) && !errors.Is(err, io.ErrUnexpectedEOF) {
					t.Logf("stream ends with %v", err)
				}
				return
			}
			total += len(data)
			if total > len(stream) || i > len(stream) {
				t.Fatalf("read %d bytes of data in %d events from a %d-byte stream", total, i+1, len(stream))
			}
		}
	})
}

// trickle hands out at most step bytes per Read, as a slow network does.
type trickle struct {
	b    []byte
	step int
}

func (t *trickle) Read(p []byte) (int, error) {
	if len(t.b) == 0 {
		return 0, io.EOF
	}
	n := copy(p[:min(len(p), t.step)], t.b)
	t.b = t.b[n:]
	return n, nil
}
