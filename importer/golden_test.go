package importer

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/cortexmem/cortex/memories"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

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
	path := filepath.Join("testdata", filepath.FromSlash(name)+".golden")
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run the tests with -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), string(b)); diff != "" {
		t.Errorf("%s differs (-want +got):\n%s", path, diff)
	}
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
	for _, it := range items {
		if title, err := memories.CheckTitle(it.Title); err != nil || title != it.Title {
			t.Errorf("item %q: title %q: %v", it.Source, it.Title, err)
		}
		if n := utf8.RuneCountInString(it.Title); n > memories.MaxTitleChars {
			t.Errorf("item %q: title is %d characters", it.Source, n)
		}
		if err := memories.CheckContent("content", it.Content); err != nil {
			t.Errorf("item %q: %v", it.Source, err)
		}
		if n := meaningful(it.Content); n < MinSectionChars {
			t.Errorf("item %q: content %q has %d letters or digits, want at least %d", it.Source, it.Content, n, MinSectionChars)
		}
		if it.Kind != kind {
			t.Errorf("item %q: kind %q, want %q", it.Source, it.Kind, kind)
		}
		if tags, err := memories.NormalizeTags(it.Tags); err != nil || !slices.Equal(tags, it.Tags) {
			t.Errorf("item %q: tags %q normalize to %q, %v", it.Source, it.Tags, tags, err)
		}
		if it.Type != "" && !slices.Contains(memories.Types, it.Type) {
			t.Errorf("item %q: type %q is not a memory type", it.Source, it.Type)
		}
	}
	for _, s := range skips {
		if s.Reason == "" || !utf8.ValidString(s.Reason) || !utf8.ValidString(s.Source) {
			t.Errorf("skip %q: reason %q", s.Source, s.Reason)
		}
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
