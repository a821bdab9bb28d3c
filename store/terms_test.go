package store

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cortexmem/cortex/memories"
)

// TestSnapshotCountsTerms: recall scores a long memory's passages with the
// terms the index makes of a text and how many memories have each in their
// body, which the store's snapshot gives (memories.TermCounter).
func TestSnapshotCountsTerms(t *testing.T) {
	e := newOwedEnv(t)
	s, _ := e.open()
	svc := memories.NewService(s, memories.WithChecks(memories.Checks{}))
	ctx := context.Background()
	for _, req := range []memories.SaveRequest{
		{Title: "Cats", Content: "The cat sat on the mat all day long.", Project: "p"},
		{Title: "Pets", Content: "Cats and dogs share the garden in summer.", Project: "p"},
		{Title: "Dogs", Content: "A dog ran across the field after the ball.", Project: "p"},
	} {
		if _, err := svc.Save(ctx, req); err != nil {
			t.Fatal(err)
		}
	}
	err := s.View(ctx, func(snap memories.Snapshot) error {
		tc, ok := snap.(memories.TermCounter)
		if !ok {
			t.Fatalf("the store's snapshot (%T) is not a memories.TermCounter", snap)
		}
		terms, err := tc.Terms("The Cats' cats ran")
		if err != nil {
			return err
		}
		if diff := cmp.Diff(terms, []string{"cat", "cat", "ran"}); diff != "" {
			t.Errorf("Terms (-got +want):\n%s", diff)
		}
		total, dfs, err := tc.DocFreqs(ctx, []string{"cat", "dog", "bird"})
		if err != nil {
			return err
		}
		if total != 3 {
			t.Errorf("total = %d, want 3", total)
		}
		if diff := cmp.Diff(dfs, []uint64{2, 2, 0}); diff != "" {
			t.Errorf("document frequencies (-got +want):\n%s", diff)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
