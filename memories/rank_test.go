package memories

import (
	"math"
	"testing"
	"time"
)

func TestRecency(t *testing.T) {
	now := time.Date(2025, 3, 14, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name string
		base float64
		t    time.Time
		want float64
	}{
		{"now", 0.995, now, 1},
		{"in the future", 0.995, now.Add(time.Hour), 1},
		{"far in the future", 0.995, now.Add(1000 * time.Hour), 1},
		{"an hour ago", 0.995, now.Add(-time.Hour), 0.995},
		{"half an hour ago", 0.995, now.Add(-30 * time.Minute), math.Sqrt(0.995)},
		{"a day ago", 0.995, now.Add(-24 * time.Hour), 0.8866535}, // 0.995^24
		{"a year ago", 0.995, now.Add(-365 * 24 * time.Hour), math.Pow(0.995, 365*24)},
		{"no decay", 1, now.Add(-1000 * time.Hour), 1},
		{"faster decay", 0.5, now.Add(-2 * time.Hour), 0.25},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := Ranking{RecencyBase: tt.base}
			got := r.Recency(tt.t, now)
			if !approx(got, tt.want) {
				t.Errorf("got %g, want %g", got, tt.want)
			}
		})
	}
}

// approx reports whether a and b agree to 6 significant digits.
func approx(a, b float64) bool {
	if a == b {
		return true
	}
	return math.Abs(a-b) <= 1e-6*math.Max(math.Abs(a), math.Abs(b))
}

func TestScore(t *testing.T) {
	def := DefaultRanking()
	tests := []struct {
		name     string
		r        Ranking
		s        Signals
		hasQuery bool
		want     float64
	}{
		{"all ones with query", def, Signals{1, 1, 1, 1}, true, 1},
		{"all ones without query", def, Signals{1, 1, 1, 1}, false, 1},
		{"all zero", def, Signals{}, true, 0},
		// With a query the other three, whose weights add up to relevance's,
		// weigh TieBand (0.1) against relevance's 1: scaled to sum to 1.
		{"relevance only", def, Signals{Relevance: 1}, true, 1 / 1.1},
		{"relevance ignored without query", def, Signals{Relevance: 1}, false, 0},
		{"importance with query", def, Signals{Importance: 1}, true, 0.04 / 1.1},
		// Without a query the other weights, 0.5 in all, are scaled to sum to 1.
		{"importance without query", def, Signals{Importance: 1}, false, 0.4},
		{"recency without query", def, Signals{Recency: 1}, false, 0.3},
		{"activation without query", def, Signals{Activation: 1}, false, 0.3},
		{"blend with query", def, Signals{Relevance: 0.8, Recency: 0.5, Activation: 0.2, Importance: 0.6}, true,
			(0.8 + 0.03*0.5 + 0.03*0.2 + 0.04*0.6) / 1.1},
		{"tie band 1 is the plain blend", withBand(def, 1), Signals{Relevance: 0.8, Recency: 0.5, Activation: 0.2, Importance: 0.6}, true,
			0.5*0.8 + 0.15*0.5 + 0.15*0.2 + 0.2*0.6},
		{"tie band off is the plain blend", withOff(def, FeatureTieBand), Signals{Relevance: 0.8, Recency: 0.5, Activation: 0.2, Importance: 0.6}, true,
			0.5*0.8 + 0.15*0.5 + 0.15*0.2 + 0.2*0.6},
		{"tie band 0: relevance alone", withBand(def, 0), Signals{Relevance: 0.8, Recency: 1, Activation: 1, Importance: 1}, true, 0.8},
		{"tie band with uneven weights", Ranking{Weights: Weights{Relevance: 0.2, Recency: 0.8}, TieBand: 0.1}, Signals{Relevance: 0.5, Recency: 1}, true,
			(0.5 + 0.4*1) / 1.4},
		{"blend without query", def, Signals{Relevance: 0.8, Recency: 0.5, Activation: 0.2, Importance: 0.6}, false,
			(0.15*0.5 + 0.15*0.2 + 0.2*0.6) / 0.5},
		{"weights need not sum to one", Ranking{Weights: Weights{Relevance: 2, Importance: 2}, TieBand: 1}, Signals{Relevance: 1, Importance: 0.5}, true, 0.75},
		{"only relevance weighted, no query", Ranking{Weights: Weights{Relevance: 1}}, Signals{1, 1, 1, 1}, false, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.r.Score(tt.s, tt.hasQuery)
			if !approx(got, tt.want) {
				t.Errorf("got %g, want %g", got, tt.want)
			}
		})
	}
}

func withBand(r Ranking, band float64) Ranking { r.TieBand = band; return r }
func withOff(r Ranking, f Features) Ranking    { r.Off = f; return r }

// TestTieBandKeepsRelevanceFirst is the property the tie band is for: with a
// query, a memory less relevant by more than the band never outranks a more
// relevant one, whatever its recency, activation and importance.
func TestTieBandKeepsRelevanceFirst(t *testing.T) {
	def := DefaultRanking()
	for _, gap := range []float64{0.11, 0.2, 0.5, 0.9} {
		less := Signals{Relevance: 1 - gap, Recency: 1, Activation: 1, Importance: 1}
		more := Signals{Relevance: 1}
		if def.Score(less, true) >= def.Score(more, true) {
			t.Errorf("relevance gap %.2f: %g (recent, used, important) ≥ %g (relevant)", gap, def.Score(less, true), def.Score(more, true))
		}
	}
	// Within the band the others decide.
	less := Signals{Relevance: 0.95, Recency: 1, Activation: 1, Importance: 1}
	if def.Score(less, true) <= def.Score(Signals{Relevance: 1}, true) {
		t.Errorf("relevance gap 0.05: the recent, used, important memory does not win")
	}
}

func TestParseFeatures(t *testing.T) {
	tests := []struct {
		in      string
		want    Features
		wantErr bool
	}{
		{"", 0, false},
		{"neighbours", FeatureNeighbours, false},
		{"lengthnorm", FeatureLengthNorm, false},
		{"passages", FeaturePassages, false},
		{"rarest", FeatureRarest, false},
		{" phrases , synonyms ", FeaturePhrases | FeatureSynonyms, false},
		{"phrases,anyterm,tieband,compounds", FeaturePhrases | FeatureAnyTerm | FeatureTieBand | FeatureCompounds, false},
		{"stemming", 0, true},
	}
	for _, tt := range tests {
		got, err := ParseFeatures(tt.in)
		if tt.wantErr {
			checkArgError(t, err, "without", "stemming", "neighbours")
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("ParseFeatures(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
		}
		if again, err := ParseFeatures(got.String()); tt.want != 0 && (err != nil || again != got) {
			t.Errorf("ParseFeatures(%q.String() = %q) = %v, %v", tt.in, got.String(), again, err)
		}
	}
}

func TestRankingCheck(t *testing.T) {
	ok := DefaultRanking()
	with := func(f func(*Ranking)) Ranking { r := DefaultRanking(); f(&r); return r }
	tests := []struct {
		name    string
		r       Ranking
		wantArg string // empty when valid
	}{
		{"default", ok, ""},
		{"one weight zero", with(func(r *Ranking) { r.Weights.Activation = 0 }), ""},
		{"only importance", Ranking{Weights: Weights{Importance: 1}, RecencyBase: 0.9}, ""},
		{"no decay", with(func(r *Ranking) { r.RecencyBase = 1 }), ""},
		{"negative relevance", with(func(r *Ranking) { r.Weights.Relevance = -0.1 }), "recall.weights.relevance"},
		{"NaN recency", with(func(r *Ranking) { r.Weights.Recency = math.NaN() }), "recall.weights.recency"},
		{"infinite activation", with(func(r *Ranking) { r.Weights.Activation = math.Inf(1) }), "recall.weights.activation"},
		{"negative importance", with(func(r *Ranking) { r.Weights.Importance = -1 }), "recall.weights.importance"},
		{"all zero", with(func(r *Ranking) { r.Weights = Weights{} }), "recall.weights"},
		{"base zero", with(func(r *Ranking) { r.RecencyBase = 0 }), "recall.recency_base"},
		{"base negative", with(func(r *Ranking) { r.RecencyBase = -0.5 }), "recall.recency_base"},
		{"base above one", with(func(r *Ranking) { r.RecencyBase = 1.01 }), "recall.recency_base"},
		{"base NaN", with(func(r *Ranking) { r.RecencyBase = math.NaN() }), "recall.recency_base"},
		{"base infinite", with(func(r *Ranking) { r.RecencyBase = math.Inf(1) }), "recall.recency_base"},
		{"tie band negative", with(func(r *Ranking) { r.TieBand = -0.1 }), "recall.tie_band"},
		{"tie band above one", with(func(r *Ranking) { r.TieBand = 1.5 }), "recall.tie_band"},
		{"tie band NaN", with(func(r *Ranking) { r.TieBand = math.NaN() }), "recall.tie_band"},
		{"tie band one", with(func(r *Ranking) { r.TieBand = 1 }), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.r.Check()
			if tt.wantArg == "" {
				if err != nil {
					t.Errorf("got error %q, want none", err)
				}
				return
			}
			checkArgError(t, err, tt.wantArg)
		})
	}
}
