package importer

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// linkForm is a wikiLink as a test writes it.
type linkForm struct {
	Text                  string // what the link covers
	Embed                 bool
	Target, Anchor, Alias string
	Pipe                  string
}

func forms(content string, links []wikiLink) []linkForm {
	var out []linkForm
	for _, l := range links {
		out = append(out, linkForm{Text: content[l.start:l.end], Embed: l.embed, Target: l.target, Anchor: l.anchor, Alias: l.alias, Pipe: l.pipe})
	}
	return out
}

func TestScanLinks(t *testing.T) {
	tests := []struct {
		name    string
		content string
		want    []linkForm
	}{
		{"a note", "See [[Page]].", []linkForm{{Text: "[[Page]]", Target: "Page", Pipe: "|"}}},
		{"an alias", "See [[Page|that page]].", []linkForm{{Text: "[[Page|that page]]", Target: "Page", Alias: "that page", Pipe: "|"}}},
		{"a heading and an alias", "[[Queries/Grouping#Due Date|due]]", []linkForm{{Text: "[[Queries/Grouping#Due Date|due]]", Target: "Queries/Grouping", Anchor: "Due Date", Alias: "due", Pipe: "|"}}},
		{"a heading of the same note", "see [[#Due Date]]", []linkForm{{Text: "[[#Due Date]]", Anchor: "Due Date", Pipe: "|"}}},
		{"a block", "[[Page#^ab-12]]", []linkForm{{Text: "[[Page#^ab-12]]", Target: "Page", Anchor: "^ab-12", Pipe: "|"}}},
		{"embeds", "![[image.png|300]] ![[Dates#Limitations]]", []linkForm{
			{Text: "![[image.png|300]]", Embed: true, Target: "image.png", Alias: "300", Pipe: "|"},
			{Text: "![[Dates#Limitations]]", Embed: true, Target: "Dates", Anchor: "Limitations", Pipe: "|"},
		}},
		{"in a table", "| a | [[Page\\|text]] |", []linkForm{{Text: "[[Page\\|text]]", Target: "Page", Alias: "text", Pipe: "\\|"}}},
		{"code inside the link", "[[Api#`run()`|`run()`]]", []linkForm{{Text: "[[Api#`run()`|`run()`]]", Target: "Api", Anchor: "`run()`", Alias: "`run()`", Pipe: "|"}}},
		{"a code span", "Write `[[Page]]` for a link.", nil},
		{"a code span of two backticks", "Write ``a [[Page]] b`` for a link.", nil},
		{"a fenced block", "Before.\n\n```md\n- [[Page]]\n```\n\nAfter [[Other]].", []linkForm{{Text: "[[Other]]", Target: "Other", Pipe: "|"}}},
		{"a tilde fence", "~~~\n[[Page]]\n~~~", nil},
		{"an indented block", "Text.\n\n    [[Page]]\n", nil},
		{"an HTML block", "<div>\n[[Page]]\n</div>\n", nil},
		{"inline HTML", "a <span title=\"[[Page]]\">b</span>", nil},
		{"a third bracket", "[[[Page]]", []linkForm{{Text: "[[Page]]", Target: "Page", Pipe: "|"}}},
		{"across lines", "[[Pa\nge]]", nil},
		{"empty", "[[]] [[ ]] [[|x]]", nil},
		{"never closed", "[[Page and more text", nil},
		{"a list of lists", "x = [[1, 2], [3, 4]]", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := forms(tt.content, scanLinks(tt.content, true))
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("scanLinks(%q) (-want +got):\n%s", tt.content, diff)
			}
		})
	}
	t.Run("an MCP title with a hash", func(t *testing.T) {
		got := forms("[[C# tips]]", scanLinks("[[C# tips]]", false))
		if diff := cmp.Diff([]linkForm{{Text: "[[C# tips]]", Target: "C# tips", Pipe: "|"}}, got); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
	})
}

// TestItemLinks resolves and renders the links of items as an import of a
// vault does: to the item a link names (by file name, by the end of its
// path, by heading, by block id, within the note), pointing at the note the
// target's memory gets, kept when the vault cortex writes in has the file,
// the text they show otherwise.
func TestItemLinks(t *testing.T) {
	root := realTempDir(t)
	writeFiles(t, root, map[string]string{
		"vault/People/Ada.md":       "A person of the vault, not imported.",
		"vault/attachments/map.png": "not really a PNG",
	})
	note := func(path string, anchors ...string) Item {
		return Item{LinkName: "/src/" + path, Anchors: anchors, Kind: KindMarkdown}
	}
	items := []Item{
		note("Queries/Grouping.md"),                      // 0: its preamble
		note("Queries/Grouping.md", "Due Date", "Notes"), // 1
		note("Queries/Grouping.md", "Start Date", "^b1"), // 2
		note("Queries/Sorting.md"),                       // 3
		note("Other/Sorting.md"),                         // 4
		note("Dates.md", "Limitations of dates"),         // 5
		{LinkName: "Billing service", Kind: KindMCPMemory},
		{Kind: KindText}, // 7: "[[" in plain text is text
	}
	contents := []string{
		0: "See [[#Due Date]], [[Grouping#start date|starting]], [[Grouping#^b1]], [[Sorting]], [[Other/Sorting|other]] and [[Missing#Part]].",
		3: "Back to [[Grouping]] and [[Queries/Grouping.md#Nothing like it]], or [[Sorting]] here; a table: | [[Dates\\|dates]] |",
		4: "Embeds: ![[Dates#Limitations of dates]] ![[map.png|300]] ![[photo.png]] ![[Gone]]; people: [[Ada]], [[People/Ada|her]]; `[[Dates]]` is code.",
		6: "- uses → [[Billing service]]",
		7: "x = [[Dates]]",
	}
	for i, c := range contents {
		items[i].Content = c
	}
	links := itemLinks(items, nil, filepath.Join(root, "vault"))
	name := func(t int) string {
		if t == 5 {
			return "" // no memory holds it: refused
		}
		return fmt.Sprintf("note-%d", t)
	}
	want := map[int]struct {
		targets []int
		text    string
	}{
		0: {[]int{1, 2, 3, 4}, "See [[note-1|Due Date]], [[note-2|starting]], [[note-2|Grouping > ^b1]], [[note-3|Sorting]], [[note-4|other]] and Missing > Part."},
		3: {[]int{0, 3, 5}, "Back to [[note-0|Grouping]] and [[note-0|Queries/Grouping > Nothing like it]], or [[note-3|Sorting]] here; a table: | dates |"},
		4: {[]int{5}, "Embeds: Dates > Limitations of dates ![[map.png|300]] photo.png Gone; people: [[Ada]], [[People/Ada|her]]; `[[Dates]]` is code."},
		6: {[]int{6}, "- uses → [[note-6|Billing service]]"},
	}
	for i := range items {
		w, ok := want[i]
		if !ok {
			if links[i] != nil {
				t.Errorf("item %d: links %v, want none", i, links[i].Targets)
			}
			continue
		}
		if links[i] == nil {
			t.Errorf("item %d: no links", i)
			continue
		}
		if diff := cmp.Diff(w.targets, links[i].Targets); diff != "" {
			t.Errorf("item %d: targets (-want +got):\n%s", i, diff)
		}
		if diff := cmp.Diff(w.text, links[i].Render(name)); diff != "" {
			t.Errorf("item %d: rendered (-want +got):\n%s", i, diff)
		}
	}
	// Without a vault to keep links for, every link to what is not imported
	// shows its text.
	links = itemLinks(items, nil, "")
	if got, want := links[4].Render(name), "Embeds: Dates > Limitations of dates map.png photo.png Gone; people: Ada, her; `[[Dates]]` is code."; got != want {
		t.Errorf("without a vault: %q, want %q", got, want)
	}
}

// TestLinkTargets: what the links of a note name, code left out.
func TestLinkTargets(t *testing.T) {
	got := LinkTargets("[[A]] `[[B]]` ![[c.png]] [[#H]]\n\n```\n[[D]]\n```\n")
	if diff := cmp.Diff([]string{"A", "c.png", ""}, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// FuzzLinks: scanning never panics, finds links in order inside the text,
// and rendering every link as written gives the text back.
func FuzzLinks(f *testing.F) {
	fuzzSeeds(f, "vault/Notes", "[[a]] ![[b|c]] [[#d]] `[[e]]`", "[[a\\|b]]", "![[", "[[[[]]]]", "```\n[[x]]\n")
	f.Fuzz(func(t *testing.T, data []byte) {
		content := string(data)
		for _, anchors := range []bool{true, false} {
			links := scanLinks(content, anchors)
			at := 0
			for _, l := range links {
				if l.start < at || l.end > len(content) || l.start >= l.end {
					t.Fatalf("link [%d, %d) out of order or place in %q", l.start, l.end, content)
				}
				s := content[l.start:l.end]
				if !strings.HasSuffix(s, "]]") || !strings.HasPrefix(s, "[[") && !strings.HasPrefix(s, "![[") {
					t.Fatalf("link %q is not a [[…]]", s)
				}
				at = l.end
			}
			targets := make([]int, len(links))
			kept := make([]bool, len(links))
			for i := range links {
				targets[i], kept[i] = -1, true
			}
			if got := renderLinks(content, links, targets, kept, func(int) string { return "" }); got != content {
				t.Fatalf("rendered as written: %q, want %q", got, content)
			}
			for i := range kept {
				kept[i] = false
			}
			_ = renderLinks(content, links, targets, kept, func(int) string { return "" })
		}
	})
}
