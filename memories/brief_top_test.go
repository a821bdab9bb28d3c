package memories

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestActiveTopIsSortPrefix checks the bounded selection a briefing uses for
// its most activated memories against the full sort it replaced: the same
// first k, in the same order, with ties in activation broken by id.
func TestActiveTopIsSortPrefix(t *testing.T) {
	for _, tc := range []struct {
		name   string
		n, k   int
		levels int // distinct activations: few make many ties
	}{
		{"none", 0, 5, 3},
		{"fewer than k", 7, 20, 100},
		{"exactly k", 20, 20, 100},
		{"many ties", 500, 50, 3},
		{"all tied", 300, 40, 1},
		{"distinct", 2000, 200, 1 << 30},
		{"k of one", 100, 1, 10},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(uint64(tc.n), uint64(tc.k)))
			var all []activeAct
			top := activeTop{k: tc.k}
			for i := range tc.n {
				x := activeAct{id: fmt.Sprintf("id-%05d", r.IntN(1_000_000)*10+i%10), a: float64(1+r.IntN(tc.levels)) / 7}
				all = append(all, x)
				top.offer(x)
			}
			sort.Slice(all, func(i, j int) bool { return all[i].before(all[j]) })
			if len(all) > tc.k {
				all = all[:tc.k]
			}
			got := top.sorted()
			if diff := cmp.Diff(all, got, cmp.AllowUnexported(activeAct{})); diff != "" {
				t.Errorf("top %d of %d (-sort +heap):\n%s", tc.k, tc.n, diff)
			}
		})
	}
}
