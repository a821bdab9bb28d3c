package vault

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/adrg/frontmatter"
	"github.com/google/go-cmp/cmp"
	"go.yaml.in/yaml/v3"
)

// hasIndentedDelimiter reports whether text holds a line that is "---" once its
// spaces are trimmed but not at the line's start: there adrg/frontmatter ends
// the properties (it trims every line) and ParseNote, as Obsidian, does not.
func hasIndentedDelimiter(text []byte) bool {
	for _, line := range bytes.Split(text, []byte("\n")) {
		if string(bytes.TrimSpace(line)) == "---" && !isDelimiter(line) {
			return true
		}
	}
	return false
}

// FuzzFrontmatterAsTheLibrary: ParseNote decodes properties itself since it
// stopped linking adrg/frontmatter; wherever no line is an indented "---"
// (where ParseNote decoded the text itself before too), the library finds the
// same text to decode, the same body, and the same result or error.
func FuzzFrontmatterAsTheLibrary(f *testing.F) {
	files, err := filepath.Glob(filepath.Join("testdata", "notes", "*.md"))
	if err != nil {
		f.Fatal(err)
	}
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	for _, s := range []string{
		"---\n---\n", "---\r\n---\r\n", "---\na: [\n---\n", "---\n- a\n---\n", "---  \na: 1\n---\t\nbody",
		"---\na: 1\n---", "---\na: 1\n---\r\nb\n", "\xef\xbb\xbf---\na: 1\n---\n", "---\na: 1\n--- b\n---\n",
		"---\na: |\n  x\n---\n", "---\na: 1\n\n---\n\nbody\n---\nmore", "---\na: 1\n...\nb: 2\n---\n",
		"---\n\x00\n---\n", "---\na: 1\n---\v\n", "---\na: b\n---\u00a0\nc: d\n---\n",
	} {
		f.Add([]byte(s))
	}
	library := frontmatter.NewFormat("---", "---", decodeFrontmatter)
	f.Fuzz(func(t *testing.T, data []byte) {
		data = bytes.TrimPrefix(data, utf8BOM)
		first, rest, _ := bytes.Cut(data, []byte("\n"))
		if !isDelimiter(first) {
			return
		}
		text, body, ok := cutFrontmatter(rest)
		if !ok || hasIndentedDelimiter(text) {
			return
		}
		var want, got yaml.Node
		wantBody, wantErr := frontmatter.MustParse(bytes.NewReader(data), &want, library)
		gotErr := decodeFrontmatter(text, &got)
		if (wantErr != nil) != (gotErr != nil) || (wantErr != nil && wantErr.Error() != gotErr.Error()) {
			t.Fatalf("%q: library error %v, ParseNote's %v", data, wantErr, gotErr)
		}
		if wantErr != nil {
			return
		}
		if !bytes.Equal(wantBody, body) {
			t.Fatalf("%q: library body %q, ParseNote's %q", data, wantBody, body)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("%q: properties (-library +ParseNote):\n%s", data, diff)
		}
	})
}
