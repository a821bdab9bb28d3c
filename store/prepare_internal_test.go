package store

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/cortexmem/cortex/memories"
)

// TestPrepareChecksLeavesTheFirstSaveNoNoteToRead: in a vault indexed
// without word indexes (a new state folder, as after a rebuild), the first
// save into a project reads every note of the vault for their word sets.
// Once the checks are prepared (memories.Service.PrepareChecks, which the
// MCP server starts with), the first save of each project reads none, and
// decides as it would have: a copy of a note is refused.
func TestPrepareChecksLeavesTheFirstSaveNoNoteToRead(t *testing.T) {
	ctx := context.Background()
	e := newOwedEnv(t)
	topics := []string{"pool", "cache", "queue", "token", "index", "shard", "lease", "quota"}
	projects := []string{"zoo", "yak", "general"}
	var texts []string
	for i := range 30 {
		p := projects[i%len(projects)]
		a, b := topics[i%len(topics)], topics[(i*3+1)%len(topics)]
		text := fmt.Sprintf("The %s of service %d talks to the %s on port %d; retries back off after %d ms and the %s logs each failure.", a, i, b, 8000+i, 50*i, a)
		texts = append(texts, text)
		path := filepath.Join(e.root, "cortex", "memories", p, fmt.Sprintf("n%02d.md", i))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		note := fmt.Sprintf("---\nid: 01jprepare%016d\ntitle: Service %d\nproject: %s\n---\n%s\n", i, i, p, text)
		if err := os.WriteFile(path, []byte(note), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	st, svc := e.open()
	if _, err := st.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if err := svc.PrepareChecks(ctx); err != nil {
		t.Fatal(err)
	}
	for _, p := range projects {
		if _, err := os.Stat(st.wordIndexPath(p)); err != nil {
			t.Errorf("no word index for %s once the checks are prepared: %v", p, err)
		}
	}
	reads := st.wordReads.Load()
	for _, p := range []string{"zoo", "yak"} {
		text := fmt.Sprintf("The ledger of project %s settles every night at two and mails the totals to finance.", p)
		if _, err := svc.Save(ctx, memories.SaveRequest{Content: text, Project: p}); err != nil {
			t.Fatalf("save into %s: %v", p, err)
		}
	}
	if n := st.wordReads.Load() - reads; n != 0 {
		t.Errorf("the first saves after the checks were prepared read %d notes for their word sets, want 0", n)
	}
	_, err := svc.Save(ctx, memories.SaveRequest{Content: texts[3], Project: "zoo"})
	var rej *memories.RejectedError
	if !errors.As(err, &rej) {
		t.Errorf("saving a copy of a note of zoo: err = %v, want a refusal as a duplicate", err)
	}
}

// TestRecallDoesNotWaitForThePreparation: the MCP server prepares the
// checks when it starts, holding the write lock for as long as the word
// indexes take (18 s at 100,000 real-shaped notes). A note written since
// the index was is indexed before that (not left owed), so recalls
// meanwhile find nothing to catch up and answer, the new note included,
// without the lock.
func TestRecallDoesNotWaitForThePreparation(t *testing.T) {
	e := newOwedEnv(t)
	writeProjects(t, e)
	// Written after the index: the server finds it when it starts.
	writeLateNote(t, e)
	making, done := make(chan struct{}), make(chan struct{})
	var once sync.Once
	madeHook = func(*wordIndex) { once.Do(func() { close(making); <-done }) }
	defer func() { madeHook = nil }()
	_, svc := openResident(t, e)
	prepared := make(chan error, 1)
	go func() { prepared <- svc.PrepareChecks(context.Background()) }()
	select {
	case <-making:
	case err := <-prepared:
		close(done)
		t.Fatalf("the checks were prepared without making a word index (err %v)", err)
	case <-time.After(30 * time.Second):
		close(done)
		t.Fatal("the preparation did not start making the word indexes")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	res, err := svc.Recall(ctx, memories.RecallRequest{Query: "walrus herring"})
	cancel()
	close(done)
	if perr := <-prepared; perr != nil {
		t.Errorf("prepare: %v", perr)
	}
	if err != nil {
		t.Fatalf("a recall while the word indexes were made: %v", err)
	}
	if len(res.Results) == 0 || res.Results[0].Memory.Title != "Walrus feeding rota" {
		t.Errorf("a recall while the word indexes were made found %d results, want the note written since the index first", len(res.Results))
	}
}
