package dedup

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"
)

func TestPool(t *testing.T) {
	p := NewPool()
	if got := p.Similar(New("anything at all"), 3); got != nil {
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
		p.Add(New(s))
	}
	if p.Len() != len(texts) {
		t.Fatalf("Len = %d", p.Len())
	}
	got := p.Similar(New("Always use RS256 for JWT signing in production, because HS256 shares the secret!"), 3)
	if len(got) == 0 || got[0].Index != 0 || got[0].Score < 0.7 {
		t.Fatalf("a paraphrase of text 0: %+v", got)
	}
	got = p.Similar(New("Redis sessions are encrypted at rest"), 1)
	if len(got) != 1 || got[0].Index != 1 || got[0].Score <= 0.2 || got[0].Score >= 0.7 {
		t.Errorf("a related text: %+v", got)
	}
	if got := p.Similar(New("Kafka partitions rebalance during deploys"), 3); len(got) != 0 {
		t.Errorf("an unrelated text: %+v", got)
	}
	if got := p.Similar(New(""), 3); got != nil {
		t.Errorf("an empty text: %+v", got)
	}
}

// TestPoolRarestWords: the words that find a text's candidates are its
// poolRarest rarest in the pool (fewest texts, then lowest hash), as a sort
// of all its words gives them; Similar keeps them in order as it goes
// rather than sorting, which must not change what it proposes.
func TestPoolRarestWords(t *testing.T) {
	p := NewPool()
	words := []string{"alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet",
		"kilo", "lima", "mike", "november", "oscar", "papa", "quebec", "romeo", "sierra", "tango", "uniform", "victor"}
	for i := range 300 {
		var text string
		for j, w := range words {
			if (i+1)%(j+2) == 0 || (i*7+j)%11 == 0 {
				text += w + " "
			}
		}
		p.Add(New(fmt.Sprintf("note %d %s", i, text)))
	}
	for i := range 40 {
		var text string
		for j, w := range words {
			if (i+j)%3 != 0 {
				text += w + " "
			}
		}
		fp := New(text)
		p.Similar(fp, 5)
		var all []poolWord
		for _, w := range fp.words {
			if df := len(p.postings[w]); df > 0 {
				all = append(all, poolWord{w, df})
			}
		}
		slices.SortFunc(all, func(a, b poolWord) int {
			if a.df != b.df {
				return a.df - b.df
			}
			return cmp.Compare(a.w, b.w)
		})
		want := all[:min(poolRarest, len(all))]
		if !slices.Equal(p.rarest, want) {
			t.Fatalf("text %d: rarest words %v, want %v", i, p.rarest, want)
		}
	}
}

// TestPoolCandidatesAsCountedOneByOne: Similar picks its candidates — the
// texts sharing the most of the rarest words, lower indexes first among
// equals — as counting down one count at a time and sorting each count's
// texts does, in pools with many ties (a small vocabulary) and few.
func TestPoolCandidatesAsCountedOneByOne(t *testing.T) {
	for _, vocab := range []int{12, 40, 400} {
		rng := rand.New(rand.NewPCG(uint64(vocab), 7))
		text := func() string {
			var b strings.Builder
			for range 3 + rng.IntN(25) {
				fmt.Fprintf(&b, "w%d ", rng.IntN(vocab))
			}
			return b.String()
		}
		p := NewPool()
		var fps []*Fingerprint
		for range 600 {
			fp := New(text())
			fps = append(fps, fp)
			p.Add(fp)
		}
		for q := range 200 {
			fp := New(text())
			got := p.Similar(fp, 1000)
			// The candidates counted down one count at a time.
			shared := map[int32]int{}
			for _, w := range p.rarest {
				for _, i := range p.postings[w.w] {
					shared[i]++
				}
			}
			var cands []int32
			for c := len(p.rarest); c >= 1 && len(cands) < poolCandidates; c-- {
				from := len(cands)
				for i, n := range shared {
					if n == c {
						cands = append(cands, i)
					}
				}
				slices.Sort(cands[from:])
			}
			var want []Match
			for _, i := range cands[:min(poolCandidates, len(cands))] {
				if s := Compare(fp, fps[i]); s.Score > 0 {
					want = append(want, Match{Index: int(i), Score: s.Score, Related: s.Related})
				}
			}
			slices.SortFunc(want, func(a, b Match) int {
				return cmp.Or(cmp.Compare(b.Score, a.Score), a.Index-b.Index)
			})
			if diff := gocmp.Diff(want, got); diff != "" {
				t.Fatalf("vocabulary %d, lookup %d (-counted one by one +Similar):\n%s", vocab, q, diff)
			}
		}
	}
}
