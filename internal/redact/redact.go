// Package redact removes secrets from everything vigil prints or stores:
// command lines, free text (log lines, error messages, notes), URLs and
// key/value configuration. It knows secrets by their shape and by the name
// they are given under (a flag, an environment variable, a config key), and
// also masks literal values it is told about (the API key vigil sends).
//
// Redaction errs on the side of masking: a masked non-secret costs a little
// information, a printed key costs the key.
package redact

import (
	"io"
	"net/url"
	"slices"
	"strings"
	"sync"

	"vigil/internal/lazyre"
)

// Mask replaces every secret.
const Mask = "***"

// SecretName reports whether a flag, environment variable or config key of
// this name holds a secret: --api-key, --hf-token, --token, --*-key,
// --*-secret, --*-password, HF_TOKEN, OPENAI_API_KEY, api_key, ... The name
// may carry leading dashes and mix '-' and '_' and case.
func SecretName(name string) bool {
	n := strings.ToLower(strings.TrimLeft(name, "-"))
	if n == "" {
		return false
	}
	parts := strings.FieldsFunc(n, func(r rune) bool { return r == '-' || r == '_' || r == '.' })
	if len(parts) == 0 {
		return false
	}
	last := parts[len(parts)-1]
	switch last {
	// Singular only: max_tokens or --max-num-batched-tokens are counts.
	case "token", "key", "apikey", "secret", "password", "passwd", "pwd", "authorization", "credential", "cookie":
		return true
	}
	for _, p := range parts {
		switch p {
		case "secret", "password", "passwd", "apikey":
			return true
		}
	}
	return false
}

// empty values are shown as they are: "None" says the server runs without
// a key, which is worth seeing.
func emptyValue(v string) bool {
	switch strings.Trim(strings.TrimSpace(v), `'"`) {
	case "", "None", "none", "null", "nil", "[]", "false", "False":
		return true
	}
	return false
}

// Value masks v when it is stored under a secret name; otherwise it only
// has the shapes of [String] removed.
func Value(name, v string) string {
	if SecretName(name) && !emptyValue(v) {
		return Mask
	}
	return String(v)
}

// Argv returns a copy of a command line with the values of secret flags
// (both "--flag v" and "--flag=v"), secret-named NAME=VALUE words (an env(1)
// prefix) and secret shapes inside any word masked. The original is left
// alone.
func Argv(argv []string) []string {
	out := make([]string, len(argv))
	maskNext := false
	for i, a := range argv {
		switch {
		case maskNext && !strings.HasPrefix(a, "-"):
			out[i] = Mask
			maskNext = false
			continue
		case strings.HasPrefix(a, "-") && len(a) > 1:
			maskNext = false
			name, _, hasValue := strings.Cut(a, "=")
			if SecretName(name) {
				if hasValue {
					out[i] = name + "=" + Mask
				} else {
					out[i] = a
					maskNext = true
				}
				continue
			}
		default:
			maskNext = false
			// FOO_TOKEN=x before the command (env, docker -e).
			if name, _, ok := strings.Cut(a, "="); ok && isEnvName(name) && SecretName(name) {
				out[i] = name + "=" + Mask
				continue
			}
		}
		out[i] = String(a)
	}
	return out
}

// Env returns a copy of an environment (NAME=VALUE entries) with the values
// of secret-named variables masked.
func Env(env []string) []string {
	out := make([]string, len(env))
	for i, e := range env {
		name, v, ok := strings.Cut(e, "=")
		if !ok {
			out[i] = String(e)
			continue
		}
		out[i] = name + "=" + Value(name, v)
	}
	return out
}

// Map returns a copy of a key/value configuration with secret-named keys'
// values masked and secret shapes removed from the others.
func Map(m map[string]string) map[string]string {
	if m == nil {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = Value(k, v)
	}
	return out
}

// URL masks the userinfo of a URL (user:password@) and secret-named query
// parameters. Text that is not a URL is redacted as free text.
func URL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme == "" {
		return String(raw)
	}
	hadUser := u.User != nil
	u.User = nil
	if u.RawQuery != "" {
		q := u.Query()
		changed := false
		for k, vs := range q {
			if SecretName(k) {
				for i := range vs {
					vs[i] = Mask
				}
				changed = true
			}
		}
		if changed {
			u.RawQuery = q.Encode()
		}
	}
	out := u.String()
	if hadUser {
		out = strings.Replace(out, "://", "://"+Mask+"@", 1)
	}
	return out
}

// The shapes found in free text besides named secrets (see maskNamed).
var (
	// scheme://user:pass@host
	userinfoRe = lazyre.New(`([A-Za-z][A-Za-z0-9+.-]*://)[^/\s@]+@`)
	// Authorization: Bearer X, Authorization: Basic X, Bearer X.
	authRe = lazyre.New(`(?i)((?:authorization|proxy-authorization)["']?\s*[:=]\s*["']?(?:(?:bearer|basic|token)\s+)?|bearer\s+)([^\s"',)}\]]+)`)
	// hf_xxx (Hugging Face), sk-xxx (OpenAI-style), gh[pousr]_xxx, xox[bp]-.
	tokenRe = lazyre.New(`\b(hf_[A-Za-z0-9]{8,}|sk-[A-Za-z0-9_-]{6,}|gh[pousr]_[A-Za-z0-9]{16,}|xox[abpr]-[A-Za-z0-9-]{8,})`)
)

// String removes secrets from free text: named secrets (--api-key V,
// api_key='V', HF_TOKEN=V, "hf_token": "V"), URL userinfo, Authorization
// headers and bearer tokens, and hf_..., sk-... shaped tokens. Each shape
// is looked for only when a cheap test says it may be there: a plain log
// line costs a few scans and no allocation.
func String(s string) string {
	if s == "" {
		return s
	}
	if strings.Contains(s, "://") && strings.Contains(s, "@") {
		s = userinfoRe.Get().ReplaceAllString(s, "${1}"+Mask+"@")
	}
	if containsFold(s, "auth") || containsFold(s, "bearer") {
		s = authRe.Get().ReplaceAllStringFunc(s, func(m string) string {
			sub := authRe.Get().FindStringSubmatch(m)
			if sub[2] == Mask {
				return m
			}
			return sub[1] + Mask
		})
	}
	s = maskNamed(s)
	if strings.Contains(s, "hf_") || strings.Contains(s, "sk-") || strings.Contains(s, "gh") || strings.Contains(s, "xox") {
		s = tokenRe.Get().ReplaceAllString(s, Mask)
	}
	return s
}

// secretWords end the names [SecretName] may accept; maskNamed looks for
// them first.
var secretWords = []string{"token", "key", "secret", "password", "passwd", "pwd", "credential", "cookie"}

func isNameByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.'
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}

// maskNamed masks the value after every secret name: NAME=V, NAME: V,
// 'NAME': 'V', "NAME": ["V", ...], and --NAME V for flags (a name and a
// value separated only by blanks is a flag only with its dashes; "the key
// was refused" is prose).
func maskNamed(s string) string {
	var b strings.Builder
	last := 0 // s[:last] is already written to b (or unchanged)
	for i := 0; i < len(s); {
		w := wordAt(s, i)
		if w == 0 {
			i++
			continue
		}
		end := i + w
		if end < len(s) && isNameByte(s[end]) {
			i = end // the name goes on: "tokens", "token_usage"
			continue
		}
		start := i
		for start > 0 && isNameByte(s[start-1]) {
			start--
		}
		name := s[start:end]
		vFrom, vTo, ok := valueAfter(s, end, strings.HasPrefix(name, "-"))
		if !ok || shortNumber(s[vFrom:vTo]) || !SecretName(name) {
			i = end
			continue
		}
		v := s[vFrom:vTo]
		if emptyValue(v) || v == Mask || strings.HasPrefix(v, "-") || shortNumber(v) {
			i = vTo
			continue
		}
		b.WriteString(s[last:vFrom])
		b.WriteString(Mask)
		last = vTo
		i = vTo
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// shortNumber: counts in log lines ("#new-token: 7", "cached-token: 0")
// are no secrets; a key is never a short number.
func shortNumber(v string) bool {
	if len(v) == 0 || len(v) > 12 {
		return false
	}
	for i := 0; i < len(v); i++ {
		if c := v[i]; (c < '0' || c > '9') && c != '.' {
			return false
		}
	}
	return true
}

// wordAt returns the length of the secret word at s[i:], case-insensitive,
// or 0.
func wordAt(s string, i int) int {
	c := s[i] | 0x20
	if c != 't' && c != 'k' && c != 's' && c != 'p' && c != 'c' {
		return 0
	}
	for _, w := range secretWords {
		if w[0] == c && len(s)-i >= len(w) && strings.EqualFold(s[i:i+len(w)], w) {
			return len(w)
		}
	}
	return 0
}

// valueAfter finds the value that follows a name ending at i: an optional
// closing quote, a separator (= or :, or blanks for a flag), an optional
// opening quote, then a [list] or a run up to a blank, quote, comma or
// closing bracket.
func valueAfter(s string, i int, flag bool) (from, to int, ok bool) {
	if i < len(s) && (s[i] == '"' || s[i] == '\'') {
		i++
	}
	j := i
	for j < len(s) && isSpace(s[j]) {
		j++
	}
	switch {
	case j < len(s) && (s[j] == '=' || s[j] == ':'):
		j++
		for j < len(s) && isSpace(s[j]) {
			j++
		}
	case flag && j > i:
	default:
		return 0, 0, false
	}
	if j < len(s) && (s[j] == '"' || s[j] == '\'') {
		j++
	}
	if j >= len(s) {
		return 0, 0, false
	}
	if s[j] == '[' {
		if k := strings.IndexByte(s[j:], ']'); k >= 0 {
			return j, j + k + 1, true
		}
	}
	k := j
	for k < len(s) && !isSpace(s[k]) && !strings.ContainsRune(`"',)}]`, rune(s[k])) {
		k++
	}
	if k == j {
		return 0, 0, false
	}
	return j, k, true
}

// containsFold is strings.Contains ignoring ASCII case, without
// allocating.
// sub must be lower-case ASCII.
func containsFold(s, sub string) bool {
	first := sub[0]
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i]|0x20 == first && strings.EqualFold(s[i:i+len(sub)], sub) {
			return true
		}
	}
	return false
}

func isEnvName(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		switch {
		case r == '_', r >= 'A' && r <= 'Z', r >= 'a' && r <= 'z':
		case r >= '0' && r <= '9' && i > 0:
		default:
			return false
		}
	}
	return true
}

// Redactor masks, on top of the shapes [String] knows, literal secrets it
// is given: the API key vigil sends, which a server may echo in any form.
// The zero value knows no literal secrets. It is safe for concurrent use.
type Redactor struct {
	mu    sync.RWMutex
	known []string
}

// New returns a Redactor that also masks each non-empty secret.
func New(secrets ...string) *Redactor {
	r := &Redactor{}
	r.Add(secrets...)
	return r
}

// Add teaches r more literal secrets. Very short values (under 4 bytes) are
// ignored: masking every "a" would garble the text and protect nothing.
func (r *Redactor) Add(secrets ...string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, s := range secrets {
		if len(s) >= 4 && !slices.Contains(r.known, s) {
			r.known = append(r.known, s)
		}
	}
	// Longest first, so a key that contains another is masked whole.
	slices.SortFunc(r.known, func(a, b string) int { return len(b) - len(a) })
}

// String redacts s.
func (r *Redactor) String(s string) string {
	if r == nil {
		return String(s)
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	s = String(r.maskKnown(s))
	// A secret holding '*' can be spelled anew by a mask beside plain text
	// ("000" + "***" holds "000*"). Each pass shrinks s, since a known
	// secret is longer than the mask, so this ends.
	for slices.ContainsFunc(r.known, func(k string) bool { return strings.Contains(s, k) }) {
		s = r.maskKnown(s)
	}
	return s
}

func (r *Redactor) maskKnown(s string) string {
	for _, k := range r.known {
		s = strings.ReplaceAll(s, k, Mask)
	}
	return s
}

// Argv redacts a command line.
func (r *Redactor) Argv(argv []string) []string {
	out := Argv(argv)
	for i := range out {
		out[i] = r.String(out[i])
	}
	return out
}

// Writer returns a writer that redacts what goes through it. Redaction
// works within each Write; vigil writes whole lines or documents, so a
// secret is never split across two writes.
func (r *Redactor) Writer(w io.Writer) io.Writer { return &writer{r: r, w: w} }

type writer struct {
	r *Redactor
	w io.Writer
}

func (w *writer) Write(p []byte) (int, error) {
	s := w.r.String(string(p))
	if s == string(p) {
		if _, err := w.w.Write(p); err != nil {
			return 0, err
		}
		return len(p), nil
	}
	if _, err := io.WriteString(w.w, s); err != nil {
		return 0, err
	}
	// The caller's bytes were all consumed, even if fewer went out.
	return len(p), nil
}
