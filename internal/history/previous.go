package history

import (
	"context"

	"vigil/internal/verdict"
)

// Previous returns the newest startup recorded before st (by start time,
// then ID) of the same server and model on the same host; with readyOnly,
// the newest ready one, "the last good start". ok is false when there is
// none.
func (s *Store) Previous(ctx context.Context, st Startup, readyOnly bool) (prev Startup, ok bool, err error) {
	q := "SELECT " + columns + ` FROM startups
		WHERE server = ? AND model = ? AND host = ?
		AND (started_at < ? OR (started_at = ? AND id < ?))`
	at := st.StartedAt.UnixMilli()
	args := []any{st.Server, st.Model, st.Host, at, at, st.ID}
	if readyOnly {
		q += " AND verdict = ?"
		args = append(args, string(verdict.Ready))
	}
	q += " ORDER BY started_at DESC, id DESC LIMIT 1"
	got, err := s.query(ctx, q, args...)
	if err != nil || len(got) == 0 {
		return Startup{}, false, err
	}
	return got[0], true, nil
}
