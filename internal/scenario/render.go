package scenario

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"vigil/internal/lazyre"
)

// placeholder is player.py's PLACEHOLDER.
var placeholder = lazyre.New(`\{(ts|vts|iso|epoch)(?::([+-]?\d+(?:\.\d+)?))?\}`)

// maxOffset bounds a placeholder's offset (about 285 years) so that no
// offset can overflow a time.Duration.
const maxOffset = 9e9

// Render replaces the time placeholders in line with the time now (plus the
// placeholder's offset in seconds), as player.py's render does:
//
//	{ts}     2026-05-24 00:52:40         local time (SGLang)
//	{vts}    05-24 00:52:40              local time (vLLM)
//	{iso}    2026-05-23T22:52:40.123456Z UTC with microseconds (TGI)
//	{epoch}  1779576760.123              Unix seconds, 3 decimals
//
// {ts:-3600} is an hour before now.
func Render(line string, now time.Time) string {
	if !strings.Contains(line, "{") {
		return line
	}
	return placeholder.Get().ReplaceAllStringFunc(line, func(m string) string {
		sub := placeholder.Get().FindStringSubmatch(m)
		t := now
		if sub[2] != "" {
			off, err := strconv.ParseFloat(sub[2], 64)
			if err != nil || math.IsNaN(off) {
				off = 0
			}
			off = math.Max(-maxOffset, math.Min(maxOffset, off))
			t = t.Add(time.Duration(off * float64(time.Second)))
		}
		switch sub[1] {
		case "ts":
			return t.Local().Format("2006-01-02 15:04:05")
		case "vts":
			return t.Local().Format("01-02 15:04:05")
		case "iso":
			return t.UTC().Format("2006-01-02T15:04:05.000000Z")
		}
		return fmt.Sprintf("%.3f", float64(t.Unix())+float64(t.Nanosecond())/1e9)
	})
}
