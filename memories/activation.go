package memories

import (
	"context"
	"math"
	"slices"
	"time"
)

// Access sources: what put a memory in front of someone.
const (
	AccessRecall       = "recall"
	AccessSessionStart = "session_start"
	AccessContext      = "context"
)

// Access is one memory shown once.
type Access struct {
	ID     string
	Time   time.Time
	Source string
}

// AccessStat sums up the accesses of one memory.
type AccessStat struct {
	// Counts holds how many accesses came from each source.
	Counts map[string]int
	// Last is the time of the latest access.
	Last time.Time
}

// AccessLog records accesses and sums them up. The access package implements
// it over a file in the state folder.
type AccessLog interface {
	Record(ctx context.Context, accesses []Access) error
	// Stats sums up the accesses of the memories with these ids; memories
	// never accessed are absent from the map.
	Stats(ctx context.Context, ids []string) (map[string]AccessStat, error)
}

// AccessVisitor is an access log that can show every memory's accesses one
// by one, without a map of them all (a briefing ranks every memory by
// activation; a map per memory is most of its cost).
type AccessVisitor interface {
	// EachStat calls fn with the stat of every accessed memory, as
	// Stats(nil) sums it up; fn must not keep st.Counts past its call.
	EachStat(ctx context.Context, fn func(id string, st AccessStat)) error
}

// Activation sets how accesses turn into the activation signal:
//
//	activation = min(1, Σ_source count × weight(source) × exp(−Decay × days since the last access))
type Activation struct {
	// Weight is what one access adds, for sources without a weight of their own.
	Weight float64 `json:"weight" yaml:"weight"`
	// Decay is the fraction lost per day since the last access (exponential).
	Decay float64 `json:"decay" yaml:"decay"`
	// Sources weighs accesses by where they came from.
	Sources map[string]float64 `json:"sources" yaml:"sources"`
}

// DefaultActivation is SPEC §4.3's: 0.1 an access, decaying 0.05 a day. An
// injection at session start counts half: it happens to whatever ranks first at
// every start, asked for or not, and counting it fully would make the memories
// that are shown most shown ever more.
func DefaultActivation() Activation {
	return Activation{Weight: 0.1, Decay: 0.05, Sources: map[string]float64{
		AccessRecall: 0.1, AccessSessionStart: 0.05, AccessContext: 0.1,
	}}
}

// Check validates the activation parameters.
func (a Activation) Check() error {
	bad := func(v float64) bool { return v < 0 || math.IsNaN(v) || math.IsInf(v, 0) }
	if bad(a.Weight) {
		return invalid("recall.activation.weight", "must be a number ≥ 0")
	}
	if bad(a.Decay) {
		return invalid("recall.activation.decay", "must be a number ≥ 0")
	}
	for s, w := range a.Sources {
		if bad(w) {
			return invalid("recall.activation.sources."+s, "must be a number ≥ 0")
		}
	}
	return nil
}

// Of is the activation of a memory with these accesses at now.
func (a Activation) Of(st AccessStat, now time.Time) float64 {
	// The sources are summed in a fixed order: floating-point addition is
	// not associative, and a map's order would make the last bit of an
	// activation, and so a tie between two memories, change from run to run.
	var buf [8]string
	srcs := buf[:0]
	for src := range st.Counts {
		srcs = append(srcs, src)
	}
	slices.Sort(srcs)
	sum := 0.0
	for _, src := range srcs {
		w, ok := a.Sources[src]
		if !ok {
			w = a.Weight
		}
		sum += float64(st.Counts[src]) * w
	}
	if sum <= 0 {
		return 0
	}
	days := now.Sub(st.Last).Hours() / 24
	if days < 0 {
		days = 0
	}
	return min(1, sum*math.Exp(-a.Decay*days))
}
