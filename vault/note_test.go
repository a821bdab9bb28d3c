package vault

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"go.yaml.in/yaml/v3"

	"github.com/cortexmem/cortex/internal/golden"
	"github.com/cortexmem/cortex/memories"
)

func readTestdata(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func mustParse(t *testing.T, data []byte) *Note {
	t.Helper()
	n, err := ParseNote(data)
	if err != nil {
		t.Fatalf("ParseNote(%q): %v", data, err)
	}
	return n
}

func mustBytes(t *testing.T, n *Note) []byte {
	t.Helper()
	b, err := n.Bytes()
	if err != nil {
		t.Fatalf("Bytes: %v", err)
	}
	return b
}

// editTime is the time the golden edits write.
var editTime = time.Date(2024, 6, 1, 12, 0, 0, 0, time.UTC)

func TestNoteGolden(t *testing.T) {
	tests := []struct {
		name     string // testdata/notes/<name>.golden is the result
		in       string // testdata/notes/<in>.md is read; name when empty
		apply    *memories.Memory
		keys     []string // the keys of apply written to the note; none: a plain round trip
		wantKeys []string
	}{
		{
			name: "unknown-keys",
			apply: &memories.Memory{
				Title: "Deploy with blue-green switching", Tags: []string{"k8s", "deploy", "rollback"},
				Status: memories.StatusSuperseded, SupersededBy: "01hv4x8k2m3n4p5q6r7s8t9vzz", Updated: editTime,
			},
			keys: []string{"title", "tags", "status", "superseded_by", "updated"},
			wantKeys: []string{
				"id", "title", "aliases", "type", "cssclasses", "project", "reviewed_by", "tags",
				"status", "importance", "created", "updated", "my_rating", "superseded_by",
			},
		},
		{
			name:     "unknown-keys-area-removed",
			in:       "unknown-keys",
			apply:    &memories.Memory{Importance: 2},
			keys:     []string{"importance", "project", "area"}, // empty in apply: project goes, area was never there
			wantKeys: []string{"id", "title", "aliases", "type", "cssclasses", "reviewed_by", "tags", "status", "importance", "created", "updated", "my_rating"},
		},
		{
			name:     "comments",
			apply:    &memories.Memory{Title: "Prefer table-driven tests with t.Run", Status: memories.StatusDone, Updated: editTime},
			keys:     []string{"title", "status", "updated"},
			wantKeys: []string{"id", "title", "tags", "status", "updated", "review"},
		},
		{
			name:     "odd-yaml",
			wantKeys: []string{"title", "aliases", "single", "numstr", "version", "count", "ratio", "enabled", "empty", "tilde", "nulls", "literal", "folded", "nested", "flowmap", "date", "multi line plain", "anchored", "alias"},
		},
		{
			name:     "odd-yaml-applied",
			in:       "odd-yaml",
			apply:    &memories.Memory{ID: "01hv4x8k2m3n4p5q6r7s8t9v10", Updated: editTime},
			keys:     []string{"id", "updated"},
			wantKeys: []string{"id", "title", "aliases", "single", "numstr", "version", "count", "ratio", "enabled", "empty", "tilde", "nulls", "literal", "folded", "nested", "flowmap", "date", "multi line plain", "anchored", "alias", "updated"},
		},
		{
			// yaml.v3 writes characters outside the BMP (emoji) as \U escapes
			// in a double-quoted string: the value is kept, its spelling is not.
			name:     "unicode",
			apply:    &memories.Memory{Title: "Café — 日本語のメモ 🚀 (v2)", Updated: editTime},
			keys:     []string{"title", "updated"},
			wantKeys: []string{"title", "tags", "updated"},
		},
		{
			name:     "crlf",
			apply:    &memories.Memory{Tags: []string{"windows", "crlf"}, Updated: editTime},
			keys:     []string{"tags", "updated"},
			wantKeys: []string{"id", "title", "tags", "status", "updated"},
		},
		{
			name:     "crlf-no-frontmatter",
			apply:    &memories.Memory{ID: "01hv4x8k2m3n4p5q6r7s8t9v11"},
			keys:     []string{"id"},
			wantKeys: []string{"id"},
		},
		{
			name:     "bom",
			apply:    &memories.Memory{Status: memories.StatusSuperseded},
			keys:     []string{"status"},
			wantKeys: []string{"id", "title", "status"},
		},
		{
			name:     "bom-no-frontmatter",
			apply:    &memories.Memory{ID: "01hv4x8k2m3n4p5q6r7s8t9v12"},
			keys:     []string{"id"},
			wantKeys: []string{"id"},
		},
		{
			name:     "empty-body",
			apply:    &memories.Memory{Status: memories.StatusDone},
			keys:     []string{"status"},
			wantKeys: []string{"title", "status"},
		},
		{
			name:     "closing-at-eof",
			wantKeys: []string{"title"},
		},
		{
			name:     "no-frontmatter",
			apply:    &memories.Memory{ID: "01hv4x8k2m3n4p5q6r7s8t9v13", Title: "ignored: only id is applied"},
			keys:     []string{"id"},
			wantKeys: []string{"id"},
		},
		{
			name:     "empty-frontmatter",
			apply:    &memories.Memory{ID: "01hv4x8k2m3n4p5q6r7s8t9v14"},
			keys:     []string{"id"},
			wantKeys: []string{"id"},
		},
		{
			// yaml.v3 writes a folded scalar with an indented line back with
			// an extra line break; it is written as a literal one instead.
			name:     "folded-indented",
			apply:    &memories.Memory{ID: "01hv4x8k2m3n4p5q6r7s8t9v16"},
			keys:     []string{"id"},
			wantKeys: []string{"id", "title", "description", "summary"},
		},
		{
			name:     "indented-rule",
			apply:    &memories.Memory{ID: "01hv4x8k2m3n4p5q6r7s8t9v15"},
			keys:     []string{"id"},
			wantKeys: []string{"id", "title", "summary"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := tt.in
			if src == "" {
				src = tt.name
			}
			in := readTestdata(t, filepath.Join("testdata", "notes", src+".md"))
			n := mustParse(t, in)
			if len(tt.keys) > 0 {
				if err := n.Apply(tt.apply, tt.keys...); err != nil {
					t.Fatalf("Apply: %v", err)
				}
			}
			out := mustBytes(t, n)
			golden.Check(t, filepath.Join("testdata", "notes", tt.name+".golden"), out)

			// What was written reads back with the wanted keys and the body as it was.
			back := mustParse(t, out)
			if diff := cmp.Diff(tt.wantKeys, back.Keys()); diff != "" {
				t.Errorf("keys after the rewrite (-want +got):\n%s", diff)
			}
			before := decoded(t, mustParse(t, in))
			if before == nil {
				before = map[string]any{}
			}
			applied := cmpopts.IgnoreMapEntries(func(k, _ any) bool { return slices.Contains(tt.keys, fmt.Sprint(k)) })
			if diff := cmp.Diff(before, decoded(t, back), applied, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("values of the keys not applied changed (-before +after):\n%s", diff)
			}
			if got, want := string(back.Body), string(bodyOf(in)); got != want {
				t.Errorf("body after the rewrite: got %q, want %q", got, want)
			}
			if got, want := bytes.HasPrefix(out, utf8BOM), bytes.HasPrefix(in, utf8BOM); got != want {
				t.Errorf("byte order mark kept: got %v, want %v", got, want)
			}
			if first, _, _ := bytes.Cut(in, []byte("\n")); bytes.HasSuffix(first, []byte("\r")) {
				if lf, crlf := bytes.Count(out, []byte("\n")), bytes.Count(out, []byte("\r\n")); lf != crlf {
					t.Errorf("a CRLF note came back with %d bare LF line ends:\n%q", lf-crlf, out)
				}
			}
		})
	}
}

// bodyOf is what follows a note's frontmatter, found without ParseNote: the
// text after the second line that is "---".
func bodyOf(data []byte) []byte {
	data = bytes.TrimPrefix(data, utf8BOM)
	if !bytes.HasPrefix(data, []byte("---\n")) && !bytes.HasPrefix(data, []byte("---\r\n")) {
		return data
	}
	_, rest, _ := bytes.Cut(data, []byte("\n"))
	for len(rest) > 0 {
		line, after, _ := bytes.Cut(rest, []byte("\n"))
		if string(bytes.TrimRight(line, "\r")) == "---" {
			return after
		}
		rest = after
	}
	return nil
}

// TestRewriteUnchanged: notes as cortex and Obsidian write them come back byte
// for byte from a parse, and from writing back the values they already hold.
func TestRewriteUnchanged(t *testing.T) {
	files := []string{
		"unknown-keys.md", "comments.md", "crlf.md", "bom.md", "empty-body.md", "empty-frontmatter.md",
		"no-frontmatter.md", "indented-rule.md", "new-note-full.golden", "new-note-minimal.golden",
	}
	for _, file := range files {
		t.Run(file, func(t *testing.T) {
			in := readTestdata(t, filepath.Join("testdata", "notes", file))
			n := mustParse(t, in)
			if got := mustBytes(t, n); !bytes.Equal(got, in) {
				t.Fatalf("parse and render changed the note:\ngot  %q\nwant %q", got, in)
			}
			var keys []string
			for _, k := range n.Keys() {
				if slices.Contains(canonicalKeys, k) {
					keys = append(keys, k)
				}
			}
			if err := n.Apply(n.Memory("memories/infra/"+file, editTime), keys...); err != nil {
				t.Fatal(err)
			}
			if got := mustBytes(t, n); !bytes.Equal(got, in) {
				t.Errorf("writing back the note's own %q changed it:\ngot  %q\nwant %q", keys, got, in)
			}
		})
	}
}

// TestGoldenStable: every golden output is a fixed point: parsing and rendering
// it again gives the same bytes.
func TestGoldenStable(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "notes", "*.golden"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no golden notes")
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			in := readTestdata(t, f)
			if got := mustBytes(t, mustParse(t, in)); !bytes.Equal(got, in) {
				t.Errorf("got  %q\nwant %q", got, in)
			}
		})
	}
}

func TestParseNoteSplit(t *testing.T) {
	tests := []struct {
		name     string
		in       string
		wantKeys []string
		wantBody string
		wantFM   bool
	}{
		{name: "no frontmatter", in: "# Title\n\nText\n", wantBody: "# Title\n\nText\n"},
		{name: "empty file", in: "", wantBody: ""},
		{name: "a rule later is not frontmatter", in: "text\n---\na: 1\n---\n", wantBody: "text\n---\na: 1\n---\n"},
		{name: "indented opening is not frontmatter", in: " ---\na: 1\n---\n", wantBody: " ---\na: 1\n---\n"},
		{name: "blank line before the opening", in: "\n---\na: 1\n---\n", wantBody: "\n---\na: 1\n---\n"},
		{name: "simple", in: "---\na: 1\nb: two\n---\nbody\n", wantKeys: []string{"a", "b"}, wantBody: "body\n", wantFM: true},
		{name: "spaces after the delimiters", in: "--- \na: 1\n---\t\nbody", wantKeys: []string{"a"}, wantBody: "body", wantFM: true},
		{name: "closing at the end of the file", in: "---\na: 1\n---", wantKeys: []string{"a"}, wantBody: "", wantFM: true},
		{name: "empty", in: "---\n---\n", wantKeys: []string{}, wantBody: "", wantFM: true},
		{name: "blank lines only", in: "---\n\n  \n---\nx", wantKeys: []string{}, wantBody: "x", wantFM: true},
		{name: "a second rule stays in the body", in: "---\n---\n---\nbody", wantKeys: []string{}, wantBody: "---\nbody", wantFM: true},
		{name: "crlf", in: "---\r\na: 1\r\n---\r\nbody\r\n", wantKeys: []string{"a"}, wantBody: "body\r\n", wantFM: true},
		{name: "bom", in: "\xef\xbb\xbf---\na: 1\n---\nbody", wantKeys: []string{"a"}, wantBody: "body", wantFM: true},
		{name: "indented rule inside a block scalar", in: "---\na: |\n  x\n  ---\n  y\nb: 2\n---\nbody", wantKeys: []string{"a", "b"}, wantBody: "body", wantFM: true},
		{name: "keys that read as other types", in: "---\n1: a\ntrue: b\nnull: c\n---\n", wantKeys: []string{"1", "true", "null"}, wantFM: true},
		{name: "document end marker", in: "---\na: 1\n...\n---\nbody", wantKeys: []string{"a"}, wantBody: "body", wantFM: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := mustParse(t, []byte(tt.in))
			if got := n.HasFrontmatter(); got != tt.wantFM {
				t.Errorf("HasFrontmatter() = %v, want %v", got, tt.wantFM)
			}
			if diff := cmp.Diff(tt.wantKeys, n.Keys()); diff != "" {
				t.Errorf("Keys() (-want +got):\n%s", diff)
			}
			if got := string(n.Body); got != tt.wantBody {
				t.Errorf("Body = %q, want %q", got, tt.wantBody)
			}
		})
	}
}

func TestParseNoteErrors(t *testing.T) {
	tests := []struct {
		name     string
		in       string
		wantLine int
		wantMsg  string // part of the message
	}{
		{name: "unclosed", in: "---\ntitle: a\n\nbody\n", wantLine: 1, wantMsg: "no closing"},
		{name: "only the opening", in: "---\n", wantLine: 1, wantMsg: "no closing"},
		{name: "only the opening without newline", in: "---", wantLine: 1, wantMsg: "no closing"},
		{name: "an indented rule does not close", in: "---\ntitle: a\n  ---\nbody\n", wantLine: 1, wantMsg: "no closing"},
		// yaml.v3 counts the lines of its scanner's errors from 1 and of its
		// parser's from 0; both must come out as file lines.
		{name: "unclosed flow list on the first line", in: "---\ntitle: [unclosed\n---\nbody\n", wantLine: 2, wantMsg: "',' or ']'"},
		{name: "unclosed quote before blank lines", in: "---\na: 1\nb: 'unclosed\n\n\n---\n", wantLine: 3, wantMsg: "end of stream"},
		{name: "unclosed flow list", in: "---\ntitle: ok\ntags: [a, b\nmore: x\n---\n", wantLine: 3, wantMsg: "',' or ']'"},
		{name: "unclosed flow map", in: "---\ntitle: ok\nmap: {a: 1\n---\n", wantLine: 3, wantMsg: "',' or '}'"},
		{name: "list item where a key belongs", in: "---\na: 1\n- b\n---\n", wantLine: 3, wantMsg: "expected key"},
		{name: "key indented less", in: "---\na:\n  b: 1\n c: 2\n---\n", wantLine: 4, wantMsg: "expected key"},
		{name: "undefined tag handle", in: "---\na: 1\nb: !x!y z\n---\n", wantLine: 3, wantMsg: "tag handle"},
		{name: "tab indentation", in: "---\ntitle: ok\nlist:\n\t- a\n---\n", wantLine: 4, wantMsg: "cannot start any token"},
		{name: "mapping in a plain value", in: "---\na: 1\nb: x: y\n---\n", wantLine: 3, wantMsg: "mapping values"},
		{name: "block scalar indicator", in: "---\na: 1\n\nb: |0\n  x\n---\n", wantLine: 4, wantMsg: "indentation indicator"},
		{name: "line counted in a crlf file", in: "---\r\na: 1\r\nb: x: y\r\n---\r\n", wantLine: 3, wantMsg: "mapping values"},
		{name: "line counted after a bom", in: "\xef\xbb\xbf---\na: 1\nb: x: y\n---\n", wantLine: 3, wantMsg: "mapping values"},
		{name: "unknown alias", in: "---\na: 1\nb: *nowhere\n---\n", wantLine: 0, wantMsg: "unknown anchor"}, // yaml.v3 gives no line
		{name: "a list", in: "---\n- a\n- b\n---\n", wantLine: 2, wantMsg: "key: value"},
		{name: "a scalar", in: "---\njust some text\n---\n", wantLine: 2, wantMsg: "key: value"},
		{name: "duplicate key", in: "---\ntitle: a\ntags: []\ntitle: b\n---\n", wantLine: 4, wantMsg: `"title" appears twice`},
		{name: "duplicate key quoted differently", in: "---\n\"id\": a\n'id': b\n---\n", wantLine: 3, wantMsg: `"id" appears twice`},
		{name: "flow sequence key", in: "---\ntitle: a\n? [x, y]\n: z\n---\n", wantLine: 3, wantMsg: "plain text"},
		{name: "flow mapping key", in: "---\n{a: 1}: z\n---\n", wantLine: 2, wantMsg: "plain text"},
		{name: "alias key", in: "---\na: &k key\n*k : z\n---\n", wantLine: 3, wantMsg: "plain text"},
		{name: "second document", in: "---\na: 1\n--- more\n---\nbody\n", wantLine: 3, wantMsg: "more than one"},
		{name: "content after a document end", in: "---\na: 1\n...\nb: 2\n---\nbody\n", wantLine: 4, wantMsg: "document start"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n, err := ParseNote([]byte(tt.in))
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("ParseNote(%q) = %v, %v; want a *ParseError", tt.in, n, err)
			}
			if pe.Line != tt.wantLine {
				t.Errorf("Line = %d, want %d (%v)", pe.Line, tt.wantLine, err)
			}
			if !strings.Contains(pe.Msg, tt.wantMsg) {
				t.Errorf("Msg = %q, want it to contain %q", pe.Msg, tt.wantMsg)
			}
		})
	}
}

func TestParseErrorMessage(t *testing.T) {
	tests := []struct {
		err  ParseError
		want string
	}{
		{ParseError{Path: "cortex/memories/a.md", Line: 3, Msg: "bad"}, "cortex/memories/a.md:3: frontmatter: bad"},
		{ParseError{Path: "cortex/memories/a.md", Msg: "bad"}, "cortex/memories/a.md: frontmatter: bad"},
		{ParseError{Line: 2, Msg: "bad"}, "note:2: frontmatter: bad"},
	}
	for _, tt := range tests {
		if got := tt.err.Error(); got != tt.want {
			t.Errorf("Error() = %q, want %q", got, tt.want)
		}
	}
}

func TestHasAndKeys(t *testing.T) {
	n := mustParse(t, []byte("---\nb: 1\na: ~\nc: [x]\n---\n"))
	if diff := cmp.Diff([]string{"b", "a", "c"}, n.Keys()); diff != "" {
		t.Errorf("Keys() (-want +got):\n%s", diff)
	}
	for key, want := range map[string]bool{"a": true, "b": true, "c": true, "d": false, "": false} {
		if got := n.Has(key); got != want {
			t.Errorf("Has(%q) = %v, want %v", key, got, want)
		}
	}
	plain := mustParse(t, []byte("no properties"))
	if plain.Has("id") || plain.Keys() != nil {
		t.Errorf("a note without frontmatter: Has(id) = %v, Keys() = %q", plain.Has("id"), plain.Keys())
	}
}

func TestSet(t *testing.T) {
	tests := []struct {
		name  string
		in    string
		key   string
		value string // "" removes the key
		want  string
	}{
		{name: "replace in place", in: "---\na: 1\nb: 2\nc: 3\n---\n", key: "b", value: "x", want: "---\na: 1\nb: x\nc: 3\n---\n"},
		{name: "append", in: "---\na: 1\n---\n", key: "z", value: "x", want: "---\na: 1\nz: x\n---\n"},
		{name: "id goes first", in: "---\na: 1\n---\n", key: "id", value: "x", want: "---\nid: x\na: 1\n---\n"},
		{name: "existing id stays in place", in: "---\na: 1\nid: y\n---\n", key: "id", value: "x", want: "---\na: 1\nid: x\n---\n"},
		{name: "remove", in: "---\na: 1\nb: 2\nc: 3\n---\n", key: "b", want: "---\na: 1\nc: 3\n---\n"},
		{name: "remove the last key", in: "---\na: 1\n---\nbody", key: "a", want: "---\n---\nbody"},
		{name: "remove a missing key", in: "---\na: 1\n---\n", key: "b", want: "---\na: 1\n---\n"},
		{name: "remove from no frontmatter", in: "body", key: "b", want: "body"},
		{name: "comments stay with the value", in: "---\n# head\na: 1 # line\nb: 2\n---\n", key: "a", value: "x", want: "---\n# head\na: x # line\nb: 2\n---\n"},
		{name: "frontmatter made for a plain note", in: "# T\n", key: "id", value: "x", want: "---\nid: x\n---\n# T\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := mustParse(t, []byte(tt.in))
			n.set(tt.key, str(tt.value))
			if got := string(mustBytes(t, n)); got != tt.want {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
}

// FuzzParseNote: ParseNote never panics, and a note it reads renders to bytes
// that read back to the same keys, values and body.
func FuzzParseNote(f *testing.F) {
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
		"", "---", "---\n---\n", "---\r\n---\r\n", "---\na: [\n---\n", "---\n- a\n---\n",
		"---\na: 1\na: 2\n---\n", "---\n? [a]\n: b\n---\n", "---\na: 1\n--- b\n---\n",
		"---\na: &x 1\nb: *x\n---\n", "---\na: |\n  ---\n---\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		n, err := ParseNote(data)
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("ParseNote(%q) error %v is not a *ParseError", data, err)
			}
			return
		}
		out, err := n.Bytes()
		if err != nil {
			t.Fatalf("Bytes of %q: %v", data, err)
		}
		back, err := ParseNote(out)
		if err != nil {
			t.Fatalf("ParseNote(%q) read, but its rendering %q does not: %v", data, out, err)
		}
		if diff := cmp.Diff(n.Keys(), back.Keys()); diff != "" {
			t.Fatalf("keys of %q changed in %q (-first +again):\n%s", data, out, diff)
		}
		if !bytes.Equal(back.Body, n.Body) {
			t.Fatalf("body of %q changed in %q: got %q, want %q", data, out, back.Body, n.Body)
		}
		if diff := cmp.Diff(decoded(t, n), decoded(t, back), cmpopts.EquateNaNs(), nullIsEmpty); diff != "" {
			t.Fatalf("values of %q changed in %q (-first +again):\n%s", data, out, diff)
		}

		// An edit as supersede makes one: the keys it sets change, the others
		// keep their values, and the body stays.
		edited, _ := ParseNote(data)
		hadID := edited.Has("id")
		m := &memories.Memory{ID: "01hv4x8k2m3n4p5q6r7s8t9v0x", Status: memories.StatusSuperseded, SupersedeReason: "fuzz: a reason"}
		keys := []string{"status", "supersede_reason"}
		if !hadID {
			keys = append(keys, "id")
		}
		if err := edited.Apply(m, keys...); err != nil {
			t.Fatal(err)
		}
		out, err = edited.Bytes()
		if err != nil {
			t.Fatalf("Bytes after an edit of %q: %v", data, err)
		}
		again, err := ParseNote(out)
		if err != nil {
			t.Fatalf("the edit of %q renders %q, which does not read: %v", data, out, err)
		}
		if !bytes.Equal(again.Body, n.Body) {
			t.Fatalf("the edit of %q changed the body: %q", data, out)
		}
		for _, k := range n.Keys() {
			if k == "status" || k == "supersede_reason" || k == "id" {
				continue
			}
			if diff := cmp.Diff(nodeValue(t, n.value(k)), nodeValue(t, again.value(k)), cmpopts.EquateNaNs(), nullIsEmpty); diff != "" {
				t.Fatalf("the edit of %q changed %q in %q (-before +after):\n%s", data, k, out, diff)
			}
		}
		if got := again.Memory("memories/p/x.md", time.Time{}); got.Status != memories.StatusSuperseded || got.SupersedeReason != "fuzz: a reason" {
			t.Fatalf("the edit of %q did not take: %q", data, out)
		}
	})
}

// nodeValue is a property's value as plain Go values (or the decoding error).
func nodeValue(t *testing.T, v *yaml.Node) any {
	t.Helper()
	if v == nil {
		return nil
	}
	var x any
	if err := v.Decode(&x); err != nil {
		return err.Error()
	}
	return textKeys(x)
}

// decoded is a note's frontmatter as plain Go values, or the error YAML gives
// decoding it into them (an alias bomb, a key no map can hold).
func decoded(t *testing.T, n *Note) any {
	t.Helper()
	if n.fm == nil {
		return nil
	}
	var v any
	if err := n.fm.Decode(&v); err != nil {
		return err.Error()
	}
	return textKeys(v)
}

// textKeys reads null map keys as empty text, and maps whose keys are all
// text as map[string]any: yaml.v3 writes a null key spelled as nothing ("? ")
// as ”.
func textKeys(v any) any {
	switch v := v.(type) {
	case map[any]any:
		out := make(map[any]any, len(v))
		text := true
		for k, x := range v {
			if k == nil {
				k = ""
			}
			_, isText := k.(string)
			text = text && isText
			out[k] = textKeys(x)
		}
		if !text {
			return out
		}
		m := make(map[string]any, len(out))
		for k, x := range out {
			m[k.(string)] = x
		}
		return m
	case map[string]any:
		for k, x := range v {
			v[k] = textKeys(x)
		}
	case []any:
		for i, x := range v {
			v[i] = textKeys(x)
		}
	}
	return v
}

// nullIsEmpty equates a null with an empty string: yaml.v3 renders a null that
// carries an anchor (a bare "&a") as an anchored empty quoted string.
var nullIsEmpty = cmp.FilterValues(func(a, b any) bool {
	return a == nil && b == "" || a == "" && b == nil
}, cmp.Comparer(func(a, b any) bool { return true }))

// TestParseNoteDoesNotCopyTheBody: reading a note's properties allocates
// about what they take, whatever the length of the body after them (the
// frontmatter reader is given the properties only, not the whole note).
func TestParseNoteDoesNotCopyTheBody(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	data := []byte("---\nid: 01jd0000000000000000000000\ntitle: Replica lag\ntags:\n  - db\n---\n" +
		strings.Repeat("The replica lags behind the primary under load.\n", 5000)) // 245 KB
	n, err := ParseNote(data)
	if err != nil || !n.Has("title") || len(n.Keys()) != 3 {
		t.Fatalf("ParseNote: %v", err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	const runs = 5
	for range runs {
		if _, err := ParseNote(data); err != nil {
			t.Fatal(err)
		}
	}
	runtime.ReadMemStats(&after)
	if per := (after.TotalAlloc - before.TotalAlloc) / runs; per > 32<<10 {
		t.Errorf("ParseNote of a note with %d bytes of body allocated %d bytes, want under 32 KB", len(n.Body), per)
	}
}
