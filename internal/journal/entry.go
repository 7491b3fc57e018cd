// Package journal reads a systemd unit's log from journald.
//
// It runs `journalctl -o json` as a child process rather than linking
// libsystemd: the go-systemd journal reader needs cgo, and vigil is built
// with CGO_ENABLED=0. journalctl is present wherever journald is.
//
// journalctl's JSON output has quirks that this package smooths over:
//
//   - a field that is not printable UTF-8 (invalid UTF-8, but also "\r" from
//     a tqdm progress bar or ESC from coloured output) is an array of byte
//     values instead of a string;
//   - without --all, a field of 4096 bytes or more is null (Follow passes
//     --all, but recorded output may still hold nulls);
//   - a field with several values is an array of values;
//   - numbers, timestamps included, are strings;
//   - journald cuts a line longer than its LineMax (48K by default) into
//     several entries, which [Follow] joins back together.
//
// [UnitInfo] reads what systemd knows about the unit: its main PID, its
// state and when its current activation began, so that only the current
// activation's log is judged.
package journal

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"
)

// TooLong is the text of a message that journalctl left out (null in its
// JSON output) because it was too long.
const TooLong = "[message too long for journald JSON output]"

// Entry is one journal entry of the unit, or several that journald split
// from one long line, joined.
type Entry struct {
	// Message is the logged text, without a trailing newline. It holds
	// the exact bytes logged, which need not be valid UTF-8.
	Message string
	// PID is the process that logged the entry (_PID); 0 when unknown.
	PID int
	// Time is when journald received the entry (__REALTIME_TIMESTAMP).
	Time time.Time
	// InvocationID identifies the unit's activation that logged the
	// entry (_SYSTEMD_INVOCATION_ID, or INVOCATION_ID on systemd's own
	// messages about the unit).
	InvocationID string
	// Comm is the logging process's command name (_COMM).
	Comm string
	// Priority is the syslog priority, 0 (emerg) to 7 (debug); -1 when
	// the entry has none.
	Priority int
	// Cursor is journalctl's cursor for the entry, for resuming after it.
	Cursor string
	// LineBreak says why journald ended the entry without a newline
	// (_LINE_BREAK: "line-max", "nul", "eof", "pid-change"); empty for an
	// ordinary line.
	LineBreak string
	// Continued is true when the line goes on in the next entry of the
	// same PID: journald split it and the rest did not arrive in time,
	// or the joined message reached MaxMessage.
	Continued bool
}

// wireEntry is an entry as journalctl prints it.
type wireEntry struct {
	Message        field `json:"MESSAGE"`
	PID            field `json:"_PID"`
	Priority       field `json:"PRIORITY"`
	Realtime       field `json:"__REALTIME_TIMESTAMP"`
	Invocation     field `json:"_SYSTEMD_INVOCATION_ID"`
	UnitInvocation field `json:"INVOCATION_ID"`
	Comm           field `json:"_COMM"`
	Cursor         field `json:"__CURSOR"`
	LineBreak      field `json:"_LINE_BREAK"`
}

// field is one field's value in journalctl's JSON output.
type field struct {
	s    string
	null bool // the field was there but null: too long to print
}

// UnmarshalJSON accepts every shape journalctl gives a field: a string, an
// array of byte values, null, an array of several values (the first is
// kept) and, leniently, a bare number.
func (f *field) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) == 0 {
		return errors.New("empty field")
	}
	switch b[0] {
	case 'n':
		f.null = true
		return nil
	case '"':
		return json.Unmarshal(b, &f.s)
	case '[':
		inner := bytes.TrimSpace(b[1:])
		if len(inner) > 0 && (inner[0] >= '0' && inner[0] <= '9') {
			var raw []byte // a JSON array of numbers decodes byte by byte
			if err := json.Unmarshal(b, &raw); err != nil {
				return fmt.Errorf("byte array: %w", err)
			}
			f.s = string(raw)
			return nil
		}
		var values []field
		if err := json.Unmarshal(b, &values); err != nil {
			return err
		}
		if len(values) > 0 {
			*f = values[0]
		}
		return nil
	default:
		// A bare number; journalctl prints strings, but be lenient.
		var n json.Number
		if err := json.Unmarshal(b, &n); err != nil {
			return err
		}
		f.s = n.String()
		return nil
	}
}

// Parse decodes one line of `journalctl -o json` output.
func Parse(line []byte) (Entry, error) {
	var w wireEntry
	if err := json.Unmarshal(line, &w); err != nil {
		return Entry{}, fmt.Errorf("journal entry: %w", err)
	}
	e := Entry{
		Message:      w.Message.s,
		InvocationID: w.Invocation.s,
		Comm:         w.Comm.s,
		Cursor:       w.Cursor.s,
		LineBreak:    w.LineBreak.s,
		Priority:     -1,
	}
	if w.Message.null {
		e.Message = TooLong
	}
	if e.InvocationID == "" {
		e.InvocationID = w.UnitInvocation.s
	}
	if w.PID.s != "" {
		pid, err := strconv.Atoi(w.PID.s)
		if err != nil {
			return Entry{}, fmt.Errorf("journal entry: _PID: %w", err)
		}
		e.PID = pid
	}
	if w.Priority.s != "" {
		p, err := strconv.Atoi(w.Priority.s)
		if err != nil {
			return Entry{}, fmt.Errorf("journal entry: PRIORITY: %w", err)
		}
		e.Priority = p
	}
	if w.Realtime.s != "" {
		us, err := strconv.ParseInt(w.Realtime.s, 10, 64)
		if err != nil {
			return Entry{}, fmt.Errorf("journal entry: __REALTIME_TIMESTAMP: %w", err)
		}
		e.Time = time.UnixMicro(us)
	}
	return e, nil
}
