package report

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"vigil/internal/history"
)

var update = flag.Bool("update", false, "rewrite testdata/demo.golden.html from the demo history")

// TestGolden compares the demo history's report with testdata/demo.golden.html,
// so that every change to the page shows in review as a diff of the page
// (open the file in a browser to see it). go test -run TestGolden -update
// rewrites it.
func TestGolden(t *testing.T) {
	store := demoStore(t, demo())
	in, err := Load(context.Background(), store, nil, history.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := Write(&b, in, Options{Now: demoT0.Add(52 * time.Hour)}); err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", "demo.golden.html")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(golden, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (go test -run TestGolden -update writes it)", err)
	}
	if got := b.String(); got != string(want) {
		gl, wl := strings.Split(got, "\n"), strings.Split(string(want), "\n")
		for i := 0; i < max(len(gl), len(wl)); i++ {
			var g, w string
			if i < len(gl) {
				g = gl[i]
			}
			if i < len(wl) {
				w = wl[i]
			}
			if g != w {
				t.Fatalf("report differs from %s at line %d:\ngot:  %.300s\nwant: %.300s\n(go test -run TestGolden -update rewrites it)", golden, i+1, g, w)
			}
		}
	}
}
