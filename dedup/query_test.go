package dedup

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func TestQueryTerms(t *testing.T) {
	tests := []struct {
		name        string
		title, text string
		n           int
		want        []string
	}{
		{"none asked", "Redis", "Redis caches sessions", 0, nil},
		{"negative", "Redis", "Redis caches sessions", -1, nil},
		{"empty", "", "", 5, nil},
		{"title first, longer first", "Staging DB pool", "The pool size is 20 on staging; migrations run on deploy.", 6,
			[]string{"staging", "pool", "db", "database", "migrations", "deploy"}},
		{"stop words and single letters left out", "", "It is a b c of the x", 5, nil},
		{"forms of a word count once", "", "cache caching cached caches", 5, []string{"cache"}},
		{"repeated words first", "", "alpha beta beta beta gamma", 3, []string{"beta", "alpha", "gamma"}},
		{"letters and digits first", "", "tokens rs256 keys", 3, []string{"rs256", "tokens", "keys"}},
		{"abbreviation brings the word", "", "k8s", 5, []string{"k8s", "kubernetes"}},
		{"word brings the abbreviation", "", "databases", 5, []string{"databases", "db"}},
		{"variant brings the word", "", "configured", 5, []string{"configured", "configuration"}},
		{"expansion counts", "", "k8s", 1, []string{"k8s"}},
		{"no repeats", "Database", "db database", 5, []string{"database", "db"}},
		{"cjk characters are terms", "", "数据库的连接", 10, []string{"数", "据", "库", "连", "接"}},
		{"long token left out", "", strings.Repeat("a", 65) + " short", 5, []string{"short"}},
		// A word of a path or URL is a name: it is a term, with no other
		// spelling (/var/lib/ is no library, src/db/ no database).
		{"no synonyms in a path", "", "disk full under /var/lib/postgres", 5, []string{"postgres", "disk", "full", "var", "lib"}},
		{"no synonyms in a title's path", "src/db/pool.go", "", 5, []string{"pool", "src", "db", "go"}},
		{"no synonyms in a url", "", "see https://example.com/lib/db", 6, []string{"example", "https", "see", "com", "lib", "db"}},
		{"the word outside the path brings them", "", "the lib in /var/lib/ is stale", 5, []string{"lib", "library", "stale", "var"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := QueryTerms(tt.title, tt.text, tt.n)
			if diff := cmp.Diff(tt.want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("QueryTerms (-want +got):\n%s", diff)
			}
		})
	}
}

func TestQueryTermsLongText(t *testing.T) {
	text := longText(1, 10000)
	got := QueryTerms("Service api7 handles billing requests", text, 32)
	if len(got) != 32 {
		t.Fatalf("%d terms, want 32: %q", len(got), got)
	}
	// The title's words, and "req" that "requests" brings, come first.
	title := []string{"api7", "billing", "handles", "req", "requests", "service"}
	if diff := cmp.Diff(title, got[:len(title)], cmpopts.SortSlices(func(a, b string) bool { return a < b })); diff != "" {
		t.Errorf("the title's words do not come first (-want +got):\n%s", diff)
	}
	if again := QueryTerms("Service api7 handles billing requests", text, 32); !cmp.Equal(got, again) {
		t.Errorf("not deterministic:\n%q\n%q", got, again)
	}
	// Every term is a token of the memory or a spelling from the synonym table.
	ok := map[string]bool{}
	for _, tok := range Tokens("Service api7 handles billing requests " + text) {
		ok[tok] = true
	}
	for _, row := range synonymTable {
		for _, w := range row {
			ok[w] = true
		}
	}
	for _, term := range got {
		if !ok[term] {
			t.Errorf("term %q is not in the memory", term)
		}
	}
}
