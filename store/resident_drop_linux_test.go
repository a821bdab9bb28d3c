package store_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cortexmem/cortex/internal/procmem"
)

// TestDropResidentOfTheOpenIndex: a resident store's DropResident takes
// the pages its recalls mapped of the open index's segments out of the
// process's memory, and it recalls as before.
func TestDropResidentOfTheOpenIndex(t *testing.T) {
	e := newEnv(t, 0)
	rng := rand.New(rand.NewPCG(8, 1))
	vocab := make([]string, 3000)
	for i := range vocab {
		vocab[i] = fmt.Sprintf("w%dq%d", i, rng.IntN(1000))
	}
	for i := range 2000 {
		words := make([]string, 80+rng.IntN(100))
		for j := range words {
			words[j] = vocab[int(rng.ExpFloat64()*500)%len(vocab)]
		}
		e.write(fmt.Sprintf("memories/p/n%04d.md", i), fmt.Sprintf("---\nid: 01jt%022d\ntitle: %s\n---\n%s\n", i, strings.Join(words[:3], " "), strings.Join(words, " ")))
	}
	if _, err := e.st.Rebuild(context.Background()); err != nil {
		t.Fatal(err)
	}
	st, svc := e.residentStore(t)
	queries := make([]string, 100)
	for i := range queries {
		queries[i] = vocab[rng.IntN(200)] + " " + vocab[rng.IntN(len(vocab))]
	}
	answers := func() [][]string {
		var out [][]string
		for _, q := range queries {
			out = append(out, recallTitles(t, svc, q))
		}
		return out
	}
	before := answers()
	// The index stays open store.Linger after a recall: a pause longer
	// than that (a loaded machine) closed it, and the recalls open it
	// again.
	kb := 0
	for try := 0; try < 5 && kb < 256; try++ {
		if try > 0 {
			answers()
		}
		var err error
		if kb, err = procmem.MappedKB(e.home, ".zap"); err != nil {
			t.Skipf("no smaps: %v", err)
		}
	}
	if kb < 256 {
		t.Fatalf("the recalls left %d kB of the segments resident: the test cannot see pages", kb)
	}
	st.DropResident()
	if after, _ := procmem.MappedKB(e.home, ".zap"); after > 16 {
		t.Errorf("%d kB of the open index's segments resident after DropResident, %d before", after, kb)
	}
	if diff := cmp.Diff(before, answers()); diff != "" {
		t.Errorf("recalls after DropResident (-before +after):\n%s", diff)
	}
}
