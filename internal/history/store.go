// Package history remembers every judged startup in an embedded SQLite
// database and answers the queries learning needs (package learn).
//
// # Store
//
// The database lives at [DefaultPath]: $XDG_STATE_HOME/vigil/history.db, else
// ~/.local/state/vigil/history.db. It is opened in WAL mode with a 5 s busy
// timeout and synchronous=NORMAL, so several vigil processes can record at
// once and a vigil killed in the middle of a write leaves a usable database
// (WAL commits are atomic; NORMAL may lose the last commit on power loss,
// never consistency). The schema is migrated forward by a list of steps
// numbered with PRAGMA user_version.
//
// History must never block or change a verdict, so:
//
//   - a file that is not an SQLite database, or fails PRAGMA quick_check,
//     is renamed to history.db.corrupt-<UTC timestamp> (with its -wal and
//     -shm files) and a fresh database is created; [Open] succeeds and
//     [Store.Warnings] says what happened;
//   - a database still locked by another process after the busy timeout
//     gives an error wrapping [ErrLocked], which callers report as a warning
//     and go on without history;
//   - no call waits for a lock longer than the busy timeout (~5 s).
//
// [Store.Expectation] summarises the last [learn.SampleSize] READY startups
// with the same server, model, configuration fingerprint and host; package
// learn turns that into windows, ETAs and slow-phase warnings.
package history

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"vigil/internal/learn"
	"vigil/internal/redact"
	"vigil/internal/srvconfig"
	"vigil/internal/statedir"
)

// ErrLocked is wrapped by errors caused by another process holding the
// database beyond the busy timeout.
var ErrLocked = errors.New("history database is locked by another process")

// ErrNotFound is returned for an unknown startup ID.
var ErrNotFound = errors.New("no such startup")

// busyTimeout is how long a call waits for another process's lock. A
// variable so tests can shorten it.
var busyTimeout = 5 * time.Second

// Startup is one judged startup.
type Startup struct {
	ID        int64
	StartedAt time.Time
	// Server is the server kind (sglang, vllm, ...); Version its version.
	Server, Version string
	Model           string
	// Host is the machine's name; GPUs describes its accelerators
	// ("8x NVIDIA H100 80GB HBM3").
	Host, GPUs string
	// Config is every configuration pair the server printed.
	Config srvconfig.Config
	// Fingerprint is srvconfig.Fingerprint of Config.
	Fingerprint string
	// Phases are the phases passed, in order, with their durations.
	Phases       []learn.Phase
	TotalSeconds float64
	// Verdict, Cause and Phase are the verdict's words; Summary its line.
	Verdict, Cause, Phase, Summary string
	LogPath                        string
	// Argv is the server's command line (secrets masked), Mode "run" or
	// "watch"; Evidence and Hint are the verdict's.
	Argv     []string
	Mode     string
	Evidence []string
	Hint     string
	// Remote is the ssh target ([user@]host) the startup was judged
	// through, "" for one on this machine; Host is then that host's name.
	Remote string
	// NodeRank and NNodes place the startup in a multi-node start (vigil
	// run --hosts); NNodes is 0 for a start on one host.
	NodeRank, NNodes int
	// Extra holds results attached after the verdict (smoke, bench), by
	// name.
	Extra map[string]json.RawMessage
}

// Key identifies startups that should take about as long as each other.
type Key struct {
	Server, Model, Fingerprint, Host string
}

// KeyOf returns the Key of a startup.
func KeyOf(s Startup) Key {
	return Key{Server: s.Server, Model: s.Model, Fingerprint: s.Fingerprint, Host: s.Host}
}

// Store is an open history database. It is safe for concurrent use.
type Store struct {
	db       *sql.DB
	path     string
	warnings []string
}

// DefaultPath returns $XDG_STATE_HOME/vigil/history.db, else
// $HOME/.local/state/vigil/history.db, or "" when neither variable is set
// (then there is no history).
func DefaultPath(getenv func(string) string) string {
	if d := getenv("XDG_STATE_HOME"); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "vigil", "history.db")
	}
	if h := getenv("HOME"); h != "" {
		return filepath.Join(h, ".local", "state", "vigil", "history.db")
	}
	return ""
}

// OpenDefault opens the database in vigil's checked state directory (see
// [statedir.Ensure]): it fails with an error wrapping statedir.ErrUnsafe
// when that directory belongs to another user or others may write to it,
// and with statedir.ErrNoStateDir when neither HOME nor XDG_STATE_HOME is
// set, rather than keeping history under the current directory.
func OpenDefault(getenv func(string) string) (*Store, error) {
	dir, err := statedir.Dir(getenv)
	if err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	if err := statedir.Ensure(dir); err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	return Open(filepath.Join(dir, "history.db"))
}

// Open opens or creates the database at path, creating its directory. A
// corrupt database is moved aside and replaced (see the package doc); the
// returned Store's Warnings say so.
func Open(path string) (*Store, error) {
	if path == "" {
		return nil, errors.New("history: no database path")
	}
	if strings.ContainsAny(path, "?#") {
		return nil, fmt.Errorf("history: database path %q may not contain '?' or '#'", path)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	if err := prepareFile(path); err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	s := &Store{path: path}
	if reason := notSQLite(path); reason != "" {
		if err := s.moveAside(reason, nil); err != nil {
			return nil, err
		}
	}
	db, err := s.openRetrying()
	if err != nil && isCorrupt(err) {
		if err := s.moveAside(corruptReason(err), db); err != nil {
			return nil, err
		}
		db, err = s.openRetrying()
	}
	if err != nil {
		return nil, err
	}
	s.db = db
	return s, nil
}

// openRetrying opens the database, trying again while another process
// holds it: SQLite answers SQLITE_BUSY at once, without its busy handler,
// when two processes switch a new file to WAL or migrate it together.
func (s *Store) openRetrying() (*sql.DB, error) {
	deadline := time.Now().Add(busyTimeout)
	for delay := 10 * time.Millisecond; ; delay = min(2*delay, 200*time.Millisecond) {
		db, err := s.open()
		if err == nil || !errors.Is(err, ErrLocked) || time.Now().After(deadline) {
			return db, err
		}
		time.Sleep(delay)
	}
}

// open opens, checks and migrates the database file.
func (s *Store) open() (*sql.DB, error) {
	dsn := fmt.Sprintf("%s?_pragma=busy_timeout(%d)&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)&_txlock=immediate",
		s.path, busyTimeout.Milliseconds())
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	// Past the busy timeout nothing here is waiting for a lock any more;
	// the margin covers the integrity check itself.
	ctx, cancel := context.WithTimeout(context.Background(), busyTimeout+time.Second)
	defer cancel()
	if err := check(ctx, db); err != nil {
		db.Close()
		return nil, s.wrap(err)
	}
	if err := migrate(ctx, db); err != nil {
		db.Close()
		return nil, s.wrap(err)
	}
	return db, nil
}

// check runs SQLite's quick integrity check (every page readable, every
// index consistent with its table), which finds a damaged file in
// milliseconds for a database of this size.
func check(ctx context.Context, db *sql.DB) error {
	rows, err := db.QueryContext(ctx, "PRAGMA quick_check")
	if err != nil {
		return err
	}
	defer rows.Close()
	var problems []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			return err
		}
		if line != "ok" {
			problems = append(problems, line)
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if len(problems) > 0 {
		return &corruptError{strings.Join(problems, "; ")}
	}
	return nil
}

type corruptError struct{ detail string }

func (e *corruptError) Error() string { return "integrity check failed: " + e.detail }

// prepareFile creates the database file 0600 before SQLite does (SQLite
// gives its -wal and -shm files the database's mode), refuses a link or
// anything but a regular file in its place, and tightens a file of ours
// that others may read: the stored configuration came from the server's
// log.
func prepareFile(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0o600)
	if errors.Is(err, syscall.ELOOP) {
		return fmt.Errorf("%s is a symbolic link: %w", path, statedir.ErrUnsafe)
	}
	if err != nil {
		return err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("%s: %w", path, statedir.ErrNotRegular)
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) == os.Geteuid() && fi.Mode().Perm()&0o077 != 0 {
		return f.Chmod(0o600)
	}
	return nil
}

// notSQLite says why an existing, non-empty file is not an SQLite database,
// or "" when it looks like one (or does not exist).
func notSQLite(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	head := make([]byte, 16)
	n, _ := f.Read(head)
	if n == 0 {
		return "" // empty: SQLite initialises it
	}
	if string(head[:n]) != "SQLite format 3\x00" {
		return "not an SQLite database"
	}
	return ""
}

// moveAside renames a damaged database (and its WAL and shared-memory
// files) out of the way so that a fresh one can be created.
func (s *Store) moveAside(reason string, db *sql.DB) error {
	if db != nil {
		db.Close()
	}
	aside := s.path + ".corrupt-" + time.Now().UTC().Format("20060102T150405.000Z")
	if err := os.Rename(s.path, aside); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("history: moving the damaged database aside: %w", err)
	}
	for _, suffix := range []string{"-wal", "-shm"} {
		if err := os.Rename(s.path+suffix, aside+suffix); err != nil && !errors.Is(err, os.ErrNotExist) {
			os.Remove(s.path + suffix)
		}
	}
	if err := prepareFile(s.path); err != nil {
		return fmt.Errorf("history: %w", err)
	}
	if len(reason) > 200 {
		reason = reason[:197] + "..."
	}
	s.warnings = append(s.warnings, fmt.Sprintf("history database %s was damaged (%s); moved it to %s and started a new one", s.path, reason, aside))
	return nil
}

// isCorrupt reports errors that mean the file itself is damaged.
func isCorrupt(err error) bool {
	var ce *corruptError
	if errors.As(err, &ce) {
		return true
	}
	switch sqliteCode(err) {
	case sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB:
		return true
	}
	return false
}

// corruptReason says briefly why a database counts as damaged.
func corruptReason(err error) string {
	var ce *corruptError
	if errors.As(err, &ce) {
		return ce.Error()
	}
	var se *sqlite.Error
	if errors.As(err, &se) {
		return se.Error()
	}
	return err.Error()
}

func sqliteCode(err error) int {
	var se *sqlite.Error
	if errors.As(err, &se) {
		return se.Code() & 0xff // the primary code of an extended one
	}
	return 0
}

// wrap adds context to a database error and marks lock timeouts.
func (s *Store) wrap(err error) error {
	switch sqliteCode(err) {
	case sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED:
		return fmt.Errorf("history %s: %w (%v)", s.path, ErrLocked, err)
	}
	return fmt.Errorf("history %s: %w", s.path, err)
}

// Path is the database file's path.
func (s *Store) Path() string { return s.path }

// Warnings lists what Open had to repair, for the caller to print.
func (s *Store) Warnings() []string { return s.warnings }

// Close closes the database.
func (s *Store) Close() error { return s.db.Close() }

// Record stores a judged startup and returns its ID. A zero StartedAt means
// now.
func (s *Store) Record(ctx context.Context, st Startup) (int64, error) {
	if st.StartedAt.IsZero() {
		st.StartedAt = time.Now()
	}
	st = redactStartup(st)
	cfg, err := json.Marshal(st.Config)
	if err != nil {
		return 0, fmt.Errorf("history: config: %w", err)
	}
	phases, err := json.Marshal(nonNil(st.Phases))
	if err != nil {
		return 0, fmt.Errorf("history: phases: %w", err)
	}
	extra, err := json.Marshal(nonNilMap(st.Extra))
	if err != nil {
		return 0, fmt.Errorf("history: extra: %w", err)
	}
	argv, err := json.Marshal(nonNilStrings(st.Argv))
	if err != nil {
		return 0, fmt.Errorf("history: argv: %w", err)
	}
	evidence, err := json.Marshal(nonNilStrings(st.Evidence))
	if err != nil {
		return 0, fmt.Errorf("history: evidence: %w", err)
	}
	res, err := s.db.ExecContext(ctx, `INSERT INTO startups
		(started_at, server, version, model, host, gpus, fingerprint, config, phases,
		 total_s, verdict, cause, phase, summary, log_path, extra, argv, mode, evidence, hint,
		 remote, node_rank, nnodes)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		st.StartedAt.UnixMilli(), st.Server, st.Version, st.Model, st.Host, st.GPUs, st.Fingerprint,
		string(cfg), string(phases), st.TotalSeconds, st.Verdict, st.Cause, st.Phase, st.Summary,
		st.LogPath, string(extra), string(argv), st.Mode, string(evidence), st.Hint,
		st.Remote, st.NodeRank, st.NNodes)
	if err != nil {
		return 0, s.wrap(err)
	}
	id, err := res.LastInsertId()
	if err != nil {
		return 0, s.wrap(err)
	}
	return id, nil
}

// redactStartup masks secrets before they are stored: the configuration
// a server printed includes its api_key, and results may quote answers
// that echo a key.
func redactStartup(st Startup) Startup {
	if st.Config != nil {
		cfg := make(srvconfig.Config, len(st.Config))
		for i, kv := range st.Config {
			cfg[i] = srvconfig.KV{Key: kv.Key, Value: redact.Value(kv.Key, kv.Value)}
		}
		st.Config = cfg
	}
	st.Summary = redact.String(st.Summary)
	st.Hint = redact.String(st.Hint)
	st.Argv = redact.Argv(st.Argv)
	if st.Evidence != nil {
		ev := make([]string, len(st.Evidence))
		for i, e := range st.Evidence {
			ev[i] = redact.String(e)
		}
		st.Evidence = ev
	}
	st.LogPath = redact.String(st.LogPath)
	st.Remote = redact.String(st.Remote)
	if st.Extra != nil {
		extra := make(map[string]json.RawMessage, len(st.Extra))
		for k, v := range st.Extra {
			extra[k] = redactJSON(v)
		}
		st.Extra = extra
	}
	return st
}

// redactJSON masks secrets in every string of a JSON document, and the
// whole value of a secret-named key, keeping the document valid.
func redactJSON(raw json.RawMessage) json.RawMessage {
	var v any
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber() // numbers stay exactly as they were
	if err := d.Decode(&v); err != nil {
		return raw
	}
	out, err := json.Marshal(redactValue("", v))
	if err != nil {
		return raw
	}
	return out
}

func redactValue(key string, v any) any {
	switch x := v.(type) {
	case string:
		return redact.Value(key, x)
	case map[string]any:
		for k, e := range x {
			x[k] = redactValue(k, e)
		}
		return x
	case []any:
		for i, e := range x {
			x[i] = redactValue(key, e)
		}
		return x
	}
	return v
}

func nonNilStrings(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func nonNil(p []learn.Phase) []learn.Phase {
	if p == nil {
		return []learn.Phase{}
	}
	return p
}

func nonNilMap(m map[string]json.RawMessage) map[string]json.RawMessage {
	if m == nil {
		return map[string]json.RawMessage{}
	}
	return m
}

// Filter selects startups for List.
type Filter struct {
	// Model keeps startups whose model contains this text, ignoring case.
	Model string
	// Server keeps startups of this server kind.
	Server string
	// Limit caps the number returned; 0 means no limit.
	Limit int
}

const columns = `id, started_at, server, version, model, host, gpus, fingerprint, config, phases,
	total_s, verdict, cause, phase, summary, log_path, extra, argv, mode, evidence, hint,
	remote, node_rank, nnodes`

// List returns startups, newest first.
func (s *Store) List(ctx context.Context, f Filter) ([]Startup, error) {
	q := "SELECT " + columns + " FROM startups WHERE 1=1"
	var args []any
	if f.Model != "" {
		q += " AND instr(lower(model), lower(?)) > 0"
		args = append(args, f.Model)
	}
	if f.Server != "" {
		q += " AND server = ?"
		args = append(args, f.Server)
	}
	q += " ORDER BY started_at DESC, id DESC"
	if f.Limit > 0 {
		q += " LIMIT ?"
		args = append(args, f.Limit)
	}
	return s.query(ctx, q, args...)
}

// Get returns one startup, or an error wrapping ErrNotFound.
func (s *Store) Get(ctx context.Context, id int64) (Startup, error) {
	got, err := s.query(ctx, "SELECT "+columns+" FROM startups WHERE id = ?", id)
	if err != nil {
		return Startup{}, err
	}
	if len(got) == 0 {
		return Startup{}, fmt.Errorf("startup %d: %w", id, ErrNotFound)
	}
	return got[0], nil
}

func (s *Store) query(ctx context.Context, q string, args ...any) ([]Startup, error) {
	rows, err := s.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, s.wrap(err)
	}
	defer rows.Close()
	var out []Startup
	for rows.Next() {
		var (
			st                 Startup
			started            int64
			cfg, phases, extra string
			argv, evidence     string
		)
		if err := rows.Scan(&st.ID, &started, &st.Server, &st.Version, &st.Model, &st.Host, &st.GPUs,
			&st.Fingerprint, &cfg, &phases, &st.TotalSeconds, &st.Verdict, &st.Cause, &st.Phase,
			&st.Summary, &st.LogPath, &extra, &argv, &st.Mode, &evidence, &st.Hint,
			&st.Remote, &st.NodeRank, &st.NNodes); err != nil {
			return nil, s.wrap(err)
		}
		st.StartedAt = time.UnixMilli(started)
		// A row written by a newer or buggy vigil must not make the whole
		// history unreadable: undecodable columns are left empty.
		_ = json.Unmarshal([]byte(cfg), &st.Config)
		_ = json.Unmarshal([]byte(phases), &st.Phases)
		_ = json.Unmarshal([]byte(extra), &st.Extra)
		_ = json.Unmarshal([]byte(argv), &st.Argv)
		_ = json.Unmarshal([]byte(evidence), &st.Evidence)
		if len(st.Argv) == 0 {
			st.Argv = nil
		}
		if len(st.Evidence) == 0 {
			st.Evidence = nil
		}
		if len(st.Extra) == 0 {
			st.Extra = nil
		}
		out = append(out, st)
	}
	if err := rows.Err(); err != nil {
		return nil, s.wrap(err)
	}
	return out, nil
}

// AttachResults stores v (as JSON) under name in a startup's Extra, for
// results that come after the verdict (smoke test, benchmark). Attaching
// the same name again replaces it.
func (s *Store) AttachResults(ctx context.Context, id int64, name string, v any) error {
	if name == "" {
		return errors.New("history: AttachResults needs a name")
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("history: results %q: %w", name, err)
	}
	raw = redactJSON(raw)
	// _txlock=immediate: the transaction takes the write lock up front, so
	// two processes attaching at once serialise instead of failing.
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return s.wrap(err)
	}
	defer tx.Rollback()
	var extra string
	if err := tx.QueryRowContext(ctx, "SELECT extra FROM startups WHERE id = ?", id).Scan(&extra); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("startup %d: %w", id, ErrNotFound)
		}
		return s.wrap(err)
	}
	m := map[string]json.RawMessage{}
	_ = json.Unmarshal([]byte(extra), &m)
	m[name] = raw
	b, err := json.Marshal(m)
	if err != nil {
		return fmt.Errorf("history: %w", err)
	}
	if _, err := tx.ExecContext(ctx, "UPDATE startups SET extra = ? WHERE id = ?", string(b), id); err != nil {
		return s.wrap(err)
	}
	if err := tx.Commit(); err != nil {
		return s.wrap(err)
	}
	return nil
}
