package index

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/blevesearch/bleve/v2"
	bsearch "github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/query"

	"github.com/cortexmem/cortex/memories"
)

// TestDisjunctionScoresOverLayouts checks bleve patch 0008: a disjunction
// of more than ten clauses (Bleve's heap searcher; recall's words with
// their other spellings and compounds make them) adds its matches' scores
// in the order of its clauses, so a document scores the same to the last
// bit however the index's segments lie. The same 300 notes, each with a
// few of twelve words, are indexed in one batch and in reverse batches of
// 30; under the same BM25 statistics (Bleve sums a field's distinct terms
// over the segments, which is another matter) every score must be equal.
// The heap's order had made 1-ulp differences, enough to swap two notes.
func TestDisjunctionScoresOverLayouts(t *testing.T) {
	words := make([]string, 12)
	for i := range words {
		words[i] = fmt.Sprintf("word%c", 'a'+i)
	}
	r := rand.New(rand.NewPCG(3, 4))
	var ms []*memories.Memory
	for i := range 300 {
		var body []string
		for _, w := range words {
			for range r.IntN(4) * r.IntN(2) {
				body = append(body, w)
			}
		}
		body = append(body, words[i%len(words)])
		ms = append(ms, mem(fmt.Sprintf("n%03d", i), "Note", strings.Join(body, " "), "alpha", memories.TypeNote, 1))
	}
	clauses := make([]query.Query, len(words))
	for i, w := range words {
		q := bleve.NewTermQuery(w)
		q.SetField(fieldBody)
		q.SetBoost([]float64{1, 1e-7, 3.3, 1e5, 0.7, 17, 1e-3, 2.9, 1e3, 0.01, 5.5, 1.1}[i])
		clauses[i] = q
	}
	stats := &bsearch.BM25Stats{DocCount: float64(len(ms)), FieldCardinality: map[string]int{fieldBody: 3 * len(ms)}}
	ctx := context.WithValue(context.Background(), bsearch.BM25StatsKey, stats)
	scores := func(layout string) map[string]float64 {
		b, err := createBleve(t.TempDir() + "/bleve")
		if err != nil {
			t.Fatal(err)
		}
		defer b.Close()
		if layout == "one batch" {
			err = b.Apply(docs(ms))
		}
		for end := len(ms); layout != "one batch" && end > 0 && err == nil; end -= 30 {
			err = b.Apply(docs(ms[end-30 : end]))
		}
		if err != nil {
			t.Fatal(err)
		}
		sr := bleve.NewSearchRequestOptions(bleve.NewDisjunctionQuery(clauses...), len(ms), 0, false)
		res, err := b.idx.SearchInContext(ctx, sr)
		if err != nil {
			t.Fatal(err)
		}
		out := make(map[string]float64, len(res.Hits))
		for _, h := range res.Hits {
			out[h.ID] = h.Score
		}
		return out
	}
	one, reverse := scores("one batch"), scores("reverse batches of 30")
	if len(one) != len(ms) || len(reverse) != len(ms) {
		t.Fatalf("%d and %d hits, want %d", len(one), len(reverse), len(ms))
	}
	differ := 0
	for id, s := range one {
		if reverse[id] != s {
			if differ++; differ <= 5 {
				t.Errorf("%s scores %v in one batch, %v in reverse batches", id, s, reverse[id])
			}
		}
	}
	if differ > 0 {
		t.Errorf("%d of %d notes score otherwise in the two layouts", differ, len(ms))
	}
}
