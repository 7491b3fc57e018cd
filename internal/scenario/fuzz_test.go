package scenario

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzCheck: Check finds problems exactly when Parse refuses the data, for
// any bytes (FuzzParse, next to the tests, checks the round trip).
func FuzzCheck(f *testing.F) {
	files, _ := filepath.Glob("../../testdata/scenarios/*.json")
	for _, file := range files[:min(len(files), 4)] {
		if b, err := os.ReadFile(file); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte(`{"id":"x","server":"sglang","argv":["a"],"timeline":[{"t":0,"err":"{ts} hi"},{"t":1,"exit":1}],"expect":{"verdict":"failed","cause":"crash"}}`))
	f.Add([]byte(`{"timeline":[{"t":-1,"progress":{"fmt":"{pct:>9999d}","n":1e9,"to":-5,"dur":1e308}}]}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		_, err := Parse(data)
		problems := Check(data)
		if (err == nil) != (len(problems) == 0) {
			t.Fatalf("Parse error %v, but Check found %d problems: %q", err, len(problems), problems)
		}
	})
}
