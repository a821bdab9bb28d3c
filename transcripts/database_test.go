package transcripts

import (
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cortexmem/cortex/transcript/sqlitedb/sqlitedbtest"
)

// TestDatabaseTranscripts indexes a tool's database found in the home
// folder (OpenCode's opencode.db, rebuilt from the real 1.18.33 dump): its
// sessions are read through the adapter's Load — the file's bytes are not
// records — so their exchanges are indexed; after a session is added in the
// database's write-ahead log only, a sync reads it again and indexes the new
// exchange, each exchange once.
func TestDatabaseTranscripts(t *testing.T) {
	home := t.TempDir()
	db := filepath.Join(home, ".local", "share", "opencode", "opencode.db")
	if err := os.MkdirAll(filepath.Dir(db), 0o700); err != nil {
		t.Fatal(err)
	}
	sqlitedbtest.BuildFile(t, db, filepath.Join(fixtureRoot, "opencode", "1.18.33", "opencode.db.txt"), true)
	s := newService(t, home, settled)
	rep := syncNow(t, s)
	users := func() []string {
		var out []string
		for _, d := range allDocs(t, s) {
			if d.File == db && d.Kind == "exchange" && strings.Contains(d.User, "[[S:") {
				out = append(out, d.User)
			}
		}
		return out
	}
	first := users()
	if !containsPrefix(first, `"What is the capital of France? [[S:qa]]"`) {
		t.Fatalf("the database's exchanges are not indexed (report %+v); the person's prompts indexed: %q", rep, first)
	}

	// OpenCode adds a session; its rows stay in the write-ahead log (the
	// connection is open, checkpoints off).
	w, err := sql.Open("sqlite", "file:"+db)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	w.SetMaxOpenConns(1)
	for _, q := range []string{"PRAGMA journal_mode=WAL", "PRAGMA wal_autocheckpoint=0",
		`INSERT INTO session SELECT 'ses_new', project_id, workspace_id, parent_id, 'new-slug', directory, path, 'New', version, ` +
			`share_url, summary_additions, summary_deletions, summary_files, summary_diffs, metadata, cost, tokens_input, tokens_output, ` +
			`tokens_reasoning, tokens_cache_read, tokens_cache_write, revert, permission, agent, model, 1895320552651, 1895320552651, ` +
			`time_compacting, time_archived FROM session LIMIT 1`,
		`INSERT INTO message VALUES ('msg_new', 'ses_new', 1895320552700, 1895320552700, '{"role":"user","time":{"created":1895320552700}}')`,
		`INSERT INTO part VALUES ('prt_new', 'msg_new', 'ses_new', 1895320552701, 1895320552701, '{"type":"text","text":"Add a cache [[S:new]]"}')`,
	} {
		if _, err := w.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	syncNow(t, s)
	second := users()
	if diff := cmp.Diff(len(first)+1, len(second)); diff != "" || !containsPrefix(second, "Add a cache [[S:new]]") {
		t.Errorf("after a session was added, prompts indexed %q, want those before and the new one", second)
	}
}

func containsPrefix(list []string, prefix string) bool {
	for _, s := range list {
		if strings.HasPrefix(s, prefix) {
			return true
		}
	}
	return false
}
