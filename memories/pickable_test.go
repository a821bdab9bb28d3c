package memories

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cortexmem/cortex/dedup"
)

// TestPickableKeepsWhatPickChooses: pick over what pickable keeps of many
// scored memories chooses the same duplicate and the same related ones, in
// the same order, as pick over all of them: with ties of score and of
// relatedness, several possible duplicates, and the duplicate among the
// most related.
func TestPickableKeepsWhatPickChooses(t *testing.T) {
	th := dedup.DefaultThresholds()
	r := rand.New(rand.NewPCG(1, 2))
	// Values on a coarse grid, so that ties are common.
	grid := func() float64 { return float64(r.IntN(11)) / 10 }
	for trial := 0; trial < 2000; trial++ {
		n := r.IntN(40)
		var all []scored
		p := pickable{th: th}
		for i := 0; i < n; i++ {
			c := scored{entry: Entry{ID: fmt.Sprintf("id%03d", r.IntN(1000)*1000+i)}, score: grid(), related: grid()}
			// Only what similarInProjects hands on: a possible duplicate,
			// or a related one.
			if c.score < th.Duplicate && c.related <= th.Related {
				continue
			}
			all = append(all, c)
			p.add(c)
		}
		wantDup, wantRel := pick(th, append([]scored(nil), all...))
		gotDup, gotRel := pick(th, p.all())
		if diff := cmp.Diff(choiceIDs(wantDup, wantRel), choiceIDs(gotDup, gotRel)); diff != "" {
			t.Fatalf("trial %d, %d scored: pick over what pickable kept differs (-all +kept):\n%s", trial, len(all), diff)
		}
	}
}

// choiceIDs names pick's choice: the duplicate's id ("" for none), then the
// related ones'.
func choiceIDs(dup *scored, related []scored) []string {
	out := []string{""}
	if dup != nil {
		out[0] = dup.entry.ID
	}
	for _, r := range related {
		out = append(out, r.entry.ID)
	}
	return out
}
