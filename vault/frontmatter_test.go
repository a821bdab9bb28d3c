package vault

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/adrg/frontmatter"
	"github.com/google/go-cmp/cmp"
	"go.yaml.in/yaml/v3"
)

// adrgDecode decodes a note's properties as ParseNote did with
// adrg/frontmatter, for a note whose frontmatter cutFrontmatter closes:
// text decoded as it is where it holds an indented "---" line (at which
// adrg/frontmatter would have ended it), else adrg/frontmatter reading the
// opening line, text and the closing line, which must leave nothing after
// the properties.
func adrgDecode(data, text, body []byte) (yaml.Node, error) {
	var doc yaml.Node
	indented := false
	for _, line := range bytes.Split(text, []byte("\n")) {
		if string(bytes.TrimSpace(line)) == "---" && !isDelimiter(line) {
			indented = true
		}
	}
	if indented {
		return doc, decodeFrontmatter(text, &doc)
	}
	format := frontmatter.NewFormat("---", "---", decodeFrontmatter)
	got, err := frontmatter.MustParse(bytes.NewReader(data[:len(data)-len(body)]), &doc, format)
	if err == nil && len(got) != 0 {
		return doc, &ParseError{Line: 1, Msg: "cannot find where the properties end"}
	}
	return doc, err
}

// sameAsAdrg checks that ParseNote reads data's properties as it did with
// adrg/frontmatter: the same node tree, or the same error.
func sameAsAdrg(t *testing.T, data []byte) {
	t.Helper()
	data = bytes.TrimPrefix(data, utf8BOM)
	first, rest, _ := bytes.Cut(data, []byte("\n"))
	if !isDelimiter(first) {
		return
	}
	text, body, ok := cutFrontmatter(rest)
	if !ok {
		return
	}
	if frontmatterMarker(text) > 0 {
		return // a merge conflict, found before the properties are decoded
	}
	doc, wantErr := adrgDecode(data, text, body)
	n, err := ParseNote(data)
	if wantErr != nil {
		want := frontmatterError(wantErr, text)
		if err == nil || err.Error() != want.Error() {
			t.Fatalf("%q: ParseNote's error %v, adrg/frontmatter's %v", data, err, want)
		}
		return
	}
	var want *yaml.Node
	switch {
	case doc.Kind == 0:
		want = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	case doc.Kind == yaml.DocumentNode && len(doc.Content) == 1 && doc.Content[0].Kind == yaml.MappingNode:
		want = doc.Content[0]
	}
	if err != nil {
		if want != nil && checkKeys(want) == nil {
			t.Fatalf("%q: ParseNote: %v; adrg/frontmatter read the properties %v", data, err, want)
		}
		return
	}
	if want == nil {
		t.Fatalf("%q: ParseNote read properties adrg/frontmatter gave as %v", data, doc)
	}
	if diff := cmp.Diff(want, n.fm); diff != "" {
		t.Fatalf("%q: properties differ from adrg/frontmatter's (-adrg +now):\n%s", data, diff)
	}
}

// adrgCases are frontmatters at the edges of where adrg/frontmatter, which
// trims every line, and cortex, which closes only at a "---" at a line's
// start, might have disagreed.
var adrgCases = []string{
	"", "---", "---\n", "---\n---", "---\n---\n", "---\r\n---\r\n", "--- \t\n---  \r\n",
	"---\na: 1\n---\nbody\n", "---\na: 1\n---", "---\na: 1\n--- \nbody", "---\na: 1\n---\t\r\n",
	"---\na: [\n---\n", "---\n- a\n---\n", "---\na: 1\na: 2\n---\n", "---\n? [a]\n: b\n---\n",
	"---\na: 1\n--- b\n---\n", "---\na: &x 1\nb: *x\n---\n", "---\na: |\n  ---\n---\n",
	"---\na: |\n\t---\nb: 2\n---\n", "---\na: 1\n\f---\n---\n", "---\na: 1\n---\f\n---\n",
	"---\na: 1\n\u00a0---\n---\n", "---\na: 1\n---\u0085\n---\n", "---\na: 1\n\v---\v\n---\n",
	"---\n\na: 1\n\n---\n\n", "---\n\n\n---\n", "---\n   \n---\n", "---\na: 1\n...\nb: 2\n---\n",
	"---\na: 1\n...\n---\n", "---\n--- x\n---\n", "---\n# only a comment\n---\n",
	"---\ntitle: \"x\"\ntags: [a, b]\n---\n---\nmore\n---\n", "---\na: 1\r\nb: 2\r\n---\r\nbody\r\n",
	"---\na: >\n  folded\n  ---  \n---\n", "---\na: 'x\n---\n", "---\na: \"x\n---\n",
	"---\n{a: 1}\n---\n", "---\n[1, 2]\n---\n", "---\nx\n---\n", "---\n%YAML 1.2\n---\n",
	"---\n!!binary aGk=\n---\n", "---\na: !!int x\n---\n", "\xef\xbb\xbf---\na: 1\n---\n",
}

// TestParseNoteAsAdrgFrontmatter: the properties are decoded from the text
// between the delimiters as adrg/frontmatter decoded them, over the test
// notes, the edge cases above and every variation of them with a line's
// indentation or trailing spaces changed.
func TestParseNoteAsAdrgFrontmatter(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "notes", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	inputs := append([]string(nil), adrgCases...)
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		inputs = append(inputs, string(data))
	}
	checked := 0
	for _, in := range inputs {
		sameAsAdrg(t, []byte(in))
		lines := strings.Split(in, "\n")
		for i := range lines {
			for _, edit := range []func(string) string{
				func(l string) string { return " " + l },
				func(l string) string { return "\t" + l },
				func(l string) string { return l + " " },
				func(l string) string { return l + "\r" },
				func(l string) string { return "\f" + l },
				func(l string) string { return strings.TrimSpace(l) },
				func(l string) string { return "---" },
				func(l string) string { return "  ---" },
				func(l string) string { return "" },
			} {
				varied := append([]string(nil), lines...)
				varied[i] = edit(varied[i])
				sameAsAdrg(t, []byte(strings.Join(varied, "\n")))
				checked++
			}
		}
	}
	if checked < 1000 {
		t.Fatalf("only %d variations checked", checked)
	}
}

// FuzzParseNoteAsAdrgFrontmatter is TestParseNoteAsAdrgFrontmatter on any
// bytes.
func FuzzParseNoteAsAdrgFrontmatter(f *testing.F) {
	for _, s := range adrgCases {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		sameAsAdrg(t, data)
	})
}
