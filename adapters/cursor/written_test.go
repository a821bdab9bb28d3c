package cursor

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

// TestReadWhileWritten reads a Cursor database again and again, each read
// resuming from the last (by rowid), while another process writes bubbles
// into it (WAL, no busy timeout, checkpoints every few pages): the writer
// never fails — cortex holds no lock on Cursor's file — and the reads give
// every bubble once, in order.
func TestReadWhileWritten(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a writer process")
	}
	path := filepath.Join(t.TempDir(), "User", "globalStorage", "state.vscdb")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	sqlitedbtest.Build(t, path, []byte("== ItemTable\nCREATE TABLE ItemTable (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB)\n"+
		"== cursorDiskKV\nCREATE TABLE cursorDiskKV (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB)\n"), true)
	const n = 300
	w := sqlitedbtest.StartWriter(t, sqlitedbtest.WriterSpec{
		DB: path,
		Statement: `INSERT INTO cursorDiskKV VALUES ('bubbleId:c0:' || printf('b%06d', %d), ` +
			`json_object('_v', 3, 'type', 2, 'bubbleId', printf('b%06d', %d), 'text', 'line ' || %d, 'createdAt', '2026-11-22T07:00:00.000Z'))`,
		N: n, Pause: 500 * time.Microsecond, AutoCheckpoint: 4,
	})
	done := make(chan error, 1)
	go func() { done <- w.Wait() }()
	a := New()
	pos := transcript.Start(a, "state.vscdb")
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
		for _, e := range transcripttest.OfKind(evs, transcript.KindAssistantTurn) {
			texts = append(texts, e.AssistantTurn.Text)
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
		t.Fatalf("%d bubbles read in %d reads, want %d", len(texts), reads, n)
	}
	for i, s := range texts {
		if want := "line " + strconv.Itoa(i+1); s != want {
			t.Fatalf("bubble %d is %q, want %q", i, s, want)
		}
	}
	t.Logf("%d reads while the writer wrote", reads)
}
