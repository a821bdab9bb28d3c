package index

import (
	"fmt"
	"path/filepath"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cortexmem/cortex/memories"
)

// TestDropResidentBesideSearchesAndCloses: DropResident may run while the
// open indexes are searched, opened and closed (the server's trimmer runs
// during calls): searches answer as before, nothing fails, and a closed
// index is no longer one it drops.
func TestDropResidentBesideSearchesAndCloses(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "bleve")
	b, err := createBleve(dir)
	if err != nil {
		t.Fatal(err)
	}
	var ms []*memories.Memory
	for i := range 300 {
		ms = append(ms, mem(fmt.Sprintf("m%03d", i), fmt.Sprintf("note %d", i), fmt.Sprintf("the ledger keeps copy %d of word%d and word%d", i, i%17, i%5), "p", memories.TypeFact, i%30))
	}
	if err := b.Apply(docs(ms)); err != nil {
		t.Fatal(err)
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	isOpen := func(b *Bleve) bool {
		openIndexes.Lock()
		defer openIndexes.Unlock()
		_, ok := openIndexes.set[b]
		return ok
	}
	if isOpen(b) {
		t.Error("a closed index is still among the open ones")
	}
	r, err := openBleve(dir, true)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if !isOpen(r) {
		t.Fatal("an open index is not among the open ones")
	}
	queries := []string{"ledger word3", "copy word1", "word16", "note 42"}
	answers := func(b *Bleve) [][]string {
		var out [][]string
		for _, q := range queries {
			out = append(out, search(t, b, memories.SearchRequest{Text: q, Size: 20}))
		}
		return out
	}
	want := answers(r)

	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			select {
			case <-stop:
				return
			default:
				DropResident()
			}
		}
	})
	for range 20 {
		if diff := cmp.Diff(want, answers(r)); diff != "" {
			t.Fatalf("answers beside DropResident (-before +now):\n%s", diff)
		}
		o, err := openBleve(dir, true)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, answers(o)); diff != "" {
			t.Fatalf("answers of another handle beside DropResident (-before +now):\n%s", diff)
		}
		if err := o.Close(); err != nil {
			t.Fatal(err)
		}
		if isOpen(o) {
			t.Fatal("a closed index is still among the open ones")
		}
		o.DropResident() // closed: nothing
	}
	close(stop)
	wg.Wait()
}
