package memories

import (
	"fmt"
	"math/rand/v2"
	"slices"
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

// TestPickAsBySortedCopy: pick chooses the related memories a stable sort of
// a copy by relatedness chose (the rule, kept here as the reference), with
// ties of score, relatedness and time, repeated ids and memories of this
// import among stored ones; and it copies no more than the ones it returns.
func TestPickAsBySortedCopy(t *testing.T) {
	th := dedup.DefaultThresholds()
	r := rand.New(rand.NewPCG(3, 4))
	grid := func() float64 { return float64(r.IntN(11)) / 10 }
	reference := func(all []scored) (*scored, []scored) {
		dup, _ := pick(th, all) // sorts all by score as pick does
		byRelated := slices.Clone(all)
		slices.SortStableFunc(byRelated, byRelatedThenOlder)
		var related []scored
		for _, c := range byRelated {
			if len(related) == maxRelated || c.related <= th.Related {
				break
			}
			if dup == nil || c.entry.ID != dup.entry.ID {
				related = append(related, c)
			}
		}
		return dup, related
	}
	for trial := 0; trial < 3000; trial++ {
		n := r.IntN(30)
		all := make([]scored, n)
		for i := range all {
			// Ids share their time often (the first ten characters), and
			// some repeat.
			all[i] = scored{entry: Entry{ID: fmt.Sprintf("01jd%06d%02d", r.IntN(3), r.IntN(n+1))}, score: grid(), related: grid()}
			if r.IntN(2) == 0 {
				all[i].seq = int32(1 + r.IntN(5))
			}
		}
		wantDup, wantRel := reference(slices.Clone(all))
		gotDup, gotRel := pick(th, slices.Clone(all))
		if diff := cmp.Diff(choiceIDs(wantDup, wantRel), choiceIDs(gotDup, gotRel)); diff != "" {
			t.Fatalf("trial %d: pick differs from the sorted copy (-want +got):\n%s", trial, diff)
		}
		for i := range wantRel {
			if wantRel[i].seq != gotRel[i].seq || wantRel[i].related != gotRel[i].related {
				t.Fatalf("trial %d: related %d is %+v, want %+v", trial, i, gotRel[i], wantRel[i])
			}
		}
	}
	if raceEnabled {
		return // the race detector allocates
	}
	all := make([]scored, 20)
	for i := range all {
		all[i] = scored{entry: Entry{ID: fmt.Sprintf("01jd000000%02d", i)}, score: 0.1, related: 0.9}
	}
	if n := testing.AllocsPerRun(20, func() { pick(th, all) }); n != 1 {
		t.Errorf("pick of 20 related memories: %v allocations, want 1 (the %d it returns)", n, maxRelated)
	}
}

// TestJoinScoredCopiesNothingToAnEmpty: what the pool found, joined to
// nothing from the index, is the pool's slice itself; joined to something,
// both in order.
func TestJoinScoredCopiesNothingToAnEmpty(t *testing.T) {
	pooled := []scored{{entry: Entry{ID: "a"}}, {entry: Entry{ID: "b"}}}
	if got := joinScored(nil, pooled); len(got) != 2 || &got[0] != &pooled[0] {
		t.Errorf("joined to nothing: %v, a copy or not the pool's", choiceIDs(nil, got))
	}
	got := joinScored([]scored{{entry: Entry{ID: "x"}}}, pooled)
	if diff := cmp.Diff([]string{"", "x", "a", "b"}, choiceIDs(nil, got)); diff != "" {
		t.Errorf("joined (-want +got):\n%s", diff)
	}
}
