package openai

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
)

// deadKeepAlive is a server that, like llama-server after an error event,
// answers one request per connection and then drops the connection as
// soon as the next request has arrived on it, without answering.
type deadKeepAlive struct {
	ln   net.Listener
	seen atomic.Int64 // requests read, answered or not
	wg   sync.WaitGroup
}

const okStream = "data: {\"choices\":[{\"index\":0,\"text\":\"hi\",\"finish_reason\":\"length\"}],\"usage\":{\"completion_tokens\":1,\"prompt_tokens\":2}}\n\ndata: [DONE]\n\n"

func newDeadKeepAlive(t *testing.T) *deadKeepAlive {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &deadKeepAlive{ln: ln}
	s.wg.Go(func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			s.wg.Go(func() { s.serve(conn) })
		}
	})
	t.Cleanup(func() { ln.Close(); s.wg.Wait() })
	return s
}

func (s *deadKeepAlive) serve(conn net.Conn) {
	defer conn.Close()
	br := bufio.NewReader(conn)
	for i := 0; ; i++ {
		req, err := http.ReadRequest(br)
		if err != nil {
			return
		}
		io.Copy(io.Discard, req.Body)
		s.seen.Add(1)
		if i > 0 {
			return // the second request on this connection is lost
		}
		fmt.Fprintf(conn, "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nContent-Length: %d\r\n\r\n%s", len(okStream), okStream)
	}
}

func TestStreamResendsOnDeadKeptAliveConnection(t *testing.T) {
	s := newDeadKeepAlive(t)
	c := &Client{BaseURL: "http://" + s.ln.Addr().String(), HTTP: &http.Client{Transport: NewTransport(1)}}
	defer c.HTTP.CloseIdleConnections() // before the server waits for its connections
	body := streamBody(Completions, 1)
	var res StreamResult
	c.Stream(t.Context(), Completions.Path(), body, &res)
	if res.Err != nil || res.Resent != 0 {
		t.Fatalf("first request: err %v, resent %d; want a clean answer", res.Err, res.Resent)
	}
	c.Stream(t.Context(), Completions.Path(), body, &res)
	if res.Err != nil || res.Resent != 1 || res.OutputTokens() != 1 {
		t.Fatalf("second request: err %v, resent %d, tokens %d; want it answered after one resend", res.Err, res.Resent, res.OutputTokens())
	}
	if got := s.seen.Load(); got != 3 {
		t.Errorf("server read %d requests, want 3 (one lost on the dead connection)", got)
	}
}

func TestStreamDoesNotResendOnFreshConnection(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var seen atomic.Int64
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			// Read the request, then hang up without answering: the server
			// saw it, so sending it again could run it twice.
			req, err := http.ReadRequest(bufio.NewReader(conn))
			if err == nil {
				io.Copy(io.Discard, req.Body)
				seen.Add(1)
			}
			conn.Close()
		}
	})
	t.Cleanup(func() { ln.Close(); wg.Wait() })
	c := &Client{BaseURL: "http://" + ln.Addr().String(), HTTP: &http.Client{Transport: NewTransport(1)}}
	var res StreamResult
	c.Stream(t.Context(), Completions.Path(), streamBody(Completions, 1), &res)
	if res.Err == nil || res.Resent != 0 || seen.Load() != 1 {
		t.Errorf("err %v, resent %d, server saw %d; want one failed request, not resent", res.Err, res.Resent, seen.Load())
	}
}
