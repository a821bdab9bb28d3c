package store

import (
	"context"
	"testing"
	"time"

	"github.com/cortexmem/cortex/filelock"
	"github.com/cortexmem/cortex/memories"
)

// TestAtLeastCountsOwedNotes: a search given AtLeast while index work is
// owed (a reader that cannot take the write lock to do it) counts the owed
// notes' hits with the index's. One note with both words is indexed and
// one is owed: with AtLeast 2 the search finds both (the index alone has
// too few, but its one hit must not be dropped for that).
func TestAtLeastCountsOwedNotes(t *testing.T) {
	e := newOwedEnv(t)
	_, svc := e.open()
	save(t, svc, "A first memory so that the index exists, about the reptile house")
	_, svc = e.open()
	indexed := save(t, svc, "The penguin beach is hosed down at dawn and at dusk")
	_, svc = e.open()
	recallIDs(t, svc, "penguin beach") // the index catches up
	_, svc = e.open()
	owed := save(t, svc, "Keepers replaced the sand of the penguin beach in March")
	st, _ := e.open()
	ctx := context.Background()
	held, err := filelock.Acquire(ctx, st.vstate.WriteLock(), time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer held.Release()
	st.timeout = 100 * time.Millisecond
	err = st.View(ctx, func(snap memories.Snapshot) error {
		hits, err := snap.Search(ctx, memories.SearchRequest{Text: "penguin beach", Size: 10, AtLeast: 2})
		if err != nil {
			return err
		}
		found := map[string]bool{}
		for _, h := range hits {
			found[h.ID] = true
		}
		if len(hits) != 2 || !found[indexed.ID] || !found[owed.ID] {
			t.Errorf("search with AtLeast 2 found %+v, want %s and %s", hits, indexed.ID, owed.ID)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n := e.owed().Len(); n == 0 {
		t.Error("the owed work was done: the test needs it owed")
	}
}
