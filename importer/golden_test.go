package importer

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	goldenfile "github.com/cortexmem/cortex/internal/golden"
	"github.com/cortexmem/cortex/memories"
)

// golden compares got with testdata/<name>.golden, or rewrites that file with
// -update. A string or []byte is written as it is, any other value as
// indented JSON.
func golden(t *testing.T, name string, got any) {
	t.Helper()
	var b []byte
	switch g := got.(type) {
	case string:
		b = []byte(g)
	case []byte:
		b = g
	default:
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		if err := enc.Encode(got); err != nil {
			t.Fatalf("golden %s: %v", name, err)
		}
		b = buf.Bytes()
	}
	goldenfile.Check(t, filepath.Join("testdata", filepath.FromSlash(name)+".golden"), b)
}

// renderItems writes items and skips as text for golden files: a header of
// the item's fields, then its content as it is.
func renderItems(items []Item, skips []Skip) string {
	var b strings.Builder
	for i, it := range items {
		fmt.Fprintf(&b, "=== item %d: %s\n", i+1, it.Title)
		fmt.Fprintf(&b, "kind: %s\n", it.Kind)
		if it.Type != "" {
			fmt.Fprintf(&b, "type: %s\n", it.Type)
		}
		fmt.Fprintf(&b, "source: %s\n", it.Source)
		if len(it.Tags) > 0 {
			fmt.Fprintf(&b, "tags: %s\n", strings.Join(it.Tags, ", "))
		}
		if len(it.Aliases) > 0 {
			fmt.Fprintf(&b, "aliases: %s\n", strings.Join(it.Aliases, ", "))
		}
		if it.Project != "" {
			fmt.Fprintf(&b, "project: %s\n", it.Project)
		}
		if !it.Created.IsZero() {
			fmt.Fprintf(&b, "created: %s\n", it.Created.Format(time.RFC3339Nano))
		}
		fmt.Fprintf(&b, "\n%s\n\n", it.Content)
	}
	for _, s := range skips {
		fmt.Fprintf(&b, "=== skip: %s\n%s\n\n", s.Source, s.Reason)
	}
	return b.String()
}

// fixtureBytes reads a file of fixtures/import.
func fixtureBytes(t testing.TB, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "fixtures", "import", filepath.FromSlash(name)))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// checkItems checks what every parser promises of its output: items that
// memories accept (a one-line title of at most memories.MaxTitleChars, valid
// content of at most memories.MaxContentChars with at least MinSectionChars
// letters or digits, clean tags, a known type) of the parser's kind, and
// skips that say why.
func checkItems(t *testing.T, kind Kind, items []Item, skips []Skip) {
	t.Helper()
	for _, p := range itemProblems(kind, items, skips) {
		t.Error(p)
	}
}

// itemProblems lists how items and skips break the promises checkItems checks.
func itemProblems(kind Kind, items []Item, skips []Skip) []string {
	var out []string
	bad := func(format string, a ...any) { out = append(out, fmt.Sprintf(format, a...)) }
	for _, it := range items {
		if title, err := memories.CheckTitle(it.Title); err != nil || title != it.Title {
			bad("item %q: title %q: %v", it.Source, it.Title, err)
		}
		if err := memories.CheckContent("content", it.Content); err != nil {
			bad("item %q: %v", it.Source, err)
		}
		if n := meaningful(it.Content); n < MinSectionChars {
			bad("item %q: content %q has %d letters or digits, want at least %d", it.Source, it.Content, n, MinSectionChars)
		}
		if it.Kind != kind {
			bad("item %q: kind %q, want %q", it.Source, it.Kind, kind)
		}
		if tags, err := memories.NormalizeTags(it.Tags); err != nil || !slices.Equal(tags, it.Tags) {
			bad("item %q: tags %q normalize to %q, %v", it.Source, it.Tags, tags, err)
		}
		if it.Type != "" && !slices.Contains(memories.Types, it.Type) {
			bad("item %q: type %q is not a memory type", it.Source, it.Type)
		}
	}
	for _, s := range skips {
		if s.Reason == "" || !utf8.ValidString(s.Reason) || !utf8.ValidString(s.Source) {
			bad("skip %q: reason %q", s.Source, s.Reason)
		}
	}
	return out
}

func TestItemProblems(t *testing.T) {
	good := Item{Title: "Ports", Content: "The staging database listens on port 5433.", Kind: KindText}
	with := func(f func(*Item)) Item {
		it := good
		f(&it)
		return it
	}
	tests := []struct {
		name  string
		items []Item
		skips []Skip
		want  int // problems
	}{
		{"good", []Item{good}, []Skip{{"a", "why"}}, 0},
		{"no title", []Item{with(func(it *Item) { it.Title = "" })}, nil, 1},
		{"two-line title", []Item{with(func(it *Item) { it.Title = "a\nb" })}, nil, 1},
		{"title with spaces around", []Item{with(func(it *Item) { it.Title = " a" })}, nil, 1},
		{"title with a control character", []Item{with(func(it *Item) { it.Title = "a\x1b" })}, nil, 1},
		{"long title", []Item{with(func(it *Item) { it.Title = strings.Repeat("a", memories.MaxTitleChars+1) })}, nil, 1},
		{"invalid UTF-8", []Item{with(func(it *Item) { it.Content += "\xff" })}, nil, 1},
		{"a NUL byte", []Item{with(func(it *Item) { it.Content += "\x00" })}, nil, 1},
		{"long content", []Item{with(func(it *Item) { it.Content = strings.Repeat("a", memories.MaxContentChars+1) })}, nil, 1},
		{"short content", []Item{with(func(it *Item) { it.Content = "Port 5433 here" })}, nil, 1},
		{"another kind", []Item{with(func(it *Item) { it.Kind = KindJSON })}, nil, 1},
		{"a tag to clean", []Item{with(func(it *Item) { it.Tags = []string{"Ops"} })}, nil, 1},
		{"an unknown type", []Item{with(func(it *Item) { it.Type = "entity" })}, nil, 1},
		{"a skip without a reason", nil, []Skip{{"a", ""}}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := itemProblems(KindText, tt.items, tt.skips); len(got) != tt.want {
				t.Errorf("itemProblems = %q, want %d problems", got, tt.want)
			}
		})
	}
}

// checkParser runs parse twice over data and checks its output with
// checkItems and that both runs agree.
func checkParser(t *testing.T, kind Kind, parse func(string, []byte) ([]Item, []Skip), data []byte) {
	t.Helper()
	items, skips := parse("fuzz/input", data)
	checkItems(t, kind, items, skips)
	items2, skips2 := parse("fuzz/input", data)
	if diff := cmp.Diff(renderItems(items, skips), renderItems(items2, skips2)); diff != "" {
		t.Errorf("two runs over %q differ (-first +second):\n%s", data, diff)
	}
}

// fuzzSeeds adds the fixtures of dir and the given inputs to f's corpus.
func fuzzSeeds(f *testing.F, dir string, more ...string) {
	entries, err := os.ReadDir(filepath.Join("..", "fixtures", "import", dir))
	if err != nil {
		f.Fatal(err)
	}
	for _, e := range entries {
		if !e.IsDir() {
			f.Add(fixtureBytes(f, dir+"/"+e.Name()))
		}
	}
	for _, s := range append(more, "", " \n\t", "\xef\xbb\xbf", "{}", "[]", "null", "\xff\xfe") {
		f.Add([]byte(s))
	}
}
