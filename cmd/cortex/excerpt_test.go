package main

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// excerptByRunes is excerpt as its comment defines it, on the whole text
// converted to characters: the reference the quicker one must agree with.
func excerptByRunes(s string, n int) string {
	s = strings.TrimSpace(s)
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	cut := string([]rune(s)[:n])
	if i := strings.LastIndexAny(cut, " \n"); i > n/2 {
		cut = cut[:i]
	}
	return strings.TrimRight(cut, " \n,.;:") + " …"
}

func TestExcerpt(t *testing.T) {
	tests := []struct {
		s    string
		n    int
		want string
	}{
		{"", 5, ""},
		{"  short  ", 5, "short"},
		{"exactly", 7, "exactly"},
		{"one two three four", 10, "one two …"},
		{"one two, three", 9, "one two …"},
		{"abcdefghij", 4, "abcd …"},
		{"héllo wörld again", 12, "héllo wörld …"},
		{"日本語のテキストです", 4, "日本語の …"},
		{"ab\xffcd ef gh", 6, "ab\uFFFDcd …"},
	}
	for _, tt := range tests {
		if got := excerpt(tt.s, tt.n); got != tt.want {
			t.Errorf("excerpt(%q, %d) = %q, want %q", tt.s, tt.n, got, tt.want)
		}
	}
}

// A recall shows the start of notes of many thousands of characters: the
// excerpt must not copy the whole note to cut its start.
func TestExcerptReadsOnlyItsStart(t *testing.T) {
	long := strings.Repeat("a long note about the database migration ", 2500) // 100 KB
	var got string
	allocs := testing.AllocsPerRun(20, func() { got = excerpt(long, 400) })
	if allocs > 1 {
		t.Errorf("excerpt of a 100 KB note made %.0f allocations, want at most 1", allocs)
	}
	if want := excerptByRunes(long, 400); got != want {
		t.Errorf("excerpt = %q, want %q", got, want)
	}
}

func FuzzExcerpt(f *testing.F) {
	f.Add("one two three four", 10)
	f.Add("ab\xffcd ef gh", 6)
	f.Add("  日本語のテキスト です  ", 3)
	f.Fuzz(func(t *testing.T, s string, n int) {
		n = n % 500
		if n < 0 {
			n = -n
		}
		if got, want := excerpt(s, n), excerptByRunes(s, n); got != want {
			t.Errorf("excerpt(%q, %d) = %q, want %q", s, n, got, want)
		}
	})
}
