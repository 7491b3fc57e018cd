package history

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"
	"time"
)

// A database written before the remote columns existed keeps its rows,
// which read as startups on this machine, and takes remote ones after.
func TestMigrateAddsRemoteColumns(t *testing.T) {
	path := filepath.Join(t.TempDir(), "history.db")
	ctx := context.Background()
	old, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range migrations[:2] {
		if _, err := old.ExecContext(ctx, m); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := old.ExecContext(ctx, `PRAGMA user_version = 2`); err != nil {
		t.Fatal(err)
	}
	if _, err := old.ExecContext(ctx, `INSERT INTO startups (started_at, server, model, host, verdict)
		VALUES (?, 'sglang', 'm', 'here', 'ready')`, time.Now().UnixMilli()); err != nil {
		t.Fatal(err)
	}
	old.Close()

	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	st := sample("m", 0)
	st.Host, st.Remote, st.NodeRank, st.NNodes = "node1", "root@node1", 1, 2
	id, err := s.Record(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.Get(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if got.Host != "node1" || got.Remote != "root@node1" || got.NodeRank != 1 || got.NNodes != 2 {
		t.Errorf("remote startup read back as host %q remote %q rank %d/%d", got.Host, got.Remote, got.NodeRank, got.NNodes)
	}
	list, err := s.List(ctx, Filter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 2 {
		t.Fatalf("%d startups after the migration, want the old one and the new", len(list))
	}
	for _, st := range list {
		if st.ID != id && (st.Host != "here" || st.Remote != "" || st.NNodes != 0) {
			t.Errorf("the old row reads as host %q remote %q nnodes %d, want here, local, one host", st.Host, st.Remote, st.NNodes)
		}
	}
}
