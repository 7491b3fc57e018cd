package classify

import (
	"regexp/syntax"
	"strings"
	"time"
	"vigil/internal/ansi"

	v "vigil/internal/verdict"
)

// Start clues: what each server prints once, at the start of a run, so that
// a log holding several runs can be cut where each begins. They are data
// of the profiles, read by the one run splitter (explain's, which watch
// uses too when it attaches to a log).

// Starts are a server's start clues.
type Starts struct {
	// Banners are matched against a line's message (after ParseFast's
	// prefixes); consecutive banner lines form one block.
	Banners []Banner
	// PreBanner matches whole lines a new process prints just before its
	// banner (vLLM's platform detection and logo), so that a run's start
	// includes them.
	PreBanner *lazyRegexp
	// OneBanner: the server prints one banner per start (after an optional
	// lead banner), so a second one is a restart. Servers whose start
	// prints several banner lines (llama.cpp) or one per rank
	// (TensorRT-LLM) restart only on the very same banner again.
	OneBanner bool
	// RankBanners: each process of one start prints the same banner
	// (TensorRT-LLM's launcher, then every MPI worker it spawns), so the
	// very same banner again is a restart only once the run got past
	// starting its processes, as the live judge has it.
	RankBanners bool
}

// Banner is one start banner.
type Banner struct {
	// Re is tested after its literal guard: most lines hold none of a
	// banner's literals, and an unanchored pattern is slow on a long line
	// (a configuration print) that another server's banner fails.
	Re *lazyRegexp
	// Lead: printed ahead of the main banner in the same start (SGLang's
	// warning about its old launcher).
	Lead bool
	// Unless are lower-case words that make a matching line no banner
	// (llama.cpp's download retries and failures in mid-download).
	Unless []string
}

var starts = map[string]*Starts{
	"sglang": {
		Banners: []Banner{
			// entrypoints/engine.py: the ServerArgs repr up to 0.5.x, its
			// resolved dict (server_args={'model_path': ...}) since.
			// (Two banners: each literal long enough for the banner
			// filter's windows to be rare ones.)
			{Re: newLazyRegexp(`^server_args=ServerArgs\(`)},
			{Re: newLazyRegexp(`^server_args=\{'`)},
			// launch_server.py: "UserWarning: 'python -m
			// sglang.launch_server' is still supported, but ...".
			{Re: newLazyRegexp(`sglang\.launch_server' is still supported`), Lead: true},
		},
		OneBanner: true,
	},
	"vllm": {
		// (The logo's middle line: "▄▄ ▄█ █     █     █ ▀▄▀ █  version 0.16.0".)
		Banners: []Banner{{Re: newLazyRegexp(`vLLM (API )?server version|^args: Namespace\(|█  version \d`)}},
		// (The logo comes from utils.py, from api_utils.py since 0.28.)
		PreBanner: newLazyRegexp(`Automatically detected platform|^INFO \d\d-\d\d .*__init__\.py|\[(api_)?utils\.py:\d+\]\s*[█▄▀ ]*$`),
		OneBanner: true,
	},
	"tgi": {
		Banners:   []Banner{{Re: newLazyRegexp(`^Args \{`)}},
		OneBanner: true,
	},
	"llamacpp": {
		Banners: []Banner{
			// (Builds before 2024 print "main: build = 1234 (commit)":
			// llama_print_build_info's "%s: build = %d (%s)".)
			{Re: newLazyRegexp(`^ggml_cuda_init:|^ggml_vulkan: Found \d+ Vulkan devices|^load_backend:|^build: \d+|^main: build = \d`)},
			// Builds since mid-2026 open with common_params_print_info
			// (common/arg.cpp, build 10587): "build N (commit)" at -lv 4,
			// otherwise the verbosity line is the first.
			{Re: newLazyRegexp(`common_params_print_info: (?:build \d+ \(|verbosity = \d)`)},
			// A -hf model's download (common/download.cpp) comes first,
			// before the logger's banner: a lead banner, whose phase
			// (weights) does not make the banner after it another start.
			{Re: newLazyRegexp(`^common_download_file`), Unless: []string{"retry", "fail", "error"}, Lead: true},
		},
	},
	"trtllm": {
		// "[TRT-LLM] [I] Starting TensorRT-LLM init." is always capitalised
		// (tensorrt_llm/_common.py); matching it case-sensitively keeps the
		// banner filter to two fast exact searches on each of the
		// server's own lines, which all hold "[TRT-LLM]".
		Banners:     []Banner{{Re: newLazyRegexp(`(?i:tensorrt-llm version)|\[TRT-LLM\].*Starting`)}},
		RankBanners: true,
	},
}

// startOrder is the order in which the servers' banners are tried (no two
// servers' banners match one line).
var startOrder = v.Servers

// StartsOf returns the server's start clues (empty for an unknown one).
func StartsOf(server string) *Starts {
	if s, ok := starts[server]; ok {
		return s
	}
	return &Starts{}
}

func (b *Banner) matches(msg string) bool {
	if !b.Re.matches(msg, func() string { return foldString(msg) }) {
		return false
	}
	if len(b.Unless) > 0 {
		m := strings.ToLower(msg)
		for _, w := range b.Unless {
			if strings.Contains(m, w) {
				return false
			}
		}
	}
	return true
}

// BannerOf names the server whose start banner the message msg is, or "",
// and whether it is a lead banner.
func BannerOf(msg string) (server string, lead bool) {
	for _, name := range startOrder {
		for i := range starts[name].Banners {
			if b := &starts[name].Banners[i]; b.matches(msg) {
				return name, b.Lead
			}
		}
	}
	return "", false
}

// BannerServer names the server whose start banner msg is, or "".
func BannerServer(msg string) string {
	s, _ := BannerOf(msg)
	return s
}

// IsLeadBanner reports whether msg is a banner a server prints ahead of its
// main banner in the same start.
func IsLeadBanner(msg string) bool {
	_, lead := BannerOf(msg)
	return lead
}

// IsPreBanner reports whether line (the whole line) is one a new process
// prints just before its banner.
func IsPreBanner(line string) bool {
	lower := func() string { return strings.ToLower(line) }
	for _, name := range startOrder {
		if re := starts[name].PreBanner; re != nil && re.matches(line, lower) {
			return true
		}
	}
	return false
}

// IsUnitStart reports whether line is systemd's journal line that it
// started a unit ("Aug 25 19:31:24 host systemd[2126]: Started vLLM
// ..."): the unit's process prints next, a restart's too.
func IsUnitStart(line string) bool {
	i := strings.Index(line, " systemd[")
	if i < 0 {
		return false
	}
	rest := line[i+9:]
	n := digits(rest)
	return n > 0 && strings.HasPrefix(rest[n:], "]: Started ")
}

// IsJournalBoot reports whether line is journalctl's mark between two
// boots' lines: "-- Boot e5061244a3c441e38ce24d980accccd7 --", "--
// Reboot --" before systemd 246.
func IsJournalBoot(line string) bool {
	t := strings.TrimRight(line, " \r")
	return t == "-- Reboot --" || strings.HasPrefix(t, "-- Boot ") && strings.HasSuffix(t, " --")
}

// IsContainerTitle reports whether line is the title of the banner an NGC
// or CUDA container image prints when it starts, before the server does:
// "== CUDA ==", "== TensorRT-LLM ==", between two rules of "=" (the images'
// nvidia_entrypoint.sh). A restarted container prints it again.
func IsContainerTitle(line string) bool {
	t := strings.TrimRight(line, " \r")
	if len(t) < 7 || len(t) > 48 || !strings.HasPrefix(t, "== ") || !strings.HasSuffix(t, " ==") {
		return false
	}
	title := t[3 : len(t)-3]
	return title != "" && title[0] != ' ' && title[0] != '=' && !strings.Contains(title, "==")
}

// IsRule reports whether line is a rule of "=" signs (at least three).
func IsRule(line string) bool {
	t := strings.TrimRight(line, " \r")
	return len(t) >= 3 && strings.Trim(t, "=") == ""
}

// Clause is a conjunction of literals that a banner line holds: Exact as
// written, Folded (lower case) ignoring ASCII case.
type Clause struct {
	Exact, Folded []string
}

// BannerClauses returns, for every alternative of every banner pattern,
// the literals a line matching it must hold, read off the patterns
// themselves: a line that satisfies none of the clauses is no banner. ok
// is false when some alternative needs no literal at all (then every
// line may be one).
func BannerClauses() (clauses []Clause, ok bool) {
	for _, name := range startOrder {
		for _, b := range starts[name].Banners {
			t, err := syntax.Parse(b.Re.String(), syntax.Perl)
			if err != nil {
				return nil, false
			}
			t = t.Simplify()
			alts := []*syntax.Regexp{t}
			if t.Op == syntax.OpAlternate {
				alts = t.Sub
			}
			for _, a := range alts {
				c, ok := clauseOf(a)
				if !ok {
					return nil, false
				}
				clauses = append(clauses, c)
			}
		}
	}
	return clauses, true
}

// clauseOf collects the literals every match of t holds: t itself when it
// is a literal, else the literal runs of a concatenation.
func clauseOf(t *syntax.Regexp) (Clause, bool) {
	var c Clause
	add := func(l reqLit) {
		if l.fold {
			c.Folded = append(c.Folded, l.s)
		} else {
			c.Exact = append(c.Exact, l.s)
		}
	}
	parts := []*syntax.Regexp{t}
	if t.Op == syntax.OpConcat {
		parts = t.Sub
	}
	var run reqLit
	flush := func() {
		if run.s != "" {
			add(run)
		}
		run = reqLit{}
	}
	for _, p := range parts {
		if p.Op == syntax.OpCapture && len(p.Sub) == 1 && p.Sub[0].Op == syntax.OpLiteral {
			p = p.Sub[0]
		}
		if p.Op != syntax.OpLiteral {
			flush()
			continue
		}
		l, ok := literalOf(p)
		if !ok || run.s != "" && run.fold != l.fold || l.fold && len(l.s) != len(string(p.Rune)) {
			// A folded literal cut at a letter that folds outside ASCII
			// does not join its neighbours.
			flush()
			if ok {
				add(l)
			}
			continue
		}
		run.s += l.s
		run.fold = l.fold
	}
	flush()
	return c, len(c.Exact)+len(c.Folded) > 0
}

// RestartNear is how close to zero a relative clock must drop back to
// count as a new process's.
const RestartNear = time.Second

// restartDrop: a relative clock that falls back by more than this is
// another process's (a process's own lines may come a little out of
// order).
const restartDrop = 100 * time.Millisecond

// ClockRestarts reports whether a relative clock (RelativeTime) reading t
// after one reading was is a new process's: back near zero, and well below
// the last reading.
func ClockRestarts(was, t time.Duration) bool {
	return t < RestartNear && was-t > restartDrop
}

// ClockOf is RelativeTime past what a container runtime or the journal
// put before the line ("kimi-server  | 0.03.660.922 I ..."). Not past
// llama-server's router's "[PORT] ": that is another process's clock.
func ClockOf(line string) (time.Duration, bool) {
	if d, ok := RelativeTime(line); ok {
		return d, true
	}
	if line != "" && line[0] == 0x1b {
		// --log-colors on: the clock in colour ("\x1b[34m0.00.006.299\x1b[0m I ...").
		// An escape that starts no sequence stays: read on only when
		// something was stripped, or this would never end.
		if plain := ansi.Strip(line); len(plain) < len(line) {
			return ClockOf(plain)
		}
	}
	if !MayHaveContainer(line) {
		return 0, false
	}
	if n, _, _ := CutContainer(line); n > 0 {
		return RelativeTime(line[n:])
	}
	return 0, false
}

// RelativeTime reads a start clue that is no banner: the relative-time
// prefix that llama.cpp writes with
// --log-prefix/--log-timestamps ("M.SS.mmm.uuu L ": minutes, seconds,
// milliseconds, microseconds since the process started, then a level
// letter).
func RelativeTime(line string) (time.Duration, bool) {
	// The shortest form: "0.00.000.000 I ".
	if len(line) < 15 || line[0] < '0' || line[0] > '9' {
		return 0, false
	}
	i, min := 0, 0
	for i < len(line) && i < 6 && line[i] >= '0' && line[i] <= '9' {
		min = min*10 + int(line[i]-'0')
		i++
	}
	rest := line[i:]
	if len(rest) < 14 || rest[0] != '.' || rest[3] != '.' || rest[7] != '.' || rest[11] != ' ' || rest[13] != ' ' ||
		!digitsAt(rest, 1, 2) || !digitsAt(rest, 4, 3) || !digitsAt(rest, 8, 3) || strings.IndexByte("IWED", rest[12]) < 0 {
		return 0, false
	}
	sec, ms, us := atoiAt(rest, 1, 2), atoiAt(rest, 4, 3), atoiAt(rest, 8, 3)
	return time.Duration(min)*time.Minute + time.Duration(sec)*time.Second +
		time.Duration(ms)*time.Millisecond + time.Duration(us)*time.Microsecond, true
}

func digitsAt(s string, at, n int) bool {
	for k := at; k < at+n; k++ {
		if s[k] < '0' || s[k] > '9' {
			return false
		}
	}
	return true
}

func atoiAt(s string, at, n int) int {
	v := 0
	for k := at; k < at+n; k++ {
		v = v*10 + int(s[k]-'0')
	}
	return v
}
