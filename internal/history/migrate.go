package history

import (
	"context"
	"database/sql"
	"fmt"
)

// migrations bring the schema from version i to i+1 (PRAGMA user_version).
// Append only: a released step is never edited, so every database walks the
// same path.
var migrations = []string{
	// 1: one row per judged startup. JSON columns keep the ordered
	// configuration, the ordered phases and attached results; the
	// indexes serve Expectation and List --model.
	`CREATE TABLE IF NOT EXISTS startups (
		id          INTEGER PRIMARY KEY AUTOINCREMENT,
		started_at  INTEGER NOT NULL,            -- Unix milliseconds
		server      TEXT NOT NULL DEFAULT '',
		version     TEXT NOT NULL DEFAULT '',
		model       TEXT NOT NULL DEFAULT '',
		host        TEXT NOT NULL DEFAULT '',
		gpus        TEXT NOT NULL DEFAULT '',
		fingerprint TEXT NOT NULL DEFAULT '',
		config      TEXT NOT NULL DEFAULT '{}',  -- JSON object, in print order
		phases      TEXT NOT NULL DEFAULT '[]',  -- JSON [{"name","seconds"}], in order
		total_s     REAL NOT NULL DEFAULT 0,
		verdict     TEXT NOT NULL DEFAULT '',
		cause       TEXT NOT NULL DEFAULT '',
		phase       TEXT NOT NULL DEFAULT '',
		summary     TEXT NOT NULL DEFAULT '',
		log_path    TEXT NOT NULL DEFAULT '',
		extra       TEXT NOT NULL DEFAULT '{}'   -- JSON object: results by name
	);
	CREATE INDEX IF NOT EXISTS startups_by_key ON startups(server, model, fingerprint, host, verdict, id);
	CREATE INDEX IF NOT EXISTS startups_by_time ON startups(started_at);`,
	// 2: how the startup was judged and what proved it: the command line
	// (redacted), run or watch, the verdict's evidence and hint.
	`ALTER TABLE startups ADD COLUMN argv     TEXT NOT NULL DEFAULT '[]';
	ALTER TABLE startups ADD COLUMN mode     TEXT NOT NULL DEFAULT '';
	ALTER TABLE startups ADD COLUMN evidence TEXT NOT NULL DEFAULT '[]';
	ALTER TABLE startups ADD COLUMN hint     TEXT NOT NULL DEFAULT '';`,
	// 3: startups judged on another host and recorded here: the ssh
	// target it was reached through, and its place in a multi-node start
	// (node_rank of nnodes; nnodes 0 for a start on one host).
	`ALTER TABLE startups ADD COLUMN remote    TEXT NOT NULL DEFAULT '';
	ALTER TABLE startups ADD COLUMN node_rank INTEGER NOT NULL DEFAULT 0;
	ALTER TABLE startups ADD COLUMN nnodes    INTEGER NOT NULL DEFAULT 0;`,
}

// schemaVersion is the schema this vigil writes.
var schemaVersion = len(migrations)

// migrate applies the missing steps in one write transaction, so two
// processes opening a new database at once cannot both apply a step.
func migrate(ctx context.Context, db *sql.DB) error {
	var v int
	if err := db.QueryRowContext(ctx, "PRAGMA user_version").Scan(&v); err != nil {
		return err
	}
	if v == len(migrations) {
		return nil
	}
	if v > len(migrations) {
		return fmt.Errorf("schema version %d is newer than this vigil's %d", v, len(migrations))
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	tx, err := conn.BeginTx(ctx, nil) // _txlock=immediate: takes the write lock now
	if err != nil {
		return err
	}
	defer tx.Rollback()
	// Another process may have migrated while this one waited for the lock.
	if err := tx.QueryRowContext(ctx, "PRAGMA user_version").Scan(&v); err != nil {
		return err
	}
	for ; v < len(migrations); v++ {
		if _, err := tx.ExecContext(ctx, migrations[v]); err != nil {
			return fmt.Errorf("migration %d: %w", v+1, err)
		}
		if _, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", v+1)); err != nil {
			return fmt.Errorf("migration %d: %w", v+1, err)
		}
	}
	return tx.Commit()
}
