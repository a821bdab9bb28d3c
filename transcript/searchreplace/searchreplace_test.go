package searchreplace

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParse(t *testing.T) {
	tests := []struct {
		name, text string
		want       []Block
	}{
		{"aider", "cache.go\n```go\n<<<<<<< SEARCH\nold\n=======\nnew\nnewer\n>>>>>>> REPLACE\n```\n",
			[]Block{{Search: "old\n", Replace: "new\nnewer\n", Start: 15, End: 68, Complete: true}}},
		{"cline", "------- SEARCH\na\n=======\nb\n+++++++ REPLACE\n------- SEARCH\nc\n=======\n+++++++ REPLACE",
			[]Block{
				{Search: "a\n", Replace: "b\n", Start: 0, End: 43, Complete: true},
				{Search: "c\n", Start: 43, End: 83, Complete: true},
			}},
		{"roo", "<<<<<<< SEARCH\n:start_line:12\n-------\nx := 1\n=======\nx := 2\n>>>>>>> REPLACE\n",
			[]Block{{Search: "x := 1\n", Replace: "x := 2\n", StartLine: 12, Start: 0, End: 76, Complete: true}}},
		{"nine markers, a trailing >", "<<<<<<<<< SEARCH>\nq\n=========\nr\n>>>>>>>>> REPLACE\n",
			[]Block{{Search: "q\n", Replace: "r\n", Start: 0, End: 50, Complete: true}}},
		{"cut off", "<<<<<<< SEARCH\na\n=======\nb",
			[]Block{{Search: "a\n", Replace: "b\n", Start: 0, End: 26}}},
		{"CRLF", "<<<<<<< SEARCH\r\na\r\n=======\r\nb\r\n>>>>>>> REPLACE\r\n",
			[]Block{{Search: "a\r\n", Replace: "b\r\n", Start: 0, End: 48, Complete: true}}},
		{"no block", "just text\n======\n", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, Parse(tt.text)); diff != "" {
				t.Errorf("blocks (-want +got):\n%s", diff)
			}
		})
	}
}

func FuzzParse(f *testing.F) {
	f.Add("<<<<<<< SEARCH\n:start_line:3\n-------\na\n=======\nb\n>>>>>>> REPLACE\n")
	f.Add("------- SEARCH\na\n=======\n+++++++ REPLACE")
	f.Fuzz(func(t *testing.T, text string) {
		end := 0
		for _, b := range Parse(text) {
			if b.Start < end || b.End <= b.Start || b.End > len(text) {
				t.Fatalf("block %d..%d after %d in %d bytes", b.Start, b.End, end, len(text))
			}
			if !IsSearch(firstLine(text[b.Start:])) {
				t.Fatalf("block at %d does not start with a SEARCH marker", b.Start)
			}
			end = b.End
		}
	})
}

func firstLine(s string) string {
	l, _ := lineAt(s, 0)
	return l
}
