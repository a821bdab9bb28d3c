package index

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// TestMergeWhileBuilding builds an index in more batches than mergeAbove: the builder's segments must be merged by the
// time the last batch is done and the merges are waited for, before Close
// (which used to merge them all on one core), into the segments Close made
// (16, 16 and 8 batches), with every document there and no merged segment's
// file left behind.
func TestMergeWhileBuilding(t *testing.T) {
	const batches, per = 40, 10
	dir := filepath.Join(t.TempDir(), "bleve")
	b, err := createBleve(dir)
	if err != nil {
		t.Fatal(err)
	}
	m := b.MergeWhileBuilding(context.Background(), batches, per)
	if m == nil {
		t.Fatal("MergeWhileBuilding gave no merger for 40 batches")
	}
	// One batch at a time: two at once may reach the persister together
	// and be written as one segment, which makes the count vary.
	sem := make(chan struct{}, 1)
	errs := make(chan error, batches)
	for i := range batches {
		sem <- struct{}{}
		go func() {
			defer func() { <-sem }()
			ms := make([]Doc, per)
			for j := range ms {
				id := fmt.Sprintf("b%02dn%02d", i, j)
				ms[j] = Doc{ID: id, Memory: mem(id, "note "+id, fmt.Sprintf("batch %d note %d of the config file", i, j), "alpha", "fact", j)}
			}
			err := b.Apply(ms)
			if err == nil {
				m.Built()
			}
			errs <- err
		}()
	}
	for range batches {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	if err := m.Finish(); err != nil {
		t.Fatal(err)
	}
	// Two groups of 16 merged while building, the 8 left merged at the end.
	got := segments(t, b)
	if got != 3 {
		t.Errorf("%d segments once the build's merges are done, want 3", got)
	}
	if n, err := b.DocCount(); err != nil || n != batches*per {
		t.Errorf("%d documents (%v), want %d", n, err, batches*per)
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	files, err := filepath.Glob(filepath.Join(dir, "store", "*.zap"))
	if err != nil {
		t.Fatal(err)
	}
	if uint64(len(files)) != got {
		names := make([]string, len(files))
		for i, f := range files {
			st, _ := os.Stat(f)
			names[i] = fmt.Sprintf("%s (%d bytes)", filepath.Base(f), st.Size())
		}
		t.Errorf("%d segment files after Close, want the %d of the index: %v", len(files), got, names)
	}
}

// A rebuild's merger is nil when its batches need no merging, and nil is a
// merger that does nothing.
func TestMergeWhileBuildingFewBatches(t *testing.T) {
	b := newTestBleve(t)
	m := b.MergeWhileBuilding(context.Background(), mergeAbove, 10)
	if m != nil {
		t.Fatalf("MergeWhileBuilding(%d batches) = %v, want nil", mergeAbove, m)
	}
	m.Built()
	if err := m.Finish(); err != nil {
		t.Fatal(err)
	}
}
