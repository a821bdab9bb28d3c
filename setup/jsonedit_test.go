package setup

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// decode turns a document into plain Go values (numbers as their text), to
// compare what two documents say regardless of layout.
func decode(t *testing.T, src string) any {
	t.Helper()
	v, err := parseJSON([]byte(src))
	if err != nil {
		t.Fatalf("parse %q: %v", src, err)
	}
	return plain(src, v)
}

func plain(src string, v *jvalue) any {
	if v == nil {
		return nil
	}
	switch v.kind {
	case kindObject:
		m := map[string]any{}
		for _, mb := range v.members {
			m[mb.key] = plain(src, mb.val)
		}
		return m
	case kindArray:
		l := []any{}
		for _, e := range v.elems {
			l = append(l, plain(src, e))
		}
		return l
	case kindString:
		return v.str
	default:
		return src[v.start:v.end]
	}
}

func TestInsertThenRemove(t *testing.T) {
	item := jobj{{"a", 1}, {"l", []jnode{"mcp"}}}
	tests := []struct {
		name, src, want string
		// back is what removing the item gives when it is not src: only for
		// containers that were empty.
		back string
	}{
		{"empty object", `{}`, "{\n  \"k\": {\n    \"a\": 1,\n    \"l\": [\"mcp\"]\n  }\n}", ""},
		{"empty object with spaces", `{ }`, "{\n  \"k\": {\n    \"a\": 1,\n    \"l\": [\"mcp\"]\n  }\n}", `{}`},
		{"empty object on two lines", "{\n}\n", "{\n  \"k\": {\n    \"a\": 1,\n    \"l\": [\"mcp\"]\n  }\n}\n", "{}\n"},
		{"one line", `{"x": 1}`, `{"x": 1, "k": {"a": 1, "l": ["mcp"]}}`, ""},
		{"one line, no spaces", `{"x":1,"y":2}`, `{"x":1,"y":2, "k": {"a": 1, "l": ["mcp"]}}`, ""},
		{"indented", "{\n  \"x\": 1\n}\n", "{\n  \"x\": 1,\n  \"k\": {\n    \"a\": 1,\n    \"l\": [\"mcp\"]\n  }\n}\n", ""},
		{"one space", "{\n \"x\": 1\n}\n", "{\n \"x\": 1,\n \"k\": {\n  \"a\": 1,\n  \"l\": [\"mcp\"]\n }\n}\n", ""},
		{"tabs", "{\n\t\"x\": 1\n}", "{\n\t\"x\": 1,\n\t\"k\": {\n\t\t\"a\": 1,\n\t\t\"l\": [\"mcp\"]\n\t}\n}", ""},
		{"CRLF", "{\r\n  \"x\": 1\r\n}\r\n", "{\r\n  \"x\": 1,\r\n  \"k\": {\r\n    \"a\": 1,\r\n    \"l\": [\"mcp\"]\r\n  }\r\n}\r\n", ""},
		{"trailing comma and comment", "{\n  \"x\": 1, // c\n}", "{\n  \"x\": 1,\n  \"k\": {\n    \"a\": 1,\n    \"l\": [\"mcp\"]\n  }, // c\n}", ""},
		{"line comment after the last member", "{\n  \"x\": 1 // c\n}", "{\n  \"x\": 1,\n  \"k\": {\n    \"a\": 1,\n    \"l\": [\"mcp\"]\n  } // c\n}", ""},
		{"block comment after the last member", "{\n  \"x\": 1 /* c, d */\n}", "{\n  \"x\": 1,\n  \"k\": {\n    \"a\": 1,\n    \"l\": [\"mcp\"]\n  } /* c, d */\n}", ""},
		{"only a comment", "{\n  // nothing yet\n}\n", "{\n  // nothing yet\n  \"k\": {\n    \"a\": 1,\n    \"l\": [\"mcp\"]\n  }\n}\n", ""},
		{"only a block comment", `{ /* x */ }`, "{ /* x */ \n  \"k\": {\n    \"a\": 1,\n    \"l\": [\"mcp\"]\n  }\n}", "{ /* x */ \n}"},
		{"byte order mark", "\uFEFF{\n  \"x\": 1\n}", "\uFEFF{\n  \"x\": 1,\n  \"k\": {\n    \"a\": 1,\n    \"l\": [\"mcp\"]\n  }\n}", ""},
		{"nested and mixed", "{\n  \"x\": [1, 2],\n  \"y\": {\"z\": 3}\n}", "{\n  \"x\": [1, 2],\n  \"y\": {\"z\": 3},\n  \"k\": {\n    \"a\": 1,\n    \"l\": [\"mcp\"]\n  }\n}", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := []byte(tt.src)
			root, err := parseJSON(src)
			if err != nil {
				t.Fatal(err)
			}
			st := styleOf(src, root)
			got := insertItem(src, root, st, func(indent string, inline bool) string {
				return quote("k") + ": " + render(item, indent, st.unit, st.nl, inline)
			})
			if diff := cmp.Diff(tt.want, string(got)); diff != "" {
				t.Fatalf("insert (-want +got):\n%s", diff)
			}
			wantV := decode(t, tt.src).(map[string]any)
			wantV["k"] = map[string]any{"a": "1", "l": []any{"mcp"}}
			if diff := cmp.Diff(wantV, decode(t, string(got))); diff != "" {
				t.Fatalf("what the document says (-want +got):\n%s", diff)
			}
			root, err = parseJSON(got)
			if err != nil {
				t.Fatal(err)
			}
			back := removeItem(got, root, len(root.members)-1)
			want := tt.src
			if tt.back != "" {
				want = tt.back
			}
			if diff := cmp.Diff(want, string(back)); diff != "" {
				t.Errorf("remove (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRemoveItem(t *testing.T) {
	tests := []struct {
		name, src string
		i         int
		want      string
	}{
		{"first of two", `{"k": 1, "x": 2}`, 0, `{"x": 2}`},
		{"first, on lines", "{\n  \"k\": 1,\n  \"x\": 2\n}", 0, "{\n  \"x\": 2\n}"},
		{"first, a comment after it", "{\n  \"k\": 1, // about k\n  \"x\": 2\n}", 0, "{\n  // about k\n  \"x\": 2\n}"},
		{"last, a comment before it", "{\n  \"x\": 1, // about x\n  \"k\": 2\n}", 1, "{\n  \"x\": 1 // about x\n}"},
		{"middle, a comment before it, a member after it on its line", "{\n  \"x\": 1, // c\n  \"k\": 2, \"y\": 3\n}", 1, "{\n  \"x\": 1 // c\n  , \"y\": 3\n}"},
		{"comma inside a comment", `[1, /* a, b */ 2]`, 1, `[1 /* a, b */ ]`},
		{"comma inside a comment before the separator", `[1 /* a, b */ , 2]`, 1, `[1 /* a, b */  ]`},
		{"only item, a comment", `[/* c */ 1]`, 0, `[/* c */ ]`},
		{"only item, trailing comma", `[1,]`, 0, `[]`},
		{"only item on its line, comments around", "[\n  // c\n  1\n]", 0, "[\n  // c\n]"},
		{"middle", `[1, 2, 3]`, 1, `[1, 3]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root, err := parseJSON([]byte(tt.src))
			if err != nil {
				t.Fatal(err)
			}
			got := string(removeItem([]byte(tt.src), root, tt.i))
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if _, err := parseJSON([]byte(got)); err != nil {
				t.Errorf("the result does not parse: %v", err)
			}
		})
	}
}

func TestParseJSONErrors(t *testing.T) {
	tests := []struct {
		src          string
		line, column int
	}{
		{`{"a": 1,,}`, 1, 9},
		{"{\n  \"a\": 1\n  \"b\": 2\n}", 3, 3},
		{`{"a": tru}`, 1, 7},
		{"{\n\"a\": \"x\ny\"}", 2, 8},
		{`{"a": 01}`, 1, 8},
		{`{"a": 1} x`, 1, 10},
		{"{\n/* never closed\n", 2, 1},
		{`{"a": "\q"}`, 1, 8},
		{`{'a': 1}`, 1, 2},
		{`{"a": [1, 2}`, 1, 12},
		{`{"a"}`, 1, 5},
		{`{"a": 1`, 1, 8},
		{`{"a": -}`, 1, 8},
		{`{"a": 1.}`, 1, 9},
		{`{"a": 1e}`, 1, 9},
	}
	for _, tt := range tests {
		t.Run(tt.src, func(t *testing.T) {
			_, err := parseJSON([]byte(tt.src))
			se, ok := err.(*SyntaxError)
			if !ok {
				t.Fatalf("got %v, want a *SyntaxError", err)
			}
			if se.Line != tt.line || se.Column != tt.column {
				t.Errorf("at line %d, column %d (%s), want line %d, column %d", se.Line, se.Column, se.Msg, tt.line, tt.column)
			}
		})
	}
}

func TestParseJSONDecodes(t *testing.T) {
	src := "// a comment\n{\"s\": \"a\\\"b\\\\c\\/\\u00e9\\ud83d\\ude00\\n\", \"n\": [-1.5e+3, 0, true, false, null], /* x */ \"o\": {},}"
	want := map[string]any{"s": "a\"b\\c/é😀\n", "n": []any{"-1.5e+3", "0", "true", "false", "null"}, "o": map[string]any{}}
	if diff := cmp.Diff(want, decode(t, src)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	for _, empty := range []string{"", "  \n", "// nothing\n", "\uFEFF"} {
		if v, err := parseJSON([]byte(empty)); v != nil || err != nil {
			t.Errorf("parseJSON(%q) = %v, %v; want nothing and no error", empty, v, err)
		}
	}
}

func TestParseJSONDepth(t *testing.T) {
	deep := ""
	for i := 0; i < maxDepth+2; i++ {
		deep += "["
	}
	if _, err := parseJSON([]byte(deep)); err == nil {
		t.Fatal("a document nested too deep was read")
	}
}
