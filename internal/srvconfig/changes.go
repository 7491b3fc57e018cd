package srvconfig

// Change is one configuration key that differs between two startups.
type Change struct {
	Key string
	// Kind is "changed", "added" (only in the newer) or "removed" (only in
	// the older).
	Kind     string
	Old, New string
}

// Changes lists the keys that differ from old to cur: changed and added
// keys in cur's print order, then removed ones in old's.
func Changes(old, cur Config) []Change {
	om, cm := old.Map(), cur.Map()
	var out []Change
	seen := map[string]bool{}
	for _, kv := range cur {
		if seen[kv.Key] {
			continue
		}
		seen[kv.Key] = true
		was, ok := om[kv.Key]
		switch {
		case !ok:
			out = append(out, Change{Key: kv.Key, Kind: "added", New: cm[kv.Key]})
		case was != cm[kv.Key]:
			out = append(out, Change{Key: kv.Key, Kind: "changed", Old: was, New: cm[kv.Key]})
		}
	}
	for _, kv := range old {
		if _, ok := cm[kv.Key]; !ok && !seen[kv.Key] {
			seen[kv.Key] = true
			out = append(out, Change{Key: kv.Key, Kind: "removed", Old: om[kv.Key]})
		}
	}
	return out
}
