package openai

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"sync"
	"time"
	"unicode/utf8"
)

// MalformedError is a stream that does not follow the server-sent events
// format, or an event whose data is not what an inference server sends.
type MalformedError struct{ Detail string }

func (e *MalformedError) Error() string { return "malformed SSE: " + e.Detail }

// maxLine bounds one SSE line, so a server that never sends a newline cannot
// make the reader grow without limit.
const maxLine = 1 << 20

// EventReader reads server-sent events and tells when each one arrived.
//
// The arrival time of an event is the time the network read that delivered
// its last byte returned, not the time the caller got round to parsing it:
// bufio only reads when its buffer holds no complete line, so an event's
// stamp is never later than the read that completed it. Events that arrived
// together in one read share a stamp, which is what happened on the wire.
type EventReader struct {
	src  stampReader
	br   *bufio.Reader
	data []byte // the current event's data, reused between events
	long []byte // a line longer than br's buffer, assembled here
	eof  bool
}

// NewEventReader reads events from r, stamping arrivals with now
// (time.Now when nil).
func NewEventReader(r io.Reader, now func() time.Time) *EventReader {
	er := &EventReader{}
	er.src.now = orNow(now)
	er.src.r = r
	er.br = bufio.NewReaderSize(&er.src, 32<<10)
	return er
}

// streamBufs is what one stream needs besides the connection. They are
// pooled: a benchmark opens thousands of streams, and the reader's 32 KiB
// buffer would otherwise be garbage after each.
type streamBufs struct {
	er *EventReader
	cp ChunkParser
}

var bufPool = sync.Pool{New: func() any { return &streamBufs{er: NewEventReader(nil, nil)} }}

func getStreamBufs(r io.Reader, now func() time.Time, onRead func(time.Time)) *streamBufs {
	b := bufPool.Get().(*streamBufs)
	er := b.er
	er.src = stampReader{r: r, now: orNow(now), onRead: onRead}
	er.br.Reset(&er.src)
	er.data, er.long, er.eof = er.data[:0], er.long[:0], false
	b.cp.Reset()
	return b
}

func putStreamBufs(b *streamBufs) {
	b.er.src = stampReader{}
	b.er.br.Reset(nil)
	bufPool.Put(b)
}

// Next returns the data of the next event that has any, and when its last
// byte arrived. Multi-line data is joined with newlines, as the format says.
// The slice is valid until the next call. At the end of the stream Next
// returns io.EOF; an event cut off by the end of the stream is still
// returned when its data line was complete, because some servers omit the
// last blank line.
func (r *EventReader) Next() ([]byte, time.Time, error) {
	r.data = r.data[:0]
	have := false
	for {
		if r.eof {
			if have {
				return r.data, r.src.at, nil
			}
			return nil, time.Time{}, io.EOF
		}
		line, err := r.readLine()
		if err == io.EOF {
			r.eof = true
			if len(line) == 0 {
				if have {
					return r.data, r.src.at, nil
				}
				return nil, time.Time{}, io.EOF
			}
			// A last line without its newline: take it as complete.
		} else if err != nil {
			return nil, time.Time{}, err
		}
		if len(line) == 0 {
			if have {
				return r.data, r.src.at, nil
			}
			continue
		}
		if line[0] == ':' { // a comment, used as a keep-alive
			continue
		}
		field, value, found := bytes.Cut(line, []byte(":"))
		if found && len(value) > 0 && value[0] == ' ' {
			value = value[1:]
		}
		switch string(field) { // no allocation: the compiler special-cases this
		case "data":
			if have {
				r.data = append(r.data, '\n')
			}
			r.data = append(r.data, value...)
			have = true
		case "event", "id", "retry":
		default:
			return nil, time.Time{}, &MalformedError{Detail: fmt.Sprintf("unexpected line %q", clip(string(line), 60))}
		}
	}
}

// readLine returns the next line without its line ending.
func (r *EventReader) readLine() ([]byte, error) {
	line, err := r.br.ReadSlice('\n')
	if err == bufio.ErrBufferFull {
		r.long = append(r.long[:0], line...)
		for err == bufio.ErrBufferFull {
			if len(r.long) > maxLine {
				return nil, &MalformedError{Detail: "line longer than 1 MiB"}
			}
			line, err = r.br.ReadSlice('\n')
			r.long = append(r.long, line...)
		}
		line = r.long
	}
	if err != nil && !(err == io.EOF && len(line) > 0) {
		return nil, err
	}
	line = bytes.TrimSuffix(line, []byte("\n"))
	line = bytes.TrimSuffix(line, []byte("\r"))
	if err == io.EOF {
		return line, io.EOF
	}
	return line, nil
}

// stampReader records when each read from the network returned data.
type stampReader struct {
	r      io.Reader
	now    func() time.Time
	at     time.Time
	onRead func(time.Time) // tells the stall watchdog that data came; may be nil
}

func (s *stampReader) Read(p []byte) (int, error) {
	if s.r == nil {
		return 0, io.EOF
	}
	n, err := s.r.Read(p)
	if n > 0 {
		s.at = s.now()
		if s.onRead != nil {
			s.onRead(s.at)
		}
	}
	return n, err
}

func orNow(now func() time.Time) func() time.Time {
	if now == nil {
		return time.Now
	}
	return now
}

// clip shortens s to at most n bytes for messages, marking the cut.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "..."
}
