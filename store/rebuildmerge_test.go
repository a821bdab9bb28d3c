package store

import (
	"context"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/cortexmem/cortex/bench"
	"github.com/cortexmem/cortex/memories"
)

// TestRebuildMergedSameResults rebuilds one vault twice in 40 batches: their
// segments merged at the end by the builder's Close, as before, and merged
// while the rebuild builds them. Every search must find the same notes, all
// of them, and the merges must leave no more than eight segment files. Scores are not compared: Bleve's BM25 takes its
// average length from the sum of the segments' dictionary sizes, so they
// move a little with which batches were merged together, which already
// varied from one rebuild to the next with the order the batches finished
// in on two cores.
func TestRebuildMergedSameResults(t *testing.T) {
	e := newOwedEnv(t)
	ids, err := bench.WriteVault(e.root, 1000, 7, time.Now())
	if err != nil || len(ids) != 1000 {
		t.Fatalf("setup: %d notes (%v)", len(ids), err)
	}
	queries := []memories.SearchRequest{
		{Text: "config"},
		{Text: "retry queue timeout", AnyTerm: true},
		{Text: "database migration", Phrases: true, Compounds: true},
		{Text: "lock"},
		{Text: "internal store db go", AnyTerm: true, Phrases: true},
		{Text: ""},
		{Text: "deploy kubernetes", AnyTerm: true, Synonyms: map[string][]string{"kubernetes": {"k8s"}}},
	}
	type built struct {
		found [][]string
		files int
	}
	run := func(atClose bool) built {
		t.Helper()
		old := rebuildBatch
		rebuildBatch, closeMergesBuild = 25, atClose
		defer func() { rebuildBatch, closeMergesBuild = old, false }()
		st, _ := e.open()
		ctx := context.Background()
		if _, err := st.Rebuild(ctx); err != nil {
			t.Fatal(err)
		}
		var out built
		err := st.View(ctx, func(s memories.Snapshot) error {
			for _, q := range queries {
				q.Size = 2000
				hits, err := s.Search(ctx, q)
				if err != nil {
					return err
				}
				found := make([]string, len(hits))
				for i, h := range hits {
					found[i] = h.ID
				}
				slices.Sort(found)
				out.found = append(out.found, found)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		gen, err := st.idx.Current()
		if err != nil {
			t.Fatal(err)
		}
		files, err := filepath.Glob(filepath.Join(gen, "bleve", "store", "*.zap"))
		if err != nil {
			t.Fatal(err)
		}
		out.files = len(files)
		return out
	}
	atClose, during := run(true), run(false)
	// The merge at Close may leave the merged segments' files behind for
	// the next writer to remove.
	// Three segments (16, 16 and 8 batches), or a few more when scorch
	// wrote two batches that reached its persister together as one.
	if during.files < 3 || during.files > 8 {
		t.Errorf("the merges while building left %d segment files, want 3 to 8", during.files)
	}
	for i, q := range queries {
		if len(atClose.found[i]) == 0 {
			t.Errorf("setup: %q finds nothing", q.Text)
		}
		if diff := cmp.Diff(atClose.found[i], during.found[i]); diff != "" {
			t.Errorf("search %q (-merged at Close +merged while building):\n%s", q.Text, diff)
		}
	}
}

// TestRebuildScoresAsOneSegment rebuilds one vault in six batches and in
// three. Both are merged into one segment at the end, so every search scores
// every note alike: left as their batches' segments, Bleve's BM25 took a
// field's average length from the distinct terms summed over the segments,
// and the scores depended on how the batches were cut, which the machine's
// cores decide.
func TestRebuildScoresAsOneSegment(t *testing.T) {
	e := newOwedEnv(t)
	ids, err := bench.WriteVault(e.root, 150, 7, time.Now())
	if err != nil || len(ids) != 150 {
		t.Fatalf("setup: %d notes (%v)", len(ids), err)
	}
	queries := []memories.SearchRequest{
		{Text: "config"},
		{Text: "retry queue timeout", AnyTerm: true},
		{Text: "database migration", Phrases: true, Compounds: true},
		{Text: "internal store db go", AnyTerm: true, Phrases: true},
	}
	run := func(batch int) map[string]float64 {
		t.Helper()
		old := rebuildBatch
		rebuildBatch = batch
		defer func() { rebuildBatch = old }()
		st, _ := e.open()
		ctx := context.Background()
		if _, err := st.Rebuild(ctx); err != nil {
			t.Fatal(err)
		}
		scores := map[string]float64{}
		err := st.View(ctx, func(s memories.Snapshot) error {
			for _, q := range queries {
				q.Size = 200
				hits, err := s.Search(ctx, q)
				if err != nil {
					return err
				}
				if len(hits) == 0 {
					t.Errorf("setup: %q finds nothing", q.Text)
				}
				for _, h := range hits {
					scores[q.Text+" "+h.ID] = h.Score
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return scores
	}
	six, three := run(25), run(50)
	if diff := cmp.Diff(six, three); diff != "" {
		t.Errorf("scores (-six batches +three batches):\n%s", diff)
	}
}
