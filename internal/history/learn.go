package history

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"

	"vigil/internal/learn"
	"vigil/internal/verdict"
)

// Expectation summarises the last [learn.SampleSize] ready startups with key. ok is
// false when there are none.
func (s *Store) Expectation(ctx context.Context, k Key) (learn.Expectation, bool, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT phases, total_s FROM startups
		WHERE server = ? AND model = ? AND fingerprint = ? AND host = ? AND verdict = ?
		ORDER BY id DESC LIMIT ?`,
		k.Server, k.Model, k.Fingerprint, k.Host, string(verdict.Ready), learn.SampleSize)
	if err != nil {
		return learn.Expectation{}, false, s.wrap(err)
	}
	defer rows.Close()
	var samples [][]learn.Phase
	var totals []float64
	for rows.Next() {
		var raw string
		var total float64
		if err := rows.Scan(&raw, &total); err != nil {
			return learn.Expectation{}, false, s.wrap(err)
		}
		var ph []learn.Phase
		if json.Unmarshal([]byte(raw), &ph) != nil {
			continue
		}
		samples = append(samples, ph)
		totals = append(totals, total)
	}
	if err := rows.Err(); err != nil {
		return learn.Expectation{}, false, s.wrap(err)
	}
	e := learn.Summarise(samples, totals)
	return e, e.Samples > 0, nil
}

// LatestFingerprint is the configuration fingerprint of the newest ready
// startup of this server, model and host: the best guess of the
// configuration a new start will run before the server has printed it.
func (s *Store) LatestFingerprint(ctx context.Context, server, model, host string) (string, bool, error) {
	var fp string
	err := s.db.QueryRowContext(ctx, `SELECT fingerprint FROM startups
		WHERE server = ? AND model = ? AND host = ? AND verdict = ?
		ORDER BY id DESC LIMIT 1`, server, model, host, string(verdict.Ready)).Scan(&fp)
	if errors.Is(err, sql.ErrNoRows) {
		return "", false, nil
	}
	if err != nil {
		return "", false, s.wrap(err)
	}
	return fp, true, nil
}
