package srvconfig

import (
	"slices"
	"strings"

	"vigil/internal/lazyre"
)

// Collector gathers a startup's configuration from its log messages, one at
// a time, and keeps the merged result. It joins prints that span several
// lines: TGI pretty-prints its arguments as
//
//	INFO text_generation_launcher: Args {
//	    model_id: "meta-llama/Llama-3.1-8B-Instruct",
//	    sharded: Some(
//	        true,
//	    ),
//	    ...
//	}
//
// where only the first line carries a log prefix. A Collector is not safe
// for concurrent use.
type Collector struct {
	// Kind is the server kind, as for Parse; it may be set once known.
	Kind string

	cfg   Config
	index map[string]int // position of each key in cfg
	block []string       // lines of an open multi-line print
	size  int
	depth depthTracker

	// The fingerprint and the important settings are computed again only
	// when a key they looked up (found or not) is set or changes: deps are
	// those keys. A startup prints hundreds of settings, few of them
	// important.
	deps        map[string]struct{}
	fp, impKind string
	fpKind      string
	fpOK, impOK bool
	imp         []KV
	// gen counts the changes to the configuration: a key set or a value
	// changed.
	gen int
}

// Bounds on a multi-line print, so a server that never closes its brace
// cannot make the collector hold the whole log.
const (
	maxBlockLines = 2000
	maxBlockBytes = 256 << 10
)

// NewCollector returns an empty Collector for a server kind.
func NewCollector(kind string) *Collector { return &Collector{Kind: kind} }

// Feed reads one log message (prefix stripped or not) and returns the
// pairs it contributed, if any; Config has them merged. A message that
// continues an open multi-line print returns the pairs once the print is
// complete.
func (c *Collector) Feed(msg string) []KV {
	msg = cleanLine(msg)
	var out []KV
	if c.block != nil {
		if isContinuation(msg) {
			c.block = append(c.block, msg)
			c.size += len(msg)
			if c.depth.feed("\n"+msg) || len(c.block) >= maxBlockLines || c.size >= maxBlockBytes {
				return c.closeBlock()
			}
			return nil
		}
		// Another record began: the print was cut short. Keep what was
		// complete and read this line on its own.
		out = c.closeBlock()
	}
	if opensBlock(msg) {
		c.block, c.size, c.depth = []string{msg}, len(msg), depthTracker{}
		return out
	}
	if items, ok := Parse(c.Kind, msg); ok {
		c.merge(items)
		out = append(out, items...)
	}
	return out
}

// Flush ends an open multi-line print (the log ended inside it) and returns
// the pairs that were complete.
func (c *Collector) Flush() []KV {
	if c.block == nil {
		return nil
	}
	return c.closeBlock()
}

// Config returns the merged configuration seen so far.
func (c *Collector) Config() Config { return c.cfg }

func (c *Collector) closeBlock() []KV {
	joined := strings.Join(c.block, "\n")
	c.block, c.size = nil, 0
	items, ok := Parse(c.Kind, joined)
	if !ok {
		return nil
	}
	c.merge(items)
	return items
}

// opensBlock reports a TGI "Args {" print whose brace is not closed on
// this line: the pretty-printed form.
func opensBlock(msg string) bool {
	rest, ok := after(msg, "Args {")
	if !ok {
		return false
	}
	return !scanList(rest, '}', ':').closed && strings.TrimSpace(rest) == ""
}

var rustFieldRE = lazyre.New(`^\s*[a-z_][a-z0-9_]*: `)

// isContinuation reports a line that belongs to a pretty-printed block:
// indented, a lone closer, or a "field: value" line in case the caller
// trimmed the indentation away.
func isContinuation(line string) bool {
	if line == "" {
		return false
	}
	if line[0] == ' ' || line[0] == '\t' {
		return true
	}
	switch strings.TrimSuffix(strings.TrimSpace(line), ",") {
	case "}", ")", "]":
		return true
	}
	return rustFieldRE.Get().MatchString(line)
}

// depthTracker follows brackets and quotes across the lines of a block, so
// that finding its end costs one pass over the text.
type depthTracker struct {
	depth   int
	quote   byte
	escaped bool
}

// feed reads more text and reports whether the block's own closing brace
// came.
func (d *depthTracker) feed(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if d.quote != 0 {
			switch {
			case d.escaped:
				d.escaped = false
			case c == '\\':
				d.escaped = true
			case c == d.quote:
				d.quote = 0
			}
			continue
		}
		switch c {
		case '"':
			d.quote = c
		case '(', '[', '{':
			d.depth++
		case ')', ']', '}':
			if d.depth == 0 {
				return c == '}'
			}
			d.depth--
		}
	}
	return false
}

// Fingerprint is [Fingerprint] of the configuration so far.
func (c *Collector) Fingerprint(kind string) string {
	if !c.fpOK || c.fpKind != kind {
		c.fp, c.fpKind, c.fpOK = fingerprint(kind, recorder{c}), kind, true
	}
	return c.fp
}

// Important is [Important] of the configuration so far.
func (c *Collector) Important(kind string) []KV {
	if !c.impOK || c.impKind != kind {
		c.imp, c.impKind, c.impOK = important(kind, recorder{c}, false), kind, true
	}
	return slices.Clone(c.imp)
}

// recorder reads the collected configuration and notes the keys read.
type recorder struct{ c *Collector }

func (r recorder) Get(key string) (string, bool) {
	if r.c.deps == nil {
		r.c.deps = map[string]struct{}{}
	}
	r.c.deps[key] = struct{}{}
	i, ok := r.c.index[key]
	if !ok {
		return "", false
	}
	return r.c.cfg[i].Value, true
}

// Generation counts the changes to the configuration so far (a key set
// or a value changed): while it stays the same, so does Config, and so do
// all that is derived from it.
func (c *Collector) Generation() int { return c.gen }

// changed notes that key was set or took another value.
func (c *Collector) changed(key string) {
	c.gen++
	if _, ok := c.deps[key]; ok {
		c.fpOK, c.impOK = false, false
		clear(c.deps)
	}
}

// merge is Config.Merge with an index kept between calls, so that a log
// printing configuration on every line costs constant work per line.
func (c *Collector) merge(more []KV) {
	if c.index == nil {
		c.index = make(map[string]int, len(c.cfg))
		for i, kv := range c.cfg {
			c.index[kv.Key] = i
		}
	}
	for _, kv := range more {
		i, found := c.index[kv.Key]
		if !found {
			if len(c.cfg) >= MaxKeys {
				continue
			}
			c.index[kv.Key] = len(c.cfg)
			c.cfg = append(c.cfg, kv)
			c.changed(kv.Key)
			continue
		}
		if (!isNone(kv.Value) || isNone(c.cfg[i].Value)) && c.cfg[i].Value != kv.Value {
			c.cfg[i].Value = kv.Value
			c.changed(kv.Key)
		}
	}
}
