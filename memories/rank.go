package memories

import (
	"math"
	"time"
)

// Signals are the four ranking inputs of a recalled memory, each in [0,1].
type Signals struct {
	// Relevance is the full-text score divided by the best score among the
	// candidates; absent (and unweighted) when recall has no query.
	Relevance float64 `json:"relevance"`
	// Recency is RecencyBase^hours since the memory was last updated or
	// accessed.
	Recency float64 `json:"recency"`
	// Activation reflects how often and how lately the memory was used.
	Activation float64 `json:"activation"`
	// Importance is importance/5.
	Importance float64 `json:"importance"`
}

// Weights blend the signals into one score.
type Weights struct {
	Relevance  float64 `json:"relevance" yaml:"relevance"`
	Recency    float64 `json:"recency" yaml:"recency"`
	Activation float64 `json:"activation" yaml:"activation"`
	Importance float64 `json:"importance" yaml:"importance"`
}

// Ranking holds the recall ranking parameters.
type Ranking struct {
	Weights Weights
	// RecencyBase is the per-hour decay of recency (SPEC: 0.995).
	RecencyBase float64
	// Activation turns accesses into the activation signal.
	Activation Activation
}

// DefaultRanking is SPEC §4.2: 0.5 relevance, 0.15 recency, 0.15 activation,
// 0.2 importance; recency 0.995 per hour.
func DefaultRanking() Ranking {
	return Ranking{
		Weights:     Weights{Relevance: 0.5, Recency: 0.15, Activation: 0.15, Importance: 0.2},
		RecencyBase: 0.995,
		Activation:  DefaultActivation(),
	}
}

// Check validates the ranking parameters.
func (r Ranking) Check() error {
	w := r.Weights
	for _, v := range []struct {
		name string
		w    float64
	}{{"relevance", w.Relevance}, {"recency", w.Recency}, {"activation", w.Activation}, {"importance", w.Importance}} {
		if v.w < 0 || math.IsNaN(v.w) || math.IsInf(v.w, 0) {
			return invalid("recall.weights."+v.name, "must be a number ≥ 0")
		}
	}
	if w.Relevance+w.Recency+w.Activation+w.Importance == 0 {
		return invalid("recall.weights", "must not all be 0")
	}
	if !(r.RecencyBase > 0 && r.RecencyBase <= 1) { // NaN fails both
		return invalid("recall.recency_base", "must be in (0, 1]")
	}
	return r.Activation.Check()
}

// Recency is base^hours since t, 1 for times in the future.
func (r Ranking) Recency(t, now time.Time) float64 {
	h := now.Sub(t).Hours()
	if h <= 0 {
		return 1
	}
	return math.Pow(r.RecencyBase, h)
}

// Effective is the weights the blend uses, scaled to sum to 1. Without a query
// the relevance weight is 0 and the others share its part.
func (r Ranking) Effective(hasQuery bool) Weights {
	w := r.Weights
	if !hasQuery {
		w.Relevance = 0
	}
	sum := w.Relevance + w.Recency + w.Activation + w.Importance
	if sum == 0 {
		return Weights{}
	}
	return Weights{Relevance: w.Relevance / sum, Recency: w.Recency / sum, Activation: w.Activation / sum, Importance: w.Importance / sum}
}

// Score blends the signals with the effective weights, so that scores stay in
// [0,1] with or without a query.
func (r Ranking) Score(s Signals, hasQuery bool) float64 {
	w := r.Effective(hasQuery)
	return w.Relevance*s.Relevance + w.Recency*s.Recency + w.Activation*s.Activation + w.Importance*s.Importance
}
