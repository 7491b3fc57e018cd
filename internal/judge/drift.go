package judge

import (
	"fmt"
	"strings"
	"time"

	"vigil/internal/observe"
	"vigil/internal/srvconfig"
)

// Config drift: the keys whose printed value differs from the last good
// start of the same model on the same host (Config.LastGood), named while
// the server still starts. Only keys both starts printed count live: a key
// this start has not printed yet may still come. The verdict lists every
// difference, added and removed keys too.

// maxDriftShown bounds the keys one drift event spells out.
const maxDriftShown = 8

// checkDrift emits one event for the keys that newly differ.
func (j *Judge) checkDrift(cfg srvconfig.Config, now time.Time) {
	if len(j.cfg.LastGood) == 0 {
		return
	}
	var fresh []srvconfig.Change
	for _, c := range srvconfig.Changes(j.cfg.LastGood, cfg) {
		if c.Kind != "changed" || j.drifted[c.Key] {
			continue
		}
		if j.drifted == nil {
			j.drifted = map[string]bool{}
		}
		j.drifted[c.Key] = true
		fresh = append(fresh, c)
	}
	if len(fresh) == 0 {
		return
	}
	var parts []string
	for i, c := range fresh {
		if i == maxDriftShown {
			parts = append(parts, fmt.Sprintf("and %d more", len(fresh)-i))
			break
		}
		parts = append(parts, fmt.Sprintf("%s: %s -> %s", c.Key, clip(c.Old, 80), clip(c.New, 80)))
	}
	j.emit(now, observe.Warning{Message: j.lastGoodName() + ": " + strings.Join(parts, "; "), Phase: string(j.phase)})
}

func (j *Judge) lastGoodName() string {
	if j.cfg.LastGoodID > 0 {
		return fmt.Sprintf("config changed since the last good start (#%d)", j.cfg.LastGoodID)
	}
	return "config changed since the last good start"
}

// attachDrift puts every difference from the last good start into r's
// Extras as config_changes.
func (j *Judge) attachDrift(r *observe.Result) {
	if len(j.cfg.LastGood) == 0 || len(r.Config) == 0 {
		return
	}
	changes := srvconfig.Changes(j.cfg.LastGood, r.Config)
	if len(changes) == 0 {
		return
	}
	var out []map[string]string
	for _, c := range changes {
		m := map[string]string{"key": c.Key, "kind": c.Kind}
		if c.Kind != "added" {
			m["old"] = c.Old
		}
		if c.Kind != "removed" {
			m["new"] = c.New
		}
		out = append(out, m)
	}
	x := map[string]any{"changes": out}
	if j.cfg.LastGoodID > 0 {
		x["against"] = j.cfg.LastGoodID
	}
	r.SetExtra("config_changes", x)
}
