package judge

import (
	"time"

	"vigil/internal/observe"
)

// restartNote is the warning a restart emits.
const restartNote = "the log was truncated or rotated: its new content is judged as a new start, the lines before are not this start's"

// restart begins judging anew at now: the log was truncated or rotated
// (logline.Line.Fresh), so what follows is a new run (a server restarted
// with `> server.log`, or a supervisor that moves the old log aside), and
// nothing fed so far belongs to it. The configuration is the one given to
// New; events not yet taken are kept.
func (j *Judge) restart(now time.Time) {
	events := j.events
	*j = *New(j.base, now)
	j.events = append(events, j.events...)
	j.emit(now, observe.Warning{Message: restartNote})
}
