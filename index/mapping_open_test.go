package index

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cortexmem/cortex/memories"

	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/util"
)

// TestMemoryMappingDigest: the digest the index's opening recognises is
// that of the mapping createBleve stores, and building the mapping gives
// what decoding those bytes gives. (When newMapping changes, this fails:
// put the digest it prints in memoryMappingDigest.)
func TestMemoryMappingDigest(t *testing.T) {
	m, err := newMapping()
	if err != nil {
		t.Fatal(err)
	}
	stored, err := util.MarshalJSON(m)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(stored)
	if got := hex.EncodeToString(sum[:]); got != memoryMappingDigest {
		t.Fatalf("the memory mapping's digest is %s, memoryMappingDigest says %s", got, memoryMappingDigest)
	}
	var decoded *mapping.IndexMappingImpl
	if err := json.Unmarshal(stored, &decoded); err != nil {
		t.Fatal(err)
	}
	var built *mapping.IndexMappingImpl
	if err := unmarshalJSON(stored, &built); err != nil {
		t.Fatal(err)
	}
	again, err := util.MarshalJSON(decoded)
	if err != nil {
		t.Fatal(err)
	}
	rebuilt, err := util.MarshalJSON(built)
	if err != nil {
		t.Fatal(err)
	}
	if string(again) != string(rebuilt) {
		t.Errorf("decoded and built mappings differ:\n%s\n%s", again, rebuilt)
	}
}

// TestOpenBuildsTheMemoryMapping: opening an index createBleve made builds
// its mapping rather than decode it, and the index then answers as it did
// when it was written.
func TestOpenBuildsTheMemoryMapping(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "bleve")
	w, err := createBleve(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Apply(docs(corpus())); err != nil {
		t.Fatal(err)
	}
	reqs := []memories.SearchRequest{
		{Text: "refresh token", Size: 50},
		{Text: "kafka release deploy", AnyTerm: true, Phrases: true, Compounds: true, Size: 50},
		{Text: "rotate", Project: "alpha", Size: 50},
	}
	var want [][]Match
	for _, req := range reqs {
		ms, err := w.Search(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		if len(ms) == 0 {
			t.Fatalf("%+v finds nothing", req)
		}
		want = append(want, ms)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	before := mappingsBuilt.Load()
	r, err := openBleve(dir, true)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if n := mappingsBuilt.Load() - before; n != 1 {
		t.Errorf("opening the index built %d mappings, want 1", n)
	}
	for i, req := range reqs {
		got, err := r.Search(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(got, want[i]); diff != "" {
			t.Errorf("%+v (-reopened +written):\n%s", req, diff)
		}
	}
}
