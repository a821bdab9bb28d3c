package memories

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestMeaningfulCharsUpTo: the count stopped at a limit is the whole count
// below it and the limit from it on, in any script.
func TestMeaningfulCharsUpTo(t *testing.T) {
	texts := []string{"", "   ", "abc", "a-b_c 1.2", "ÄÖÜ straße", "数据库", "x\u0301y", "١٢٣ arabic digits", "🚀 !", "\xff\xfeab",
		strings.Repeat("word ", 10), "Это тест на русском языке, и ещё цифры 42."}
	for _, s := range texts {
		for _, limit := range []int{0, 1, 3, MinContentChars, 1000} {
			want := min(meaningfulChars(s), limit)
			if got := meaningfulCharsUpTo(s, limit); got != want {
				t.Errorf("meaningfulCharsUpTo(%q, %d) = %d, want %d", s, limit, got, want)
			}
		}
	}
}

// TestBestPerMemory: each memory once, with its best score, in the order it
// first came, for the short lists a lookup gives and long ones alike.
func TestBestPerMemory(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{0, 1, 5, 20, 32, 33, 100} {
		var all []scored
		for range n {
			all = append(all, scored{entry: Entry{ID: fmt.Sprintf("m%d", rng.IntN(max(n/2, 1)))}, score: float64(rng.IntN(10)) / 10})
		}
		want := []scored{}
		at := map[string]int{}
		for _, c := range all {
			if j, ok := at[c.entry.ID]; ok {
				if c.score > want[j].score {
					want[j] = c
				}
				continue
			}
			at[c.entry.ID] = len(want)
			want = append(want, c)
		}
		got := append([]scored{}, bestPerMemory(append([]scored(nil), all...))...)
		if diff := cmp.Diff(want, got, cmp.AllowUnexported(scored{})); diff != "" {
			t.Errorf("%d scored (-want +got):\n%s", n, diff)
		}
	}
}
