package index

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/blevesearch/bleve/v2"
	"github.com/google/go-cmp/cmp"

	"github.com/cortexmem/cortex/memories"
)

// The index holds only fields some query reads: no creation date, importance
// or source, no date or number field at all (each is sixteen terms a memory
// in the rebuild's dictionaries), and no "_all" composite; and the fields'
// lengths, for BM25 (fieldLengths).
func TestMappingIndexesOnlyQueriedFields(t *testing.T) {
	b := newTestBleve(t)
	got, err := b.idx.Fields()
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(got)
	want := []string{"_id", fieldArea, fieldBody, fieldHour, fieldJoined, fieldLengths, fieldPairs, fieldPathOnly, fieldProject,
		fieldSourceHash, fieldStatus, fieldTag, fieldTags, fieldTitle, fieldType, fieldUpdated, fieldUpdatedDay, fieldUpdatedMonth, fieldUpdatedYear}
	slices.Sort(want)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("indexed fields (-want +got):\n%s", diff)
	}
}

// Apply gives the body field the tokens it analysed for the pairs rather than
// letting Bleve analyse the body again: every field's dictionary must be what
// the mapping makes of the same memories on its own (Batch.Index).
func TestApplyIndexesWhatTheMappingMakes(t *testing.T) {
	ms := corpus()
	extra := mem("m13", "Check-up of the state-of-the-art config file", "The config file's check-up: config-file, config/file.\nThe second line; the  config  file again.", "alpha", "note", 13, "a-b", "c")
	ms = append(ms, extra)
	applied := newTestBleveOf(t, ms)

	plain, err := createBleve(filepath.Join(t.TempDir(), "plain"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = plain.Close() })
	batch := plain.idx.NewBatch()
	for _, m := range ms {
		if err := batch.Index(m.ID, memoryFields(plain, m)); err != nil {
			t.Fatal(err)
		}
	}
	if err := plain.idx.Batch(batch); err != nil {
		t.Fatal(err)
	}

	fields, err := plain.idx.Fields()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range fields {
		if diff := cmp.Diff(dictionary(t, plain.idx, f), dictionary(t, applied.idx, f)); diff != "" {
			t.Errorf("field %s: dictionary (-mapping +Apply):\n%s", f, diff)
		}
	}
}

// newTestBleveOf is a writer over an index of ms, closed when the test ends.
func newTestBleveOf(t *testing.T, ms []*memories.Memory) *Bleve {
	t.Helper()
	b, err := createBleve(filepath.Join(t.TempDir(), "bleve"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = b.Close() })
	if err := b.Apply(docs(ms)); err != nil {
		t.Fatal(err)
	}
	return b
}

// dictionary is field's terms with how many documents hold each.
func dictionary(t *testing.T, idx bleve.Index, field string) map[string]uint64 {
	t.Helper()
	d, err := idx.FieldDict(field)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = d.Close() }()
	out := map[string]uint64{}
	for {
		e, err := d.Next()
		if err != nil {
			t.Fatal(err)
		}
		if e == nil {
			return out
		}
		out[e.Term] = e.Count
	}
}
