package jsondoc

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// framed is a record as the tests compare it: where it starts and its bytes.
type framed struct {
	Offset int64
	Data   string
}

func frame(data string, atEOF bool) ([]framed, int) {
	recs, consumed := Frame([]byte(data), atEOF)
	var out []framed
	for _, r := range recs {
		out = append(out, framed{r.Offset, string(r.Data)})
	}
	return out, consumed
}

func TestFrame(t *testing.T) {
	tests := []struct {
		name     string
		data     string
		atEOF    bool
		want     []framed
		consumed int
	}{
		{"one document", `{"a":[1,{"b":"}"}]}`, false, []framed{{0, `{"a":[1,{"b":"}"}]}`}}, 19},
		{"an array with a newline after it", "[1,2]\n", false, []framed{{0, "[1,2]"}}, 6},
		{"two documents apart", " {\"a\":1}\n\n[2] ", false, []framed{{1, `{"a":1}`}, {10, "[2]"}}, 14},
		{"a string", `"x\"y"` + "\n", false, []framed{{0, `"x\"y"`}}, 7},
		{"text to its line's end", "not json\n{}", false, []framed{{0, "not json"}, {9, "{}"}}, 11},
		{"a document still being written is left", `{"a":1}{"b":[`, false, []framed{{0, `{"a":1}`}}, 7},
		{"at the end it is a record", `{"a":1}{"b":[`, true, []framed{{0, `{"a":1}`}, {7, `{"b":[`}}, 13},
		{"text without its newline is left", "{}\nabc", false, []framed{{0, "{}"}}, 3},
		{"text at the end, trailing space trimmed", "abc \t", true, []framed{{0, "abc"}}, 5},
		{"a brace inside a string does not close", `{"s":"]}"`, false, nil, 0},
		{"only white space", " \n\t\r\n", false, nil, 5},
		{"nothing", "", true, nil, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, consumed := frame(tt.data, tt.atEOF)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("records (-want +got):\n%s", diff)
			}
			if consumed != tt.consumed {
				t.Errorf("consumed %d, want %d", consumed, tt.consumed)
			}
		})
	}
}

// TestFramerMethod: the embeddable Framer frames as the package function.
func TestFramerMethod(t *testing.T) {
	data := []byte(`{"a":1} [2] "s"`)
	want, wc := Frame(data, true)
	got, gc := Framer{}.Frame(data, true)
	if diff := cmp.Diff(want, got); diff != "" || wc != gc {
		t.Errorf("Framer.Frame differs (consumed %d, want %d) (-want +got):\n%s", gc, wc, diff)
	}
}

// FuzzFrame fuzzes the framer: everything consumed at the end, records in
// order and apart, each the bytes at its offset with no white space around
// it, every byte outside the records white space, a prefix ending at a
// record's start giving the records before it, and framing restarted there
// giving the records that follow.
func FuzzFrame(f *testing.F) {
	for _, s := range []string{`{"a":[1,{"b":"}"}]}`, "[1,2]\n[3]", `"x\"y"`, "text\n{}", `{"a":"\u00e9\\"}`, "{\n", "[[[", `{"s":"]}"`} {
		f.Add([]byte(s))
	}
	// The documents the adapters framed by this package read.
	files, _ := filepath.Glob("../../fixtures/*/hand-made/*.json")
	more, _ := filepath.Glob("../../fixtures/*/real/*.json")
	for _, name := range append(files, more...) {
		if b, err := os.ReadFile(name); err == nil && len(b) <= 32<<10 {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		all, consumed := Frame(data, true)
		if consumed != len(data) {
			t.Fatalf("consumed %d of %d", consumed, len(data))
		}
		end := int64(0)
		for i, r := range all {
			if r.Offset < end || len(r.Data) == 0 || !bytes.Equal(r.Data, data[r.Offset:r.Offset+int64(len(r.Data))]) {
				t.Fatalf("record %d at %d after %d: %q", i, r.Offset, end, r.Data)
			}
			if len(bytes.TrimSpace(data[end:r.Offset])) != 0 {
				t.Fatalf("bytes before record %d in no record: %q", i, data[end:r.Offset])
			}
			end = r.Offset + int64(len(r.Data))
			head, c := Frame(data[:r.Offset], false)
			if len(head) != i || c != int(r.Offset) {
				t.Fatalf("before record %d: %d records, consumed %d", i, len(head), c)
			}
			rest, _ := Frame(data[r.Offset:], true)
			if len(rest) != len(all)-i {
				t.Fatalf("restarted at record %d: %d records, want %d", i, len(rest), len(all)-i)
			}
		}
		if len(bytes.TrimSpace(data[end:])) != 0 {
			t.Fatalf("bytes after the last record in no record: %q", data[end:])
		}
	})
}
