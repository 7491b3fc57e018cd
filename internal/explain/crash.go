package explain

import (
	"strings"

	"vigil/internal/classify"
	v "vigil/internal/verdict"
)

// A process that dies before it prints a start banner leaves no banner to
// start a run at, but two kinds of output can only come from a process
// that just started, so they start a run as a banner does:
//
//   - an argparse usage block ("usage: PROG ..." then "PROG: error: ..."),
//   - a traceback of an entry point that failed to import its main
//     ("Traceback ...", `  File ".../bin/vllm", line 5, in <module>`,
//     `    from vllm.entrypoints.cli.main import main`, ..., "ImportError: ...")
//     ending in a dependency or configuration failure.
//
// A traceback printed by a running server starts in a thread or function,
// and a multiprocessing child's starts at File "<string>", so neither
// qualifies.
const (
	// crashScan bounds how far a block's end is looked for.
	crashScan = 300
	// usageScan bounds the lines of an argparse usage message.
	usageScan = 80
)

// crashBlock reports whether line i begins a start-up crash block, and
// the index of the block's last line (its error).
func (c *chunk) crashBlock(i int) (int, bool) {
	t := c.lines[i].Text
	switch {
	case strings.HasPrefix(t, "Traceback (most recent call last):"):
		k, ok := c.entryImport(i + 1)
		if !ok {
			return 0, false
		}
		for ; k < len(c.lines) && k < i+crashScan; k++ {
			s := c.lines[k].Text
			if s == "" || s[0] == ' ' || s[0] == '\t' {
				continue
			}
			return k, startupError(s)
		}
	case strings.HasPrefix(t, "usage: "):
		for k := i + 1; k < len(c.lines) && k < i+usageScan; k++ {
			s := c.lines[k].Text
			if s != "" && s[0] != ' ' {
				return k, strings.Contains(s, ": error: ") && startupError(s)
			}
		}
	}
	return 0, false
}

// entryImport reports whether the traceback whose frames start at line k
// failed in a script's top level, at an import: its first frame past
// Python's runpy (python -m) is `File "...", line N, in <module>` and the
// statement shown there imports. It returns the line after that frame.
func (c *chunk) entryImport(k int) (int, bool) {
	for lim := k + crashScan; k+1 < len(c.lines) && k < lim; k++ {
		frame := c.lines[k].Text
		file, rest, ok := strings.Cut(strings.TrimPrefix(frame, `  File "`), `"`)
		if !ok || len(file) == len(frame) {
			return 0, false
		}
		if file == "<frozen runpy>" || strings.HasSuffix(file, "/runpy.py") {
			// Skip runpy's frame and the code line it may show.
			if next := c.lines[k+1].Text; strings.HasPrefix(next, "    ") {
				k++
			}
			continue
		}
		if strings.HasPrefix(file, "<") || !strings.HasSuffix(rest, ", in <module>") {
			return 0, false
		}
		code := strings.TrimSpace(c.lines[k+1].Text)
		return k + 2, strings.HasPrefix(code, "from ") || strings.HasPrefix(code, "import ")
	}
	return 0, false
}

// startupError: the line is a dependency or configuration failure, what
// kills a process while it imports or reads its arguments.
func startupError(s string) bool {
	f := classify.Lookup("").Classify(s).Failure
	return f != nil && (f.Cause == v.Dependency || f.Cause == v.Config)
}
