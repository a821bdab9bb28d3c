package index

import (
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"github.com/blevesearch/bleve/v2/document"
	bindex "github.com/blevesearch/bleve_index_api"
	"github.com/google/go-cmp/cmp"

	"github.com/cortexmem/cortex/memories"
)

// TestSegmentPostingsWithoutLocationsAsWith covers zapx patch 0003: a new
// segment whose terms have no locations appends each document's postings
// from the terms its first pass over the documents found, not from a second
// walk of every field's frequencies. An index of memories (no locations) must
// hold the same postings, frequencies and norms as one of the same memories
// built the old way, which a field with term vectors in one document forces.
// The memories repeat words across tags, where a document's values of one
// field are merged into one posting, and across fields.
func TestSegmentPostingsWithoutLocationsAsWith(t *testing.T) {
	ms := corpus()
	for i := range 40 {
		m := mem(fmt.Sprintf("t%02d", i), fmt.Sprintf("Go tools %d", i%7),
			fmt.Sprintf("The go tools and go tests of run %d run again; tools tools.", i%5), "alpha", memories.TypeFact, i)
		m.Tags = []string{"go", "go tools", fmt.Sprintf("tools-%d go", i%3), "Go"}[:1+i%4]
		ms = append(ms, m)
	}
	build := func(withLocations bool) map[string]map[string][]string {
		b, err := createBleve(filepath.Join(t.TempDir(), "bleve"))
		if err != nil {
			t.Fatal(err)
		}
		defer func() { _ = b.Close() }()
		built, err := b.memoryDocuments(docs(ms))
		if err != nil {
			t.Fatal(err)
		}
		if withLocations {
			built[3].AddField(document.NewTextFieldWithIndexingOptions("located", nil, []byte("go tools"),
				bindex.IndexField|bindex.IncludeTermVectors))
		}
		batch := b.idx.NewBatch()
		for _, d := range built {
			if err := batch.IndexAdvanced(d); err != nil {
				t.Fatal(err)
			}
		}
		if err := b.idx.Batch(batch); err != nil {
			t.Fatal(err)
		}
		return bleveIndexPostings(t, b)
	}
	got, want := build(false), build(true)
	delete(want, "located")
	if len(got[fieldTags]) < 3 || len(got[fieldBody]) < 10 {
		t.Fatalf("index has %d tag terms and %d body terms: not the memories", len(got[fieldTags]), len(got[fieldBody]))
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("postings (-built with locations +without):\n%s", diff)
	}
}

// indexReaderOf is a reader of b's index, closed when the test ends.
func indexReaderOf(t *testing.T, b *Bleve) bindex.IndexReader {
	t.Helper()
	adv, err := b.idx.Advanced()
	if err != nil {
		t.Fatal(err)
	}
	r, err := adv.Reader()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = r.Close() })
	return r
}

// bleveIndexPostings is every posting of b's index: by field and term, each
// document's id, frequency and norm.
func bleveIndexPostings(t *testing.T, b *Bleve) map[string]map[string][]string {
	t.Helper()
	r := indexReaderOf(t, b)
	fields, err := r.Fields()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]map[string][]string{}
	for _, field := range fields {
		fd, err := r.FieldDict(field)
		if err != nil {
			t.Fatal(err)
		}
		terms := map[string][]string{}
		for {
			de, err := fd.Next()
			if err != nil {
				t.Fatal(err)
			}
			if de == nil {
				break
			}
			tfr, err := r.TermFieldReader(t.Context(), []byte(de.Term), field, true, true, false)
			if err != nil {
				t.Fatal(err)
			}
			var list []string
			for {
				d, err := tfr.Next(nil)
				if err != nil {
					t.Fatal(err)
				}
				if d == nil {
					break
				}
				id, err := r.ExternalID(d.ID)
				if err != nil {
					t.Fatal(err)
				}
				list = append(list, fmt.Sprintf("%s %d %v", id, d.Freq, d.Norm))
			}
			_ = tfr.Close()
			slices.Sort(list)
			terms[de.Term] = list
		}
		_ = fd.Close()
		out[field] = terms
	}
	return out
}
