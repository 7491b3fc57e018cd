package bench_test

import (
	"context"
	"fmt"
	"net/http/httptest"

	"vigil/internal/bench"
	"vigil/internal/openai/openaitest"
)

// Example shows what `vigil run --bench=SPEC` does once the server is
// ready: parse the spec and read the baseline before the server even
// starts (so mistakes are usage errors), then run, judge and report.
func Example() {
	srv := httptest.NewServer(openaitest.New(openaitest.Config{Model: "Qwen/Qwen2.5-7B-Instruct"}))
	defer srv.Close()

	// At flag time.
	o, err := bench.ParseSpec("c=1,4;n=8;in=64;out=32;baseline=c=1:1")
	if err != nil {
		panic(err) // a usage error: exit 2
	}
	var src bench.BaselineSource // nil: no baseline (the history plugs in here)
	if o.Baseline != "" {
		b, err := bench.ParseBaseline(o.Baseline)
		if err != nil {
			panic(err) // a usage error: exit 2
		}
		src = b
	}

	// After the verdict is ready.
	ctx := context.Background()
	res, err := bench.Run(ctx, bench.NewClient(srv.URL, "", o), o, nil)
	if err != nil {
		panic(err) // the benchmark could not run
	}
	if err := res.Judge(ctx, src, o.Tolerance); err != nil {
		panic(err)
	}
	// bench.WriteText(os.Stderr, res) for people; res is also the JSON to store.
	for _, lv := range res.Levels {
		fmt.Printf("c=%d: %d completed, %d tokens\n", lv.Concurrency, lv.Completed, lv.OutputTokens)
	}
	fmt.Println("ok:", res.OK, "problems:", res.Problems())
	// Output:
	// c=1: 8 completed, 256 tokens
	// c=4: 8 completed, 256 tokens
	// ok: true problems: []
}
