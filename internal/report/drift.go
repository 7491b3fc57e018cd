package report

import (
	"fmt"
	"strings"
	"time"

	"vigil/internal/history"
	"vigil/internal/lazyre"
	"vigil/internal/srvconfig"
)

type driftView struct {
	// First: no earlier startup of this model on this host.
	First bool
	// Against names the earlier startup.
	PrevID     int64
	PrevAnchor string
	PrevWhen   string
	PrevShown  bool // whether the earlier startup is in the report too
	Summary    string
	// Lines are the changes shown at once; More the rest, folded.
	Lines, More []changeLine
	// Version and verdict changes, when they differ.
	Version, Verdict string
}

type changeLine struct {
	Sign, Class, Key, Old, New string
	OldTitle, NewTitle         string
}

// driftShown is how many changes show before the rest are folded away.
const driftShown = 12

func driftOf(prev, cur history.Startup, loc *time.Location) driftView {
	d := driftView{PrevID: prev.ID, PrevAnchor: anchor(prev.ID), PrevWhen: prev.StartedAt.In(loc).Format("2006-01-02 15:04")}
	if prev.Version != cur.Version {
		d.Version = dash(prev.Version) + " → " + dash(cur.Version)
	}
	if headline(prev) != headline(cur) {
		d.Verdict = headline(prev) + " → " + headline(cur)
	}
	changes := srvconfig.Changes(prev.Config, cur.Config)
	var nc, na, nr int
	for i, c := range changes {
		c.Old, c.New = hideSecret(c.Key, c.Old), hideSecret(c.Key, c.New)
		l := changeLine{Key: clip(c.Key, 120), Old: clip(c.Old, 160), New: clip(c.New, 160),
			OldTitle: clip(c.Old, 2000), NewTitle: clip(c.New, 2000)}
		switch c.Kind {
		case "changed":
			l.Sign, l.Class = "~", "chg"
			nc++
		case "added":
			l.Sign, l.Class = "+", "add"
			na++
		default:
			l.Sign, l.Class = "−", "del"
			nr++
		}
		if i < driftShown {
			d.Lines = append(d.Lines, l)
		} else {
			d.More = append(d.More, l)
		}
	}
	var parts []string
	for _, p := range []struct {
		n    int
		word string
	}{{nc, "changed"}, {na, "added"}, {nr, "removed"}} {
		if p.n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", p.n, p.word))
		}
	}
	d.Summary = "same configuration"
	if len(parts) > 0 {
		d.Summary = strings.Join(parts, ", ")
	}
	return d
}

// secretKey matches configuration keys whose values are credentials: an
// API key, a token, a password or secret. Servers print them with their
// arguments; a report is made to be passed around.
var secretKey = lazyre.New(`(?i)(^|[_.-])(api[_-]?key|apikey|token|hf[_-]?token|access[_-]?token|secret|secret[_-]?key|password|passwd|credentials?|authorization)($|[_.-])`)

// secretValue matches values that are credentials whatever their key: an
// OpenAI-style or Hugging Face token.
var secretValue = lazyre.New(`^['"]?(sk-|hf_)[A-Za-z0-9_-]{8,}`)

// hidden is what a report shows instead of a credential.
const hidden = "(hidden)"

// hideSecret returns v, or [hidden] when it is a credential. Unset values
// (None, empty) stay, so the report still says whether one was given.
func hideSecret(key, v string) string {
	switch strings.ToLower(strings.Trim(strings.TrimSpace(v), `'"`)) {
	case "", "none", "null", "nil":
		return v
	}
	if secretKey.Get().MatchString(key) || secretValue.Get().MatchString(strings.TrimSpace(v)) {
		return hidden
	}
	return v
}

// tokenInText finds credentials inside free text (a summary, a warning).
var tokenInText = lazyre.New(`\b(sk-|hf_)[A-Za-z0-9_-]{16,}`)

// scrub hides the credentials in a text.
func scrub(s string) string { return tokenInText.Get().ReplaceAllString(s, hidden) }
