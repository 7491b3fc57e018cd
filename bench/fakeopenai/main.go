// Command fakeopenai is a fast fake OpenAI-compatible inference server for
// measuring vigil's benchmark client: it streams a known number of tokens on
// an exact schedule (a first-token delay, then a fixed gap between tokens,
// both kept against absolute deadlines so sleep jitter never adds up), and
// counts what it really sent (GET /stats).
//
//	fakeopenai -addr 127.0.0.1:0 -ttft 50ms -itl 10ms [-stop-after N] [-no-usage]
//
// It prints its base URL on the first line of stdout, then serves until
// killed. Endpoints: GET /v1/models, GET /stats, POST /v1/completions,
// /v1/chat/completions and /generate (streaming or not).
package main

import (
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"

	"vigil/internal/openai/openaitest"
)

func main() {
	var cfg openaitest.Config
	addr := flag.String("addr", "127.0.0.1:0", "address to listen on")
	flag.DurationVar(&cfg.TTFT, "ttft", 0, "delay before the first token")
	flag.DurationVar(&cfg.ITL, "itl", 0, "delay between tokens (0: send as fast as possible, unflushed)")
	flag.IntVar(&cfg.StopAfter, "stop-after", 0, "end every answer after this many tokens, before max_tokens (0: never)")
	flag.BoolVar(&cfg.NoUsage, "no-usage", false, "never send a usage chunk")
	flag.StringVar(&cfg.Model, "model", "fake-model", "model name to list")
	flag.StringVar(&cfg.Token, "token", " hi", "text of each token")
	flag.Parse()

	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "fakeopenai:", err)
		os.Exit(2)
	}
	fmt.Printf("http://%s\n", ln.Addr())
	srv := &http.Server{Handler: openaitest.New(cfg)}
	if err := srv.Serve(ln); err != nil {
		fmt.Fprintln(os.Stderr, "fakeopenai:", err)
		os.Exit(1)
	}
}
