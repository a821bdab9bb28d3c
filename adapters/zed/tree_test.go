package zed

import (
	"bytes"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cortexmem/cortex/transcript/rawjson"
	"github.com/cortexmem/cortex/transcript/sqlitedb"
)

// checkTree walks v through t and through rawjson alike: every object and
// array of it must read the same both ways, and be found in the index
// (not read again by rawjson). It returns how many containers it saw.
func checkTree(tb testing.TB, t *tree, v []byte) int {
	tb.Helper()
	seen := 0
	switch {
	case rawjson.IsObject(v):
		seen++
		if _, ok := t.find(v); !ok {
			tb.Fatalf("object %.60q not indexed", v)
		}
		got, want := t.obj(v), rawjson.AsObject(v)
		if diff := cmp.Diff(want, got); diff != "" || (got == nil) != (want == nil) {
			tb.Fatalf("obj(%.60q) (-want +got):\n%s", v, diff)
		}
		for _, m := range got {
			seen += checkTree(tb, t, m.Value)
		}
	case rawjson.IsArray(v):
		seen++
		if _, ok := t.find(v); !ok {
			tb.Fatalf("array %.60q not indexed", v)
		}
		got, want := t.arr(v), rawjson.AsArray(v)
		if diff := cmp.Diff(want, got); diff != "" || (got == nil) != (want == nil) {
			tb.Fatalf("arr(%.60q) (-want +got):\n%s", v, diff)
		}
		for _, e := range got {
			seen += checkTree(tb, t, e)
		}
	default:
		if got, want := t.obj(v), rawjson.AsObject(v); got != nil || want != nil {
			tb.Fatalf("obj(%.60q) = %q, want %q", v, got, want)
		}
	}
	return seen
}

// TestTreeMatchesRawjson: the index gives rawjson's members and elements
// for every container of the fixture threads and of tricky JSON (spaces,
// repeated keys, escaped quotes, empty containers), and falls back to
// rawjson for bytes that are not its own.
func TestTreeMatchesRawjson(t *testing.T) {
	inputs := append([]string{` { "a" : [ 1 , {"b":"x\"}y"} , [ ] , { } ] , "a" : -2e3 } `, `[[[]]]`, `"s"`, `5`}, canonCases...)
	for _, line := range bytes.Split(rowFixtures(t)[0].Data, []byte("\n")) {
		if l, ok := sqlitedb.ParseLine(line); ok {
			if thread, err := decodeThread(rawjson.AsString(l.Values.Get("data_type")), l.Values.Get("data")); err == nil {
				inputs = append(inputs, string(thread))
			}
		}
	}
	var tr tree
	containers := 0
	for _, in := range inputs {
		src := []byte(in)
		tr.index(src)
		containers += checkTree(t, &tr, bytes.TrimSpace(src))
		// A copy of the same bytes is not the index's: read by rawjson.
		if other := bytes.TrimSpace([]byte(in)); rawjson.IsObject(other) {
			if _, ok := tr.find(other); ok {
				t.Errorf("a copy of %.40q was found in the index", in)
			}
			if diff := cmp.Diff(rawjson.AsObject(other), tr.obj(other)); diff != "" {
				t.Errorf("obj of a copy (-want +got):\n%s", diff)
			}
		}
	}
	if containers < 100 {
		t.Fatalf("only %d containers checked: the fixture threads were not read", containers)
	}
}

// FuzzTree: the index agrees with rawjson on any valid JSON.
func FuzzTree(f *testing.F) {
	for _, c := range canonCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var tr tree
		tr.index([]byte(`{"warm":[{"up":1}],"x":[2,3]}`)) // buffers left over from another thread
		tr.index(data)
		if !rawjson.Valid(data) {
			return
		}
		checkTree(t, &tr, bytes.TrimSpace(data))
	})
}
