package index

import (
	"context"
	"fmt"
	"maps"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/blevesearch/bleve/v2"
	bsearch "github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/query"
	"github.com/google/go-cmp/cmp"

	"github.com/cortexmem/cortex/bench"
	"github.com/cortexmem/cortex/dedup"
	"github.com/cortexmem/cortex/memories"
)

// pruneFixture is an index of generated notes in four segments, and queries
// of one to four words, common ones among them.
func pruneFixture(t *testing.T) (*Bleve, []string) {
	t.Helper()
	b, err := createBleve(filepath.Join(t.TempDir(), "bleve"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = b.Close() })
	end := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	g := bench.NewGenerator(11, end)
	for batch := 0; batch < 4; batch++ { // a segment each
		var ds []Doc
		for i := 0; i < 500; i++ {
			ds = append(ds, Doc{ID: fmt.Sprintf("b%d-%03d", batch, i), Memory: g.Memory()})
		}
		if err := b.Apply(ds); err != nil {
			t.Fatal(err)
		}
	}
	queries := []string{"database", "database migration", "config file path", "check-up checkup", "db database",
		"retry backoff", "auth login token session", "the database of the service"}
	q := bench.NewGenerator(12, end)
	for range 60 {
		text := q.Query()
		queries = append(queries, text, strings.Fields(text)[0])
	}
	return b, queries
}

// pruneQuestions are questions of 8 to 14 words after their opening, as
// agents ask them (bench's Question): searches for any of many words, which
// a first pass alone rarely answers.
func pruneQuestions() []string {
	q := bench.NewGenerator(13, time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC))
	var qs []string
	for range 40 {
		qs = append(qs, q.Question())
	}
	return qs
}

// pruneRequests are the searches recall, its any-word retry, context and
// the duplicate check make of a text.
func pruneRequests(text string) []memories.SearchRequest {
	syn := dedup.Synonyms(text)
	return []memories.SearchRequest{
		{Text: text, Synonyms: syn, Phrases: true, Compounds: true, Size: 50, K1: memories.ShortNotesK1, B: memories.ShortNotesB},
		{Text: text, Synonyms: syn, Phrases: true, Compounds: true, AnyTerm: true, Size: 50, K1: memories.ShortNotesK1, B: memories.ShortNotesB},
		{Text: text, Size: 10},
		{Text: text, AnyTerm: true, Size: 10},
		{Text: text, Projects: []string{bench.Projects[0], memories.DefaultProject}, Size: 50},
		{Text: text, AnyTerm: true, Rarest: 3, Size: 20},
	}
}

// prunedCounts are how many searches the first pass answered, how many of
// those the pass over the words' own clauses did (wordsPass), and how many
// a first pass and a pass over the notes with enough words answered
// together (extraPass), and of those how many found no such note.
type prunedCounts struct {
	answered, byWords, extra, extraNone, extraAfterWords uint64
}

func loadPrunedCounts() prunedCounts {
	return prunedCounts{prunedSearches.Load(), prunedByWords.Load(), extraPasses.Load(), extraNone.Load(), extraAfterWords.Load()}
}

// comparePruned runs every request of every query with and without pruning
// (forced on, whatever the postings, and leaving pairs out of the pass over
// the words' clauses by pairsBoundRatio ratio) and returns the searches that
// differ, how many found anything, and how pruning answered (prunedCounts).
func comparePruned(t *testing.T, b *Bleve, queries []string, ratio float64) (diffs []string, compared int, counts prunedCounts) {
	t.Helper()
	ctx := context.Background()
	minPostings, was := pruneMinPostings, pairsBoundRatio
	defer func() { prune, pruneMinPostings, pairsBoundRatio = true, minPostings, was }()
	pruneMinPostings, pairsBoundRatio = 0, ratio
	before := loadPrunedCounts()
	for _, text := range queries {
		for _, req := range pruneRequests(text) {
			prune = false
			want, err := b.Search(ctx, req)
			if err != nil {
				t.Fatal(err)
			}
			prune = true
			got, err := b.Search(ctx, req)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				diffs = append(diffs, fmt.Sprintf("Search(%q, %+v) pruned differs (-whole +pruned):\n%s", text, req, diff))
			}
			if len(want) > 0 {
				compared++
			}
		}
	}
	after := loadPrunedCounts()
	return diffs, compared, prunedCounts{after.answered - before.answered, after.byWords - before.byWords,
		after.extra - before.extra, after.extraNone - before.extraNone, after.extraAfterWords - before.extraAfterWords}
}

// TestPruneKeepsResults compares searches with and without pruning: the same
// memories, in the same order, with the same scores to the last bit, over
// generated notes in several segments, for every kind of search recall
// makes (synonyms, compounds, phrases, any word, project filters, the
// rarest words), for queries of one to four words and for questions, and
// checks that pruning answered many of them, in each of its ways.
func TestPruneKeepsResults(t *testing.T) {
	b, queries := pruneFixture(t)
	queries = append(queries, pruneQuestions()...)
	// Every pair left out of the pass over the words' clauses, and the
	// common ones only, as searches choose.
	for _, ratio := range []float64{math.Inf(1), pairsBoundRatio} {
		diffs, compared, n := comparePruned(t, b, queries, ratio)
		for _, d := range diffs {
			t.Error(d)
		}
		if compared < 600 {
			t.Errorf("only %d searches found anything: the comparison says little", compared)
		}
		if n.answered < uint64(compared)/5 {
			t.Errorf("the first pass answered %d of %d searches: pruning is not tried", n.answered, compared)
		}
		if n.byWords == 0 {
			t.Errorf("ratio %g: no search was answered by the pass over the words' own clauses: it is not tried", ratio)
		}
		if n.extra-n.extraNone < 10 || n.extraNone < 10 {
			t.Errorf("ratio %g: %d searches were answered with the notes of enough words, %d of them finding none: the comparison does not see both", ratio, n.extra, n.extraNone)
		}
		if n.extraAfterWords == 0 || n.extraAfterWords == n.extra {
			t.Errorf("ratio %g: %d of the %d searches answered with the notes of enough words followed the pass over the rarer clauses: the comparison does not see both", ratio, n.extraAfterWords, n.extra)
		}
		t.Logf("ratio %g: %d searches compared, %d answered by the first pass, %d of them by the words' clauses, %d with the notes of enough words (%d finding none, %d after the rarer clauses)",
			ratio, compared, n.answered, n.byWords, n.extra, n.extraNone, n.extraAfterWords)
	}
	if n := partialPlans(t, b, queries); n == 0 {
		t.Errorf("no search left some of its pairs out of the pass over the words' clauses and kept others: the comparison did not see it")
	}
}

// partialPlans counts the queries whose pass over the words' clauses leaves
// out some of the pairs notes have and keeps others (commonPairs, with any
// number of postings).
func partialPlans(t *testing.T, b *Bleve, queries []string) int {
	t.Helper()
	minPostings := pruneMinPostings
	defer func() { pruneMinPostings = minPostings }()
	pruneMinPostings = 0
	n := 0
	for _, text := range queries {
		words, err := b.postings(t.Context(), fieldBody, b.analyzer(text))
		if err != nil {
			t.Fatal(err)
		}
		pairs := slices.Compact(slices.Sorted(slices.Values(b.pairs(text))))
		common, err := b.commonPairs(t.Context(), words, pairs)
		if err != nil {
			t.Fatal(err)
		}
		counts, err := b.postings(t.Context(), fieldPairs, pairs)
		if err != nil {
			t.Fatal(err)
		}
		found := 0
		for _, c := range counts.counts {
			if c > 0 {
				found++
			}
		}
		if len(common) > 0 && len(common) < found {
			n++
		}
	}
	return n
}

// TestPruneBoundMatters: a word in the tags of many notes and repeated in
// the short bodies of others. The bodies score higher, but the tagged notes
// alone fill a page; only the bound sends the search on to the bodies.
// Without it (a bound of 0) the comparison above sees the wrong page, so it
// can fail.
func TestPruneBoundMatters(t *testing.T) {
	checkBoundMatters(t, taggedAndBodies("Zebra zebra zebra zebra stripes."), "body", math.Inf(1),
		memories.SearchRequest{Text: "zebra", Size: 10, K1: memories.ShortNotesK1, B: memories.ShortNotesB}, &prunedSearches)
}

// TestPruneAnyWordBoundMatters: the same for a search for any of two
// words. Notes tagged with one of them fill a page in the first pass, but
// notes with both words repeated in short bodies score more: only the
// bound, the words' bodies summed, sends the search on.
func TestPruneAnyWordBoundMatters(t *testing.T) {
	checkBoundMatters(t, taggedAndBodies("Zebra zebra stripes, okapi okapi stripes."), "body", math.Inf(1),
		memories.SearchRequest{Text: "zebra okapi", AnyTerm: true, Size: 10, K1: memories.ShortNotesK1, B: memories.ShortNotesB}, &prunedSearches)
}

// TestPruneExtraPass: a search for any of three words whose first pass
// cannot answer. Thirty notes tagged with the three words fill its page;
// five notes with two of the words repeated in short bodies score more than
// they do, and ten with one of them less. A note with one word can score
// at most a third of its bound (the words' disjunction counts the share of
// them a note has), which is below the page, so the pass over the notes of
// at least two words (extraPass) finds the five, and the page is the whole
// search's. Asking for three words instead misses them.
func TestPruneExtraPass(t *testing.T) {
	var ms []*memories.Memory
	for i := range 30 {
		ms = append(ms, mem(fmt.Sprintf("tagged%02d", i), fmt.Sprintf("Note %d", i), fmt.Sprintf("Nothing of note here, %d.", i), "p", memories.TypeNote, 0,
			"zebra", "okapi", "gnu"))
	}
	for i := range 5 {
		ms = append(ms, mem(fmt.Sprintf("two%d", i), fmt.Sprintf("Entry %d", i), strings.Repeat("zebra ", 20)+strings.Repeat("okapi ", 20), "p", memories.TypeNote, 0))
	}
	for i := range 10 {
		ms = append(ms, mem(fmt.Sprintf("one%d", i), fmt.Sprintf("Entry %d", i), strings.Repeat("gnu ", 20), "p", memories.TypeNote, 0))
	}
	for i := range 100 {
		body := "Horses graze in the field."
		if i < 60 { // common enough for a body to be bound low
			body = fmt.Sprintf("Horses graze in the field near a %s.", []string{"zebra", "okapi", "gnu"}[i%3])
		}
		ms = append(ms, mem(fmt.Sprintf("other%03d", i), fmt.Sprintf("Other %d", i), body, "p", memories.TypeNote, 0))
	}
	b := newBleveOf(t, ms...)
	ctx := context.Background()
	minPostings := pruneMinPostings
	t.Cleanup(func() { prune, pruneMinPostings = true, minPostings })
	pruneMinPostings = 0
	req := memories.SearchRequest{Text: "zebra okapi gnu", AnyTerm: true, Size: 10, K1: memories.ShortNotesK1, B: memories.ShortNotesB}
	prune = false
	want, err := b.Search(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	var two, one int
	for _, m := range want {
		two += strings.Count(m.ID, "two")
		one += strings.Count(m.ID, "one")
	}
	if two != 5 || one != 0 {
		t.Fatalf("the whole search found %v; the test needs the five notes of two words in its page and none of one", want)
	}
	prune = true
	before := loadPrunedCounts()
	got, err := b.Search(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("pruned differs (-whole +pruned):\n%s", diff)
	}
	after := loadPrunedCounts()
	if after.answered != before.answered || after.extra != before.extra+1 || after.extraNone != before.extraNone {
		t.Errorf("pruning answered %+v after %+v: want the first pass and the notes of enough words, some found", after, before)
	}
}

// TestPrunePairsBoundMatters: the pass over the notes with a word in a
// title, tags or another spelling (wordsPass) leaves out the notes that
// have only the query's pair of words besides the words in their bodies,
// so what it must beat is their bodies and their pair together. Ten notes
// have both words in a long title and their tags, and fill that pass's page with scores
// above what the words' bodies can score, but thirty short notes with the
// pair "zebra okapi" score more than they do (the pair is rare, and the
// words are common: 800 other notes have one of them, of 940). Without the pair's
// bound the pass would answer with the titles' page; the bound sends the
// search on to the first pass that has the pairs' notes.
func TestPrunePairsBoundMatters(t *testing.T) {
	var ms []*memories.Memory
	for i := range 10 {
		ms = append(ms, mem(fmt.Sprintf("titled%02d", i), fmt.Sprintf("Zebra and okapi in the long grass of the plain near the river bank at dawn %d", i),
			fmt.Sprintf("Nothing of note here, %d.", i), "p", memories.TypeNote, 0, "zebra", "okapi"))
	}
	for i := range 30 {
		ms = append(ms, mem(fmt.Sprintf("pair%02d", i), fmt.Sprintf("Entry %d", i), "Zebra okapi zebra okapi.", "p", memories.TypeNote, 0))
	}
	for i := range 400 {
		ms = append(ms, mem(fmt.Sprintf("zebra%03d", i), fmt.Sprintf("Zebra herd %d", i), "A zebra herd.", "p", memories.TypeNote, 0),
			mem(fmt.Sprintf("okapi%03d", i), fmt.Sprintf("Okapi forest %d", i), "An okapi forest.", "p", memories.TypeNote, 0))
	}
	for i := range 100 {
		ms = append(ms, mem(fmt.Sprintf("other%03d", i), fmt.Sprintf("Other %d", i), "Horses graze in the field.", "p", memories.TypeNote, 0))
	}
	checkBoundMatters(t, ms, "pair", math.Inf(1),
		memories.SearchRequest{Text: "zebra okapi", Phrases: true, Size: 10, K1: memories.ShortNotesK1, B: memories.ShortNotesB}, &prunedByWords)
}

// TestPruneKeepsRarePairs: of the pairs of "zebra okapi lion", "zebra
// okapi" is in 3,000 notes of 3,320, as often as its words, and "okapi
// lion" in three: the pass over the words' clauses leaves out the first and
// keeps the second (commonPairs). The three notes with the rare pair come
// between seven with every word in their titles and tags and ten with
// "lion" in a short title, and that pass answers with them: without the
// rare pair's notes it would answer with three of the ten instead, which
// score above its bound too.
func TestPruneKeepsRarePairs(t *testing.T) {
	var ms []*memories.Memory
	for i := range 7 {
		ms = append(ms, mem(fmt.Sprintf("titled%d", i), fmt.Sprintf("Zebra okapi lion %d", i),
			fmt.Sprintf("Nothing of note here, %d.", i), "p", memories.TypeNote, 0, "zebra", "okapi", "lion"))
	}
	for i := range 3 {
		ms = append(ms, mem(fmt.Sprintf("rare%d", i), fmt.Sprintf("Rare %d", i), "Okapi lion.", "p", memories.TypeNote, 0))
	}
	for i := range 10 {
		ms = append(ms, mem(fmt.Sprintf("lion%02d", i), fmt.Sprintf("Lion %d", i), fmt.Sprintf("Nothing of note here, %d.", i), "p", memories.TypeNote, 0))
	}
	for i := range 3000 {
		ms = append(ms, mem(fmt.Sprintf("herd%04d", i), fmt.Sprintf("Herd %d", i), "Zebra okapi graze near a lion.", "p", memories.TypeNote, 0))
	}
	for i := range 300 {
		ms = append(ms, mem(fmt.Sprintf("other%03d", i), fmt.Sprintf("Other %d", i), "Horses graze in the field.", "p", memories.TypeNote, 0))
	}
	const text = "zebra okapi lion"
	b := newBleveOf(t, ms...)
	minPostings := pruneMinPostings
	t.Cleanup(func() { prune, pruneMinPostings = true, minPostings })
	pruneMinPostings = 0
	words, err := b.postings(t.Context(), fieldBody, b.analyzer(text))
	if err != nil {
		t.Fatal(err)
	}
	common, err := b.commonPairs(t.Context(), words, b.pairs(text))
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"zebra" + pairSep + "okapi"}; !slices.Equal(slices.Sorted(maps.Keys(common)), want) {
		t.Fatalf("commonPairs(%q) = %q, want %q", text, slices.Sorted(maps.Keys(common)), want)
	}
	req := memories.SearchRequest{Text: text, Phrases: true, AnyTerm: true, Size: 10, K1: memories.ShortNotesK1, B: memories.ShortNotesB}
	prune = false
	want, err := b.Search(t.Context(), req)
	if err != nil {
		t.Fatal(err)
	}
	prune = true
	before := prunedByWords.Load()
	got, err := b.Search(t.Context(), req)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("pruned search differs (-whole +pruned):\n%s", diff)
	}
	if n := prunedByWords.Load() - before; n != 1 {
		t.Errorf("the pass over the words' clauses answered %d searches, want 1", n)
	}
}

// taggedAndBodies is 30 notes tagged zebra (and other words), 30 whose
// body is body, and 100 others.
func taggedAndBodies(body string) []*memories.Memory {
	var ms []*memories.Memory
	for i := range 30 {
		ms = append(ms, mem(fmt.Sprintf("tagged%02d", i), fmt.Sprintf("Note %d", i), fmt.Sprintf("Nothing of note here, %d.", i), "p", memories.TypeNote, 0,
			"zebra", "alpha", "beta", "gamma", "delta", "epsilon", "theta", "kappa"))
		ms = append(ms, mem(fmt.Sprintf("body%02d", i), fmt.Sprintf("Entry %d", i), body, "p", memories.TypeNote, 0))
	}
	for i := range 100 {
		ms = append(ms, mem(fmt.Sprintf("other%03d", i), fmt.Sprintf("Other %d", i), "Horses graze in the field.", "p", memories.TypeNote, 0))
	}
	return ms
}

// checkBoundMatters searches the notes ms with req: the whole search must
// find a note whose id starts with first first, pruning with the bound the
// same page, and pruning with a bound of 0 another page, which a pass
// counted by answered answers (that search alone: with the bound, no pass
// it counts may answer).
func checkBoundMatters(t *testing.T, ms []*memories.Memory, first string, ratio float64, req memories.SearchRequest, answered *atomic.Uint64) {
	t.Helper()
	b := newBleveOf(t, ms...)
	ctx := context.Background()
	minPostings, was := pruneMinPostings, pairsBoundRatio
	t.Cleanup(func() { prune, pruneMinPostings, pruneMargin, pairsBoundRatio = true, minPostings, 1e-9, was })
	pruneMinPostings, pairsBoundRatio = 0, ratio
	prune = false
	want, err := b.Search(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if len(want) != 10 || !strings.HasPrefix(want[0].ID, first) {
		t.Fatalf("the whole search found %v; the test needs %s notes first", want, first)
	}
	before := answered.Load()
	for _, margin := range []float64{1e-9, -1} {
		prune, pruneMargin = true, margin
		got, err := b.Search(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		same := cmp.Diff(want, got) == ""
		if margin > 0 && !same {
			t.Errorf("pruned with the bound, got %v, want %v", got, want)
		}
		if margin < 0 && same {
			t.Errorf("pruned with a bound of 0, got the whole search's page %v: other notes should have filled it", got)
		}
	}
	if n := answered.Load() - before; n != 1 {
		t.Errorf("the pass answered %d of the searches, want the one with a bound of 0", n)
	}
}

// TestScoreBound checks Bleve's ScoreBound (patch 0003) against every score
// of a term over notes of many lengths and frequencies, with several BM25
// parameters and boosts: no score above it, the best within a few times of
// it (a bound of +Inf would pass the first half), and +Inf where no bound
// holds (b above 1).
func TestScoreBound(t *testing.T) {
	var ms []*memories.Memory
	for i := range 60 {
		body := strings.Repeat("zebra ", 1+i%13) + strings.Repeat("grass plains herd ", i%7)
		ms = append(ms, mem(fmt.Sprintf("m%02d", i), fmt.Sprintf("Note %d", i), body, "p", memories.TypeNote, 0))
	}
	for i := range 40 {
		ms = append(ms, mem(fmt.Sprintf("o%02d", i), "Other", "Horses graze in the field.", "p", memories.TypeNote, 0))
	}
	b := newBleveOf(t, ms...)
	for _, c := range []struct {
		k1, b, boost float64
		inf          bool
	}{
		{1.2, 0.75, 1, false}, {memories.ShortNotesK1, memories.ShortNotesB, 1, false}, {2, 1, 3, false},
		{0.5, 0, 0.25, false}, {1.2, 1.5, 1, true},
	} {
		tq := query.NewTermQuery("zebra")
		tq.SetField(fieldBody)
		tq.SetBoost(c.boost)
		bq := &boundQuery{q: tq}
		other := query.NewTermQuery("graze")
		other.SetField(fieldBody)
		all := query.NewBooleanQuery([]query.Query{bq}, []query.Query{other}, nil)
		ctx := context.WithValue(context.Background(), bsearch.BM25ParamsKey, bsearch.BM25Params{K1: c.k1, B: c.b})
		res, err := b.idx.SearchInContext(ctx, bleve.NewSearchRequestOptions(all, 1000, 0, false))
		if err != nil {
			t.Fatal(err)
		}
		bound := bq.s.(interface{ ScoreBound() float64 }).ScoreBound()
		if len(res.Hits) != 60 {
			t.Fatalf("k1 %g b %g: %d hits, want 60", c.k1, c.b, len(res.Hits))
		}
		if c.inf {
			if !math.IsInf(bound, 1) {
				t.Errorf("k1 %g b %g: bound %g, want +Inf", c.k1, c.b, bound)
			}
			continue
		}
		best := 0.0
		for _, h := range res.Hits {
			best = max(best, h.Score)
			if h.Score > bound {
				t.Errorf("k1 %g b %g boost %g: %s scores %g, above the bound %g", c.k1, c.b, c.boost, h.ID, h.Score, bound)
			}
		}
		if best < bound/4 {
			t.Errorf("k1 %g b %g boost %g: best score %g, bound %g: too loose to prune", c.k1, c.b, c.boost, best, bound)
		}
	}
}

// TestWorthPruningOneCommonWord: a search for one word found in 3,000 notes'
// bodies is pruned, as one for several words whose rarest is that common
// is; a word of a few notes is not. (One word needed 10,000 postings
// before, five times what the rarest of several needed.)
func TestWorthPruningOneCommonWord(t *testing.T) {
	b := advanceCorpus(t)
	for _, tt := range []struct {
		terms   []string
		anyWord bool
		want    bool
	}{
		{[]string{"common"}, false, true},
		{[]string{"common", "common"}, false, true},
		{[]string{"filler7"}, false, false},
		{[]string{"common", "filler7"}, false, false},
		// A search for any of the words scores every note with one: the
		// common word's postings make it worth pruning, with a rare word
		// or not.
		{[]string{"common"}, true, true},
		{[]string{"common", "filler7"}, true, true},
		{[]string{"filler7"}, true, false},
		{[]string{"filler7", "filler8"}, true, false},
	} {
		got, _, err := b.worthPruning(t.Context(), tt.terms, tt.anyWord)
		if err != nil {
			t.Fatal(err)
		}
		if got != tt.want {
			t.Errorf("worthPruning(%q, any word %v) = %v, want %v", tt.terms, tt.anyWord, got, tt.want)
		}
	}
}

// TestCommonPairs: the pass over the words' own clauses and the rarer
// pairs goes first when the query's most common pairs have many postings
// together and their bound is not more than the words' bodies' (three notes
// of four have "common common", a twelfth "pad3 pad3", a sixteenth "common
// pad3"). The rarer pair stays in the pass when its bound would make theirs
// too high; pairs of few notes leave none out; without pairs there is no
// pass.
func TestCommonPairs(t *testing.T) {
	b := advanceCorpus(t)
	pair := func(a, c string) string { return a + pairSep + c }
	for _, tt := range []struct {
		text string
		want []string
	}{
		{"common common", []string{pair("common", "common")}},
		{"pad3 pad3 common common", []string{pair("common", "common"), pair("pad3", "pad3")}},
		{"common common pad3 pad3", []string{pair("common", "common"), pair("pad3", "pad3")}},
		{"filler7 common", nil},
		{"common", nil},
	} {
		words, err := b.postings(t.Context(), fieldBody, b.analyzer(tt.text))
		if err != nil {
			t.Fatal(err)
		}
		pairs := b.pairs(tt.text)
		got, err := b.commonPairs(t.Context(), words, pairs)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tt.want, slices.Sorted(maps.Keys(got))); diff != "" {
			t.Errorf("commonPairs(%q) (-want +got):\n%s", pairs, diff)
		}
	}
	// Without pairs the pass would be the first pass itself, however few
	// postings are asked for.
	minPostings := pruneMinPostings
	t.Cleanup(func() { pruneMinPostings = minPostings })
	pruneMinPostings = 0
	words, err := b.postings(t.Context(), fieldBody, []string{"common"})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := b.commonPairs(t.Context(), words, nil); err != nil || got != nil {
		t.Errorf("commonPairs without pairs = %v, %v; want none", got, err)
	}
}

// TestFirstPassFilterOfOneWord checks the first pass's filter: for one
// word whose essential clauses are its own, the essential clauses alone
// (the word's plain disjunction, with its body's postings, is not made);
// with a pair of words among them, or for several words, the conjunction
// of the plain disjunctions and the essential clauses.
func TestFirstPassFilterOfOneWord(t *testing.T) {
	title, body := query.NewTermQuery("bug"), query.NewTermQuery("bug")
	title.SetField(fieldTitle)
	body.SetField(fieldBody)
	plain := []query.Query{plainOf([]*query.TermQuery{title, body})}
	essential := query.NewDisjunctionQuery([]query.Query{title})
	if got := firstPassFilter(plain, essential, true); got != query.Query(essential) {
		t.Errorf("one word: filter %#v, want its essential clauses alone", got)
	}
	for _, tt := range []struct {
		name      string
		plain     []query.Query
		wordsOnly bool
	}{
		{"one word and a pair", plain, false},
		{"two words", []query.Query{plain[0], plain[0]}, true},
	} {
		got, ok := firstPassFilter(tt.plain, essential, tt.wordsOnly).(*query.ConjunctionQuery)
		if !ok || len(got.Conjuncts) != len(tt.plain)+1 || got.Conjuncts[len(tt.plain)] != query.Query(essential) {
			t.Errorf("%s: filter %#v, want the plain disjunctions and the essential clauses", tt.name, got)
		}
	}
}

// boundOnly is a searcher that says only its bound and that it matches.
type boundOnly struct {
	bsearch.Searcher
	bound float64
}

func (b boundOnly) Count() uint64       { return 1 }
func (b boundOnly) ScoreBound() float64 { return b.bound }

// TestFewestWords: how many of the words a note outside the first pass needs
// in its body to reach a page's lowest score, a word's body worth its bound
// over its clauses and the words' disjunction counting the share of them a
// note has.
func TestFewestWords(t *testing.T) {
	plan := func(bounds ...float64) *pruning {
		p := newPruning(len(bounds))
		for i, b := range bounds {
			p.bounded[i] = []*boundQuery{{s: boundOnly{bound: b}}}
			p.clauses[i] = 3
		}
		return p
	}
	// Three words of body 0.3 over three clauses: one word can score at
	// most 0.1/3, two 0.2·2/3, three 0.3.
	for _, c := range []struct {
		low  float64
		want int
	}{{0.01, 1}, {0.1/3 + 0.001, 2}, {0.1, 2}, {0.4 / 3, 2}, {0.14, 3}, {0.3, 3}, {0.31, 4}} {
		if got := plan(0.3, 0.3, 0.3).fewestWords(c.low); got != c.want {
			t.Errorf("fewestWords(%g) of three equal words = %d, want %d", c.low, got, c.want)
		}
	}
	// The highest bounds count first: with bodies of 0.9, 0.3 and 0.3 one
	// word scores at most 0.3/3 (the first), two (0.3+0.1)·2/3.
	p := plan(0.9, 0.3, 0.3)
	for _, c := range []struct {
		low  float64
		want int
	}{{0.09, 1}, {0.11, 2}, {0.26, 2}, {0.27, 3}} {
		if got := p.fewestWords(c.low); got != c.want {
			t.Errorf("fewestWords(%g) of 0.9, 0.3, 0.3 = %d, want %d", c.low, got, c.want)
		}
	}
	// A bound unknown: none.
	if got := plan(0.3, math.Inf(1)).fewestWords(1); got != 0 {
		t.Errorf("fewestWords with an unknown bound = %d, want 0", got)
	}
}

// TestMergePages: the best of two pages by score, ties by id, a hit in both
// (a note changed between the passes) once, as the first page has it.
func TestMergePages(t *testing.T) {
	hit := func(id string, score float64) *bsearch.DocumentMatch {
		return &bsearch.DocumentMatch{ID: id, Score: score}
	}
	page := bsearch.DocumentMatchCollection{hit("a", 0.9), hit("c", 0.5), hit("d", 0.4)}
	extra := bsearch.DocumentMatchCollection{hit("b", 0.5), hit("c", 0.8), hit("e", 0.7)}
	var got []string
	for _, h := range mergePages(page, extra, 4) {
		got = append(got, fmt.Sprintf("%s %.1f", h.ID, h.Score))
	}
	want := []string{"a 0.9", "e 0.7", "b 0.5", "c 0.5"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("mergePages (-want +got):\n%s", diff)
	}
}
