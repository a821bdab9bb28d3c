package dedup

import (
	"fmt"
	"math/bits"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"
)

// near is what Near must give for fp among fps (the pool's texts, by
// index, in groups): every text in groups whose Words reaches th.Duplicate
// and the k most related above th.Related with those tied with the k-th,
// each compared whole, in index order.
func near(fp *Fingerprint, fps []*Fingerprint, groupOf []int32, groups []int32, th Thresholds, k int) []Match {
	type cand struct {
		i   int
		sim Similarity
	}
	var all []cand
	for i, o := range fps {
		if !slices.Contains(groups, groupOf[i]) {
			continue
		}
		if s := Compare(fp, o); s.Words > 0 {
			all = append(all, cand{i, s})
		}
	}
	keep := map[int]bool{}
	var rel []cand
	for _, c := range all {
		if c.sim.Words >= th.Duplicate {
			keep[c.i] = true
		}
		if c.sim.Related > th.Related {
			rel = append(rel, c)
		}
	}
	slices.SortStableFunc(rel, func(a, b cand) int {
		switch {
		case a.sim.Related > b.sim.Related:
			return -1
		case a.sim.Related < b.sim.Related:
			return 1
		}
		return 0
	})
	for j, c := range rel {
		if k == 0 || j >= k && c.sim.Related < rel[k-1].sim.Related {
			break
		}
		keep[c.i] = true
	}
	var out []Match
	for _, c := range all {
		if !keep[c.i] {
			continue
		}
		score := c.sim.Words
		if c.sim.Words >= th.Duplicate {
			score = c.sim.Score
		}
		out = append(out, Match{Index: c.i, Words: c.sim.Words, Score: score, Related: c.sim.Related})
	}
	return out
}

func TestPool(t *testing.T) {
	th := DefaultThresholds()
	p := NewPool()
	if got := p.Near(New("anything at all"), []int32{0}, th, 3); got != nil {
		t.Errorf("empty pool: %v", got)
	}
	texts := []string{
		"Use RS256 for JWT signing in production because HS256 shares the secret.",
		"Redis is the session store; sessions expire after 24 hours.",
		"The office coffee machine is descaled on Fridays.",
	}
	for i := 0; i < 200; i++ {
		texts = append(texts, fmt.Sprintf("Filler note %d about widget %d and gadget %d.", i, i*7, i*13))
	}
	for _, s := range texts {
		p.Add(New(s), 0)
	}
	if p.Len() != len(texts) {
		t.Fatalf("Len = %d", p.Len())
	}
	got := p.Near(New("Always use RS256 for JWT signing in production, because HS256 shares the secret!"), []int32{0}, th, 3)
	if len(got) == 0 || got[0].Index != 0 || got[0].Score < 0.7 {
		t.Fatalf("a paraphrase of text 0: %+v", got)
	}
	if got := p.Near(New("Always use RS256 for JWT signing in production, because HS256 shares the secret!"), []int32{1}, th, 3); len(got) != 0 {
		t.Errorf("another group: %+v", got)
	}
	got = p.Near(New("Redis sessions are encrypted at rest"), []int32{0}, th, 1)
	if len(got) != 1 || got[0].Index != 1 || got[0].Related <= 0.2 || got[0].Score >= 0.7 {
		t.Errorf("a related text: %+v", got)
	}
	if got := p.Near(New("Kafka partitions rebalance during deploys"), []int32{0}, th, 3); len(got) != 0 {
		t.Errorf("an unrelated text: %+v", got)
	}
	if got := p.Near(New(""), []int32{0}, th, 3); got != nil {
		t.Errorf("an empty text: %+v", got)
	}
}

// poolCorpus makes texts of a small vocabulary, where every word is in
// many texts (words get bits), with rare words (they keep their lists) and
// near-copies of earlier texts, some cut short (duplicates and ties). With
// phases above 1 the vocabulary moves on that many times, as languages do
// in an import of a multilingual documentation folder.
func poolCorpus(seed uint64, count, vocab, phases int) []string {
	rng := rand.New(rand.NewPCG(seed, 7))
	var texts []string
	for i := range count {
		if i > 0 && rng.IntN(5) == 0 {
			words := strings.Fields(texts[rng.IntN(len(texts))])
			words = words[:len(words)-rng.IntN(len(words)/2+1)]
			if rng.IntN(2) == 0 {
				words = append(words, fmt.Sprintf("rare%d", rng.IntN(3*count)))
			}
			texts = append(texts, strings.Join(words, " "))
			continue
		}
		var b strings.Builder
		for range 3 + rng.IntN(40) {
			// A skewed choice: low words are common.
			fmt.Fprintf(&b, "w%d ", i*phases/count*vocab/2+rng.IntN(1+rng.IntN(vocab)))
		}
		for range rng.IntN(3) {
			fmt.Fprintf(&b, "rare%d ", rng.IntN(3*count))
		}
		texts = append(texts, b.String())
	}
	return texts
}

// TestPoolNearIsExact: Near gives what comparing the new text with every
// pooled text of its groups gives, in pools whose words are all common
// (bits), all rare (lists) or both, with many ties, and at other
// thresholds and k; with texts in three groups, or all in one (a lookup
// that need not look at groups), or looked up in a group named twice.
func TestPoolNearIsExact(t *testing.T) {
	for _, c := range []struct {
		vocab, phases int
		th            Thresholds
		k             int
		groups        int // 0: three, the lookup in its own and group 0
		same          bool
	}{
		{12, 1, DefaultThresholds(), 4, 0, false},
		{60, 1, DefaultThresholds(), 4, 0, false},
		{700, 1, DefaultThresholds(), 4, 0, false},
		{5000, 1, DefaultThresholds(), 4, 0, false},
		{60, 1, Thresholds{Duplicate: 0.5, Related: 0.05}, 1, 0, false},
		{300, 1, Thresholds{Duplicate: 0.9, Related: 0.3}, 2, 0, false},
		{300, 1, DefaultThresholds(), 0, 0, false},
		// Thresholds of 0: a text sharing no word is still no match.
		{60, 1, Thresholds{}, 2, 0, false},
		// Related high enough that Near's least-related bound leaves texts out.
		{60, 1, Thresholds{Duplicate: 0.9, Related: 0.4}, 4, 0, false},
		{300, 1, Thresholds{Duplicate: 0.9, Related: 0.6}, 3, 0, false},
		{400, 6, DefaultThresholds(), 4, 0, false}, // slots taken back for later words
		{60, 1, DefaultThresholds(), 4, 1, false},
		{700, 1, DefaultThresholds(), 4, 1, false},
		{400, 3, DefaultThresholds(), 4, 1, false},
		{300, 1, DefaultThresholds(), 4, 2, true},
	} {
		texts := poolCorpus(uint64(c.vocab), 900*min(c.phases, 3), c.vocab, c.phases)
		p := NewPool()
		var fps []*Fingerprint
		var groupOf []int32
		for i, s := range texts {
			fp := New(s)
			g := int32(i % 3)
			groups := []int32{g, 0}
			switch {
			case c.same:
				g = int32(i % c.groups)
				groups = []int32{g, g}
			case c.groups > 0:
				g = int32(i % c.groups)
				groups = []int32{g}
			}
			got := p.Near(fp, groups, c.th, c.k)
			want := near(fp, fps, groupOf, groups, c.th, c.k)
			if diff := gocmp.Diff(want, got); diff != "" {
				t.Fatalf("vocabulary %d, %+v, k %d, text %d (-compared with each +Near):\n%s", c.vocab, c.th, c.k, i, diff)
			}
			p.Add(fp, g)
			fps = append(fps, fp)
			groupOf = append(groupOf, g)
		}
		if c.phases > 1 && p.moved == 0 {
			t.Errorf("vocabulary %d in %d phases: no slot was given to a later word", c.vocab, c.phases)
		}
	}
}

// TestPoolNearBestPicksAsNear: NearBest gives what Near gives but the
// scores of possible duplicates that cannot be the best: each of those keeps
// its Words, above its score and below the best score, so the best (and
// every text tied with it) is the same. The corpus repeats texts with a
// number added, which caps a repeat's score (a conflict), so that the best
// by Words is not always the best by score.
func TestPoolNearBestPicksAsNear(t *testing.T) {
	th := DefaultThresholds()
	for _, vocab := range []int{12, 60, 700} {
		rng := rand.New(rand.NewPCG(uint64(vocab), 9))
		texts := poolCorpus(uint64(vocab), 1500, vocab, 1)
		for i := range texts {
			if rng.IntN(3) == 0 {
				texts[i] += fmt.Sprintf(" port %d", 1000+rng.IntN(50))
			}
		}
		p := NewPool()
		var fps []*Fingerprint
		var groupOf []int32
		skipped, capped := 0, 0
		for i, s := range texts {
			fp := New(s)
			g := int32(i % 2)
			groups := []int32{g, 0}
			got := p.NearBest(fp, groups, th, 4)
			want := near(fp, fps, groupOf, groups, th, 4)
			most := -1.0
			for _, m := range want {
				if m.Words >= th.Duplicate {
					most = max(most, m.Score)
					if m.Score < m.Words {
						capped++
					}
				}
			}
			if len(got) != len(want) {
				t.Fatalf("vocabulary %d, text %d: %d matches, Near gives %d", vocab, i, len(got), len(want))
			}
			for j, m := range got {
				w := want[j]
				if m.Score != w.Score {
					skipped++
					if m.Score != m.Words || m.Score >= most {
						t.Fatalf("vocabulary %d, text %d: %+v left unscored, scores %v, best %v", vocab, i, m, w.Score, most)
					}
				}
				m.Score = w.Score
				if m != w {
					t.Fatalf("vocabulary %d, text %d: got %+v, Near gives %+v", vocab, i, m, w)
				}
			}
			p.Add(fp, g)
			fps = append(fps, fp)
			groupOf = append(groupOf, g)
		}
		if skipped == 0 || capped == 0 {
			t.Errorf("vocabulary %d: %d scores skipped, %d capped by a conflict; the corpus tests neither", vocab, skipped, capped)
		}
	}
}

// TestAddSharedAsPlaneByPlane: counting the shared words four, two and one
// planes at a time gives the counts of one pass per plane, whichever planes
// the new text has bits in.
func TestAddSharedAsPlaneByPlane(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	const n = 37
	var planes [poolBitWords][]uint64
	for w := range planes {
		planes[w] = make([]uint64, n)
		for j := range planes[w] {
			planes[w][j] = rng.Uint64() & rng.Uint64()
		}
	}
	for subset := range 1 << poolBitWords {
		var q [poolBitWords]uint64
		for w := range q {
			if subset&(1<<w) != 0 {
				q[w] = rng.Uint64()
			}
		}
		want := make([]int32, n)
		for j := range want {
			want[j] = int32(j % 3) // counts the rare words' lists gave
			for w := range q {
				want[j] += int32(bits.OnesCount64(q[w] & planes[w][j]))
			}
		}
		got := make([]int32, n)
		for j := range got {
			got[j] = int32(j % 3)
		}
		addShared(got, &planes, &q)
		if diff := gocmp.Diff(want, got); diff != "" {
			t.Fatalf("planes %08b: addShared (-one pass per plane +addShared):\n%s", subset, diff)
		}
	}
}

// TestPoolAddReusesTheLookup: Add of the text Near looked up last finds the
// words the pool held then where Near found them, not in the map again, and
// leaves the pool as an Add without the lookup does; any other text, or the
// same one changed since, is looked up in the map.
func TestPoolAddReusesTheLookup(t *testing.T) {
	texts := poolCorpus(7, 300, 200, 1)
	looked, plain := NewPool(), NewPool()
	for i, s := range texts {
		fp := New(s)
		looked.Near(fp, []int32{0}, DefaultThresholds(), 4)
		looked.Add(fp, 0)
		plain.Add(fp, 0)
		if i%50 == 0 {
			// A text other than the one looked up.
			other := New(texts[(i+7)%len(texts)] + " zebra")
			looked.Add(other, 0)
			plain.Add(other, 0)
		}
	}
	if diff := gocmp.Diff(plain.words, looked.words); diff != "" {
		t.Fatalf("words differ (-without lookups +with):\n%s", diff)
	}
	if diff := gocmp.Diff(plain.infos, looked.infos, gocmp.AllowUnexported(poolWord{})); diff != "" {
		t.Fatalf("word infos differ (-without lookups +with):\n%s", diff)
	}
	if !slices.EqualFunc(plain.planes[:], looked.planes[:], slices.Equal) || !slices.Equal(plain.sizes, looked.sizes) {
		t.Fatal("bit planes or sizes differ")
	}

	// The map is not read for the words Near found: with every word taken
	// out of it after the lookup, Add still counts the text on the words
	// held, and adds only the one the pool did not hold.
	fp, fresh := New(texts[3]), New(texts[3]+" quagga")
	looked.Near(fresh, []int32{0}, DefaultThresholds(), 4)
	held := map[uint64]int32{}
	for _, w := range fresh.Words() {
		if k, ok := looked.words[w]; ok {
			held[w] = k
		}
	}
	if len(held) == 0 || len(held) == len(fresh.Words()) {
		t.Fatalf("%d of %d words held: want some, not all", len(held), len(fresh.Words()))
	}
	words, infos := looked.words, len(looked.infos)
	looked.words = map[uint64]int32{}
	looked.Add(fresh, 0)
	if got, want := len(looked.infos), infos+len(fresh.Words())-len(held); got != want {
		t.Errorf("%d word infos after adding the text looked up, want %d: the words held were looked up again", got, want)
	}
	for w, k := range held {
		if _, ok := looked.words[w]; ok {
			t.Errorf("word %x (info %d) put in the map again", w, k)
		}
	}
	// A text not looked up reads the map.
	looked.words = words
	before := len(looked.infos)
	looked.Add(fp, 0)
	if len(looked.infos) != before {
		t.Errorf("adding a text whose words are all held made %d word infos", len(looked.infos)-before)
	}
}

// TestNearBars: relatedFrom is the least count that can be related,
// exactly: every count below cannot (whatever the size of the text sharing
// it, at least the count), and the count itself can (a text of that size),
// so the scan passes every text it may and no other.
func TestNearBars(t *testing.T) {
	for n := int32(1); n <= 80; n++ {
		for _, related := range []float64{0, 0.05, 0.2, 0.3333, 0.5, 0.9, 1} {
			at := relatedFrom(n, related)
			for c := int32(0); c < min(at, n+1); c++ {
				for size := c; size <= c+3*n; size++ {
					if 2*float64(c)/float64(n+size) > related {
						t.Fatalf("n %d, related %g: relatedFrom %d, but %d words of %d pass", n, related, at, c, size)
					}
				}
			}
			if at <= n && !(2*float64(at)/float64(n+at) > related) {
				t.Fatalf("n %d, related %g: relatedFrom %d does not pass at size %d", n, related, at, at)
			}
		}
	}
}
