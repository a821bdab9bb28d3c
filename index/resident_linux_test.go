package index

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cortexmem/cortex/internal/procmem"
	"github.com/cortexmem/cortex/memories"
)

// mappedKB is the resident memory, in kB, of this process's mappings of the
// segment files (.zap) under dir.
func mappedKB(t *testing.T, dir string) int {
	t.Helper()
	kb, err := procmem.MappedKB(dir, ".zap")
	if err != nil {
		t.Skipf("no smaps: %v", err)
	}
	return kb
}

// TestDropResidentKeepsSearching: the pages searches mapped of an open
// index's segment files are out of the process's resident memory once its
// DropResident, or the package's, is called, and the index answers as
// before.
func TestDropResidentKeepsSearching(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "bleve")
	b, err := createBleve(dir)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(3, 7))
	vocab := make([]string, 4000)
	for i := range vocab {
		vocab[i] = fmt.Sprintf("w%dx%d", i, rng.IntN(1000))
	}
	var ms []*memories.Memory
	for i := range 3000 {
		words := make([]string, 60+rng.IntN(120))
		for j := range words {
			words[j] = vocab[int(rng.ExpFloat64()*600)%len(vocab)]
		}
		ms = append(ms, mem(fmt.Sprintf("m%04d", i), strings.Join(words[:4], " "), strings.Join(words, " "), "p", memories.TypeFact, i%300))
	}
	if err := b.Apply(docs(ms)); err != nil {
		t.Fatal(err)
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	r, err := openBleve(dir, true)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	queries := make([]string, 200)
	for i := range queries {
		queries[i] = vocab[rng.IntN(len(vocab))] + " " + vocab[rng.IntN(len(vocab))]
	}
	answers := func() [][]string {
		var out [][]string
		for _, q := range queries {
			out = append(out, search(t, r, memories.SearchRequest{Text: q}))
		}
		return out
	}
	before := answers()
	touched := mappedKB(t, dir)
	if touched < 256 {
		t.Fatalf("the searches left %d kB of the segments resident: the test cannot see pages", touched)
	}
	r.DropResident()
	if kb := mappedKB(t, dir); kb > 16 {
		t.Errorf("%d kB of the segments resident after DropResident, %d before", kb, touched)
	}
	if diff := cmp.Diff(before, answers()); diff != "" {
		t.Errorf("answers after DropResident (-before +after):\n%s", diff)
	}
	// The searches mapped pages again; the package's DropResident drops
	// those of every open index.
	if kb := mappedKB(t, dir); kb < 256 {
		t.Fatalf("the searches after the drop left %d kB resident", kb)
	}
	DropResident()
	if kb := mappedKB(t, dir); kb > 16 {
		t.Errorf("%d kB of the segments resident after the package's DropResident", kb)
	}
}
