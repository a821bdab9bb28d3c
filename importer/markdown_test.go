package importer

import (
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/cortexmem/cortex/memories"
)

func TestSections(t *testing.T) {
	type sec = section
	p := func(path ...string) []string { return path }
	tests := []struct {
		name string
		body string
		want []section
	}{
		{name: "empty", body: "", want: []sec{{}}},
		{name: "no headings", body: "\n\nJust a paragraph.\n\n- and a list\n", want: []sec{{content: "Just a paragraph.\n\n- and a list"}}},
		{
			name: "levels 1 to 3, text before the first heading",
			body: "Intro.\n\n# Top\n\nUnder top.\n\n## Second\n\nUnder second.\n\n### Third\n\nUnder third.\n",
			want: []sec{
				{content: "Intro."},
				{path: p("Top"), content: "Under top."},
				{path: p("Top", "Second"), content: "Under second."},
				{path: p("Top", "Second", "Third"), content: "Under third."},
			},
		},
		{
			name: "the note title is the root without an H1",
			body: "## A\n\nText A.\n\n### B\n\nText B.\n",
			want: []sec{{}, {path: p("Note", "A"), content: "Text A."}, {path: p("Note", "A", "B"), content: "Text B."}},
		},
		{
			name: "an H3 under an H1 without an H2",
			body: "# A\n### C\ntext\n",
			want: []sec{{}, {path: p("A")}, {path: p("A", "C"), content: "text"}},
		},
		{
			name: "a new H2 ends the H3 above it, a new H1 everything",
			body: "# A\n## B\n### C\nc\n## D\nd\n# E\n### F\nf\n",
			want: []sec{
				{}, {path: p("A")}, {path: p("A", "B")}, {path: p("A", "B", "C"), content: "c"},
				{path: p("A", "D"), content: "d"}, {path: p("E")}, {path: p("E", "F"), content: "f"},
			},
		},
		{
			name: "H4 to H6 stay inside their section",
			body: "## Import\n\nRead notes.\n\n#### Open questions\n\n- canvas?\n\n##### Tiny\n\nStill import.\n\n###### Six\n",
			want: []sec{{}, {path: p("Note", "Import"), content: "Read notes.\n\n#### Open questions\n\n- canvas?\n\n##### Tiny\n\nStill import.\n\n###### Six"}},
		},
		{
			name: "headings in code are not headings",
			body: "## Build\n\n```bash\n# build it\ngo build\n```\n\n~~~\n## not either\n~~~\n\n    # indented code\n",
			want: []sec{{}, {path: p("Note", "Build"), content: "```bash\n# build it\ngo build\n```\n\n~~~\n## not either\n~~~\n\n    # indented code"}},
		},
		{
			name: "an unclosed fence runs to the end",
			body: "## A\n\n```\n# in code\n## still code\n",
			want: []sec{{}, {path: p("Note", "A"), content: "```\n# in code\n## still code"}},
		},
		{
			name: "headings in quotes and lists are not split",
			body: "## A\n\n> ## quoted\n> text\n\n- ## in a list\n",
			want: []sec{{}, {path: p("Note", "A"), content: "> ## quoted\n> text\n\n- ## in a list"}},
		},
		{
			name: "setext headings",
			body: "Title\n=====\n\nUnder the title.\n\nSub\n---\nUnder sub.\n",
			want: []sec{{}, {path: p("Title"), content: "Under the title."}, {path: p("Title", "Sub"), content: "Under sub."}},
		},
		{
			name: "a setext heading of two lines",
			body: "intro\n\nTwo\nlines\n===\nbody\n",
			want: []sec{{content: "intro"}, {path: p("Two lines"), content: "body"}},
		},
		{
			name: "a setext heading that starts with a hash",
			body: "#hashtag line\n===\nbody text\n",
			want: []sec{{}, {path: p("#hashtag line"), content: "body text"}},
		},
		{
			name: "a setext heading at the end",
			body: "text\n\nLast\n---",
			want: []sec{{content: "text"}, {path: p("Note", "Last")}},
		},
		{
			name: "a rule after a blank line is not a heading",
			body: "## A\n\nA paragraph\n\n---\n\nafter the rule\n",
			want: []sec{{}, {path: p("Note", "A"), content: "A paragraph\n\n---\n\nafter the rule"}},
		},
		{
			name: "ATX headings: closing hashes, indentation, seven hashes",
			body: "   # Title ##\nx\n####### seven\n",
			want: []sec{{}, {path: p("Title"), content: "x\n####### seven"}},
		},
		{
			name: "a heading right after a heading, and one at the end",
			body: "# A\n## B\n## C",
			want: []sec{{}, {path: p("A")}, {path: p("A", "B")}, {path: p("A", "C")}},
		},
		{
			name: "an empty heading ends a section",
			body: "## A\ntext A\n##\ntext under nothing\n",
			want: []sec{{}, {path: p("Note", "A"), content: "text A"}, {path: p("Note"), content: "text under nothing"}},
		},
		{
			name: "inline markup stays in the heading",
			body: "## `go test` and [[Other note|alias]] #tag\nx\n",
			want: []sec{{}, {path: p("Note", "`go test` and [[Other note|alias]] #tag"), content: "x"}},
		},
		{
			name: "the indentation of the first line is kept",
			body: "## Code\n\n    indented code\n    more\n\n",
			want: []sec{{}, {path: p("Note", "Code"), content: "    indented code\n    more"}},
		},
		{
			name: "wikilinks, tags, callouts and tables are kept as written",
			body: "## Links\n\nSee [[Other note]] and [[Other note|that one]]. #project/x\n\n> [!tip] Title\n> body\n\n| a | b |\n|---|---|\n| 1 | 2 |\n",
			want: []sec{{}, {path: p("Note", "Links"), content: "See [[Other note]] and [[Other note|that one]]. #project/x\n\n> [!tip] Title\n> body\n\n| a | b |\n|---|---|\n| 1 | 2 |"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := sections([]byte(tt.body), "Note")
			if diff := cmp.Diff(tt.want, got, cmp.AllowUnexported(section{}), ignoreAnchors); diff != "" {
				t.Errorf("sections(%q) (-want +got):\n%s", tt.body, diff)
			}
		})
	}
}

func TestParseMarkdown(t *testing.T) {
	const (
		path  = "notes/Note.md"
		text  = "Restart the search workers after every schema change."
		text2 = "The index is a cache: delete it and it is rebuilt."
	)
	item := func(title, source, content string) Item {
		return Item{Title: title, Source: path + source, Content: content, Kind: KindMarkdown}
	}
	with := func(it Item, f func(*Item)) Item { f(&it); return it }
	long := strings.Repeat("x", 130)
	tests := []struct {
		name      string
		in        string
		wantItems []Item
		wantSkips []Skip
	}{
		{name: "empty", in: "", wantSkips: []Skip{{path, "empty"}}},
		{name: "white space", in: "\n \n\t\n", wantSkips: []Skip{{path, "empty"}}},
		{name: "only a frontmatter", in: "---\ntitle: Placeholder\ntags: [todo]\n---\n", wantSkips: []Skip{{path, "empty"}}},
		{name: "no letters", in: "***\n!? --\n", wantSkips: []Skip{{path, tooShort(0)}}},
		{name: "only headings", in: "# Reading\n## Now\n## Next\n### Fiction\n", wantSkips: []Skip{{path, "only headings, no text under them"}}},
		{name: "no headings", in: "\n" + text + "\n", wantItems: []Item{item("Note", "", text)}},
		{
			name:      "the title property names a note without headings",
			in:        "---\ntitle: Search workers\n---\n" + text,
			wantItems: []Item{item("Search workers", "", text)},
		},
		{
			name: "sections, the text before the first heading titled by the note",
			in:   text + "\n\n## Workers\n\n" + text2 + "\n",
			wantItems: []Item{
				item("Note", "", text),
				item("Note › Workers", "#Note › Workers", text2),
			},
		},
		{
			name: "short sections are skipped with a reason, empty ones are not reported",
			in:   "# Top\n## Empty container\n### Real\n" + text + "\n## Short\nok, thanks!\n## Empty leaf\n",
			wantItems: []Item{
				item("Top › Empty container › Real", "#Top › Empty container › Real", text),
			},
			wantSkips: []Skip{{path + "#Top › Short", tooShort(8)}},
		},
		{
			name: "frontmatter: tags as a list, aliases on the first memory only, created, project, type",
			in: "---\ntitle: Workers\ntags: [Search, infra/ops]\naliases: [Search workers, SW]\ncreated: 2024-02-03T04:05:06Z\n" +
				"project: My App\ntype: Decision\n---\n## One\n" + text + "\n## Two\n" + text2 + "\n",
			wantItems: []Item{
				with(item("Workers › One", "#Workers › One", text), func(it *Item) {
					it.Tags, it.Aliases = []string{"search", "infra/ops"}, []string{"Search workers", "SW"}
					it.Created, it.Project, it.Type = time.Date(2024, 2, 3, 4, 5, 6, 0, time.UTC), "my-app", memories.TypeDecision
				}),
				with(item("Workers › Two", "#Workers › Two", text2), func(it *Item) {
					it.Tags = []string{"search", "infra/ops"}
					it.Created, it.Project, it.Type = time.Date(2024, 2, 3, 4, 5, 6, 0, time.UTC), "my-app", memories.TypeDecision
				}),
			},
		},
		{
			name: "frontmatter: tags as a string, an alias as a string, date, a type cortex does not have",
			in:   "---\ntags: \"#books, distributed-systems reading\"\naliases: DDIA\ndate: 2023-11-20 18:45\ntype: book\nauthor: M. K.\n---\n" + text,
			wantItems: []Item{with(item("Note", "", text), func(it *Item) {
				it.Tags, it.Aliases = []string{"books", "distributed-systems", "reading"}, []string{"DDIA"}
				it.Created = time.Date(2023, 11, 20, 18, 45, 0, 0, time.UTC)
			})},
		},
		{
			name:      "frontmatter: a project cortex cannot name is left to the caller",
			in:        "---\nproject: \"my app (old)\"\ncreated: not a date\n---\n" + text,
			wantItems: []Item{item("Note", "", text)},
		},
		{
			name:      "broken frontmatter skips the note with the line",
			in:        "---\ntitle: Landlord\ntags: [home, \"repairs\ndate: 2024-04-02\n---\n" + text,
			wantSkips: []Skip{{path, "the frontmatter does not parse: line 3: found unexpected end of stream"}},
		},
		{
			name:      "an unclosed frontmatter",
			in:        "---\ntitle: Landlord\n" + text,
			wantSkips: []Skip{{path, "the frontmatter does not parse: line 1: the opening '---' has no closing '---' line"}},
		},
		{
			name: "a long heading path is cut at 120 characters",
			in:   "# " + long + "\n## Sub\n" + text,
			wantItems: []Item{
				item(long[:119]+"…", "#"+long+" › Sub", text),
			},
		},
		{
			name:      "CRLF and CR line ends",
			in:        "## Workers\r\n\r\n" + text + "\r\nMore.\rAnd more.\r\n",
			wantItems: []Item{item("Note › Workers", "#Note › Workers", text+"\nMore.\nAnd more.")},
		},
		{
			name:      "control characters leave the title",
			in:        "## Work\x1bers\x07 \t now\n" + text,
			wantItems: []Item{item("Note › Work ers now", "#Note › Work ers now", text)},
		},
		{
			name:      "invalid UTF-8",
			in:        "## Crème\n" + text + "\nCaf\xe9\n",
			wantSkips: []Skip{{path, "not valid UTF-8 text: byte 0xe9 at line 3, column 4"}},
		},
		{
			name:      "a NUL byte",
			in:        text + "\x00",
			wantSkips: []Skip{{path, "a binary file (it holds a NUL byte)"}},
		},
		{
			name:      "a byte order mark",
			in:        "\xef\xbb\xbf---\ntitle: Workers\n---\n" + text,
			wantItems: []Item{item("Workers", "", text)},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			items, skips := parseMarkdown(path, []byte(tt.in))
			if diff := cmp.Diff(tt.wantItems, items, ignoreLinks); diff != "" {
				t.Errorf("items (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantSkips, skips); diff != "" {
				t.Errorf("skips (-want +got):\n%s", diff)
			}
			checkItems(t, KindMarkdown, items, skips)
		})
	}
}

func TestParseMarkdownTitleFromFileName(t *testing.T) {
	const text = "Restart the search workers after every schema change."
	tests := []struct{ path, want string }{
		{"notes/2024-03-12 Sprint review.md", "2024-03-12 Sprint review"},
		{"notes/Recette des crêpes.markdown", "Recette des crêpes"},
		{"notes/tab\there.md", "tab here"},
		{"notes/.md", "Untitled"},
	}
	for _, tt := range tests {
		items, _ := parseMarkdown(tt.path, []byte(text))
		if len(items) != 1 || items[0].Title != tt.want {
			t.Errorf("parseMarkdown(%q) = %+v, want one item titled %q", tt.path, items, tt.want)
		}
	}
}

func TestParseMarkdownSplitsALongSection(t *testing.T) {
	para := "Every decision about cortex is logged here with the reason it was taken and the date.\n\n"
	n := memories.MaxContentChars/len(para) + 1
	body := strings.Repeat(para, n) + "Last words here."
	tests := []struct {
		name, heading string
		wantTitles    []string
	}{
		{"a short heading", "Log", []string{"Decisions › Log (1/2)", "Decisions › Log (2/2)"}},
		{
			"a heading too long for the numbers", strings.Repeat("long ", 30),
			[]string{
				cut("Decisions › "+strings.TrimSpace(strings.Repeat("long ", 30)), 114) + " (1/2)",
				cut("Decisions › "+strings.TrimSpace(strings.Repeat("long ", 30)), 114) + " (2/2)",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := "---\ntitle: Decisions\naliases: [Log]\n---\n## " + tt.heading + "\n\n" + body + "\n\n## Next\n\nA section after the long one.\n"
			items, skips := parseMarkdown("d.md", []byte(in))
			checkItems(t, KindMarkdown, items, skips)
			if len(skips) > 0 {
				t.Errorf("skips: %v", skips)
			}
			var titles []string
			var joined strings.Builder
			for _, it := range items[:len(items)-1] {
				titles = append(titles, it.Title)
				joined.WriteString(it.Content + "\n\n")
			}
			if diff := cmp.Diff(tt.wantTitles, titles); diff != "" {
				t.Errorf("titles (-want +got):\n%s", diff)
			}
			if got := joined.String(); got != body+"\n\n" {
				t.Errorf("the pieces do not make the section: %d characters, want %d", len(got), len(body)+2)
			}
			for i, it := range items {
				if want := i == 0; (it.Aliases != nil) != want {
					t.Errorf("item %d (%s): aliases %q; want them on the first item only", i, it.Title, it.Aliases)
				}
			}
		})
	}

	t.Run("a last piece too short to be a memory", func(t *testing.T) {
		in := "## Log\n\n" + strings.Repeat("a", memories.MaxContentChars) + "\n\nok, thanks!"
		items, skips := parseMarkdown("d.md", []byte(in))
		checkItems(t, KindMarkdown, items, skips)
		if len(items) != 1 || items[0].Title != "d › Log (1/2)" {
			t.Errorf("items: %d, want the first piece", len(items))
		}
		want := []Skip{{"d.md#d › Log (2/2)", tooShort(8)}}
		if diff := cmp.Diff(want, skips); diff != "" {
			t.Errorf("skips (-want +got):\n%s", diff)
		}
	})
}

func TestCut(t *testing.T) {
	tests := []struct {
		in   string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"exactly ten", 11, "exactly ten"},
		{"a bit too long", 10, "a bit too…"},
		{"cut at a space here", 7, "cut at…"},
		{"日本語のタイトルです", 5, "日本語の…"},
	}
	for _, tt := range tests {
		if got := cut(tt.in, tt.n); got != tt.want {
			t.Errorf("cut(%q, %d) = %q, want %q", tt.in, tt.n, got, tt.want)
		}
		if n := utf8.RuneCountInString(cut(tt.in, tt.n)); n > tt.n {
			t.Errorf("cut(%q, %d) is %d characters", tt.in, tt.n, n)
		}
	}
}

func TestJoinTitle(t *testing.T) {
	tests := []struct {
		path []string
		want string
	}{
		{nil, "Note"},
		{[]string{"Note", "A", "B"}, "Note › A › B"},
		{[]string{""}, "Untitled"},
		{[]string{"  spaced \n out  "}, "spaced out"},
		// A heading that repeats the one above it is named once.
		{[]string{"Setup", "Setup", "Screenshot"}, "Setup › Screenshot"},
		{[]string{"Setup", " Setup", "Setup"}, "Setup"},
		{[]string{"Setup", "Usage", "Setup"}, "Setup › Usage › Setup"},
	}
	for _, tt := range tests {
		path := slices.Clone(tt.path)
		if got := joinTitle(tt.path, "Note"); got != tt.want {
			t.Errorf("joinTitle(%q) = %q, want %q", tt.path, got, tt.want)
		}
		if !slices.Equal(path, tt.path) {
			t.Errorf("joinTitle changed its path: %q, was %q", tt.path, path)
		}
	}
}

// seedTree adds the files under fixtures/import/<dir> whose name ends with
// one of exts to f's corpus.
func seedTree(f *testing.F, dir string, exts ...string) {
	f.Helper()
	root := filepath.Join("..", "fixtures", "import", dir)
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		for _, ext := range exts {
			if strings.HasSuffix(p, ext) {
				data, err := os.ReadFile(p)
				if err != nil {
					return err
				}
				f.Add(data)
			}
		}
		return nil
	})
	if err != nil {
		f.Fatal(err)
	}
}

var markdownSeeds = []string{
	"", "#", "# \n", "Title\n===\n", "#hashtag\n---\n", "```\n# code\n", "---\n---\n", "---\ntitle: x\n",
	"\xef\xbb\xbf# BOM\nsome text that is long enough to be kept\n", "a\r\n# b\r\nlong enough to be a memory of its own\r",
	"# " + strings.Repeat("long ", 40) + "\n" + strings.Repeat("word ", 2100),
}

func FuzzParseMarkdown(f *testing.F) {
	seedTree(f, "vault", ".md")
	seedTree(f, "markdown", ".md")
	for _, s := range markdownSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkParser(t, KindMarkdown, parseMarkdown, data)
		items, _ := parseMarkdown("fuzz/input", data)
		for i, it := range items {
			if i > 0 && it.Aliases != nil {
				t.Errorf("item %d (%s) has aliases %q; only the first item of a note has them", i, it.Title, it.Aliases)
			}
		}
		// readNote reads the properties from the note without its body:
		// what the whole note's memory says of them.
		if n, skip := readNote("fuzz/input.md", data); skip == nil {
			m := n.raw.Memory("fuzz/input.md", time.Time{})
			if !slices.Equal(n.tags, m.Tags) || !slices.Equal(n.aliases, m.Aliases) || n.raw.Has("created") && !n.created.Equal(m.Created) ||
				n.typ != "" && n.typ != m.Type || string(n.body) != m.Body {
				t.Errorf("readNote: tags %q, aliases %q, created %v, type %q; the memory's %q, %q, %v, %q", n.tags, n.aliases, n.created, n.typ, m.Tags, m.Aliases, m.Created, m.Type)
			}
		}
	})
}

func FuzzSections(f *testing.F) {
	seedTree(f, "vault", ".md")
	seedTree(f, "markdown", ".md")
	for _, s := range markdownSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		got := sections(body, "Note")
		if len(got) == 0 {
			t.Fatalf("no sections in %q", body)
		}
		for i, s := range got {
			if !strings.Contains(string(body), s.content) {
				t.Errorf("section %d: content %q is not in the body", i, s.content)
			}
			if s.content != strings.TrimRight(s.content, " \t\r\n") {
				t.Errorf("section %d: content %q ends with white space", i, s.content)
			}
			if i > 0 && len(s.path) == 0 || len(s.path) > maxSplitLevel+1 {
				t.Errorf("section %d: path %q", i, s.path)
			}
			for _, h := range s.path {
				if h == "" || h != cleanTitle(h) {
					t.Errorf("section %d: heading %q in path %q is not one clean line", i, h, s.path)
				}
			}
		}
		if diff := cmp.Diff(got, sections(body, "Note"), cmp.AllowUnexported(section{})); diff != "" {
			t.Errorf("two runs differ:\n%s", diff)
		}
	})
}

// FuzzSectionsOfBlocks: sections, which parses the blocks only, splits a
// note as the full parser's headings split it.
func FuzzSectionsOfBlocks(f *testing.F) {
	seedTree(f, "vault", ".md")
	seedTree(f, "markdown", ".md")
	for _, s := range append(markdownSeeds,
		"[foo]: /url\n===\n", "[foo]: /url\nbar\n===\n", "`code\n# not a span`\n", "<div>\n# html\n</div>\n# after\n",
		"> # quoted\n# top\n", "- # item\n\n# top\ntext\n", "*a\n---\n", "[x\n# y](z)\n", "    # indented\n## h2\n",
		// The lines mayHaveHeading tells apart.
		"a\n- - -\n", "a\n= =\n", "a\n==  \t\n", "a\n   ---\n", "a\n    ---\n", "a\n \t#b\n", "a\r# b\r", "a\r\n===\r\n",
		"\xef\xbb\xbf# a\n", "a\n-- b\n", "  #\n", "a\n\t===\n", "- a\n- b\n\n* c\n", "a\n=\n", "a\n-",
	) {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		if diff := cmp.Diff(sectionsBy(md(), body, "Note"), sections(body, "Note"), cmp.AllowUnexported(section{})); diff != "" {
			t.Errorf("sections of %q (-full parser +blocks only):\n%s", body, diff)
		}
	})
}

// What links resolve by is tested on its own (TestItemLinkNames); the tests
// of what parsers read leave it out.
var (
	ignoreLinks   = cmpopts.IgnoreFields(Item{}, "LinkName", "Anchors")
	ignoreAnchors = cmpopts.IgnoreFields(section{}, "heading", "deeper")
)

// TestMayHaveHeading: the lines that could make a heading are told apart
// from those that cannot, and a note without them is one section, as the
// parser finds it.
func TestMayHaveHeading(t *testing.T) {
	for body, want := range map[string]bool{
		"plain text\nmore text\n":          false,
		"- a list\n- of items\n\n* more\n": false,
		"a\n- - -\n":                       false, // a thematic break
		"a\n    ===\n":                     false, // indented: the paragraph goes on
		"a\n\t# b\n":                       false, // code
		"see #tag and a = b - c\n":         false,
		"":                                 false,
		"# Title\n":                        true,
		"a\n   ## b\n":                     true,
		"a\n===\n":                         true,
		"a\n--- \t\n":                      true,
		"a\r# b":                           true,
		"\xef\xbb\xbfa\n":                  true,
		"a\n-":                             true,
	} {
		if got := mayHaveHeading([]byte(body)); got != want {
			t.Errorf("mayHaveHeading(%q) = %v, want %v", body, got, want)
		}
		if diff := cmp.Diff(sectionsBy(md(), []byte(body), "Note"), sections([]byte(body), "Note"), cmp.AllowUnexported(section{})); diff != "" {
			t.Errorf("sections of %q (-full parser +sections):\n%s", body, diff)
		}
	}
}

// TestReadNoteCopiesNoBody: reading a note's properties does not copy its
// body (the sections cut their own): a note of a megabyte is read with a
// few kilobytes of allocations.
func TestReadNoteCopiesNoBody(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	data := []byte("---\ntitle: \"Big\"\ntags: [a, b]\ncreated: 2026-05-28\n---\n\n" + strings.Repeat("Some text of the note.\n", 1<<16))
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	const runs = 10
	for range runs {
		n, skip := readNote("big.md", data)
		if skip != nil || n.title != "Big" || len(n.tags) != 2 || n.created.IsZero() || len(n.body) < 1<<20 {
			t.Fatalf("readNote: %+v, %v", n, skip)
		}
	}
	runtime.ReadMemStats(&after)
	if per := (after.TotalAlloc - before.TotalAlloc) / runs; per > 64<<10 {
		t.Errorf("readNote of a %d-byte note allocated %d bytes, want at most 64 KB", len(data), per)
	}
}
