package zed

import (
	"bytes"
	"encoding/json"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cortexmem/cortex/transcript"
	"github.com/cortexmem/cortex/transcript/rawjson"
	"github.com/cortexmem/cortex/transcript/sqlitedb"
)

// referenceCanonical is canonical form as the adapter first wrote it, one
// slice per object and array: canon must give the same bytes, since the
// hashes of messages are kept in saved positions.
func referenceCanonical(dst, v []byte) []byte {
	switch {
	case rawjson.IsObject(v):
		m, _ := rawjson.ParseObject(v)
		slices.SortStableFunc(m, func(a, b rawjson.Member) int { return bytes.Compare(a.Key, b.Key) })
		dst = append(dst, '{')
		for i, mem := range m {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = append(append(append(dst, '"'), mem.Key...), '"', ':')
			dst = referenceCanonical(dst, mem.Value)
		}
		return append(dst, '}')
	case rawjson.IsArray(v):
		dst = append(dst, '[')
		for i, e := range rawjson.AsArray(v) {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = referenceCanonical(dst, e)
		}
		return append(dst, ']')
	}
	return append(dst, bytes.TrimSpace(v)...)
}

var canonCases = []string{
	`{"b":1,"a":[3, {"d":null,"c":"x"} ,[]],"a":2}`, ` [ 1 , "two" , { } , [ [ ] ] ] `, `"Resume"`, `{}`, `[]`, `-1.5e3`,
	`{"User":{"id":"u","content":[{"Text":"hi \"there\""},{"Mention":{"uri":{"File":{"abs_path":"/a"}},"content":"x"}}]}}`,
}

// TestCanonMatchesReference: canon's bytes are the reference's on nested,
// spaced and repeated-key JSON and on every message of the fixture threads,
// whether read from the bytes (hash) or from the thread's index (hashIn).
func TestCanonMatchesReference(t *testing.T) {
	inputs := canonCases
	var threads [][]byte
	for _, line := range bytes.Split(rowFixtures(t)[0].Data, []byte("\n")) {
		l, ok := sqlitedb.ParseLine(line)
		if !ok {
			continue
		}
		thread, err := decodeThread(rawjson.AsString(l.Values.Get("data_type")), l.Values.Get("data"))
		if err != nil {
			continue
		}
		threads = append(threads, thread)
		for _, m := range rawjson.AsArray(rawjson.AsObject(thread).Get("messages")) {
			inputs = append(inputs, string(m))
		}
	}
	if len(inputs) == len(canonCases) {
		t.Fatal("no message read from the fixture threads")
	}
	var c canon
	for _, in := range inputs {
		want := transcript.HashID(referenceCanonical(nil, []byte(in)))
		if got := c.hash([]byte(in)); got != want {
			t.Errorf("hash(%.60s) = %s, want %s (%s)", in, got, want, referenceCanonical(nil, []byte(in)))
		}
	}
	var tr tree
	for _, src := range append(threads, []byte(canonCases[0]), []byte(canonCases[1])) {
		tr.index(src)
		var ms [][]byte
		if m := tr.obj(src).Get("messages"); m != nil {
			ms = tr.arr(m)
		} else {
			ms = [][]byte{bytes.TrimSpace(src)}
		}
		for _, m := range ms {
			want := transcript.HashID(referenceCanonical(nil, m))
			if got := c.hashIn(&tr, m); got != want {
				t.Errorf("hashIn(%.60s) = %s, want %s (%s)", m, got, want, referenceCanonical(nil, m))
			}
		}
	}
}

// FuzzCanon: canon agrees with the reference on any valid JSON.
func FuzzCanon(f *testing.F) {
	for _, c := range canonCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if !rawjson.Valid(data) {
			return
		}
		var c canon
		c.hash([]byte(`{"warm":[{"up":1}]}`)) // buffers left over from another message
		want := string(referenceCanonical(nil, data))
		if got := string(c.append(nil, data)); got != want {
			t.Fatalf("canon(%q) = %q, want %q", data, got, want)
		}
		var tr tree
		tr.index([]byte(`{"warm":[{"up":{"b":1,"a":2}}]}`))
		c.hashIn(&tr, []byte(`{"b":1,"a":[{"d":1,"c":2}]}`))
		tr.index(data)
		if v := bytes.TrimSpace(data); rawjson.IsObject(v) || rawjson.IsArray(v) {
			// A message is a value without white space around it.
			want := referenceCanonical(nil, v)
			if got := c.hashIn(&tr, v); got != transcript.HashID(want) {
				t.Fatalf("hashIn(%q) = %s, want the hash of %q", v, got, want)
			}
		}
	})
}

// TestAdvanceMark: the mark keeps each thread of its time once, in order,
// also after the state went through a saved position (its set is not
// saved and is rebuilt).
func TestAdvanceMark(t *testing.T) {
	var st state
	for _, id := range []string{"a", "b", "a"} {
		st.advance("t1", id)
	}
	b, err := json.Marshal(&st)
	if err != nil {
		t.Fatal(err)
	}
	var restored state
	if err := json.Unmarshal(b, &restored); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"b", "c"} {
		restored.advance("t1", id)
	}
	if diff := cmp.Diff(mark{Time: "t1", IDs: []string{"a", "b", "c"}}, restored.Mark); diff != "" {
		t.Errorf("mark (-want +got):\n%s", diff)
	}
	restored.advance("t2", "d")
	restored.advance("t2", "a")
	if diff := cmp.Diff(mark{Time: "t2", IDs: []string{"d", "a"}}, restored.Mark); diff != "" {
		t.Errorf("mark after a later time (-want +got):\n%s", diff)
	}
}
