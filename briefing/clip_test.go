package briefing

import (
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"
)

// clipReference is clip as it was first written: the text on one line, as
// runes, cut at n-1 of them.
func clipReference(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	cut := string(r[:n-1])
	if i := strings.LastIndexByte(cut, ' '); i > n/2 {
		cut = cut[:i]
	}
	return cut + "…"
}

// TestClipMatchesReference: clip counts characters instead of converting the
// text to runes, and cuts where the rune version cut, broken UTF-8 too.
func TestClipMatchesReference(t *testing.T) {
	parts := []string{"a", "word", " ", "  ", "\n", "\t", "é", "日本", "🙂", "\xff", "\xe2\x82", "…", "x y"}
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 5000 {
		var b strings.Builder
		for range rng.IntN(60) {
			b.WriteString(parts[rng.IntN(len(parts))])
		}
		s := b.String()
		for _, n := range []int{1, 2, 3, 5, 8, 13, 40, 120} {
			if got, want := clip(s, n), clipReference(s, n); got != want {
				t.Fatalf("%d: clip(%q, %d) = %q, want %q", i, s, n, got, want)
			}
		}
	}
}

func FuzzClip(f *testing.F) {
	f.Add("Some text  with\nspaces and é and \xff", 10)
	f.Fuzz(func(t *testing.T, s string, n int) {
		if n < 1 || n > 1000 {
			return
		}
		if got, want := clip(s, n), clipReference(s, n); got != want {
			t.Fatalf("clip(%q, %d) = %q, want %q", s, n, got, want)
		}
	})
}

// TestVariantsReadTheTextOnce: an item's excerpts are cut from its text put
// on one line once, not converted to runes for each length: for a long note
// the variants allocate about the text's size, not several times it.
func TestVariantsReadTheTextOnce(t *testing.T) {
	text := strings.Repeat("Connection pool timeouts retry with backoff, é. ", 1000)
	it := Item{ID: "1", Title: "t", Text: text}
	variants(it) // warm
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	vs := variants(it)
	runtime.ReadMemStats(&after)
	if len(vs) != len(textLimits)+1 {
		t.Fatalf("%d variants", len(vs))
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > uint64(3*len(text)) {
		t.Errorf("variants of a %d-byte text allocated %d bytes, want at most 3 times the text", len(text), got)
	}
}

// TestOneLineMatchesFields: oneLine is strings.Fields joined by spaces, for
// every kind of space and for broken UTF-8.
func TestOneLineMatchesFields(t *testing.T) {
	parts := []string{"a", "word", " ", "  ", "\n", "\t", "\v", "\f", "\r", "\u0085", "\u00a0", "\u2003", "\u3000", "é", "🙂", "\xff", "\xe2\x82", "\x00", "\x7f"}
	rng := rand.New(rand.NewPCG(3, 4))
	for i := range 20000 {
		var b strings.Builder
		for range rng.IntN(20) {
			b.WriteString(parts[rng.IntN(len(parts))])
		}
		s := b.String()
		if got, want := oneLine(s), strings.Join(strings.Fields(s), " "); got != want {
			t.Fatalf("%d: oneLine(%q) = %q, want %q", i, s, got, want)
		}
	}
}

func FuzzOneLine(f *testing.F) {
	f.Add("Some text  with\nspaces and é and \xff\u00a0x")
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := oneLine(s), strings.Join(strings.Fields(s), " "); got != want {
			t.Fatalf("oneLine(%q) = %q, want %q", s, got, want)
		}
	})
}
