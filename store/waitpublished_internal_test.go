package store

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/cortexmem/cortex/memories"
)

// TestRecallTakesAnotherWritersCatchUp: a recall that finds the vault
// changed since the index waits for the write lock to catch the index up.
// When the writer that holds the lock (another process, or the MCP
// server's preparation, which goes on to make the word indexes for
// seconds) catches it up itself, the recall answers from that, the new note
// included, without waiting for the writer to let go.
func TestRecallTakesAnotherWritersCatchUp(t *testing.T) {
	for _, resident := range []bool{false, true} {
		name := "one-shot"
		if resident {
			name = "resident"
		}
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			e := newOwedEnv(t)
			writeProjects(t, e)
			var svc *memories.Service
			if resident {
				_, svc = openResident(t, e)
			} else {
				_, svc = e.open()
			}
			writer := holdWriteLock(t, e)
			writeLateNote(t, e)
			waiting := make(chan struct{}, 8)
			writeWaitHook = func() { waiting <- struct{}{} }
			defer func() { writeWaitHook = nil }()
			type answer struct {
				res *memories.RecallResult
				err error
			}
			answered := make(chan answer, 1)
			go func() {
				res, err := svc.Recall(ctx, memories.RecallRequest{Query: "walrus herring"})
				answered <- answer{res, err}
			}()
			select {
			case <-waiting:
			case a := <-answered:
				t.Fatalf("the recall answered (%v) without waiting for the write lock to catch the index up", a.err)
			case <-time.After(30 * time.Second):
				t.Fatal("the recall did not wait for the write lock")
			}
			// The writer catches the index up, and goes on holding the lock.
			st, err := writer.begin(ctx, false, false)
			if err != nil {
				t.Fatal(err)
			}
			writer.keepWritten(st, &err)
			if err != nil {
				t.Fatal(err)
			}
			var a answer
			select {
			case a = <-answered:
			case <-time.After(10 * time.Second):
				t.Fatal("the recall still waits for the write lock after the writer caught the index up")
			}
			if a.err != nil {
				t.Fatalf("recall: %v", a.err)
			}
			if len(a.res.Results) == 0 || a.res.Results[0].Memory.Title != "Walrus feeding rota" {
				t.Errorf("the recall found %d results, want the note written since the index first", len(a.res.Results))
			}
		})
	}
}

// TestRecallGivesUpAtTheLockTimeout: a recall that finds a note changed,
// while another writer holds the write lock and publishes nothing, waits no
// longer than the lock timeout and says the lock is busy: it does not
// answer from an index that lacks the change.
func TestRecallGivesUpAtTheLockTimeout(t *testing.T) {
	ctx := context.Background()
	e := newOwedEnv(t)
	writeProjects(t, e)
	st, svc := e.open()
	st.timeout = 150 * time.Millisecond
	holdWriteLock(t, e)
	writeLateNote(t, e)
	start := time.Now()
	_, err := svc.Recall(ctx, memories.RecallRequest{Query: "walrus herring"})
	if !errors.Is(err, memories.ErrBusy) {
		t.Fatalf("recall while another writer held the lock: %v, want an error matching memories.ErrBusy", err)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("the recall gave up after %v, with a lock timeout of 150 ms", took)
	}
}

// holdWriteLock opens another store on e, as another process would, and
// holds its write lock until the test ends.
func holdWriteLock(t *testing.T, e *owedEnv) *Store {
	t.Helper()
	writer, _ := e.open()
	wl, err := writer.lockWrite(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { wl.Release() })
	return writer
}

// writeLateNote writes into e's vault, after its index, a note about the
// walrus's herring (which no other note of writeProjects mentions).
func writeLateNote(t *testing.T, e *owedEnv) {
	t.Helper()
	path := filepath.Join(e.root, "cortex", "memories", "zoo", "late.md")
	note := "---\nid: 01jmemory9999999999999999\ntitle: Walrus feeding rota\nproject: zoo\n---\nThe walrus is fed herring at noon by the keeper on duty.\n"
	if err := os.WriteFile(path, []byte(note), 0o644); err != nil {
		t.Fatal(err)
	}
}
