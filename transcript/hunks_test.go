package transcript

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestReadHunks(t *testing.T) {
	tests := []struct {
		name string
		diff string
		want []Hunk
	}{
		{"amp's fenced diff", "```diff\nIndex: /p/a.csv\n===================================================================\n--- /p/a.csv\toriginal\n+++ /p/a.csv\tmodified\n@@ -2,2 +2,3 @@\n 1,x\n 2,y\n+3,z\n```",
			[]Hunk{{OldStart: 2, OldLines: 2, NewStart: 2, NewLines: 3, Lines: []string{" 1,x", " 2,y", "+3,z"}}}},
		{"an empty unchanged line, a removed line that looks like a header", "@@ -1,3 +1,2 @@\n a\n\n--- b\n",
			[]Hunk{{OldStart: 1, OldLines: 3, NewStart: 1, NewLines: 2, Lines: []string{" a", " ", "--- b"}}}},
		{"two files", "--- a\n+++ a\n@@ -1 +1 @@\n-x\n+y\n--- b\n+++ b\n@@ -0,0 +1 @@\n+new\n\\ No newline at end of file\n",
			[]Hunk{
				{OldStart: 1, OldLines: 1, NewStart: 1, NewLines: 1, Lines: []string{"-x", "+y"}},
				{OldStart: 1, OldLines: 0, NewStart: 1, NewLines: 1, Lines: []string{"+new", `\ No newline at end of file`}},
			}},
		{"counts that overstate: the fence ends the hunk", "@@ -1,5 +1,5 @@\n-a\n+b\n```\n",
			[]Hunk{{OldStart: 1, OldLines: 1, NewStart: 1, NewLines: 1, Lines: []string{"-a", "+b"}}}},
		{"a header without numbers", "@@ ... @@\n-a\n+b\n", nil},
		{"a start no file has", "@@ -9223372036854775807,0 +1 @@\n+x\n", nil},
		{"not a diff", "hello\nworld\n", nil},
		{"empty", "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, ReadHunks(tt.diff)); diff != "" {
				t.Errorf("hunks (-want +got):\n%s", diff)
			}
		})
	}
}

// FuzzReadHunks fuzzes the lenient hunk reader: no panic, every line a hunk
// line, the counts those of the lines, no hunk without lines, no start
// below zero.
func FuzzReadHunks(f *testing.F) {
	for _, s := range []string{
		"```diff\n--- a\toriginal\n+++ a\tmodified\n@@ -2,2 +2,3 @@\n 1,x\n 2,y\n+3,z\n```",
		"@@ -1,3 +1,2 @@\n a\n\n--- b\n",
		"@@ -0,0 +1 @@\n+new\n\\ No newline at end of file\n",
		"@@ -1,5 +1,5 @@\n-a\n+b\n```\n",
		"@@ -9223372036854775807,0 +1 @@\n+x\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, diff string) {
		for i, h := range ReadHunks(diff) {
			old, nw := 0, 0
			for _, l := range h.Lines {
				if l == "" {
					t.Fatalf("hunk %d: an empty line", i)
				}
				switch l[0] {
				case ' ':
					old++
					nw++
				case '-':
					old++
				case '+':
					nw++
				case '\\':
				default:
					t.Fatalf("hunk %d: line %q is no hunk line", i, l)
				}
			}
			if old != h.OldLines || nw != h.NewLines || old+nw == 0 || h.OldStart < 0 || h.NewStart < 0 {
				t.Fatalf("hunk %d: %+v", i, h)
			}
		}
	})
}
