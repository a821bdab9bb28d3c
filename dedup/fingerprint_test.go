package dedup

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestContainment(t *testing.T) {
	tests := []struct {
		name string
		a, b []uint64
		want float64
	}{
		{"both empty", nil, nil, 0},
		{"one empty", []uint64{1}, nil, 0},
		{"equal", []uint64{1, 2, 3}, []uint64{1, 2, 3}, 1},
		{"disjoint", []uint64{1, 2}, []uint64{3, 4}, 0},
		{"subset", []uint64{2}, []uint64{1, 2, 3}, 1},
		{"half of the smaller", []uint64{1, 5}, []uint64{1, 2, 3, 4}, 0.5},
		{"a third", []uint64{1, 2, 3}, []uint64{3, 4, 5, 6}, 1.0 / 3},
		{"large values", []uint64{1, math.MaxUint64}, []uint64{math.MaxUint64}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Containment(tt.a, tt.b); got != tt.want {
				t.Errorf("Containment(a, b) = %v, want %v", got, tt.want)
			}
			if got := Containment(tt.b, tt.a); got != tt.want {
				t.Errorf("Containment(b, a) = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestScoreShortTexts shows what the renormalisation does: a set neither text
// has drops out, a set only one has counts as 0.
func TestScoreShortTexts(t *testing.T) {
	tests := []struct {
		name string
		a, b string
		want float64
	}{
		{"one word, same", "Redis", "redis", 1},
		{"one word, other", "Redis", "Kafka", 0},
		{"one word in a sentence", "Redis", "Redis caches sessions", 0.5},            // words only
		{"one word in two", "Redis", "Redis cache", 0.5 / 0.8},                       // no trigrams on either side
		{"two words, same", "Use Redis", "use redis", 1},                             // words and bigrams
		{"two words in a sentence", "Use Redis", "Use Redis for the sessions", 0.8},  // trigrams 0
		{"two words, one shared", "Use Redis", "Use Kafka", (0.5*0.5 + 0.3*0) / 0.8}, // no trigrams
		{"stop words only, same", "the of and", "The of AND", 1},                     // kept when nothing else is there
		{"stop words only, other", "to be", "of the", 0},
		{"stop words do not count", "The cache is warm", "cache warm", 1},
		{"empty", "", "Redis", 0},
		{"punctuation only", "!!! ...", "!!! ...", 0},
		{"emoji only", "🚀", "🚀", 0},
		{"sentence order", "One two three. Four five six.", "Four five six. One two three.", 1}, // n-grams stop at sentences
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, b := New(tt.a), New(tt.b)
			if got := Score(a, b); math.Abs(got-tt.want) > 1e-12 {
				t.Errorf("Score = %v, want %v (%+v)", got, tt.want, Compare(a, b))
			}
		})
	}
}

func TestEmpty(t *testing.T) {
	for _, tt := range []struct {
		text string
		want bool
	}{
		{"", true}, {"  \n", true}, {"—!?", true}, {"🚀🎉", true}, {"\xff\xfe", true},
		{"a", false}, {"the", false}, {"日", false}, {"42", false},
	} {
		if got := New(tt.text).Empty(); got != tt.want {
			t.Errorf("New(%q).Empty() = %v, want %v", tt.text, got, tt.want)
		}
	}
	var nilFP *Fingerprint
	if !nilFP.Empty() {
		t.Error("a nil Fingerprint is not Empty")
	}
	if got := Score(nilFP, New("redis")); got != 0 {
		t.Errorf("Score(nil, redis) = %v, want 0", got)
	}
}

func TestNewIsDeterministic(t *testing.T) {
	text := longText(9, 5000)
	a, b := New(text), New(strings.Clone(text))
	if diff := cmp.Diff(a, b, cmp.AllowUnexported(Fingerprint{})); diff != "" {
		t.Errorf("two fingerprints of one text differ:\n%s", diff)
	}
	// The hashes are FNV-1a, the same in every process: pin one.
	if got, want := New("redis").words, []uint64{hashString("redis")}; !cmp.Equal(got, want) {
		t.Errorf("words of \"redis\" = %x, want %x", got, want)
	}
	if got, want := hashString("a"), uint64(0xaf63dc4c8601ec8c); got != want {
		t.Errorf("FNV-1a(\"a\") = %x, want %x", got, want)
	}
}

func TestFingerprintSets(t *testing.T) {
	f := New("The cache is warm. The cache is cold, the cache is warm")
	// Words: cach, warm, cold. Sentences: [cache warm] [cache cold cache warm].
	for _, s := range []struct {
		name string
		got  []uint64
		want int
	}{
		{"words", f.words, 3},
		{"bigrams", f.bigrams, 3}, // cache-warm, cache-cold, cold-cache
		{"trigrams", f.trigrams, 2},
	} {
		if len(s.got) != s.want {
			t.Errorf("%d %s, want %d", len(s.got), s.name, s.want)
		}
		for i := 1; i < len(s.got); i++ {
			if s.got[i-1] >= s.got[i] {
				t.Errorf("%s not sorted and distinct: %x", s.name, s.got)
				break
			}
		}
	}
}

func TestSortSet(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	random := func(n int, mask uint64) []uint64 {
		s := make([]uint64, n)
		for i := range s {
			s[i] = r.Uint64() & mask
		}
		return s
	}
	tests := []struct {
		name string
		in   []uint64
	}{
		{"empty", nil},
		{"small", []uint64{3, 1, 2, 3, 1}},
		{"random, bucket sorted", random(3000, math.MaxUint64)},
		{"many repeats", random(3000, 0xF)},
		{"same top bits, one bucket", random(3000, 1<<40-1)},
		{"two per bucket", append(random(1000, math.MaxUint64), random(1000, math.MaxUint64)...)},
	}
	var scratch sortScratch
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := slices.Compact(slices.Sorted(slices.Values(tt.in)))
			got := sortSet(slices.Clone(tt.in), &scratch)
			if !slices.Equal(got, want) {
				t.Errorf("sortSet gave %d values, want %d sorted and distinct", len(got), len(want))
			}
		})
	}
}
