package cli

import (
	"fmt"
	"time"
)

// window is a time window flag that is either a Go duration or "auto":
// learned from the history of startups like this one, with a fixed
// fallback when there is none.
type window struct {
	auto bool
	d    time.Duration
}

func (w *window) String() string {
	if w.auto {
		return "auto"
	}
	return w.d.String()
}

func (w *window) Set(s string) error {
	if s == "auto" {
		w.auto, w.d = true, 0
		return nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return fmt.Errorf("want a duration such as 90s or 20m, or auto")
	}
	if d <= 0 {
		return fmt.Errorf("want a positive duration")
	}
	w.auto, w.d = false, d
	return nil
}

func (w *window) Type() string { return "duration|auto" }

// given is the duration the user gave, or 0 for auto.
func (w *window) given() time.Duration {
	if w.auto {
		return 0
	}
	return w.d
}
