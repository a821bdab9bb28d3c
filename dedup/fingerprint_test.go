package dedup

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestContainment(t *testing.T) {
	tests := []struct {
		name   string
		a, b   []uint64
		ab, ba float64 // Containment(a, b), Containment(b, a)
	}{
		{"both empty", nil, nil, 0, 0},
		{"one empty", []uint64{1}, nil, 0, 0},
		{"equal", []uint64{1, 2, 3}, []uint64{1, 2, 3}, 1, 1},
		{"disjoint", []uint64{1, 2}, []uint64{3, 4}, 0, 0},
		// How much of a is in b: a short set is all in a long one, a long set
		// mostly not in a short one (the smaller set used to be the
		// denominator both ways, and a short note "contained" a long one).
		{"subset", []uint64{2}, []uint64{1, 2, 3}, 1, 1.0 / 3},
		{"half", []uint64{1, 5}, []uint64{1, 2, 3, 4}, 0.5, 0.25},
		{"a third", []uint64{1, 2, 3}, []uint64{3, 4, 5, 6}, 1.0 / 3, 0.25},
		{"large values", []uint64{1, math.MaxUint64}, []uint64{math.MaxUint64}, 0.5, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Containment(tt.a, tt.b); got != tt.ab {
				t.Errorf("Containment(a, b) = %v, want %v", got, tt.ab)
			}
			if got := Containment(tt.b, tt.a); got != tt.ba {
				t.Errorf("Containment(b, a) = %v, want %v", got, tt.ba)
			}
		})
	}
}

// TestScoreShortTexts shows what the score is on texts of a few words: the
// share of the new text's words that the old one has, halved by a conflict.
func TestScoreShortTexts(t *testing.T) {
	tests := []struct {
		name       string
		newer, old string
		want       float64
	}{
		{"one word, same", "Redis", "redis", 1},
		{"one word, other", "Redis", "Kafka", 0},
		{"one word said in a sentence", "Redis", "Redis caches sessions", 1},
		{"a sentence against one of its words", "Redis caches sessions", "Redis", 1.0 / 3},
		{"two words, same", "Use Redis", "use redis.", 1},
		{"two words in a sentence", "Use Redis", "Use Redis for the sessions", 1},
		{"two words, one shared", "Use Redis", "Use Kafka", 0.5},
		{"stop words only, same", "the of and", "The of AND", 1}, // kept when nothing else is there
		{"stop words only, other", "to be", "of the", 0},
		{"stop words do not count", "The cache is warm", "cache warm", 1},
		{"empty", "", "Redis", 0},
		{"against empty", "Redis", "", 0},
		{"punctuation only", "!!! ...", "!!! ...", 0},
		{"emoji only", "🚀", "🚀", 0},
		{"sentence order", "One two three. Four five six.", "Four five six. One two three.", 1},
		{"another number caps at 0.5", "Staging pool is 20", "Staging pool is 50", 0.5},
		{"another number under 0.5", "The staging pool is 20", "Prod pool has 50 connections", 1.0 / 3},
		{"a number the old one has", "Pool is 20", "The staging pool is 20, the prod pool 50", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, b := New(tt.newer), New(tt.old)
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
	if diff := cmp.Diff(a, b, cmp.AllowUnexported(Fingerprint{}, polarWord{})); diff != "" {
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
	// Chinese and Japanese: each character, and each pair of characters in a
	// row, is a word.
	if got := len(New("数据库").words); got != 5 {
		t.Errorf("数据库 has %d words, want 3 characters and 2 pairs", got)
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
		// Around where sortSet turns from a comparison sort to bucketSort.
		{"127 values", random(127, math.MaxUint64)},
		{"128 values", random(128, math.MaxUint64)},
		{"200 values, repeats", random(200, 0xFF)},
		{"511 values", random(511, math.MaxUint64)},
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

// TestNewSharesNoBuffer: the sets of a text are gathered in buffers kept
// between texts: a fingerprint holds none of them (making others leaves it
// as it was), and what texts made before leave in them changes nothing.
func TestNewSharesNoBuffer(t *testing.T) {
	opts := cmp.AllowUnexported(Fingerprint{}, polarWord{})
	texts := []string{
		longText(3, 6000),
		"Turn autolock off. Do not enable the cache on Linux: version 2.4, `make build`, port 8080.\nThe cache is not warm, the Cache is cold.",
		"数据库 カタカナ the cache",
		"the of and",
		"",
		longText(11, 300),
		"Log in, then switch the light on.\nDisable the old option and open the door: it is not closed.",
	}
	var first []*Fingerprint
	for _, s := range texts {
		first = append(first, New(s))
	}
	copies := make([]*Fingerprint, len(first))
	for i, f := range first {
		var c Fingerprint
		if err := c.DecodeInto(f.AppendBinary(nil)); err != nil {
			t.Fatal(err)
		}
		copies[i] = &c
	}
	// Every text again, in another order, after the longest.
	for i := len(texts) - 1; i >= 0; i-- {
		if diff := cmp.Diff(first[i], New(texts[i]), opts); diff != "" {
			t.Errorf("text %d made again after others differs:\n%s", i, diff)
		}
	}
	for i := range first {
		if diff := cmp.Diff(copies[i].AppendBinary(nil), first[i].AppendBinary(nil)); diff != "" {
			t.Errorf("text %d's fingerprint changed as others were made:\n%s", i, diff)
		}
	}
	// An import fingerprints on every core: goroutines making them at once
	// share no buffer.
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for r := range 20 {
				i := (g + r) % len(texts)
				if got := New(texts[i]); !cmp.Equal(first[i], got, opts) {
					t.Errorf("text %d made beside others differs", i)
					return
				}
			}
		})
	}
	wg.Wait()
}
