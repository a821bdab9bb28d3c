package transcript

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestUnifiedDiff(t *testing.T) {
	tests := []struct {
		name     string
		old, new string
		want     string
	}{
		{name: "equal", old: "a\nb\n", new: "a\nb\n", want: ""},
		{name: "both empty", old: "", new: "", want: ""},
		{
			name: "create", old: "", new: "hello world\nsecond line\n",
			want: "--- f\n+++ f\n@@ -0,0 +1,2 @@\n+hello world\n+second line\n",
		},
		{
			name: "delete all", old: "a\nb\n", new: "",
			want: "--- f\n+++ f\n@@ -1,2 +0,0 @@\n-a\n-b\n",
		},
		{
			name: "replace first line", old: "hello world\nsecond line\n", new: "hello mock world\nsecond line\n",
			want: "--- f\n+++ f\n@@ -1,2 +1,2 @@\n-hello world\n+hello mock world\n second line\n",
		},
		{
			name: "old has no final newline", old: "a\nb", new: "a\nb\n",
			want: "--- f\n+++ f\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+b\n",
		},
		{
			name: "new has no final newline", old: "a\nb\n", new: "a\nc",
			want: "--- f\n+++ f\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n\\ No newline at end of file\n",
		},
		{
			name: "neither has a final newline", old: "a\nb\nc", new: "x\nb\nc",
			want: "--- f\n+++ f\n@@ -1,3 +1,3 @@\n-a\n+x\n b\n c\n\\ No newline at end of file\n",
		},
		{
			name: "append to a file without final newline", old: "a", new: "a\nb",
			want: "--- f\n+++ f\n@@ -1,1 +1,2 @@\n-a\n\\ No newline at end of file\n+a\n+b\n\\ No newline at end of file\n",
		},
		{
			name: "insert in the middle", old: "1\n2\n3\n4\n5\n6\n7\n8\n", new: "1\n2\n3\n4\nnew\n5\n6\n7\n8\n",
			want: "--- f\n+++ f\n@@ -2,6 +2,7 @@\n 2\n 3\n 4\n+new\n 5\n 6\n 7\n",
		},
		{
			name: "two hunks far apart",
			old:  "a\n1\n2\n3\n4\n5\n6\n7\n8\nz\n", new: "A\n1\n2\n3\n4\n5\n6\n7\n8\nZ\n",
			want: "--- f\n+++ f\n@@ -1,4 +1,4 @@\n-a\n+A\n 1\n 2\n 3\n@@ -7,4 +7,4 @@\n 6\n 7\n 8\n-z\n+Z\n",
		},
		{
			name: "changes six lines apart merge",
			old:  "a\n1\n2\n3\n4\n5\n6\nz\n", new: "A\n1\n2\n3\n4\n5\n6\nZ\n",
			want: "--- f\n+++ f\n@@ -1,8 +1,8 @@\n-a\n+A\n 1\n 2\n 3\n 4\n 5\n 6\n-z\n+Z\n",
		},
		{
			name: "empty lines",
			old:  "a\n\nb\n", new: "a\n\n\nb\n",
			want: "--- f\n+++ f\n@@ -1,3 +1,4 @@\n a\n \n+\n b\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := UnifiedDiff("f", "f", tt.old, tt.new)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Fatalf("UnifiedDiff (-want +got):\n%s", diff)
			}
			checkRoundTrip(t, tt.old, tt.new)
		})
	}
}

// checkRoundTrip checks that the diff from old to new parses back and applies
// to old giving new.
func checkRoundTrip(t *testing.T, old, new string) {
	t.Helper()
	u := UnifiedDiff("a", "b", old, new)
	_, _, hs, err := ParseUnified(u)
	if err != nil {
		t.Fatalf("ParseUnified(%q): %v", u, err)
	}
	got, err := Apply(old, hs)
	if err != nil {
		t.Fatalf("Apply(%q, %q): %v", old, u, err)
	}
	if got != new {
		t.Fatalf("Apply(%q, diff) = %q, want %q\ndiff:\n%s", old, got, new, u)
	}
	added, removed := CountChanges(hs)
	wantA, wantR := 0, 0
	for i, l := range strings.Split(u, "\n") {
		switch {
		case i < 2:
		case strings.HasPrefix(l, "+"):
			wantA++
		case strings.HasPrefix(l, "-"):
			wantR++
		}
	}
	if added != wantA || removed != wantR {
		t.Fatalf("CountChanges = +%d -%d, want +%d -%d", added, removed, wantA, wantR)
	}
}

// TestDiffShortest checks on random inputs that the diff applies and is as
// short as a longest-common-subsequence says it can be.
func TestDiffShortest(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for n := range 500 {
		old, new := randomText(r), randomText(r)
		if n%3 == 0 {
			new = mutate(r, old)
		}
		checkRoundTrip(t, old, new)
		a, b := splitLines(old), splitLines(new)
		added, removed := CountChanges(Diff(old, new))
		if want := len(a) + len(b) - 2*lcs(a, b); added+removed != want {
			t.Fatalf("diff of %q and %q has %d changed lines, want %d", old, new, added+removed, want)
		}
	}
}

func TestDiffBoundedEffort(t *testing.T) {
	var old, new strings.Builder
	for i := range 3 * maxEdits {
		fmt.Fprintf(&old, "old %d\n", i)
		fmt.Fprintf(&new, "new %d\n", i)
		if i%2 == 0 {
			fmt.Fprintf(&old, "same %d\n", i)
			fmt.Fprintf(&new, "same %d\n", i)
		}
	}
	checkRoundTrip(t, old.String(), new.String())
}

func TestParseUnifiedErrors(t *testing.T) {
	for _, u := range []string{
		"@@ -1,1 +1,1 @@\n-a\n+b\n",
		"--- a\n+++ b\n@@ -1,2 +1,1 @@\n-a\n+b\n",
		"--- a\n+++ b\n@@ -x +1 @@\n",
		"--- a\n+++ b\n@@ -1,1 +1,1 @@\n*a\n",
	} {
		if _, _, _, err := ParseUnified(u); err == nil {
			t.Errorf("ParseUnified(%q) = nil error", u)
		}
	}
}

func TestApplyMismatch(t *testing.T) {
	_, _, hs, err := ParseUnified("--- a\n+++ b\n@@ -1,1 +1,1 @@\n-x\n+y\n")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Apply("z\n", hs); err == nil {
		t.Fatal("Apply of a hunk that does not match = nil error")
	}
}

func FuzzDiff(f *testing.F) {
	f.Add("a\nb\n", "a\nc")
	f.Add("", "x")
	f.Add("1\n2\n3\n4\n5\n6\n7\n8\n9\n", "1\n2\n3\nX\n5\n6\n7\n8\nY")
	f.Fuzz(func(t *testing.T, old, new string) {
		checkRoundTrip(t, old, new)
	})
}

func randomText(r *rand.Rand) string {
	var b strings.Builder
	for range r.IntN(12) {
		b.WriteString(string(rune('a' + r.IntN(4))))
		b.WriteByte('\n')
	}
	s := b.String()
	if s != "" && r.IntN(3) == 0 {
		s = s[:len(s)-1]
	}
	return s
}

func mutate(r *rand.Rand, s string) string {
	ls := splitLines(s)
	for range r.IntN(4) {
		if len(ls) > 0 && r.IntN(2) == 0 {
			i := r.IntN(len(ls))
			ls = append(ls[:i], ls[i+1:]...)
		} else {
			i := r.IntN(len(ls) + 1)
			ls = append(ls[:i], append([]string{"new\n"}, ls[i:]...)...)
		}
	}
	return strings.Join(ls, "")
}

func lcs(a, b []string) int {
	dp := make([][]int, len(a)+1)
	for i := range dp {
		dp[i] = make([]int, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				dp[i][j] = dp[i+1][j+1] + 1
			} else {
				dp[i][j] = max(dp[i+1][j], dp[i][j+1])
			}
		}
	}
	return dp[0][0]
}

// TestFormatUnifiedQuotesPaths: a path with a line break is quoted, so the
// header stays one line and the diff parses.
func TestFormatUnifiedQuotesPaths(t *testing.T) {
	hunks := []Hunk{{OldStart: 1, NewStart: 1, Lines: []string{"-a", "+b"}}}
	got := FormatUnified("dir/we\nird.txt", "dir/we\nird.txt", hunks)
	want := "--- \"dir/we\\nird.txt\"\n+++ \"dir/we\\nird.txt\"\n@@ -1,1 +1,1 @@\n-a\n+b\n"
	if got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
	if again := FormatUnified(`"dir/we\nird.txt"`, "x", hunks); !strings.HasPrefix(again, "--- \"dir/we\\nird.txt\"\n") {
		t.Fatalf("a quoted path was quoted again: %q", again)
	}
}
