package cli

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"vigil/internal/explain"
	"vigil/internal/verdict"
)

// explainNoVerdict is the exit status when a log's last run ends without a
// verdict: offline, a stall can only be suspected, so it shares stalled's.
const explainNoVerdict = 3

func newExplainCmd(env *Env) *cobra.Command {
	var (
		jsonOut bool
		server  string
	)
	cmd := &cobra.Command{
		Use:   "explain [FILE...]",
		Short: "Judge finished server logs offline: runs, phases, verdicts and causes",
		Long: `vigil explain reads finished logs of LLM inference servers (a file, several,
or standard input for "-" or no FILE) and judges them with the same catalogue
as a live startup. A log the server was restarted into holds several runs; each
is told with its server, start and end, phases with their durations, and how it
ended: ready, failed (with cause, evidence and hint), or without a verdict.

Offline there is no clock and no process to watch, so a stall or a timeout can
only be suspected: such a run "ended in phase X without a verdict", or
"stopped in phase X" when its last lines show a signal or Ctrl-C. A server
that has no ready line (vLLM, TensorRT-LLM) counts as ready once it said it
listens and nothing went wrong after; health answers in its access log count.
Whether a ready server answers sanely (bad_output) cannot be told from a log.

The files are streamed: memory stays flat however large they are. A
gzip-compressed file or stream (a rotated log) is read decompressed. A log
pasted with an indent or a quote's "> " before every line (from Markdown)
is read without it.

A file of "docker compose logs", whose lines carry two or more services'
names ("qwen3.5-9b  | ..."), is judged once per service: each run is named
by its service, and lines without a service's name are left out (whose they
are cannot be told). So is "kubectl logs --prefix" of two or more pods or
containers ("[pod/vllm-7d9f8/vllm] ...", service pod/vllm-7d9f8/vllm). A
stream is read once and judged as one.

--json prints one JSON object per run and line: file, run, service (with
compose services), server (null when unknown), start, end, lines,
first_line, offset, verdict ("" without one), cause (null unless failed),
phase, summary, hint, evidence, rule (the catalogue rule that decided, left
out when none did), phases (phase name to seconds, in order; each null when
the log carries no timestamps) and, for a ready run, after_ready (how its life
went: died, hung, stopped, serving or ended).

Exit status: 0 the last run of every log (of every service) is ready, 1 the
last run of some log failed, 3 the last run of some log ended without a
verdict (and none failed), 2 usage error (a bad flag, an unreadable file, a
binary file or stream, a compressed one cut short).`,
		Args:          cobra.ArbitraryArgs,
		SilenceUsage:  true,
		SilenceErrors: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			if server != "auto" && !slices.Contains(verdict.Servers, server) {
				return Usagef("explain: --server %q is not one of auto, sglang, vllm, trtllm, llamacpp, tgi", server)
			}
			if len(args) == 0 {
				args = []string{"-"}
			}
			inputs, err := openLogs(env, args)
			if err != nil {
				return err
			}
			defer func() {
				for _, in := range inputs {
					in.Close()
				}
			}()
			if env.SmallHeap != nil && smallLogs(inputs) {
				env.SmallHeap()
			}
			worst := 0
			for _, in := range inputs {
				if len(inputs) > 1 && !jsonOut {
					fmt.Fprintf(env.IO.Out, "== %s\n", in.name)
				}
				lasts, readErr, writeErr := explainOne(env.IO.Out, env.IO.ErrOut, in, server, jsonOut)
				if readErr != nil {
					return Usagef("explain: %s: %v", in.name, readErr)
				}
				if writeErr != nil {
					return fmt.Errorf("explain: %w", writeErr)
				}
				if len(lasts) == 0 {
					lasts = []*explain.Run{nil} // no lines: no verdict
				}
				for _, last := range lasts {
					worst = worse(worst, exitFor(last))
				}
			}
			if worst != 0 {
				return &ExitError{Code: worst}
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&jsonOut, "json", false, "print one JSON object per run")
	cmd.Flags().StringVar(&server, "server", "auto", "server `KIND`: sglang, vllm, trtllm, llamacpp, tgi, or auto (from each run's log)")
	return cmd
}

// logInput is one log to explain.
type logInput struct {
	name string
	r    io.Reader
	c    io.Closer
	// file is a regular file's, which can be read again (again), through
	// gzip when gz; head is what a stream's first read gave.
	file *os.File
	gz   bool
	head []byte
}

// again reads a regular file from its start, decompressed.
func (l logInput) again() (io.Reader, error) {
	if _, err := l.file.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	if l.gz {
		return newGunzip(l.file)
	}
	return l.file, nil
}

func (l logInput) Close() {
	if l.c != nil {
		l.c.Close()
	}
}

// smallLogSize is the most bytes of logs that explain reads with
// Env.SmallHeap: their judging allocates a few times their size.
const smallLogSize = 4 << 20

// smallLogs says whether inputs are regular, uncompressed files of at
// most smallLogSize bytes together; a stream's or a compressed file's
// size is not known.
func smallLogs(inputs []logInput) bool {
	var total int64
	for _, in := range inputs {
		if in.file == nil || in.gz {
			return false
		}
		fi, err := in.file.Stat()
		if err != nil {
			return false
		}
		total += fi.Size()
	}
	return total <= smallLogSize
}

// openLogs opens every file first, and reads the head of every stream,
// so that an unreadable or binary input is a usage error before any
// output.
func openLogs(env *Env, args []string) ([]logInput, error) {
	var out []logInput
	for _, a := range args {
		in, err := openExplainLog(env, a)
		if err != nil {
			for _, o := range out {
				o.Close()
			}
			return nil, Usagef("explain: %v", err)
		}
		out = append(out, in)
	}
	return out, nil
}

// openExplainLog refuses a directory and a binary input. A regular file's head is
// read and the file rewound; anything else (standard input, a pipe, a
// FIFO, a device) is a stream, whose head is read and given again.
func openExplainLog(env *Env, name string) (logInput, error) {
	if name == "-" {
		r, head, err := sniffLogStream(env.IO.In, "standard input")
		return logInput{name: name, r: r, head: head}, err
	}
	f, err := os.Open(name)
	if err != nil {
		return logInput{}, fmt.Errorf("cannot read %s: %v", name, unwrapPath(err))
	}
	in := logInput{name: name, r: f, c: f}
	fi, err := f.Stat()
	switch {
	case err != nil:
		err = fmt.Errorf("cannot read %s: %v", name, unwrapPath(err))
	case fi.IsDir():
		err = fmt.Errorf("cannot read %s: is a directory", name)
	case fi.Mode().IsRegular():
		in.file = f
		if in.gz, err = isGzip(f); err == nil && in.gz {
			// A rotated log, compressed (logrotate's "compress").
			err = checkGzip(f, name)
		} else if err == nil {
			err = checkBinary(f, name)
		}
	default:
		in.r, in.head, err = sniffLogStream(f, name)
	}
	if err != nil {
		f.Close()
		return logInput{}, err
	}
	return in, nil
}

func unwrapPath(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}

// composeHead is how much of a file is read to find the compose services
// it interleaves.
const composeHead = 1 << 20

// explainOne prints the runs of one log and returns its last run (none
// when it has no lines), or the last run of each compose service it
// interleaves, and the error reading or writing.
func explainOne(out, errOut io.Writer, in logInput, server string, jsonOut bool) (lasts []*explain.Run, readErr, werr error) {
	// A dense log has a run every few kilobytes: one write per run would
	// be most of the system time.
	w := bufio.NewWriterSize(out, 64<<10)
	defer func() {
		if err := w.Flush(); werr == nil {
			werr = err
		}
	}()
	var last *explain.Run
	wrote := false
	emit := func(r *explain.Run) {
		last = r
		if werr != nil {
			return
		}
		if jsonOut {
			werr = explain.WriteJSON(w, in.name, r)
			return
		}
		if wrote {
			_, werr = io.WriteString(w, "\n")
		}
		wrote = true
		if werr == nil {
			werr = explain.WriteText(w, r)
		}
	}
	services, err := composeServices(in)
	if err != nil {
		return nil, err, nil
	}
	if len(services) > 0 && in.file == nil {
		name := in.name
		if name == "-" {
			name = "standard input"
		}
		fmt.Fprintf(errOut, "vigil: %s interleaves the lines of compose services %s: they are judged as one stream; give the log as a file to judge each service on its own\n", name, strings.Join(services, ", "))
		services = nil
	}
	if len(services) == 0 {
		r := in.r
		if in.file != nil {
			if r, err = in.again(); err != nil {
				return nil, err, nil
			}
		}
		readErr = explain.Read(r, explain.Options{Server: server}, emit)
		if last != nil {
			lasts = append(lasts, last)
		}
	}
	for _, name := range services {
		r, err := in.again()
		if err != nil {
			return lasts, err, werr
		}
		last = nil
		if readErr = explain.Read(explain.OnlyService(r, name), explain.Options{Server: server, Service: name}, emit); readErr != nil {
			break
		}
		if last != nil {
			lasts = append(lasts, last)
		}
	}
	if len(lasts) == 0 && !jsonOut && werr == nil && readErr == nil {
		_, werr = fmt.Fprintln(w, "no lines: nothing to judge")
	}
	return lasts, readErr, werr
}

// composeServices names the compose services a log interleaves (two or
// more), from a file's first megabyte or a stream's first read.
func composeServices(in logInput) ([]string, error) {
	if in.file == nil {
		return explain.Services(in.head), nil
	}
	size := int64(composeHead)
	if fi, err := in.file.Stat(); err == nil && !in.gz {
		// (A short log needs no megabyte: vigil's start is timed.)
		size = min(size, fi.Size())
	}
	r, err := in.again()
	if err != nil {
		return nil, err
	}
	head := make([]byte, size)
	n, err := io.ReadFull(r, head)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, errCutShort) {
		return nil, err
	}
	// (A compressed file cut short is judged up to its cut, then said to
	// be cut.)
	return explain.Services(head[:n]), nil
}

// exitFor is the exit status a log's last run gives.
func exitFor(r *explain.Run) int {
	switch {
	case r == nil || r.Verdict == "":
		return explainNoVerdict
	case r.Verdict == verdict.Ready:
		return 0
	}
	return 1
}

// worse orders exit statuses: failed over no verdict over ready.
func worse(a, b int) int {
	rank := map[int]int{0: 0, explainNoVerdict: 1, 1: 2}
	if rank[b] > rank[a] {
		return b
	}
	return a
}
