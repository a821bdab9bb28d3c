package index

import (
	"fmt"
	"math"
	"math/rand/v2"
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
	ms := withRepeatedWords(corpus(), "")
	got := indexedPostings(t, ms, nil)
	want := indexedPostings(t, ms, func(i int, d *document.Document) *document.Document {
		if i == 3 {
			d.AddField(document.NewTextFieldWithIndexingOptions("located", nil, []byte("go tools"),
				bindex.IndexField|bindex.IncludeTermVectors))
		}
		return d
	})
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

// mapOnly is a field without its term lists: zapx reads its terms from
// AnalyzedTokenFrequencies, as it reads any field not built here.
type mapOnly struct{ document.Field }

// TestSegmentFromTermListsAsFromMaps covers zapx patch 0007: a segment
// built from documents whose fields give their terms as lists
// (builtField.TermFrequencies) holds the same postings, frequencies and
// norms as one built from the same fields read through Bleve's maps.
func TestSegmentFromTermListsAsFromMaps(t *testing.T) {
	ms := withRepeatedWords(memoryDocumentCases(), " src/go/tools /var/lib")
	got := indexedPostings(t, ms, nil)
	want := indexedPostings(t, ms, func(_ int, d *document.Document) *document.Document {
		plain := document.NewDocument(d.ID())
		n := 0
		d.VisitFields(func(f bindex.Field) {
			if _, ok := f.(*builtField); ok {
				n++
			}
		})
		if n == 0 {
			t.Fatalf("document %s has no field with term lists", d.ID())
		}
		for _, f := range d.Fields {
			plain.AddField(mapOnly{f})
		}
		plain.SetIndexed()
		return plain
	})
	if len(got[fieldPairs]) < 10 || len(got[fieldBody]) < 10 || len(got[fieldPathOnly]) < 2 {
		t.Fatalf("index has %d pairs, %d body terms and %d path-only terms: not the memories",
			len(got[fieldPairs]), len(got[fieldBody]), len(got[fieldPathOnly]))
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("postings (-read from maps +from term lists):\n%s", diff)
	}
}

// TestTermSetAsAMap: a term set gives each field's terms the places a map
// made for the field would, reused over fields of any size and past the
// wrap of its field stamps.
func TestTermSetAsAMap(t *testing.T) {
	var s termSet
	r := rand.New(rand.NewPCG(7, 8))
	for field := range 3000 {
		if field == 1500 {
			s.field = math.MaxUint32 - 3
		}
		n := r.IntN(300)
		if field%100 == 0 {
			n = 5000
		}
		s.reset(n)
		want := map[string]int32{}
		for range n {
			key := fmt.Sprintf("k%d", r.IntN(n+1))
			at, found := s.index(key, int32(len(want)))
			w, ok := want[key]
			if !ok {
				want[key] = int32(len(want))
				w = want[key]
			}
			if found != ok || at != w {
				t.Fatalf("field %d, key %s: at %d found %v, want %d %v", field, key, at, found, w, ok)
			}
		}
	}
}

// withRepeatedWords is ms and 40 memories that repeat words across their
// title, body (ending in tail) and tags, where a document's values of one
// field are merged into one posting.
func withRepeatedWords(ms []*memories.Memory, tail string) []*memories.Memory {
	for i := range 40 {
		m := mem(fmt.Sprintf("t%02d", i), fmt.Sprintf("Go tools %d", i%7),
			fmt.Sprintf("The go tools and go tests of run %d run again; tools tools.%s", i%5, tail), "alpha", memories.TypeFact, i)
		m.Tags = []string{"go", "go tools", fmt.Sprintf("tools-%d go", i%3), "Go"}[:1+i%4]
		ms = append(ms, m)
	}
	return ms
}

// indexedPostings indexes the documents of ms, each as change (when not
// nil) makes it, in a new index, and returns that index's postings.
func indexedPostings(t *testing.T, ms []*memories.Memory, change func(int, *document.Document) *document.Document) map[string]map[string][]string {
	t.Helper()
	b, err := createBleve(filepath.Join(t.TempDir(), "bleve"))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = b.Close() }()
	built, err := b.memoryDocuments(docs(ms))
	if err != nil {
		t.Fatal(err)
	}
	batch := b.idx.NewBatch()
	for i, d := range built {
		if change != nil {
			d = change(i, d)
		}
		if err := batch.IndexAdvanced(d); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.idx.Batch(batch); err != nil {
		t.Fatal(err)
	}
	return bleveIndexPostings(t, b)
}
