package index

import (
	"context"
	"encoding/binary"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	bsearch "github.com/blevesearch/bleve/v2/search"
	bindex "github.com/blevesearch/bleve_index_api"
	"github.com/google/go-cmp/cmp"

	"github.com/cortexmem/cortex/bench"
	"github.com/cortexmem/cortex/dedup"
	"github.com/cortexmem/cortex/memories"
)

// TestPrefilterKeepsResults compares searches with and without the
// candidates a search for every term starts from: the same memories, in
// the same order, with the same scores to the last bit, over generated
// notes in several segments, with recall's synonyms, compounds and phrases,
// with filters, and for any-term searches (which take no candidates).
func TestPrefilterKeepsResults(t *testing.T) {
	b, err := createBleve(filepath.Join(t.TempDir(), "bleve"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = b.Close() })
	end := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	g := bench.NewGenerator(7, end)
	for batch := 0; batch < 4; batch++ { // a segment each
		var ds []Doc
		for i := 0; i < 300; i++ {
			m := g.Memory()
			ds = append(ds, Doc{ID: fmt.Sprintf("b%d-%03d", batch, i), Memory: m})
		}
		if err := b.Apply(ds); err != nil {
			t.Fatal(err)
		}
	}
	queries := []string{"database migration", "check-up checkup", "config file path", "auth login token session",
		"src/auth/login.ts month", "retry backoff", "flaky test fixture golden", "db database",
		// eleven terms (the most given candidates) and twelve (none)
		"cache database query index lock pool retry timeout deploy build test",
		"cache database query index lock pool retry timeout deploy build test config"}
	q := bench.NewGenerator(8, end)
	for range 80 {
		queries = append(queries, q.Query())
	}
	ctx := context.Background()
	t.Cleanup(func() { prefilter = true })
	compared := 0
	for _, text := range queries {
		for _, req := range []memories.SearchRequest{
			{Text: text, Synonyms: dedup.Synonyms(text), Phrases: true, Compounds: true, Size: 50},
			{Text: text, Size: 10},
			{Text: text, Projects: []string{bench.Projects[0], memories.DefaultProject}, Size: 50},
			{Text: text, AnyTerm: true, Synonyms: dedup.Synonyms(text), Phrases: true, Size: 50},
		} {
			prefilter = false
			want, err := b.Search(ctx, req)
			if err != nil {
				t.Fatal(err)
			}
			prefilter = true
			got, err := b.Search(ctx, req)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("Search(%q, %+v) with candidates differs (-without +with):\n%s", text, req, diff)
			}
			if len(want) > 0 {
				compared++
			}
		}
	}
	if compared < 200 {
		t.Errorf("only %d searches found anything: the comparison says little", compared)
	}
}

// TestIDSearcher walks and skips a list of documents as Bleve's searchers
// do: Next in order, Advance to the first at or after an id, nil past the end.
func TestIDSearcher(t *testing.T) {
	id := func(n uint64) bindex.IndexInternalID { return binary.BigEndian.AppendUint64(nil, n) }
	s := &idSearcher{}
	for _, n := range []uint64{3, 7, 8, 20} {
		s.buf = append(s.buf, id(n)...)
		s.ends = append(s.ends, len(s.buf))
	}
	ctx := &bsearch.SearchContext{DocumentMatchPool: bsearch.NewDocumentMatchPool(1, 0)}
	var got []string
	step := func(d *bsearch.DocumentMatch, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		if d == nil {
			got = append(got, "end")
			return
		}
		got = append(got, fmt.Sprintf("%d/%g", binary.BigEndian.Uint64(d.IndexInternalID), d.Score))
		ctx.DocumentMatchPool.Put(d)
	}
	step(s.Next(ctx))
	step(s.Advance(ctx, id(7)))
	step(s.Advance(ctx, id(9)))
	step(s.Advance(ctx, id(9)))
	step(s.Next(ctx))
	step(s.Advance(ctx, id(1)))
	want := []string{"3/0", "7/0", "20/0", "end", "end", "end"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("walk (-want +got):\n%s", diff)
	}
	if s.Count() != 4 || s.Weight() != 0 {
		t.Errorf("Count %d, Weight %g; want 4 and 0", s.Count(), s.Weight())
	}
}
