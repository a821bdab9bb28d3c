package memories

import (
	"math/rand/v2"
	"testing"
	"time"
)

// The activation from tallied counts has Of's bits, over random counts,
// weights (sources with and without a weight of their own), decays and
// times, last accesses after now included.
func TestTallyActivationIsOf(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 15))
	sources := []string{AccessSessionStart, "other", AccessRecall, AccessContext, "hook"}
	for trial := range 20000 {
		a := Activation{Weight: r.Float64() / 3, Decay: r.Float64() / 10, Sources: map[string]float64{}}
		for _, src := range sources {
			if r.IntN(3) > 0 {
				a.Sources[src] = r.Float64() / 2
			}
		}
		if trial%50 == 0 {
			a = DefaultActivation()
		}
		ta := newTallyActivation(a, sources)
		counts := make([]int, len(sources))
		st := AccessStat{Counts: map[string]int{}, Last: testNow.Add(-time.Duration(r.Int64N(int64(400*24*time.Hour))) + time.Hour)}
		for i, src := range sources {
			if r.IntN(2) == 0 {
				counts[i] = 1 + r.IntN([]int{3, 40, 5000}[r.IntN(3)])
				st.Counts[src] = counts[i]
			}
		}
		got, want := ta.of(counts, st.Last, testNow), a.Of(st, testNow)
		if got != want {
			t.Fatalf("trial %d: %v of %v at %v: tallied %v, Of %v", trial, a, st, testNow, got, want)
		}
	}
}
