package vscodecopilot

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/cortexmem/cortex/transcript"
	"github.com/cortexmem/cortex/transcript/rawjson"
	"github.com/cortexmem/cortex/transcript/transcripttest"
)

func TestMutate(t *testing.T) {
	path := func(s string) [][]byte { return rawjson.AsArray([]byte(s)) }
	doc := []byte(`{"a":{"b":[1,{"c":"x"}]},"s":"<t>","n":null}`)
	tests := []struct {
		name string
		do   func() ([]byte, bool)
		want string
	}{
		{"set a nested value", func() ([]byte, bool) { return setIn(doc, path(`["a","b",1,"c"]`), []byte(`"y"`)) },
			`{"a":{"b":[1,{"c":"y"}]},"s":"<t>","n":null}`},
		{"add a member", func() ([]byte, bool) { return setIn(doc, path(`["a","z\"q"]`), []byte(`2`)) },
			`{"a":{"b":[1,{"c":"x"}],"z\"q":2},"s":"<t>","n":null}`},
		{"set past an array's end appends", func() ([]byte, bool) { return setIn(doc, path(`["a","b",2]`), []byte(`3`)) },
			`{"a":{"b":[1,{"c":"x"},3]},"s":"<t>","n":null}`},
		{"delete a member", func() ([]byte, bool) { return setIn(doc, path(`["s"]`), nil) },
			`{"a":{"b":[1,{"c":"x"}]},"n":null}`},
		{"delete an element leaves null", func() ([]byte, bool) { return setIn(doc, path(`["a","b",0]`), nil) },
			`{"a":{"b":[null,{"c":"x"}]},"s":"<t>","n":null}`},
		{"push", func() ([]byte, bool) { return pushIn(doc, path(`["a","b"]`), [][]byte{[]byte(`7`), []byte(`8`)}, -1) },
			`{"a":{"b":[1,{"c":"x"},7,8]},"s":"<t>","n":null}`},
		{"push after a cut", func() ([]byte, bool) { return pushIn(doc, path(`["a","b"]`), [][]byte{[]byte(`9`)}, 1) },
			`{"a":{"b":[1,9]},"s":"<t>","n":null}`},
		{"cut alone", func() ([]byte, bool) { return pushIn(doc, path(`["a","b"]`), nil, 0) },
			`{"a":{"b":[]},"s":"<t>","n":null}`},
		{"push onto a missing array", func() ([]byte, bool) { return pushIn(doc, path(`["new"]`), [][]byte{[]byte(`1`)}, -1) },
			`{"a":{"b":[1,{"c":"x"}]},"s":"<t>","n":null,"new":[1]}`},
		{"push onto null", func() ([]byte, bool) { return pushIn(doc, path(`["n"]`), [][]byte{[]byte(`1`)}, -1) },
			`{"a":{"b":[1,{"c":"x"}]},"s":"<t>","n":[1]}`},
	}
	for _, tt := range tests {
		got, ok := tt.do()
		if !ok || string(got) != tt.want || !json.Valid(got) {
			t.Errorf("%s: %s, %v; want %s", tt.name, got, ok, tt.want)
		}
	}
	bad := [][][]byte{
		path(`["missing","x"]`), path(`["a","b",5]`), path(`["a","b",-1]`), path(`["s","x"]`), path(`[true]`), path(`["a","b",2,"c"]`),
	}
	for _, p := range bad {
		if got, ok := setIn(doc, p, []byte(`1`)); ok {
			t.Errorf("set at %q: %s, want a failure", p, got)
		}
	}
	if got, ok := pushIn(doc, path(`["s"]`), [][]byte{[]byte(`1`)}, -1); ok {
		t.Errorf("push onto a string: %s", got)
	}
}

// FuzzFrame fuzzes the single-document reader: framing never panics and
// the records it gives are the document's bytes; through the reader every
// invariant of transcript.Verify holds.
func FuzzFrame(f *testing.F) {
	transcripttest.Seeds(f, documents(f))
	f.Add([]byte(`{"version":3,"sessionId":"s","requests":[{"requestId":"r","message":{"text":"hi"},"response":[{"kind":"textEditGroup","uri":{"path":"/a"},"edits":[[{"text":"x\n","range":{"startLineNumber":1,"startColumn":1,"endLineNumber":1,"endColumn":1}}]]}],"result":{}}]}`))
	d := NewDocument()
	f.Fuzz(func(t *testing.T, data []byte) {
		recs, consumed := d.Frame(data, true)
		if consumed != len(data) {
			t.Fatalf("consumed %d of %d", consumed, len(data))
		}
		for _, r := range recs {
			if r.Offset < 0 || r.Offset+int64(len(r.Data)) > int64(len(data)) || !bytes.Equal(r.Data, data[r.Offset:r.Offset+int64(len(r.Data))]) {
				t.Fatalf("record at %d is not the document's bytes", r.Offset)
			}
			ctx := transcript.NewContext(d.Source(), "fuzz.json")
			if evs := d.Parse(r, ctx); len(evs) == 0 {
				t.Fatalf("no event for the record at %d", r.Offset)
			}
		}
		rep := transcript.Verify(d, "fuzz.json", data, transcript.VerifyOptions{ResumePoints: 4})
		for _, v := range rep.Violations {
			t.Errorf("%s", v)
		}
	})
}

// TestFragmentDiff: a replacement that does not end a line is diffed as the
// lines it is part of, which go on the same way after it: adding lines after
// a kept one adds them, it does not replace the line.
func TestFragmentDiff(t *testing.T) {
	tests := []struct {
		old, new       string
		added, removed int
	}{
		{"var r = chi.NewRouter()", "var r = chi.NewRouter()\n\nvar pool = store.Pool()", 2, 0},
		{"import \"a\"", "import \"b\"", 1, 1},
		{"a\nb\n", "a\n", 0, 1},
		{"", "x", 1, 0},
	}
	for _, tt := range tests {
		fe := fragment("f.go", tt.old, tt.new)
		if fe.Added != tt.added || fe.Removed != tt.removed || fe.Old != tt.old || fe.New != tt.new {
			t.Errorf("%q → %q: +%d -%d (old %q new %q), want +%d -%d", tt.old, tt.new, fe.Added, fe.Removed, fe.Old, fe.New, tt.added, tt.removed)
		}
	}
}

// TestKeyIs: a key matches a name exactly when its decoded form does.
func TestKeyIs(t *testing.T) {
	for _, key := range []string{`response`, `respons\u0065`, `a\b`, `a\\b`, "caf\xc3\xa9", "bad\xff", ``} {
		for _, name := range []string{"response", `a\b`, "a\b", "café", "bad\ufffd", ""} {
			want := rawjson.Member{Key: []byte(key)}.KeyString() == name
			if got := keyIs([]byte(key), name); got != want {
				t.Errorf("keyIs(%q, %q) = %v, want %v", key, name, got, want)
			}
		}
	}
}
