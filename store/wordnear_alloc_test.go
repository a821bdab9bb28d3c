package store

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/cortexmem/cortex/dedup"
	"github.com/cortexmem/cortex/memories"
)

// TestCountNearAllocatesAFewTimes: a save's near counts over a project
// whose memories nearly all share words with the new one allocate a fixed
// handful of times, whatever the number of memories met: the list of
// those met is made once at the size of the walk, not grown by appends
// (thousands of memories met took a dozen growths and copies), and the
// floor's ranking reuses one buffer.
func TestCountNearAllocatesAFewTimes(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector changes allocations")
	}
	rng := rand.New(rand.NewPCG(7, 8))
	vocab := make([]uint64, 600)
	for i := range vocab {
		vocab[i] = rng.Uint64()
	}
	pick := func(n int) []uint64 {
		var ws []uint64
		for _, i := range rng.Perm(len(vocab))[:n] {
			ws = append(ws, vocab[i])
		}
		slices.Sort(ws)
		return ws
	}
	const nSets = 4000
	bases := make([]int, nSets)
	hashes := make([]uint64, nSets)
	sets := make([][]uint64, nSets)
	kept := make([]bool, nSets)
	for s := range nSets {
		bases[s], hashes[s], sets[s], kept[s] = s, uint64(s), pick(40+rng.IntN(200)), true
	}
	ix, ok := parseWordIndex(encodeWordIndex(1, bases, hashes, sets, nil, kept, nil))
	if !ok {
		t.Fatal("the index does not read back")
	}
	th := dedup.DefaultThresholds()
	near := memories.NearWords{Duplicate: th.Duplicate, Related: th.Related, Top: 4}
	words := pick(200)
	counts := make([]uint32, nSets)
	skip := func(int) bool { return false }
	met := 0
	allocs := testing.AllocsPerRun(10, func() {
		clear(counts)
		floor := th.Related
		ix.countNear(words, counts, near, skip, &floor)
		met = 0
		for _, c := range counts {
			if c > 0 {
				met++
			}
		}
	})
	if met < nSets/2 {
		t.Fatalf("the new memory met %d of %d memories: want most, for the test to mean something", met, nSets)
	}
	if allocs > 6 {
		t.Errorf("countNear allocated %.0f times meeting %d memories, want at most 6", allocs, met)
	}
}
