package index

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	bsearch "github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/query"
	bindex "github.com/blevesearch/bleve_index_api"
	"github.com/google/go-cmp/cmp"

	"github.com/cortexmem/cortex/internal/golden"
	"github.com/cortexmem/cortex/memories"
)

// TestSearchesUnchanged runs every kind of search recall, its retries,
// context and the duplicate check make (pruneRequests), pruned and whole,
// over the pruning fixture's 2,000 notes in four segments, and compares a
// digest of each one's results (ids and scores to the bit, in order) with
// testdata/searches.golden. The golden file was written by Bleve's
// searchers before cortex's patch 0010 (which moves a disjunction's and a
// conjunction's searchers on lazily): a change to how the searchers walk
// the postings must not change a single result.
func TestSearchesUnchanged(t *testing.T) {
	b, queries := pruneFixture(t)
	ctx := context.Background()
	minPostings := pruneMinPostings
	t.Cleanup(func() { prune, pruneMinPostings = true, minPostings })
	pruneMinPostings = 0
	var lines []string
	for _, text := range queries {
		for k, req := range pruneRequests(text) {
			for _, pruned := range []bool{false, true} {
				prune = pruned
				got, err := b.Search(ctx, req)
				if err != nil {
					t.Fatal(err)
				}
				h := sha256.New()
				for _, m := range got {
					h.Write([]byte(m.ID))
					h.Write(binary.LittleEndian.AppendUint64(nil, math.Float64bits(m.Score)))
				}
				lines = append(lines, fmt.Sprintf("%q\t%d\tpruned=%v\t%d\t%x", text, k, pruned, len(got), h.Sum(nil)[:8]))
			}
		}
	}
	golden.Check(t, filepath.Join("testdata", "searches.golden"), []byte(strings.Join(lines, "\n")+"\n"))
}

// TestSearchersAdvanceAndNext walks disjunctions and conjunctions of terms
// with Next and Advance mixed at random, as parent searchers call them: each
// call must give what a walk by Next alone gives at that place — Advance to
// a document the first match at or after it, Advance to the last match
// returned (or before it) the match after it — with the same score. The
// searchers keep the searchers of the match they returned where they are
// until the next call (Bleve patches 0010 and, for disjunctions of more than
// ten clauses, 0011); asked to advance to where it is, a term searcher
// starts its postings again, so that case is checked too.
func TestSearchersAdvanceAndNext(t *testing.T) {
	var ms []*memories.Memory
	words := []string{"zebra", "okapi", "lion", "heron"}
	for i := range 300 {
		var body []string
		for k, w := range words {
			if (i+k)%(k+2) == 0 || i%7 == k {
				body = append(body, w)
			}
		}
		// Twelve more words, a disjunction of which is Bleve's heap
		// searcher (more than ten clauses).
		for k := range 12 {
			if (i*3+k)%7 < 2 && i%5 != 0 {
				body = append(body, fmt.Sprintf("word%d", k))
			}
		}
		body = append(body, fmt.Sprintf("filler%d", i%13))
		ms = append(ms, mem(fmt.Sprintf("m%03d", i), fmt.Sprintf("Note %d", i), strings.Join(body, " "), "p", memories.TypeNote, 0))
	}
	b := newBleveOf(t, ms...)
	r := indexReaderOf(t, b)
	term := func(w string) query.Query {
		q := query.NewTermQuery(w)
		q.SetField(fieldBody)
		return q
	}
	queries := map[string]query.Query{
		"any of two":   query.NewDisjunctionQuery([]query.Query{term("zebra"), term("okapi")}),
		"any of four":  query.NewDisjunctionQuery([]query.Query{term("zebra"), term("okapi"), term("lion"), term("heron")}),
		"both":         query.NewConjunctionQuery([]query.Query{term("zebra"), term("okapi")}),
		"both of anys": query.NewConjunctionQuery([]query.Query{query.NewDisjunctionQuery([]query.Query{term("zebra"), term("lion")}), query.NewDisjunctionQuery([]query.Query{term("okapi"), term("heron")})}),
		"any of boths": query.NewDisjunctionQuery([]query.Query{query.NewConjunctionQuery([]query.Query{term("zebra"), term("lion")}), query.NewConjunctionQuery([]query.Query{term("okapi"), term("heron")})}),
	}
	var twelve, boths []query.Query
	for k := range 12 {
		twelve = append(twelve, term(fmt.Sprintf("word%d", k)))
		if k > 0 {
			boths = append(boths, query.NewConjunctionQuery([]query.Query{term(fmt.Sprintf("word%d", k-1)), term(fmt.Sprintf("word%d", k))}))
		}
	}
	queries["any of twelve"] = query.NewDisjunctionQuery(twelve)
	queries["any of twelve, and any of two"] = query.NewConjunctionQuery([]query.Query{query.NewDisjunctionQuery(twelve), queries["any of two"]})
	queries["any of eleven boths"] = query.NewDisjunctionQuery(boths)
	type match struct {
		id    string
		score float64
	}
	walk := func(name string, q query.Query, step func(s bsearch.Searcher, sctx *bsearch.SearchContext, last []byte) (*bsearch.DocumentMatch, error)) []match {
		s, err := q.Searcher(context.Background(), r, b.idx.Mapping(), bsearch.SearcherOptions{})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		sctx := &bsearch.SearchContext{DocumentMatchPool: bsearch.NewDocumentMatchPool(s.DocumentMatchPoolSize(), 0)}
		var out []match
		var last []byte
		for {
			dm, err := step(s, sctx, last)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if dm == nil {
				return out
			}
			last = append(last[:0], dm.IndexInternalID...)
			out = append(out, match{string(dm.IndexInternalID), dm.Score})
			sctx.DocumentMatchPool.Put(dm)
		}
	}
	rng := rand.New(rand.NewPCG(5, 6))
	for name, q := range queries {
		all := walk(name, q, func(s bsearch.Searcher, sctx *bsearch.SearchContext, _ []byte) (*bsearch.DocumentMatch, error) {
			return s.Next(sctx)
		})
		if len(all) < 20 {
			t.Fatalf("%s: %d matches; the test needs more", name, len(all))
		}
		for trial := range 20 {
			var want []match
			got := walk(name, q, func(s bsearch.Searcher, sctx *bsearch.SearchContext, last []byte) (*bsearch.DocumentMatch, error) {
				// The place of the last match in the walk by Next.
				at := 0
				if last != nil {
					at = slices.IndexFunc(all, func(m match) bool { return m.id == string(last) }) + 1
				}
				switch k := rng.IntN(4); {
				case k == 0 || at == len(all):
					if at < len(all) {
						want = append(want, all[at])
					}
					return s.Next(sctx)
				case k == 1 && last != nil:
					// Advance to the last match returned: the next one.
					want = append(want, all[at])
					return s.Advance(sctx, bindex.IndexInternalID(last))
				default:
					// Advance to a match a few places on.
					to := min(at+rng.IntN(5), len(all)-1)
					want = append(want, all[to])
					return s.Advance(sctx, bindex.IndexInternalID(all[to].id))
				}
			})
			if diff := cmp.Diff(want, got, cmp.AllowUnexported(match{})); diff != "" {
				t.Fatalf("%s, trial %d: Next and Advance mixed (-want +got):\n%s", name, trial, diff)
			}
		}
	}
}
