package memories

import (
	"context"
	"math"
	"slices"
	"time"
)

// AccessTallier is an access log that can show every memory's accesses as
// counts of a fixed list of sources, with no map per memory: a session start
// ranks every accessed memory by activation, thousands of them, and a map
// filled for each cost more than the ranking.
type AccessTallier interface {
	// TallySources are the sources EachTally counts, in its order; they are
	// distinct.
	TallySources() []string
	// EachTally calls fn with every accessed memory's counts per source
	// (as AccessVisitor's stat says them) and its last access; fn must not
	// keep counts past its call.
	EachTally(ctx context.Context, fn func(id string, counts []int, last time.Time)) error
}

// tallyActivation is Activation.Of for counts of a fixed list of sources:
// the weights looked up once, the sources summed in the order Of sums them
// (by name), so that it gives Of's bits (TestTallyActivationIsOf).
type tallyActivation struct {
	decay float64
	order []int     // indexes of the sources, by name
	w     []float64 // weight of each source, by index
}

func newTallyActivation(a Activation, sources []string) tallyActivation {
	t := tallyActivation{decay: a.Decay, w: make([]float64, len(sources))}
	for i, src := range sources {
		w, ok := a.Sources[src]
		if !ok {
			w = a.Weight
		}
		t.w[i] = w
		t.order = append(t.order, i)
	}
	slices.SortFunc(t.order, func(x, y int) int {
		switch {
		case sources[x] < sources[y]:
			return -1
		case sources[x] > sources[y]:
			return 1
		}
		return 0
	})
	return t
}

// of is Activation.Of of a stat with these counts (zero counts are sources
// the stat does not name) and last access.
func (t tallyActivation) of(counts []int, last, now time.Time) float64 {
	sum := 0.0
	for _, i := range t.order {
		if n := counts[i]; n != 0 {
			sum += float64(n) * t.w[i]
		}
	}
	if sum <= 0 {
		return 0
	}
	days := now.Sub(last).Hours() / 24
	if days < 0 {
		days = 0
	}
	return min(1, sum*math.Exp(-t.decay*days))
}

// eachActivation calls fn with the activation at now of every accessed
// memory: from counts when the log tallies them (AccessTallier), else from
// each stat. A log that cannot be read is a warning, once (fail), and no
// activation.
func (b *briefStats) eachActivation(ctx context.Context, now time.Time, fn func(id string, a float64)) {
	if b.s.access == nil || b.failed {
		return
	}
	act := b.s.ranking.Activation
	if t, ok := b.s.access.(AccessTallier); ok && distinct(t.TallySources()) {
		ta := newTallyActivation(act, t.TallySources())
		if err := t.EachTally(ctx, func(id string, counts []int, last time.Time) {
			fn(id, ta.of(counts, last, now))
		}); err != nil {
			b.fail(err)
		}
		return
	}
	b.each(ctx, func(id string, st AccessStat) { fn(id, act.Of(st, now)) })
}

func distinct(names []string) bool {
	seen := map[string]bool{}
	for _, n := range names {
		if seen[n] {
			return false
		}
		seen[n] = true
	}
	return true
}
