package zed

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/cortexmem/cortex/transcript"
	"github.com/cortexmem/cortex/transcript/sqlitedb"
	"github.com/cortexmem/cortex/transcript/sqlitedb/sqlitedbtest"
	"github.com/cortexmem/cortex/transcript/transcripttest"
)

func TestMain(m *testing.M) {
	sqlitedbtest.RunWriterIfAsked()
	os.Exit(m.Run())
}

// TestReadWhileWritten reads Zed's threads database again and again, each
// read resuming from the last (by updated_at), while another process saves
// threads into it (WAL, no busy timeout, checkpoints every few pages): the
// writer never fails — cortex holds no lock on Zed's file — and the reads
// give every thread once, in order.
func TestReadWhileWritten(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a writer process")
	}
	path := filepath.Join(t.TempDir(), "threads.db")
	sqlitedbtest.Build(t, path, []byte("== threads\nCREATE TABLE threads (id TEXT PRIMARY KEY, summary TEXT NOT NULL, "+
		"updated_at TEXT NOT NULL, data_type TEXT NOT NULL, data BLOB NOT NULL, parent_id TEXT, folder_paths TEXT, "+
		"folder_paths_order TEXT, created_at TEXT)\n"), true)
	const n = 200
	w := sqlitedbtest.StartWriter(t, sqlitedbtest.WriterSpec{
		DB: path,
		Statement: `INSERT INTO threads VALUES (printf('t%06d', %d), 'T', printf('2026-11-22T05:%06d', %d), 'json', ` +
			`json_object('version', '0.3.0', 'messages', json_array(json_object('User', json_object('id', 'u' || %d, ` +
			`'content', json_array(json_object('Text', 'line ' || %d)))))), NULL, NULL, NULL, printf('2026-11-22T05:%06d', %d))`,
		N: n, Pause: 500 * time.Microsecond, AutoCheckpoint: 4,
	})
	done := make(chan error, 1)
	go func() { done <- w.Wait() }()
	a := New()
	pos := transcript.Start(a, "threads.db")
	var texts []string
	collect := func() {
		data, err := a.Load(path, pos.Context)
		if errors.Is(err, sqlitedb.ErrBusy) {
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		evs, next, err := transcript.ReadAll(a, bytes.NewReader(data), transcript.Position{Context: pos.Context}, true)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range transcripttest.OfKind(evs, transcript.KindUserTurn) {
			texts = append(texts, e.UserTurn.Text)
		}
		pos = transcripttest.SavedPosition(t, next)
	}
	reads := 0
	for finished := false; !finished; reads++ {
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("the writer failed: %v", err)
			}
			finished = true
		default:
		}
		collect()
	}
	collect()
	if len(texts) != n {
		t.Fatalf("%d threads read in %d reads, want %d", len(texts), reads, n)
	}
	for i, s := range texts {
		if want := "line " + strconv.Itoa(i+1); s != want {
			t.Fatalf("thread %d is %q, want %q", i, s, want)
		}
	}
	t.Logf("%d reads while the writer wrote", reads)
}
