package memories

import (
	"math"
	"strings"
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
	// TieBand bounds what recency, activation and importance can do when
	// recall has a query. Relevance decides the order; together, at their
	// weights' share of the relevance weight, the three can lift a memory over
	// another whose relevance (as a fraction of the best) is at most TieBand
	// higher. With the default weights, whose three add up to the relevance
	// weight, that is TieBand itself. Without a query they share the score as
	// their weights say.
	TieBand float64
	// Off turns relevance features off, to measure what each adds (cortex
	// eval --without); none is off by default.
	Off Features
}

// DefaultTieBand is Ranking.TieBand by default.
const DefaultTieBand = 0.1

// DefaultRanking is SPEC §4.2's weights, 0.5 relevance, 0.15 recency, 0.15
// activation, 0.2 importance, with relevance first when there is a query (see
// TieBand); recency 0.995 per hour.
func DefaultRanking() Ranking {
	return Ranking{
		Weights:     Weights{Relevance: 0.5, Recency: 0.15, Activation: 0.15, Importance: 0.2},
		RecencyBase: 0.995,
		Activation:  DefaultActivation(),
		TieBand:     DefaultTieBand,
	}
}

// Features is a set of recall's relevance features.
type Features uint

// The relevance features recall uses beyond BM25 over title, body and tags.
const (
	// FeaturePhrases scores the query's pairs of neighbouring words found
	// side by side in a memory.
	FeaturePhrases Features = 1 << iota
	// FeatureSynonyms matches the other spellings of common abbreviations.
	FeatureSynonyms
	// FeatureNeighbours lends a memory part of the relevance of the memories
	// saved just before and after it (the turns around a reply).
	FeatureNeighbours
	// FeatureCompounds matches words written joined, apart or hyphenated
	// (road trip, roadtrip, road-trip).
	FeatureCompounds
	// FeatureAnyTerm searches for any word of the query unless the memories
	// with every word fill the candidate list; off, only when fewer than ten
	// have every word.
	FeatureAnyTerm
	// FeatureTieBand keeps relevance first (Ranking.TieBand); off, the four
	// signals are blended by their weights alone.
	FeatureTieBand
	// FeatureLengthNorm scores with BM25's b at ShortNotesB instead of the
	// usual 0.75: a long memory is penalised less for its length.
	FeatureLengthNorm
	// FeaturePassages averages a long memory's score with its best
	// passage's, so that the query's words said together count for more
	// than the same words scattered (see passageWords).
	FeaturePassages
	// FeatureRarest narrows the search for any word of a query of
	// longWords words or more to its anyTermRarest rarest; the query's
	// pairs of neighbouring words all still count (see longQuery).
	FeatureRarest
)

// BM25 parameters of recall (FeatureLengthNorm). The usual b of 0.75 was set
// for long documents whose length is mostly verbosity; a memory is a short
// note or a turn of a conversation, whose length is mostly what it says, and
// at 0.75 a one-line reply that shares one word with the question outranks
// the longer turn that answers it. Measured on the development sets (b from
// 0.3 to 0.9, k1 from 0.9 to 2): 0.4 with the usual k1 was best on the turns
// and the sessions together. Since the index gives BM25 the fields' true
// average lengths (index.fieldLengths) rather than Bleve's distinct terms
// per document, re-measured on the three development sets (b from 0 to 0.75,
// k1 from 0.75 to 2): k1 from 0.75 to 1.0 with b from 0.35 to 0.45 is best
// on the turns and the coding memories and loses least on the sessions;
// 1.0 and 0.4 are its middle.
const (
	ShortNotesK1 = 1.0
	ShortNotesB  = 0.4
)

var featureNames = []struct {
	f    Features
	name string
}{
	{FeaturePhrases, "phrases"}, {FeatureSynonyms, "synonyms"}, {FeatureNeighbours, "neighbours"},
	{FeatureCompounds, "compounds"}, {FeatureAnyTerm, "anyterm"}, {FeatureTieBand, "tieband"},
	{FeatureLengthNorm, "lengthnorm"}, {FeaturePassages, "passages"}, {FeatureRarest, "rarest"},
}

// Has reports whether every feature of g is in f.
func (f Features) Has(g Features) bool { return f&g == g }

// ParseFeatures reads a comma-separated list of feature names (phrases,
// synonyms, neighbours, compounds, anyterm, tieband, lengthnorm, passages,
// rarest).
func ParseFeatures(s string) (Features, error) {
	var f Features
	for _, name := range strings.Split(s, ",") {
		name = strings.TrimSpace(name)
		if name == "" {
			continue
		}
		found := false
		for _, fn := range featureNames {
			if fn.name == name {
				f |= fn.f
				found = true
			}
		}
		if !found {
			var names []string
			for _, fn := range featureNames {
				names = append(names, fn.name)
			}
			return 0, invalid("without", "%q is not a feature; the features are %s", name, strings.Join(names, ", "))
		}
	}
	return f, nil
}

// String lists the features of f by name.
func (f Features) String() string {
	var names []string
	for _, fn := range featureNames {
		if f.Has(fn.f) {
			names = append(names, fn.name)
		}
	}
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ",")
}

// On reports whether feature g is on.
func (r Ranking) On(g Features) bool { return !r.Off.Has(g) }

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
	if !(r.TieBand >= 0 && r.TieBand <= 1) {
		return invalid("recall.tie_band", "must be in [0, 1]")
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
// the relevance weight is 0 and the others share its part. With one, the
// others are scaled down so that together they weigh TieBand × their share
// of the relevance weight: relevance decides, they break near-ties. A blend
// that lets them outweigh relevance ranks a recent memory that shares one
// word with the query over the one that answers it.
func (r Ranking) Effective(hasQuery bool) Weights {
	w := r.Weights
	if !hasQuery {
		w.Relevance = 0
	}
	if hasQuery && w.Relevance > 0 && r.On(FeatureTieBand) {
		scale := r.TieBand / w.Relevance
		w = Weights{Relevance: 1, Recency: w.Recency * scale, Activation: w.Activation * scale, Importance: w.Importance * scale}
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
