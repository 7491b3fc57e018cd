package classify

import (
	"strings"
)

// classifySlow is Classify as it was before the prefilter: every rule's
// literals tested with strings.Contains. The prefilter must agree with it.
func (pr *Profile) classifySlow(line string) Class {
	c := Class{Parsed: Parse(line)}
	msg := c.Msg
	var lower string
	lowerOf := func() string {
		if lower == "" {
			lower = strings.ToLower(msg)
		}
		return lower
	}
	for i := range pr.Phases {
		r := &pr.Phases[i]
		if !isFrame(msg) && r.match(msg, lowerOf()) {
			c.Phase, c.Back, c.PhaseRule = r.Phase, r.Back, r
			break
		}
	}
	if p, ok := ParseProgress(msg); ok {
		c.Progress = &p
		if c.Phase == "" {
			desc := strings.ToLower(p.Desc)
			for i := range pr.ProgressPhases {
				r := &pr.ProgressPhases[i]
				if r.match(p.Desc, desc) {
					c.Phase, c.Back, c.PhaseRule = r.Phase, r.Back, r
					break
				}
			}
		}
	}
	for i := range pr.Ready {
		if pr.Ready[i].match(msg, lowerOf()) {
			c.Ready = true
			break
		}
	}
	for i := range pr.NoHTTPReady {
		if pr.NoHTTPReady[i].match(msg, lowerOf()) {
			c.Ready, c.NoHTTP = true, true
			break
		}
	}
	if strings.Contains(msg, "Traceback (most recent call last)") {
		c.Traceback = true
	}
	c.Waiting, c.Listening = IsWaiting(msg), SaysListening(msg)
	for i := range kernelRules {
		if kernelRules[i].match(msg, lowerOf()) {
			c.Kernel, c.KernelRule = kernelRules[i].kernelConfig(msg), &kernelRules[i]
			break
		}
	}
notable:
	for _, rules := range [][]NotableRule{pr.Notable, commonNotable} {
		if strings.HasPrefix(msg, "  ") || strings.HasPrefix(msg, "\t") {
			break
		}
		for i := range rules {
			if rules[i].match(msg, lowerOf()) {
				c.Notable = &rules[i]
				break notable
			}
		}
	}
	if c.Warning() {
		c.Benign = true
		return c
	}
	// Traceback frames and source lines ("  File ...", "    raise X(...)")
	// quote code, not errors.
	quoted := c.Progress != nil || strings.HasPrefix(msg, "  ") || strings.HasPrefix(msg, "\t")
	ownFatal := false
	for i := range pr.Failures {
		if !quoted && pr.Failures[i].match(msg, lowerOf()) {
			ownFatal = pr.Failures[i].Fatal
			break
		}
	}
	for i := range benign {
		if !ownFatal && benign[i].match(msg, lowerOf()) {
			c.Benign = true
			return c
		}
	}
	if quoted {
		return c
	}
	for _, rules := range [][]FailureRule{pr.Failures, commonFailures} {
		for i := range rules {
			if rules[i].match(msg, lowerOf()) {
				c.Failure, c.Notable = &rules[i], nil
				return c
			}
		}
	}
	if exceptionRe.Get().MatchString(msg) {
		c.Exception = true
	}
	return c
}

// isFrame is a traceback frame line, read in its plainest form: the
// reference for frameFunc.
func isFrame(msg string) bool {
	t := strings.TrimSpace(msg)
	return strings.HasPrefix(t, `File "`) && strings.Contains(t, `", line `) && strings.Contains(t, ", in ")
}
