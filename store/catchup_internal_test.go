package store

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/cortexmem/cortex/memories"
)

// TestBulkCatchUpHoldsOneBatch changes every note of a vault outside cortex,
// as a pull does, and checks that the catch-up gives the index the notes in
// bounded batches, holding no more than about one batch's bodies at a time
// (with one batch at a time), and that every note is then found by its new
// words under its id, also when batches are indexed side by side.
func TestBulkCatchUpHoldsOneBatch(t *testing.T) {
	for _, tc := range []struct {
		name  string
		procs int
	}{{"one at a time", 1}, {"side by side", 4}} {
		t.Run(tc.name, func(t *testing.T) {
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(tc.procs))
			testBulkCatchUp(t, tc.procs == 1)
		})
	}
}

func testBulkCatchUp(t *testing.T, measure bool) {
	t.Helper()
	const notes, bodyBytes = bulkChanges + 100, 32 << 10
	e := newOwedEnv(t)
	write := func(word string) {
		t.Helper()
		text := strings.Repeat(word+" ", bodyBytes/(len(word)+1))
		for i := range notes {
			path := filepath.Join(e.root, "cortex", "memories", "p", fmt.Sprintf("n%03d.md", i))
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			note := fmt.Sprintf("---\nid: 01jcatchup%016d\ntitle: Note %d\n---\nmarker%s%03d %s\n", i, i, word, i, text)
			if err := os.WriteFile(path, []byte(note), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	ctx := context.Background()
	write("okapi")
	st, _ := e.open()
	if _, err := st.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	write("wombats") // a new size: the check sees every note changed

	heap := func() int64 {
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		return int64(ms.HeapAlloc)
	}
	st, _ = e.open()
	before := heap()
	var mu sync.Mutex
	var batches int
	var held int64
	st.failIndex = func() error {
		mu.Lock()
		defer mu.Unlock()
		batches++
		if !measure {
			return nil
		}
		// Bleve may still hold the batch before's segment for a moment
		// (it is written to disk meanwhile): the lower of two readings.
		held = max(held, min(heap(), heap())-before)
		return nil
	}
	rep, err := st.Sync(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Updated != notes {
		t.Fatalf("the catch-up updated %d notes, want %d", rep.Updated, notes)
	}
	// All the bodies are 19 MB; a batch's are at most rebuildBatchBytes
	// (4 MB) and the note that passes it.
	if total := int64(notes * bodyBytes); batches < 2 || measure && held > total/2 {
		t.Errorf("the catch-up indexed in %d batches holding up to %d bytes of heap, want several holding at most %d (the bodies are %d)",
			batches, held, total/2, total)
	}
	st, _ = e.open()
	err = st.View(ctx, func(snap memories.Snapshot) error {
		for _, i := range []int{0, notes / 2, notes - 1} {
			hits, err := snap.Search(ctx, memories.SearchRequest{Text: fmt.Sprintf("markerwombats%03d", i), Size: 10})
			if err != nil {
				return err
			}
			if want := fmt.Sprintf("01jcatchup%016d", i); len(hits) != 1 || hits[0].ID != want {
				t.Errorf("search for note %d's new word found %+v, want %s", i, hits, want)
			}
			if hits, err = snap.Search(ctx, memories.SearchRequest{Text: fmt.Sprintf("markerokapi%03d", i), Size: 10}); err != nil {
				return err
			}
			if len(hits) != 0 {
				t.Errorf("search for note %d's old word found %+v, want nothing", i, hits)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
