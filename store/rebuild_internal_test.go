package store

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cortexmem/cortex/index"
	"github.com/cortexmem/cortex/memories"
)

// TestRebuildBatches checks a rebuild's batches are bounded by the notes'
// bytes as well as their number, so that a vault of long notes is indexed
// in bounded memory, and that every document is in exactly one batch.
func TestRebuildBatches(t *testing.T) {
	docs := func(sizes ...int64) ([]index.Doc, map[string]*index.Record) {
		ds := make([]index.Doc, len(sizes))
		recs := map[string]*index.Record{}
		for i, n := range sizes {
			p := fmt.Sprintf("n%05d.md", i)
			ds[i] = index.Doc{ID: p, Memory: &memories.Memory{Path: p}}
			recs[p] = &index.Record{Entry: memories.Entry{Path: p}, Size: n}
		}
		return ds, recs
	}
	many := make([]int64, rebuildBatch+1)
	for i := range many {
		many[i] = 10
	}
	big := int64(rebuildBatchBytes)
	for _, tc := range []struct {
		name  string
		sizes []int64
		want  []int // batch lengths
	}{
		{"none", nil, nil},
		{"small notes, one batch", []int64{10, 20, 30}, []int{3}},
		{"by number", many, []int{rebuildBatch, 1}},
		{"by bytes", []int64{big / 2, big / 2, 1, big / 2}, []int{2, 2}},
		{"a note larger than a batch is a batch of its own", []int64{10, 2 * big, 10}, []int{1, 1, 1}},
		{"an empty note adds nothing", []int64{big, 0}, []int{2}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ds, recs := docs(tc.sizes...)
			var got []int
			seen := 0
			for _, b := range rebuildBatches(ds, recs) {
				got = append(got, len(b))
				for _, d := range b {
					if d.ID != ds[seen].ID {
						t.Fatalf("batch holds %s at %d, want %s", d.ID, seen, ds[seen].ID)
					}
					seen++
				}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("batch lengths (-want +got):\n%s", diff)
			}
			if seen != len(ds) {
				t.Errorf("%d documents in batches, want %d", seen, len(ds))
			}
		})
	}
}
