package index

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/index/scorch/mergeplan"
)

// TestDictionaryCountsAfterOneHit covers zapx patch 0008: a term of one
// document is written "1-hit" (its document in the dictionary's value, no
// postings list), and a dictionary iterator, which reads each term's list
// into one reused value for its count, went on counting every later term of
// the dictionary as one document. The average field lengths BM25 is given
// (fieldLengths) are such counts, so they were wrong for any segment whose
// lengths dictionary had a length bit one note alone had: the scores of a
// rebuild left as two segments differed from those of one. Every term's
// count must be its postings list's.
func TestDictionaryCountsAfterOneHit(t *testing.T) {
	// Without term vectors, as cortex's fields: a term with locations is
	// never written 1-hit.
	m := bleve.NewIndexMapping()
	f := bleve.NewTextFieldMapping()
	f.IncludeTermVectors = false
	m.DefaultMapping.AddFieldMappingsAt("f", f)
	idx, err := bleve.New(filepath.Join(t.TempDir(), "b"), m)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = idx.Close() }()
	// "alpha" and "delta" are one document's each, "beta" three's,
	// "gamma" two's: in order, a 1-hit term before each longer list. Only
	// a merge writes 1-hit terms: two batches are merged into one segment.
	for i, texts := range [][]string{{"alpha beta gamma", "beta gamma"}, {"beta delta"}} {
		batch := idx.NewBatch()
		for j, text := range texts {
			if err := batch.Index(fmt.Sprint("d", i, j), map[string]any{"f": text}); err != nil {
				t.Fatal(err)
			}
		}
		if err := idx.Batch(batch); err != nil {
			t.Fatal(err)
		}
	}
	opts := mergeplan.SingleSegmentMergePlanOptions
	if err := forceMerge(idx, &opts, 1); err != nil {
		t.Fatal(err)
	}
	adv, err := idx.Advanced()
	if err != nil {
		t.Fatal(err)
	}
	r, err := adv.Reader()
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = r.Close() }()
	segs := r.(*scorch.IndexSnapshot).Segments()
	if len(segs) != 1 {
		t.Fatalf("setup: %d segments, want 1", len(segs))
	}
	dict, err := segs[0].Segment().Dictionary("f")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]uint64{"alpha": 1, "beta": 3, "delta": 1, "gamma": 2}
	got := map[string]uint64{}
	it := dict.AutomatonIterator(nil, nil, nil)
	for {
		e, err := it.Next()
		if err != nil {
			t.Fatal(err)
		}
		if e == nil {
			break
		}
		got[e.Term] = e.Count
		pl, err := dict.PostingsList([]byte(e.Term), nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		if n := pl.Count(); n != want[e.Term] {
			t.Errorf("setup: %q's postings list has %d documents, want %d", e.Term, n, want[e.Term])
		}
	}
	for term, n := range want {
		if got[term] != n {
			t.Errorf("the dictionary iterator counts %d documents for %q, want %d", got[term], term, n)
		}
	}
}
