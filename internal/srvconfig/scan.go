package srvconfig

import "strings"

// This file holds the one tolerant scanner every server's format goes
// through: a list of "key SEP value" items separated by top-level commas,
// where values may nest (), [], {} and <...>, and may be quoted with ' or "
// (backslash escapes honoured). The scanner never fails: it reports what it
// could read completely and whether the list was properly closed.

// maxInput bounds the text one call looks at, so a pathological line costs
// bounded time. The longest real configuration line (SGLang's ServerArgs
// repr, ~440 fields) is about 25 KB.
const maxInput = 1 << 20

// listResult is what scanList read.
type listResult struct {
	items []KV
	// closed is true when the list ended at its closing bracket (or, for a
	// bare list, at the end of input with nothing left open).
	closed bool
	// strays counts items that had a separator but no usable key.
	strays int
}

// segment is one top-level comma-separated piece of a list.
type segment struct{ start, end int }

// scanList reads the list that starts at s[0] (just after its opening
// bracket). close is the closing byte ( ')', '}', ']' ) or 0 for a bare list
// that runs to the end of the input. sep is '=' (Python keyword repr,
// key=value) or ':' (dicts, JSON, Rust Debug).
func scanList(s string, close byte, sep byte) listResult {
	if len(s) > maxInput {
		s = s[:maxInput]
	}
	var segs []segment
	var (
		depth   int
		stack   []byte // expected closers
		quote   byte
		segFrom = 0
		res     listResult
	)
	finished := false
	for i := 0; i < len(s) && !finished; i++ {
		c := s[i]
		if quote != 0 {
			switch c {
			case '\\':
				i++ // skip the escaped byte
			case quote:
				quote = 0
			}
			continue
		}
		switch c {
		case '\'', '"':
			if opensString(s, segFrom, i) {
				quote = c
			}
		case '(', '[', '{':
			depth++
			stack = append(stack, closerOf(c))
		case '<':
			// Python reprs such as <function f at 0x7f> or
			// <ConfigFormat.AUTO: 'auto'> only ever start a value; a '<'
			// anywhere else is text (a comparison in a message).
			if prevNonSpace(s, segFrom, i) == sep {
				depth++
				stack = append(stack, '>')
			}
		case ')', ']', '}', '>':
			if depth > 0 {
				if stack[len(stack)-1] == c {
					depth--
					stack = stack[:len(stack)-1]
				} else if c != '>' {
					// A mismatched closer: recover by unwinding to it,
					// if it is open at all; otherwise ignore it.
					for k := len(stack) - 1; k >= 0; k-- {
						if stack[k] == c {
							depth = k
							stack = stack[:k]
							break
						}
					}
				}
				continue
			}
			if c == close && close != 0 {
				segs = append(segs, segment{segFrom, i})
				res.closed = true
				finished = true
			}
		case ',':
			if depth == 0 {
				segs = append(segs, segment{segFrom, i})
				segFrom = i + 1
			}
		}
	}
	if !finished {
		segs = append(segs, segment{segFrom, len(s)})
		// A bare list is complete when it ends with nothing left open; a
		// bracketed one is complete only at its closing bracket.
		res.closed = close == 0 && quote == 0 && depth == 0
	}

	// Items are collected as spans first and their values cut out once at
	// the end, so a long run of continuations costs linear time.
	type span struct {
		key      string
		from, to int
	}
	var spans []span
	for n, sg := range segs {
		isLast := n == len(segs)-1
		text := s[sg.start:sg.end]
		if strings.TrimSpace(text) == "" {
			continue
		}
		if isLast && !res.closed {
			// The input was cut somewhere in this piece: it may be a
			// half-printed value, so it is not reported.
			break
		}
		key, valFrom, ok := splitItem(text, sep)
		if !ok {
			// In a bare list the last piece may be the start of a key
			// cut off ("enable_prefix_caching=True, chunked_pre"); only a
			// list closed by its bracket proves it is a continuation.
			if hasTopLevel(text, sep) || len(spans) == 0 || isLast && close == 0 {
				// "avail mem=55.12 GB": an item whose key is not an
				// identifier. Skip it rather than guess.
				res.strays++
				continue
			}
			// No key at all: the previous value itself contained a
			// top-level comma (an unquoted value such as "a, b").
			spans[len(spans)-1].to = sg.end
			continue
		}
		spans = append(spans, span{key, sg.start + valFrom, sg.end})
	}
	res.items = make([]KV, len(spans))
	for i, sp := range spans {
		res.items[i] = KV{Key: sp.key, Value: cleanValue(s[sp.from:sp.to])}
	}
	return res
}

// hasTopLevel reports whether sep occurs in text outside quotes and
// brackets.
func hasTopLevel(text string, sep byte) bool {
	depth := 0
	var quote byte
	for i := 0; i < len(text); i++ {
		c := text[i]
		if quote != 0 {
			if c == '\\' {
				i++
			} else if c == quote {
				quote = 0
			}
			continue
		}
		switch c {
		case '\'', '"':
			quote = c
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			if depth > 0 {
				depth--
			}
		case sep:
			if depth == 0 {
				return true
			}
		}
	}
	return false
}

func closerOf(c byte) byte {
	switch c {
	case '(':
		return ')'
	case '[':
		return ']'
	}
	return '}'
}

// prevNonSpace returns the last non-blank byte of s[from:i], or 0.
func prevNonSpace(s string, from, i int) byte {
	for j := i - 1; j >= from; j-- {
		if s[j] != ' ' && s[j] != '\t' && s[j] != '\n' && s[j] != '\r' {
			return s[j]
		}
	}
	return 0
}

// opensString reports whether a quote at s[i] starts a string: only where a
// key or value can start (after a separator, an opening bracket or at the
// start of an item). An apostrophe inside an unquoted word ("Qwen's") is
// text, so it cannot swallow the rest of the line.
func opensString(s string, from, i int) bool {
	switch prevNonSpace(s, from, i) {
	case 0, '=', ':', '(', '[', '{', ',', '<':
		return true
	}
	return false
}

// splitItem finds "key SEP" at the start of an item. Keys are identifiers
// (letters, digits, '_', '.', '-'), optionally quoted.
func splitItem(text string, sep byte) (key string, valFrom int, ok bool) {
	i := 0
	for i < len(text) && isBlank(text[i]) {
		i++
	}
	if i == len(text) {
		return "", 0, false
	}
	var k string
	if q := text[i]; q == '\'' || q == '"' {
		j := i + 1
		for j < len(text) && text[j] != q {
			if text[j] == '\\' {
				j++
			}
			j++
		}
		if j >= len(text) {
			return "", 0, false
		}
		k = unescape(text[i+1 : j])
		i = j + 1
	} else {
		j := i
		for j < len(text) && isKeyByte(text[j]) {
			j++
		}
		if j == i {
			return "", 0, false
		}
		k = text[i:j]
		i = j
	}
	for i < len(text) && isBlank(text[i]) {
		i++
	}
	if i >= len(text) || text[i] != sep {
		return "", 0, false
	}
	// "a == b" is not an assignment.
	if sep == '=' && i+1 < len(text) && text[i+1] == '=' {
		return "", 0, false
	}
	if k == "" || !validKey(k) {
		return "", 0, false
	}
	return k, i + 1, true
}

func validKey(k string) bool {
	c := k[0]
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

func isKeyByte(c byte) bool {
	return c == '_' || c == '.' || c == '-' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

func isBlank(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// cleanValue trims a value and unquotes it when it is one whole quoted
// string. Nested structures are kept as printed.
func cleanValue(v string) string {
	v = strings.TrimSpace(v)
	if _, ok := wholeQuoted(v); ok {
		return unescape(v[1 : len(v)-1])
	}
	return v
}

// wholeQuoted reports whether v is exactly one quoted string.
func wholeQuoted(v string) (byte, bool) {
	if len(v) < 2 {
		return 0, false
	}
	q := v[0]
	if q != '\'' && q != '"' || v[len(v)-1] != q {
		return 0, false
	}
	for i := 1; i < len(v)-1; i++ {
		switch v[i] {
		case '\\':
			i++
		case q:
			return 0, false
		}
	}
	// The closing quote must not itself be escaped.
	n := 0
	for j := len(v) - 2; j >= 1 && v[j] == '\\'; j-- {
		n++
	}
	return q, n%2 == 0
}

// unescape resolves the backslash escapes Python and Rust print inside
// strings that matter for reading values: quotes and backslashes. Others
// (\n, \x..) are kept as printed.
func unescape(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			switch s[i+1] {
			case '\'', '"', '\\':
				b.WriteByte(s[i+1])
				i++
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
