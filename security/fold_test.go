package security

import (
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	gocmp "github.com/google/go-cmp/cmp"
)

// foldStringByRune is foldString as it was first written, a rune at a time
// through unicode.ToLower: the reference the faster one must agree with.
func foldStringByRune(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			b.WriteByte(c)
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if l := unicode.ToLower(r); l != r && utf8.RuneLen(l) == n {
			b.WriteRune(l)
		} else {
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// TestCaselessRanges checks that no code point of caselessRanges has a
// lower case of its own, so that foldString may skip looking them up.
func TestCaselessRanges(t *testing.T) {
	prev := rune(-1)
	for _, x := range caselessRanges {
		if x[0] <= prev || x[1] < x[0] {
			t.Fatalf("caselessRanges are not in order: %#x-%#x after %#x", x[0], x[1], prev)
		}
		prev = x[1]
		for r := x[0]; r <= x[1]; r++ {
			if l := unicode.ToLower(r); l != r {
				t.Errorf("%U is in caselessRanges, but its lower case is %U", r, l)
			}
		}
	}
}

// TestFoldStringAsByRune compares foldString with the rune-at-a-time
// reference over every code point, alone and between ASCII, over texts of
// random bytes (invalid UTF-8 included) and random runes, and over the
// corpus.
func TestFoldStringAsByRune(t *testing.T) {
	check := func(s string) {
		t.Helper()
		if got, want := foldString(s), foldStringByRune(s); got != want {
			t.Fatalf("foldString(%q) = %q, want %q", s, got, want)
		}
		f, u := foldTexts(s)
		if want := foldStringByRune(s); f != want || u != unleetString(want) {
			t.Fatalf("foldTexts(%q) = %q, %q, want %q, %q", s, f, u, want, unleetString(want))
		}
	}
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if r >= 0xd800 && r <= 0xdfff {
			continue // not encodable: a string cannot hold them
		}
		check(string(r))
		if r%97 == 0 {
			check("Ab" + string(r) + "Z9")
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		b := make([]byte, rng.IntN(40))
		for i := range b {
			b[i] = byte(rng.IntN(256))
		}
		check(string(b))
		var sb strings.Builder
		for range rng.IntN(20) {
			switch rng.IntN(3) {
			case 0:
				sb.WriteByte(byte(rng.IntN(128)))
			case 1:
				sb.WriteRune(rune(rng.IntN(0x3000)))
			default:
				sb.WriteRune(rune(rng.IntN(unicode.MaxRune)))
			}
		}
		check(sb.String())
	}
	for _, s := range fuzzSeeds(t) {
		check(s)
	}
}

// TestScanDoesNotDependOnTheScanBefore: a scan reuses the row states of the
// scans before it; what it finds must be what a scan with fresh states
// finds, whatever was scanned before.
func TestScanDoesNotDependOnTheScanBefore(t *testing.T) {
	seeds := fuzzSeeds(t)
	rng := rand.New(rand.NewPCG(3, 4))
	fresh := make([][]Finding, len(seeds))
	for i, s := range seeds {
		rowStatePool.Put(new(rowStates))
		fresh[i] = Scan(s)
	}
	for range 3 {
		for _, i := range rng.Perm(len(seeds)) {
			if diff := gocmp.Diff(fresh[i], Scan(seeds[i])); diff != "" {
				t.Fatalf("Scan(%q) after other scans differs from a fresh scan (-fresh +after):\n%s", seeds[i], diff)
			}
		}
	}
}

// TestScanAllocatesNoRowTable: a scan of a short text allocates a few
// hundred bytes, not a table of every row's state (224 rows, 7 KB).
func TestScanAllocatesNoRowTable(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector drops pooled row tables at random")
	}
	text := "Deploy with make release; the staging host is build-7."
	Scan(text)
	runtime.GC()
	var before, after runtime.MemStats
	const n = 200
	runtime.ReadMemStats(&before)
	for range n {
		Scan(text)
	}
	runtime.ReadMemStats(&after)
	if per := (after.TotalAlloc - before.TotalAlloc) / n; per > 2048 {
		t.Errorf("a scan of %d bytes allocated %d bytes, want at most 2048", len(text), per)
	}
}

// triggeredUnfiltered is ruleTable.triggered without the pairs prefilter:
// a walk at every place a trigger's first byte is.
func (t *ruleTable) triggeredUnfiltered(text, u string, fn func(rows []int, at, n int)) {
	var at int
	each := func(rows []int, n int) { fn(rows, at, n) }
	word := true
	for at = 0; at < len(u); at++ {
		c := u[at]
		if isAlnum(c) {
			if word || 'A' <= text[at] && text[at] <= 'Z' && ('a' <= text[at-1] && text[at-1] <= 'z' ||
				'A' <= text[at-1] && text[at-1] <= 'Z' && at+1 < len(text) && 'a' <= text[at+1] && text[at+1] <= 'z') {
				t.atWord.match(u, at, each)
			}
			word = false
			continue
		}
		word = true
		if t.anywhere.root[c] >= 0 {
			t.anywhere.match(u, at, each)
		}
	}
}

type triggerHit struct {
	rows  []int
	at, n int
}

// checkPrefilters checks foldString against the rune-at-a-time reference and
// the triggers found with the pairs prefilter against those found without.
func checkPrefilters(t *testing.T, text string) {
	t.Helper()
	if got, want := foldString(text), foldStringByRune(text); got != want {
		t.Fatalf("foldString(%q) = %q, want %q", text, got, want)
	}
	f, u := foldTexts(text)
	if want := foldStringByRune(text); f != want {
		t.Fatalf("foldTexts(%q) folded = %q, want %q", text, f, want)
	}
	if want := unleetString(foldStringByRune(text)); u != want {
		t.Fatalf("foldTexts(%q) unleet = %q, want %q", text, u, want)
	}
	var got, want []triggerHit
	tb := table()
	tb.triggered(text, u, func(rows []int, at, n int) { got = append(got, triggerHit{rows, at, n}) })
	tb.triggeredUnfiltered(text, u, func(rows []int, at, n int) { want = append(want, triggerHit{rows, at, n}) })
	if diff := gocmp.Diff(want, got, gocmp.AllowUnexported(triggerHit{})); diff != "" {
		t.Fatalf("triggers of %q with the pairs prefilter differ (-without +with):\n%s", text, diff)
	}
}

// TestPrefiltersFindAsWithout runs checkPrefilters over the corpus, the
// seeds cut at every length near their triggers' starts, and random texts
// built from the triggers' own bytes and the gap bytes.
func TestPrefiltersFindAsWithout(t *testing.T) {
	for _, s := range fuzzSeeds(t) {
		checkPrefilters(t, s)
		for _, cut := range []int{1, 2, 3} {
			if len(s) > cut {
				checkPrefilters(t, s[:len(s)-cut])
			}
		}
	}
	var alphabet []string
	tb := table()
	for _, r := range tb.rows {
		alphabet = append(alphabet, r.form.triggers...)
	}
	alphabet = append(alphabet, " ", "  ", "**", "\n", "\u00a0", "\u200b", "\u061c", "_", "~", "A", "Ig", "0", "é", "ق", "\xe2", "\xd8")
	rng := rand.New(rand.NewPCG(5, 6))
	for range 20000 {
		var sb strings.Builder
		for range 1 + rng.IntN(12) {
			a := alphabet[rng.IntN(len(alphabet))]
			if rng.IntN(4) == 0 && len(a) > 1 {
				a = strings.ToUpper(a[:1+rng.IntN(len(a)-1)])
			}
			sb.WriteString(a)
		}
		checkPrefilters(t, sb.String())
	}
}

func FuzzPrefilters(f *testing.F) {
	for _, s := range fuzzSeeds(&testing.T{}) {
		f.Add(s)
	}
	f.Fuzz(checkPrefilters)
}

// TestFoldTextsEveryASCIIByte puts each ASCII byte at each place of the
// eight-byte words foldTexts reads at once, among letters of both cases,
// digits and a non-ASCII rune, and checks it against the byte-at-a-time
// definition.
func TestFoldTextsEveryASCIIByte(t *testing.T) {
	fills := []string{"xxxxxxxxxxxxxxxxxx", "XyZaBcDeFgHiJkLmNo", "0123456789@$zZ!~`^", "ab\u00c9cd\u0416ef"}
	for c := range 128 {
		for _, fill := range fills {
			for at := 0; at < 17; at++ {
				b := []byte(fill)
				if at >= len(b) || !utf8.RuneStart(b[at]) || at+1 < len(b) && !utf8.RuneStart(b[at+1]) {
					continue
				}
				b[at] = byte(c)
				for _, s := range []string{string(b), string(b[:at+1])} {
					f, u := foldTexts(s)
					if want := foldStringByRune(s); f != want {
						t.Fatalf("foldTexts(%q) folded = %q, want %q", s, f, want)
					}
					if want := unleetString(foldStringByRune(s)); u != want {
						t.Fatalf("foldTexts(%q) unleet = %q, want %q", s, u, want)
					}
				}
			}
		}
	}
}

// TestFoldTextsAllocatesOnce: a text with capitals and digits gets its
// folded and unleet copies from one allocation.
func TestFoldTextsAllocatesOnce(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts differ under the race detector")
	}
	text := strings.Repeat("Deploy build 7 to Staging at 10:30; ", 20)
	if n := testing.AllocsPerRun(100, func() { foldTexts(text) }); n != 1 {
		t.Errorf("foldTexts allocated %v times, want 1", n)
	}
}
