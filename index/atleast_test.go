package index

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/blevesearch/bleve/v2"
	"github.com/google/go-cmp/cmp"

	"github.com/cortexmem/cortex/memories"
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

// TestAtLeastQuery compares the notes an atLeastQuery matches with a count
// made from the notes themselves, for every n, over notes in three
// segments, some of them rewritten (their old versions deleted in their
// segments), with a term to leave out and words of one and of two terms.
func TestAtLeastQuery(t *testing.T) {
	b, err := createBleve(filepath.Join(t.TempDir(), "bleve"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = b.Close() })
	words := []string{"zebra", "okapi", "gnu", "lynx", "tapir", "ibex"}
	rng := rand.New(rand.NewPCG(5, 6))
	latest := map[string]*memories.Memory{}
	note := func(id string) *memories.Memory {
		var body []string
		for _, w := range words {
			if rng.IntN(3) == 0 {
				body = append(body, w)
			}
		}
		title := "Note " + id
		if rng.IntN(5) == 0 {
			title += " heron" // the term left out
		}
		m := mem(id, title, strings.Join(append(body, "grass"), " ")+".", "p", memories.TypeNote, 0)
		if rng.IntN(6) == 0 {
			m.Tags = []string{"lynx"} // the second term of a word
		}
		latest[id] = m
		return m
	}
	for batch := range 3 { // a segment each
		var ms []*memories.Memory
		for i := range 120 {
			ms = append(ms, note(fmt.Sprintf("n%d-%03d", batch, i)))
		}
		if batch == 2 {
			for i := range 40 { // rewritten: deleted where they were
				ms = append(ms, note(fmt.Sprintf("n0-%03d", i*3)))
			}
		}
		if err := b.Apply(docs(ms)); err != nil {
			t.Fatal(err)
		}
	}
	q := &atLeastQuery{except: []fieldTerm{{fieldTitle, "heron"}}}
	for _, w := range words {
		ft := []fieldTerm{{fieldBody, w}}
		if w == "lynx" {
			ft = append(ft, fieldTerm{fieldTags, w})
		}
		q.words = append(q.words, ft)
	}
	// Then with a term of also, which matches whatever the words; except
	// still leaves out.
	for _, also := range []string{"", "lynx"} {
		if also != "" {
			q.also = []fieldTerm{{fieldTags, also}}
		}
		for n := 1; n <= len(words)+1; n++ {
			q.n = n
			var want []string
			for id, m := range latest {
				has := 0
				for _, w := range words {
					if strings.Contains(m.Body, w) || (w == "lynx" && slices.Contains(m.Tags, w)) {
						has++
					}
				}
				if (has >= n || also != "" && slices.Contains(m.Tags, also)) && !strings.Contains(m.Title, "heron") {
					want = append(want, id)
				}
			}
			slices.Sort(want)
			res, err := b.idx.SearchInContext(context.Background(), bleve.NewSearchRequestOptions(q, 1000, 0, false))
			switch {
			case len(want) == 0:
				if !errors.Is(err, errNoneLeft) {
					t.Errorf("n=%d, also %q: no note has enough words, and the search ended with %v, want errNoneLeft", n, also, err)
				}
				continue
			case err != nil:
				t.Fatal(err)
			}
			var got []string
			for _, h := range res.Hits {
				got = append(got, h.ID)
				if h.Score != 0 {
					t.Errorf("n=%d: %s scored %g, want 0", n, h.ID, h.Score)
				}
			}
			slices.Sort(got)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("n=%d, also %q: notes differ (-counted +matched):\n%s", n, also, diff)
			}
			if n == 3 && also == "" && (len(got) < 20 || len(got) > 300) {
				t.Errorf("n=3 matched %d notes: the fixture does not test much", len(got))
			}
		}
	}
	q.also = nil
	// More words than a count can hold: the caller searches without it.
	many := &atLeastQuery{n: 1, words: make([][]fieldTerm, excluded)}
	if _, err := b.idx.SearchInContext(context.Background(), bleve.NewSearchRequestOptions(many, 10, 0, false)); !errors.Is(err, errNoBitmaps) {
		t.Errorf("a query of %d words ended with %v, want errNoBitmaps", excluded, err)
	}
}
