package openai

import (
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

func readAll(t *testing.T, r io.Reader) ([]string, error) {
	t.Helper()
	er := NewEventReader(r, nil)
	var got []string
	for {
		data, at, err := er.Next()
		if err != nil {
			if err == io.EOF {
				return got, nil
			}
			return got, err
		}
		if at.IsZero() {
			t.Errorf("event %q has no arrival time", data)
		}
		got = append(got, string(data))
	}
}

func TestEventReader(t *testing.T) {
	long := strings.Repeat("x", 100<<10)
	tests := []struct {
		name    string
		in      string
		want    []string
		wantErr bool
	}{
		{name: "two events", in: "data: {\"a\":1}\n\ndata: [DONE]\n\n", want: []string{`{"a":1}`, "[DONE]"}},
		{name: "CRLF", in: "data: one\r\n\r\ndata: two\r\n\r\n", want: []string{"one", "two"}},
		{name: "no space after colon", in: "data:one\n\n", want: []string{"one"}},
		{name: "multi-line data", in: "data: a\ndata: b\n\n", want: []string{"a\nb"}},
		{name: "comments and other fields", in: ": keep-alive\n\nevent: message\nid: 7\nretry: 100\ndata: x\n\n", want: []string{"x"}},
		{name: "event without data is skipped", in: "event: ping\n\ndata: x\n\n", want: []string{"x"}},
		{name: "last blank line missing", in: "data: x\n\ndata: [DONE]\n", want: []string{"x", "[DONE]"}},
		{name: "last newline missing", in: "data: x\n\ndata: [DONE]", want: []string{"x", "[DONE]"}},
		{name: "line longer than the buffer", in: "data: " + long + "\n\n", want: []string{long}},
		{name: "empty stream", in: "", want: nil},
		{name: "raw JSON line is malformed", in: "{\"choices\":[]}\n\n", wantErr: true},
		{name: "unknown field is malformed", in: "garbage here\n\n", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, mode := range []string{"whole", "one byte at a time"} {
				var r io.Reader = strings.NewReader(tt.in)
				if mode != "whole" {
					r = iotest.OneByteReader(r)
				}
				got, err := readAll(t, r)
				var mal *MalformedError
				if tt.wantErr {
					if !errors.As(err, &mal) {
						t.Fatalf("%s: got error %v, want a MalformedError", mode, err)
					}
					continue
				}
				if err != nil {
					t.Fatalf("%s: got error %v", mode, err)
				}
				if strings.Join(got, "|") != strings.Join(tt.want, "|") || len(got) != len(tt.want) {
					t.Errorf("%s: got %d events %.80q, want %d %.80q", mode, len(got), got, len(tt.want), tt.want)
				}
			}
		})
	}
}

func TestEventReaderPassesReadErrors(t *testing.T) {
	boom := errors.New("boom")
	r := io.MultiReader(strings.NewReader("data: x\n\ndata: y"), iotest.ErrReader(boom))
	er := NewEventReader(r, nil)
	if data, _, err := er.Next(); err != nil || string(data) != "x" {
		t.Fatalf("got %q, %v; want x", data, err)
	}
	if _, _, err := er.Next(); !errors.Is(err, boom) {
		t.Fatalf("got %v, want boom", err)
	}
}
