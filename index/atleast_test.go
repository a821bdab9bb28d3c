package index

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestAtLeastKeepsEnough: a search for every word given AtLeast answers as
// without it whenever it finds AtLeast hits or more, and with none at all
// (having stopped before scoring) when it would find fewer, over the
// generated queries, for each kind of search recall makes.
func TestAtLeastKeepsEnough(t *testing.T) {
	b, queries := pruneFixture(t)
	ctx := context.Background()
	var enough, cut int
	for _, text := range queries {
		for _, req := range pruneRequests(text) {
			for _, atLeast := range []int{1, 3, 10, 50} {
				want, err := b.Search(ctx, req)
				if err != nil {
					t.Fatal(err)
				}
				req.AtLeast = atLeast
				got, err := b.Search(ctx, req)
				if err != nil {
					t.Fatal(err)
				}
				switch {
				case len(want) >= atLeast:
					enough++
					if diff := cmp.Diff(want, got); diff != "" {
						t.Errorf("Search(%q, %+v) with AtLeast %d differs (-without +with):\n%s", text, req, atLeast, diff)
					}
				case len(got) > 0 && len(got) != len(want):
					t.Errorf("Search(%q, %+v) with AtLeast %d found %d, without %d", text, req, atLeast, len(got), len(want))
				case len(got) == 0 && len(want) > 0:
					cut++
				}
				req.AtLeast = 0
			}
		}
	}
	if enough < 500 || cut < 50 {
		t.Errorf("%d searches found enough and %d were cut short: the comparison says little", enough, cut)
	}
	t.Logf("%d searches found enough, %d were cut short", enough, cut)
}
