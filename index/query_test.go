package index

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/cortexmem/cortex/memories"
)

// newBleveOf is a writer over an index of ms, closed when the test ends.
func newBleveOf(t *testing.T, ms ...*memories.Memory) *Bleve {
	t.Helper()
	b, err := createBleve(filepath.Join(t.TempDir(), "bleve"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = b.Close() })
	if err := b.Apply(docs(ms)); err != nil {
		t.Fatal(err)
	}
	return b
}

func TestPairs(t *testing.T) {
	b := newBleveOf(t)
	sep := func(s string) string { return strings.ReplaceAll(s, "+", pairSep) }
	tests := []struct {
		text string
		want []string // "a+b"
	}{
		{"config file", []string{"config+file"}},
		{"the connection pool size", []string{"connect+pool", "pool+size"}},
		// Punctuation ends a phrase: a speaker's name is no phrase with
		// what the speaker says.
		{"Deborah: like a reboot", nil},
		{"I like dogs, cats mostly", []string{"like+dog", "cat+mostli"}},
		// A stop word left out between two words makes them no pair.
		{"Deborah said it's like a reboot", []string{"deborah+said"}},
		{"road-trip and client/server", []string{"road+trip", "client+server"}},
		{"one line\nnext line", []string{"on+line", "line+next", "next+line"}},
		{"one paragraph\n\nnext paragraph", []string{"on+paragraph", "next+paragraph"}},
		{"Adam's phone background", []string{"adam+phone", "phone+background"}},
	}
	for _, tt := range tests {
		var want []string
		for _, w := range tt.want {
			want = append(want, sep(w))
		}
		if diff := cmp.Diff(b.pairs(tt.text), want); diff != "" {
			t.Errorf("pairs(%q) (-got +want):\n%s", tt.text, diff)
		}
	}
}

// score is the score req gives memory id, 0 when it does not find it.
func score(t *testing.T, b *Bleve, req memories.SearchRequest, id string) float64 {
	t.Helper()
	req.Size = 50
	ms, err := b.Search(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range ms {
		if m.ID == id {
			return m.Score
		}
	}
	return 0
}

func TestPhrasesNeedAdjacentWords(t *testing.T) {
	// The same words, the same length: only the colon sets them apart.
	b := newBleveOf(t,
		mem("apart", "Turn", "Deborah: like a reboot", "p", memories.TypeNote, 0),
		mem("side", "Turn", "Deborah like a reboot", "p", memories.TypeNote, 0),
	)
	q := memories.SearchRequest{Text: "does Deborah like cats", AnyTerm: true}
	if a, s := score(t, b, q, "apart"), score(t, b, q, "side"); a != s {
		t.Fatalf("without phrases the two score %g and %g, want the same", a, s)
	}
	q.Phrases = true
	if a, s := score(t, b, q, "apart"), score(t, b, q, "side"); !(s > a) {
		t.Errorf("with phrases the words side by side score %g, apart %g: want side by side higher", s, a)
	}
}

func TestCompounds(t *testing.T) {
	b := newBleveOf(t,
		mem("spaced", "Summer", "We took a road trip to Utah.", "p", memories.TypeNote, 0),
		mem("joined", "Plans", "Booked the roadtrip for June.", "p", memories.TypeNote, 0),
		mem("hyphen", "Health", "Annual check-up at the clinic.", "p", memories.TypeNote, 0),
		mem("plural", "Reminders", "Two dental checkups are due.", "p", memories.TypeNote, 0),
		mem("other", "Other", "A trip to the road office.", "p", memories.TypeNote, 0),
	)
	tests := []struct {
		query string
		want  []string // found with compounds, best first
		plain []string // found without
	}{
		{"roadtrip", []string{"joined", "spaced"}, []string{"joined"}},
		{"road trip", []string{"spaced", "joined", "other"}, []string{"spaced", "other"}},
		{"checkups", []string{"plural", "hyphen"}, []string{"plural"}},
		{"check-up", []string{"hyphen", "plural"}, []string{"hyphen"}},
	}
	for _, tt := range tests {
		q := memories.SearchRequest{Text: tt.query, AnyTerm: true, Phrases: true}
		if diff := cmp.Diff(search(t, b, q), tt.plain); diff != "" {
			t.Errorf("%q without compounds (-got +want):\n%s", tt.query, diff)
		}
		q.Compounds = true
		if diff := cmp.Diff(search(t, b, q), tt.want); diff != "" {
			t.Errorf("%q with compounds (-got +want):\n%s", tt.query, diff)
		}
	}
}

func TestSynonymsKeepTheWordsWeight(t *testing.T) {
	b := newBleveOf(t,
		mem("db", "Notes", "The db pool holds twenty connections.", "p", memories.TypeNote, 0),
		mem("database", "Notes", "The database pool holds twenty connections.", "p", memories.TypeNote, 0),
		mem("pool", "Notes", "The worker pool holds twenty goroutines.", "p", memories.TypeNote, 0),
	)
	q := memories.SearchRequest{Text: "db pool", AnyTerm: true}
	plain := score(t, b, q, "db") / score(t, b, q, "pool")
	q.Synonyms = map[string][]string{"db": {"database"}}
	// Other spellings find more; they must not make the word itself count
	// for less against the other words of the query than it does alone.
	if got := score(t, b, q, "db") / score(t, b, q, "pool"); got < 0.99*plain {
		t.Errorf("with a synonym the memory with the word scores %.3f× the one without it, %.3f× with no synonym", got, plain)
	}
	if ids := search(t, b, q); len(ids) != 3 || ids[2] != "pool" {
		t.Errorf("with a synonym got %v, want db and database before pool", ids)
	}
}

// TestSynonymRarerThanTheWord: a spelling fewer memories use has a higher IDF;
// it must not make a memory that spells the word that way outrank one that
// writes the word as the query does.
func TestSynonymRarerThanTheWord(t *testing.T) {
	ms := []*memories.Memory{
		mem("application", "Notes", "Jerod likes the application for notes.", "p", memories.TypeNote, 0),
		mem("app", "Notes", "Jerod likes the app for notes.", "p", memories.TypeNote, 0),
	}
	for i := range 6 { // the word is common, the other spelling is not
		ms = append(ms, mem(fmt.Sprintf("other%d", i), "Notes", fmt.Sprintf("An app number %d for something else entirely.", i), "p", memories.TypeNote, 0))
	}
	b := newBleveOf(t, ms...)
	q := memories.SearchRequest{Text: "notes app", Synonyms: map[string][]string{"app": {"application"}}}
	word, other := score(t, b, q, "app"), score(t, b, q, "application")
	if other == 0 {
		t.Fatalf("the other spelling is not found")
	}
	if other > word {
		t.Errorf("the memory with the rarer spelling scores %.4f, above the one with the word's %.4f", other, word)
	}
}

func TestCreatedIn(t *testing.T) {
	at := func(m *memories.Memory, c time.Time) *memories.Memory { m.Created = c; return m }
	b := newBleveOf(t,
		at(mem("a", "One", "first", "p", memories.TypeNote, 0), day0),
		at(mem("b", "Two", "second", "p", memories.TypeNote, 0), day0.Add(30*time.Minute)),
		at(mem("c", "Three", "third", "p", memories.TypeNote, 0), day0.Add(3*time.Hour)),
		at(mem("d", "Four", "fourth", "q", memories.TypeNote, 0), day0.Add(30*time.Minute)),
	)
	span := func(from, to time.Duration) memories.TimeSpan {
		return memories.TimeSpan{From: day0.Add(from), To: day0.Add(to)}
	}
	// A span keeps the memories created in the hours it touches.
	tests := []struct {
		name  string
		spans []memories.TimeSpan
		proj  []string
		want  []string
	}{
		{"one instant", []memories.TimeSpan{span(0, 0)}, []string{"p"}, []string{"a", "b"}},
		{"inside an hour", []memories.TimeSpan{span(3*time.Hour+10*time.Minute, 3*time.Hour+20*time.Minute)}, []string{"p"}, []string{"c"}},
		{"two spans", []memories.TimeSpan{span(0, 0), span(2*time.Hour+30*time.Minute, 3*time.Hour)}, []string{"p"}, []string{"a", "b", "c"}},
		{"across hours", []memories.TimeSpan{span(-10*time.Minute, time.Hour+10*time.Minute)}, []string{"p"}, []string{"a", "b"}},
		{"an hour with none", []memories.TimeSpan{span(time.Hour, time.Hour+59*time.Minute)}, []string{"p"}, nil},
		{"with the project filter", []memories.TimeSpan{span(10*time.Minute, 20*time.Minute)}, []string{"p", "q"}, []string{"a", "b", "d"}},
	}
	for _, tt := range tests {
		got := search(t, b, memories.SearchRequest{CreatedIn: tt.spans, Projects: tt.proj})
		slicesSort(got)
		if diff := cmp.Diff(got, tt.want); diff != "" {
			t.Errorf("%s (-got +want):\n%s", tt.name, diff)
		}
	}
}

func slicesSort(s []string) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

func TestDerivedTitleIsNotATitle(t *testing.T) {
	// Turns of a conversation saved without a title: save titles them with
	// their first line, which holds the speaker's name.
	derived := func(id, body string) *memories.Memory {
		return mem(id, memories.TitleFrom(body), body, "p", memories.TypeNote, 0)
	}
	b := newBleveOf(t,
		derived("name1", "Adam: What's it called?"),
		derived("name2", "Adam: Oh, my gosh."),
		derived("name3", "Adam: That's right, yes."),
		derived("answer", "Jerod: Yes, that one. It was taken downtown last spring when we walked around, and it is the background of his phone now."),
	)
	q := memories.SearchRequest{Text: "Adam's background", AnyTerm: true}
	if ids := search(t, b, q); len(ids) == 0 || ids[0] != "answer" {
		t.Errorf("got %v, want answer first: the others only have the speaker's name in their first line", ids)
	}
	// A title of one's own still counts as a title.
	b = newBleveOf(t,
		mem("titled", "Phone background", "The theater downtown.", "p", memories.TypeNote, 0),
		mem("body", "Notes", "The phone background shows the theater downtown.", "p", memories.TypeNote, 0),
	)
	if ids := search(t, b, memories.SearchRequest{Text: "phone background", AnyTerm: true}); len(ids) != 2 || ids[0] != "titled" {
		t.Errorf("got %v, want titled first", ids)
	}
}

func TestSearchBM25Params(t *testing.T) {
	// The answer is a longer turn that says "zucchini" three times; the
	// short reply says it once. With the usual b (0.75) the reply's
	// shortness wins; with a smaller one the answer's other mentions count
	// for more than its length costs.
	long := "Mike: We planted zucchini this spring, and the zucchini gave more than we could eat, so the neighbours got " +
		"bags of zucchini every week."
	b := newBleveOf(t,
		mem("answer", "", long, "p", memories.TypeNote, 0),
		mem("reply", "", "Jerod: Zucchini again?", "p", memories.TypeNote, 0),
		mem("other", "", "Adam: The summer was hot and the basket broke.", "p", memories.TypeNote, 0),
		mem("long1", "", "Adam: We drove to the coast for a week, slept in a tent near the beach, cooked on a small stove "+
			"every evening, and came home sunburnt, tired and happy, with a car full of sand and shells the kids collected.", "p", memories.TypeNote, 0),
		mem("long2", "", "Jerod: The conference had three tracks this year; I spent most of my time in the hallway talking "+
			"to people about their side projects, their jobs and the tools they use, which is always the best part of going.", "p", memories.TypeNote, 0),
	)
	q := memories.SearchRequest{Text: "zucchini", AnyTerm: true}
	plain := search(t, b, q)
	if diff := cmp.Diff(plain, []string{"reply", "answer"}); diff != "" {
		t.Errorf("with the usual parameters (-got +want):\n%s", diff)
	}
	q.K1, q.B = memories.ShortNotesK1, memories.ShortNotesB
	if diff := cmp.Diff(search(t, b, q), []string{"answer", "reply"}); diff != "" {
		t.Errorf("with k1 %g, b %g (-got +want):\n%s", q.K1, q.B, diff)
	}
	// A search without them is unchanged by an earlier one with them: the
	// parameters belong to the search, not to the process.
	if diff := cmp.Diff(search(t, b, memories.SearchRequest{Text: q.Text, AnyTerm: true}), plain); diff != "" {
		t.Errorf("a later search without parameters (-got +want):\n%s", diff)
	}
}

func TestSynonymsNotInPaths(t *testing.T) {
	ms := []*memories.Memory{
		mem("path", "Disk", "Disk full under /var/lib/postgres again.", "p", memories.TypeNote, 0),
		mem("url", "Docs", "Read https://example.com/lib/charts first.", "p", memories.TypeNote, 0),
		mem("word", "Charts", "The lib we use for charts is small.", "p", memories.TypeNote, 0),
		mem("both", "Build", "The lib folder is src/lib/ in the repository.", "p", memories.TypeNote, 0),
		mem("library", "Charts", "The library we use for charts is small.", "p", memories.TypeNote, 0),
	}
	b := newBleveOf(t, ms...)
	q := memories.SearchRequest{Text: "library", AnyTerm: true, Synonyms: map[string][]string{"library": {"lib"}}, Size: 50}
	want := []string{"both", "library", "word"}
	var got []string
	ids, err := b.Search(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range ids {
		got = append(got, m.ID)
	}
	slicesSort(got)
	if diff := cmp.Diff(got, want); diff != "" {
		t.Errorf("Search (-got +want):\n%s", diff)
	}
	// The notes a writer has not indexed yet are matched alike.
	got = nil
	for _, m := range b.SearchDocs(docs(ms), q) {
		got = append(got, m.ID)
	}
	slicesSort(got)
	if diff := cmp.Diff(got, want); diff != "" {
		t.Errorf("SearchDocs (-got +want):\n%s", diff)
	}
	// A query naming the folder still finds it: the path's words are terms.
	q = memories.SearchRequest{Text: "/var/lib", AnyTerm: true, Size: 50}
	got = search(t, b, q)
	slicesSort(got)
	if diff := cmp.Diff(got, []string{"both", "path", "url", "word"}); diff != "" {
		t.Errorf("a path's words (-got +want):\n%s", diff)
	}
}

func TestTermsAndBodyDocFreqs(t *testing.T) {
	// Recall scores a long memory's passages from the terms the index would
	// make of its body, in order and repeated, and from how many memories
	// have each in their body (a title's words do not count there).
	terms, err := Terms("The Cats' cats were running to the Running-track.")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(terms, []string{"cat", "cat", "run", "run", "track"}); diff != "" {
		t.Errorf("Terms (-got +want):\n%s", diff)
	}
	b := newBleveOf(t,
		mem("a", "Cats", "The cat sat.", "p", memories.TypeNote, 0),
		mem("b", "", "Cats and dogs.", "p", memories.TypeNote, 0),
		mem("c", "Dogs", "A dog ran.", "p", memories.TypeNote, 0),
	)
	total, dfs, err := b.BodyDocFreqs(context.Background(), []string{"cat", "dog", "bird"})
	if err != nil {
		t.Fatal(err)
	}
	if total != 3 {
		t.Errorf("total = %d, want 3", total)
	}
	if diff := cmp.Diff(dfs, []uint64{2, 2, 0}); diff != "" {
		t.Errorf("document frequencies (-got +want):\n%s", diff)
	}
}

func TestSynonymsCountOnce(t *testing.T) {
	// A memory that has a word and its other spelling has the word once: the
	// other spelling counts where the word is not, never on top of it. A
	// long memory has both far more often than a short one, and counted
	// twice, a conversation that says "db" once beside "database"
	// outranked the one that answers.
	b := newBleveOf(t,
		mem("1word", "", "The database zebra timed out.", "p", memories.TypeNote, 0),
		mem("2both", "", "The database db timed out.", "p", memories.TypeNote, 0),
		mem("3other", "", "The db timed out again.", "p", memories.TypeNote, 0),
		mem("4none", "", "The cache timed out again.", "p", memories.TypeNote, 0),
	)
	q := memories.SearchRequest{Text: "database", AnyTerm: true, Synonyms: map[string][]string{"database": {"db"}}, Size: 10}
	ms, err := b.Search(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	score := map[string]float64{}
	for _, m := range ms {
		score[m.ID] = m.Score
	}
	if len(score) != 3 || score["3other"] == 0 {
		t.Fatalf("found %v, want the three memories with either spelling", score)
	}
	if math.Abs(score["2both"]-score["1word"]) > 1e-9 {
		t.Errorf("both spellings score %g, the word alone %g: want the same", score["2both"], score["1word"])
	}
}

// TestRarestKeepsThePairs: a search narrowed to its rarest word still scores
// the query's pairs of neighbouring words, those of the words it left out
// too. Of two notes with the rarest word, the longer has the two common
// words side by side: it ranks first only by that pair, as the same search
// without pairs shows.
func TestRarestKeepsThePairs(t *testing.T) {
	ms := []*memories.Memory{
		mem("side", "Side", "Zebra stripes. The grass plains were green and wide, far to the river.", "p", memories.TypeNote, 0),
		mem("apart", "Apart", "Zebra stripes. The plains, and grass.", "p", memories.TypeNote, 0),
	}
	for i := range 40 {
		ms = append(ms, mem(fmt.Sprintf("o%02d", i), "Other", "Grass grows, and plains stretch.", "p", memories.TypeNote, 0))
	}
	b := newBleveOf(t, ms...)
	for _, phrases := range []bool{true, false} {
		req := memories.SearchRequest{Text: "zebra grass plains", AnyTerm: true, Rarest: 1, Phrases: phrases, Size: 10}
		got, err := b.Search(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, m := range got {
			ids = append(ids, m.ID)
		}
		want := []string{"side", "apart"}
		if !phrases {
			want = []string{"apart", "side"}
		}
		if diff := cmp.Diff(want, ids); diff != "" {
			t.Errorf("phrases %v: found (-want +got):\n%s", phrases, diff)
		}
	}
}
