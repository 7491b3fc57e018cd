package srvconfig

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// Expect is one --expect KEY=VALUE: a setting the startup must end up with.
//
// KEY is found as [Lookup] describes. VALUE matches the printed value when,
// after trimming, removing quotes and Rust's Some(...), and ignoring case:
//
//   - they are equal, or equal as numbers ("0.9" and "0.90", "4" and "4.0");
//   - VALUE has no dot and equals the part after the printed value's last
//     dot ("bfloat16" matches torch.bfloat16, "auto" matches LoadFormat.AUTO);
//   - they are the same dtype spelled differently (bf16/bfloat16,
//     fp16/float16/half, fp32/float32/float);
//   - they are the same boolean (true/1/yes/on/enabled, false/0/no/off/disabled);
//   - they are equal once all blanks are removed ("[1,2]" and "[1, 2]");
//   - VALUE lists alternatives with '|' and any one of them matches
//     ("attention_backend=fa3|flashinfer").
//
// Examples: --expect quantization=fp8, --expect tp=4,
// --expect attention_backend=fa3, --expect
// fp4_gemm_runner_backend=flashinfer_cutlass, --expect mem_fraction=0.85.
type Expect struct {
	Key   string `json:"key"`
	Value string `json:"value"`
}

func (e Expect) String() string { return e.Key + "=" + e.Value }

// ParseExpect reads KEY=VALUE arguments.
func ParseExpect(args []string) ([]Expect, error) {
	var out []Expect
	for _, a := range args {
		e, err := parseExpectArg(a)
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, nil
}

func parseExpectArg(a string) (Expect, error) {
	k, v, ok := strings.Cut(a, "=")
	k, v = strings.TrimSpace(k), strings.TrimSpace(v)
	switch {
	case !ok:
		return Expect{}, fmt.Errorf("--expect %q: want KEY=VALUE (e.g. tp=4)", a)
	case k == "" || strings.ContainsAny(k, " \t"):
		return Expect{}, fmt.Errorf("--expect %q: the key must be one word (e.g. tp=4)", a)
	case v == "":
		return Expect{}, fmt.Errorf("--expect %q: no value after '=' (to expect an unset value, write %s=None)", a, k)
	}
	return Expect{Key: k, Value: v}, nil
}

// LoadExpectFile reads expectations from a file: one KEY=VALUE per line;
// blank lines and lines starting with '#' are skipped.
func LoadExpectFile(path string) ([]Expect, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("expect file: %w", err)
	}
	defer f.Close()
	var out []Expect
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		n++
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		e, err := parseExpectArg(line)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, n, err)
		}
		out = append(out, e)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("expect file %s: %w", path, err)
	}
	return out, nil
}

// Status is how an expectation stands against the configuration seen so far.
type Status string

const (
	// Met: the effective value matches.
	Met Status = "met"
	// Mismatch: the server printed a different effective value; the
	// startup should end as failed/config.
	Mismatch Status = "mismatch"
	// Pending: the key was not printed yet, or only as unresolved (None,
	// auto) which a later line may resolve (see [Check]). Still pending
	// when the server is ready, it means the value was never confirmed:
	// worth a warning, not a failure.
	Pending Status = "pending"
)

// Outcome is one expectation checked.
type Outcome struct {
	Expect
	Status Status `json:"status"`
	// Actual is the printed value, when the key was found.
	Actual string `json:"actual,omitempty"`
	Found  bool   `json:"found"`
}

func (o Outcome) String() string {
	switch o.Status {
	case Mismatch:
		return fmt.Sprintf("expected %s=%s, server has %s", o.Key, o.Value, o.Actual)
	case Met:
		return fmt.Sprintf("%s=%s as expected", o.Key, o.Actual)
	}
	if o.Found {
		return fmt.Sprintf("expected %s=%s, server left it %s", o.Key, o.Value, o.Actual)
	}
	return fmt.Sprintf("expected %s=%s, server did not print %s", o.Key, o.Value, o.Key)
}

// Check checks expectations against the configuration seen so far.
//
// A printed value of None/null/empty or "auto" is unresolved: the server
// may decide later (SGLang's dtype='auto' becomes bfloat16 when the weights
// load; its quantization=None still loads an FP8 checkpoint as FP8). Such a
// value keeps the expectation Pending, unless VALUE itself is that word.
// The exception is vLLM, whose engine-config line prints resolved values:
// once it has come, None and auto there are final and a mismatch - except
// for a setting a later line still resolves (the attention and MoE
// backends, from the "Using ... backend" lines), which stays Pending until
// that line. A false failure would stop a good server, so everywhere else
// an unresolved value stays Pending rather than guessing.
func Check(kind string, c Config, exps []Expect) []Outcome {
	out := make([]Outcome, 0, len(exps))
	final := configFinal(kind, c)
	for _, e := range exps {
		o := Outcome{Expect: e, Status: Pending}
		v, ok := Lookup(kind, c, e.Key)
		if ok {
			o.Found, o.Actual = true, v
			switch {
			case ValueMatches(e.Value, v):
				o.Status = Met
			case !isNone(v) && !isAuto(v):
				o.Status = Mismatch
			case final && !resolvedLater(kind, c, e.Key):
				o.Status = Mismatch
			}
		}
		out = append(out, o)
	}
	return out
}

// configFinal reports whether the server has printed its resolved
// configuration, so that None and auto are what it runs with.
func configFinal(kind string, c Config) bool {
	if kind != "vllm" {
		return false
	}
	_, engine := c.Get("max_seq_len") // only the engine config line has it
	return engine
}

// resolvedLater reports a setting whose resolved value comes from a line
// that has not been seen yet (a selected.* or other late key).
func resolvedLater(kind string, c Config, key string) bool {
	name, _ := canonicalName(key)
	if name == "" {
		return false
	}
	for _, k := range canon[name].rawKeys(kind) {
		if _, ok := c.Get(k); !ok && lateKey(kind, k) {
			return true
		}
	}
	return false
}

// ValueMatches reports whether an expected value matches a printed one,
// by the rules documented on [Expect].
func ValueMatches(expected, actual string) bool {
	a := normValue(actual)
	for _, alt := range strings.Split(expected, "|") {
		if matchOne(normValue(alt), a) {
			return true
		}
	}
	return false
}

func matchOne(e, a string) bool {
	if e == a {
		return true
	}
	if fe, err1 := strconv.ParseFloat(e, 64); err1 == nil {
		if fa, err2 := strconv.ParseFloat(a, 64); err2 == nil {
			return fe == fa
		}
	}
	if !strings.Contains(e, ".") {
		// Only a name after the dot: "v0.2" is a version, not an enum.
		if i := strings.LastIndexByte(a, '.'); i > 0 && i+1 < len(a) && isLetter(a[i+1]) && isIdent(a[:i]) && a[i+1:] == e {
			return true
		}
	}
	if d1, ok := dtypeAlias[e]; ok {
		if d2, ok := dtypeAlias[a]; ok && d1 == d2 {
			return true
		}
		if i := strings.LastIndexByte(a, '.'); i > 0 {
			if d2, ok := dtypeAlias[a[i+1:]]; ok && d1 == d2 {
				return true
			}
		}
	}
	if be, ok := boolValue(e); ok {
		if ba, ok := boolValue(a); ok {
			return be == ba
		}
	}
	return stripBlanks(e) == stripBlanks(a)
}

// normValue lowers a value and takes off quotes, Some(...) and Python's
// enum repr (<CUDAGraphMode.FULL: 2> reads as full).
func normValue(v string) string {
	v = cleanValue(unwrapSome(cleanValue(v)))
	if m := enumReprRE.Get().FindStringSubmatch(v); m != nil {
		v = m[2]
	}
	return strings.ToLower(v)
}

var dtypeAlias = map[string]string{
	"bf16": "bfloat16", "bfloat16": "bfloat16",
	"fp16": "float16", "float16": "float16", "half": "float16", "f16": "float16",
	"fp32": "float32", "float32": "float32", "float": "float32", "f32": "float32",
}

func boolValue(v string) (value, ok bool) {
	switch v {
	case "true", "1", "yes", "on", "enabled":
		return true, true
	case "false", "0", "no", "off", "disabled":
		return false, true
	}
	return false, false
}

func isIdent(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || c == '.' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

func stripBlanks(s string) string {
	return strings.Map(func(r rune) rune {
		if r == ' ' || r == '\t' || r == '\n' {
			return -1
		}
		return r
	}, s)
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
