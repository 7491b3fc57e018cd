package classify

import (
	"hash/maphash"
	"strings"
)

// Memo remembers what Classify said about the messages it saw, for one
// goroutine (it takes no locks). A crash-looping server appends the same
// startup to its log again and again: most lines of such a log repeat
// exactly once their stamp and prefixes are cut off, and all that Classify
// adds to ParseFast's parts depends only on the profile, the message and
// its level (classifyParsed), so a repeat costs ParseFast and one map
// lookup instead of the automaton scan and the rules' expressions.
//
// What a Memo returns shares its Progress and Kernel with other lines'
// classes, as its rule pointers always did: callers treat them as
// read-only (they copy what they keep). Nothing in it points into a line
// it was given: keys and the strings of what is kept are cloned, so a
// caller may reuse its line buffers. The zero Memo is ready to use; a
// nil *Memo classifies without remembering.
type Memo struct {
	// by holds one map of messages per profile and level (a log meets a
	// few of each): string keys hash much faster than a struct's.
	by      []memoMap
	entries int
	bytes   int
	// banners remembers BannerServer by message.
	banners map[string]string
	// door has a tag of each message ClassifyRepeats met once and did not
	// keep (a slot per hash; a newer message takes the slot).
	door []uint32
	seed maphash.Seed
}

type memoMap struct {
	pr *Profile
	// level is one of levelNames' values (or ""), never a line's text.
	level string
	// access: m holds access lines without their client address
	// (clientAddr), not messages.
	access bool
	// m's values are pointers: a map with small values takes the
	// runtime's fast path for string keys.
	m map[string]*Class
}

const (
	// memoMaxEntries and memoMaxBytes bound a Memo: once either is
	// reached it starts over empty (a startup's lines repeat within a few
	// thousand lines, so recent ones are what pay).
	memoMaxEntries = 1 << 14
	memoMaxBytes   = 4 << 20
	// memoMaxBanners bounds the banner answers kept (each message at most
	// memoMaxMsg bytes).
	memoMaxBanners = 1 << 12
	// memoMaxMsg: longer messages (a configuration printed on one line)
	// are classified without being kept.
	memoMaxMsg = 1 << 10
)

// NewMemo returns an empty Memo.
func NewMemo() *Memo { return &Memo{} }

// Classify is pr.Classify(line), remembered by the line's message.
func (m *Memo) Classify(pr *Profile, line string) Class { return m.classify(pr, line, false) }

// ClassifyRepeats is Classify for lines whose messages are mostly one of
// a kind (a serving server's lines carry request and task numbers): a
// message is kept once it comes a second time, so that those met once do
// not fill the memo and push out the ones that repeat.
func (m *Memo) ClassifyRepeats(pr *Profile, line string) Class { return m.classify(pr, line, true) }

// doorSize is the number of messages ClassifyRepeats remembers meeting.
const doorSize = 1 << 12

func (m *Memo) classify(pr *Profile, line string, repeats bool) Class {
	p := ParseFast(line)
	if m == nil || len(p.Msg) > memoMaxMsg {
		return prefilterOf(pr).classifyParsed(pr, p)
	}
	mm := m.mapOf(pr, p.Level, false)
	key := p.Msg
	access := false
	if n := clientAddr(key); n > 0 {
		// An access line: the client's address and port change on every
		// request, and no rule reads them (TestMemoAccessAddress), so
		// its entry is the rest of the line, kept apart from messages.
		mm, key, access = m.mapOf(pr, p.Level, true), key[n:], true
	}
	if k, ok := mm[key]; ok {
		c := *k
		c.Parsed = p
		return c
	}
	// (The prefilter is looked up on a miss only: a hit needs none.)
	c := prefilterOf(pr).classifyParsed(pr, p)
	if access && (c.Progress != nil || c.Kernel != nil) {
		// Their text is taken from the message, address and all.
		return c
	}
	if repeats && !m.metBefore(key) {
		return c
	}
	if m.entries >= memoMaxEntries || m.bytes >= memoMaxBytes {
		for i := range m.by {
			clear(m.by[i].m)
		}
		m.entries, m.bytes = 0, 0
	}
	k := kept(c)
	mm[strings.Clone(key)] = &k
	m.entries++
	m.bytes += len(key)
	return c
}

// metBefore reports whether ClassifyRepeats met key before (a slot of
// door holds its tag), and notes it as met.
func (m *Memo) metBefore(key string) bool {
	if m.door == nil {
		m.door = make([]uint32, doorSize)
		m.seed = maphash.MakeSeed()
	}
	h := maphash.String(m.seed, key)
	slot, tag := h%doorSize, uint32(h>>32)|1
	if m.door[slot] == tag {
		return true
	}
	m.door[slot] = tag
	return false
}

// QuotedFailure is the rule of the error that a Quotes rule r's line msg
// quotes, when that error's own rule names a cause; nil otherwise (also
// for a nil r, or an r with a cause of its own).
func (m *Memo) QuotedFailure(pr *Profile, r *FailureRule, msg string) *FailureRule {
	if q := r.Quoted(msg); q != "" && r.Cause == "" {
		if inner := m.Classify(pr, q).Failure; inner != nil && inner.Cause != "" {
			return inner
		}
	}
	return nil
}

// BannerServer is BannerServer(msg), remembered: explain asks it of every
// line that may be a banner, and those repeat with every start.
func (m *Memo) BannerServer(msg string) string {
	if m == nil || len(msg) > memoMaxMsg {
		return BannerServer(msg)
	}
	if s, ok := m.banners[msg]; ok {
		return s
	}
	s := BannerServer(msg)
	if m.banners == nil || len(m.banners) >= memoMaxBanners {
		m.banners = make(map[string]string)
	}
	m.banners[strings.Clone(msg)] = s
	return s
}

// clientAddr is the length of the client address that opens uvicorn's
// access line (`127.0.0.1:42375 - "GET /health HTTP/1.1" 200 OK`): an
// IPv4 address, a port and ` - "` before a request's method and path; 0
// for any other message.
func clientAddr(msg string) int {
	i, dots := 0, 0
	for ; i < len(msg) && i < 16; i++ {
		if c := msg[i]; c == '.' {
			dots++
		} else if c < '0' || c > '9' {
			break
		}
	}
	if dots != 3 || i == 0 || i == len(msg) || msg[i] != ':' {
		return 0
	}
	j := i + 1
	for j < len(msg) && j-i <= 6 && msg[j] >= '0' && msg[j] <= '9' {
		j++
	}
	if j == i+1 || !strings.HasPrefix(msg[j:], ` - "`) || !isRequest(msg[j+4:]) {
		return 0
	}
	return j
}

// isRequest reports whether s opens with an HTTP method and a path.
func isRequest(s string) bool {
	for _, m := range [...]string{"GET /", "POST /", "PUT /", "DELETE /", "HEAD /", "OPTIONS /", "PATCH /"} {
		if strings.HasPrefix(s, m) {
			return true
		}
	}
	return false
}

// mapOf is the map of pr's messages (or access lines) at level.
func (m *Memo) mapOf(pr *Profile, level string, access bool) map[string]*Class {
	for i := range m.by {
		if b := &m.by[i]; b.pr == pr && b.level == level && b.access == access {
			return b.m
		}
	}
	m.by = append(m.by, memoMap{pr: pr, level: level, access: access, m: make(map[string]*Class)})
	return m.by[len(m.by)-1].m
}

// kept is c as a Memo keeps it: without the line's parts (Parsed), and
// with copies of what else may point into the line.
func kept(c Class) Class {
	c.Parsed = Parsed{}
	if c.Progress != nil {
		p := *c.Progress
		p.Desc, p.ETA = strings.Clone(p.Desc), strings.Clone(p.ETA)
		c.Progress = &p
	}
	if c.Kernel != nil {
		k := *c.Kernel
		k.Kernel, k.State, k.File = strings.Clone(k.Kernel), strings.Clone(k.State), strings.Clone(k.File)
		k.Shape, k.Device = strings.Clone(k.Shape), strings.Clone(k.Device)
		k.Dtype, k.BlockShape = strings.Clone(k.Dtype), strings.Clone(k.BlockShape)
		c.Kernel = &k
	}
	return c
}
