package memories

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

// countingTx is a snapshot that is a TermCounter: its terms are the
// lower-case words of a text, and a term's frequency is how many memories'
// bodies have it.
type countingTx struct{ fakeTx }

var _ TermCounter = (*countingTx)(nil)

func (x *countingTx) Terms(text string) ([]string, error) {
	return strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	}), nil
}

func (x *countingTx) DocFreqs(_ context.Context, terms []string) (uint64, []uint64, error) {
	x.f.docFreqCalls++
	dfs := make([]uint64, len(terms))
	for _, m := range x.f.mems {
		words, _ := x.Terms(m.Body)
		for i, t := range terms {
			if containsString(words, t) {
				dfs[i]++
			}
		}
	}
	return uint64(len(x.f.mems)), dfs, nil
}

// filler is n words no query has.
func filler(from, n int) string {
	ws := make([]string, n)
	for i := range ws {
		ws[i] = fmt.Sprintf("word%03d", from+i)
	}
	return strings.Join(ws, " ")
}

func TestRecallPassages(t *testing.T) {
	// Both long memories have both words of the query, and the fake index
	// scores them alike; the scattered one is newer, so recency puts it
	// first unless passages count.
	scattered := mem(numbered(1), "Session one", "zucchini "+filler(0, 300)+" harvest", updated(0))
	together := mem(numbered(2), "Session two", filler(400, 150)+" zucchini harvest "+filler(600, 150), updated(48*time.Hour))
	// Shorter than one passage, the first says "zucchini" three times, which
	// its passage would score higher; the fake index scores them alike, and
	// the newer one wins: scores are left alone.
	shortMany := mem(numbered(3), "Note one", "zucchini zucchini zucchini harvest "+filler(0, 60), updated(48*time.Hour))
	shortOnce := mem(numbered(4), "Note two", filler(200, 30)+" zucchini harvest "+filler(300, 30), updated(0))
	tests := []struct {
		name string
		ms   []*Memory
		off  Features
		// vanished is a note whose file is gone since it was indexed.
		vanished string
		want     []string
	}{
		{name: "words together outrank the same words scattered", ms: []*Memory{scattered, together},
			want: []string{numbered(2), numbered(1)}},
		{name: "without passages recency decides the tie", ms: []*Memory{scattered, together}, off: FeaturePassages,
			want: []string{numbered(1), numbered(2)}},
		{name: "a memory of one passage keeps its score", ms: []*Memory{shortMany, shortOnce},
			want: []string{numbered(4), numbered(3)}},
		{name: "a vanished note is passed over", ms: []*Memory{scattered, together}, vanished: fakePath(together),
			want: []string{numbered(1)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFake(t, tt.ms...)
			f.counts = true
			if tt.vanished != "" {
				f.loadErr[tt.vanished] = fs.ErrNotExist
			}
			r := DefaultRanking()
			r.Off = FeatureNeighbours | tt.off
			svc, _ := newTestService(f, WithRanking(r))
			res, err := svc.Recall(context.Background(), RecallRequest{Query: "zucchini harvest", Project: "web"})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(recalledIDs(res), tt.want); diff != "" {
				t.Errorf("ids (-got +want):\n%s", diff)
			}
		})
	}
}

// TestPassagesScoredOnlyWhenOneIsLong: when no candidate is longer than a
// passage, no score can change, and the passages are not scored (the
// frequencies of the query's terms are not even asked for); the results are
// those of a recall without passages. Candidates the index gives out of
// order are scored as ever.
func TestPassagesScoredOnlyWhenOneIsLong(t *testing.T) {
	shortMany := mem(numbered(3), "Note one", "zucchini zucchini zucchini harvest "+filler(0, 60), updated(48*time.Hour))
	shortOnce := mem(numbered(4), "Note two", filler(200, 30)+" zucchini harvest "+filler(300, 30), updated(0))
	long := mem(numbered(1), "Session one", "zucchini "+filler(0, 300)+" harvest", updated(0))
	// The word in its title makes the index score it higher.
	titled := mem(numbered(5), "Zucchini", "The harvest "+filler(0, 20), updated(0))
	tests := []struct {
		name    string
		ms      []*Memory
		reverse bool
		want    int // DocFreqs calls
	}{
		{name: "short notes", ms: []*Memory{shortMany, shortOnce}, want: 0},
		{name: "a long note among them", ms: []*Memory{shortMany, shortOnce, long}, want: 1},
		{name: "short notes out of order", ms: []*Memory{shortMany, titled}, reverse: true, want: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			recall := func(off Features) (*fakeBackend, []string) {
				f := newFake(t, tt.ms...)
				f.counts, f.reverse = true, tt.reverse
				r := DefaultRanking()
				r.Off = FeatureNeighbours | off
				svc, _ := newTestService(f, WithRanking(r))
				res, err := svc.Recall(context.Background(), RecallRequest{Query: "zucchini harvest", Project: "web"})
				if err != nil {
					t.Fatal(err)
				}
				return f, recalledIDs(res)
			}
			f, got := recall(0)
			if f.docFreqCalls != tt.want {
				t.Errorf("DocFreqs called %d times, want %d", f.docFreqCalls, tt.want)
			}
			if tt.want == 0 {
				if _, without := recall(FeaturePassages); !cmp.Equal(got, without) {
					t.Errorf("ids %v, without passages %v", got, without)
				}
			}
		})
	}
}

func TestRecallPassagesLoadError(t *testing.T) {
	long := mem(numbered(1), "Session one", "zucchini "+filler(0, 300)+" harvest")
	f := newFake(t, long)
	f.counts = true
	boom := errors.New("disk on fire")
	f.loadErr[fakePath(long)] = boom
	svc, _ := newTestService(f)
	if _, err := svc.Recall(context.Background(), RecallRequest{Query: "zucchini harvest", Project: "web"}); !errors.Is(err, boom) {
		t.Fatalf("got %v, want the load error", err)
	}
}

// wordTerms analyses a text into its lower-case runs of letters and digits,
// making "happy" "happi" as a stemmer would.
type wordTerms struct{}

func (wordTerms) Terms(text string) ([]string, error) {
	ts := strings.FieldsFunc(strings.ToLower(text), notAlnum)
	for i, t := range ts {
		if t == "happy" {
			ts[i] = "happi"
		}
	}
	return ts, nil
}

func (wordTerms) DocFreqs(context.Context, []string) (uint64, []uint64, error) {
	return 0, nil, errors.New("not counted")
}

func TestPassageBest(t *testing.T) {
	one := func(tf float64) float64 { return tf * (passageK1 + 1) / (tf + passageK1) }
	gap := strings.Repeat("x ", 250)
	tests := []struct {
		name         string
		text, shared string
		want         float64
	}{
		{"both in a short text", "a x b", "", 1*one(1) + 2*one(1)},
		{"one of two: half the score", "x b x", "", 2 * one(1) / 2},
		{"counts saturate", "a A x", "", one(2) / 2},
		{"a window, not the whole text", "a " + gap + "b", "", 2 * one(1) / 2},
		{"the title in every window", gap + "b", "a", 1*one(1) + 2*one(1)},
		{"punctuation and case", "(A), x/B's", "", 1*one(1) + 2*one(1)},
		{"a word stemmed otherwise than it starts", "Happy days", "", 1 * one(1) / 2},
		{"none", "x y", "", 0},
	}
	for _, tt := range tests {
		q := &passageQuery{tc: wordTerms{}, terms: []string{"a", "b"}, idf: []float64{1, 2}, memo: map[string][]int{}}
		if strings.Contains(tt.text, "appy") {
			q.terms = []string{"happi", "sad"}
		}
		words, found, err := q.scan(tt.text)
		if err != nil {
			t.Fatal(err)
		}
		shared, err := q.termsOf(tt.shared)
		if err != nil {
			t.Fatal(err)
		}
		if got := q.best(words, found, shared); fmt.Sprintf("%.9f", got) != fmt.Sprintf("%.9f", tt.want) {
			t.Errorf("%s: best = %g, want %g", tt.name, got, tt.want)
		}
	}
}

// mayHaveByRuns is mayHave as first written: the word's runs of letters and
// digits split off and each tested.
func mayHaveByRuns(terms []string, lw string) bool {
	starts := func(s string) bool {
		for _, t := range terms {
			if strings.HasPrefix(s, t[:max(len(t)-1, 1)]) {
				return true
			}
		}
		return false
	}
	if starts(lw) {
		return true
	}
	if !strings.ContainsFunc(lw, notAlnum) {
		return false
	}
	for run := range strings.FieldsFuncSeq(lw, notAlnum) {
		if starts(run) {
			return true
		}
	}
	return false
}

// TestMayHaveAsByRuns compares mayHave with splitting words into runs, over
// random words of letters, digits, punctuation, underscores and runes of
// several bytes (a term's start may end inside one), and random terms drawn
// from the same pieces.
func TestMayHaveAsByRuns(t *testing.T) {
	pieces := []string{"a", "b", "g", "o", "1", "-", ".", "/", "_", "é", "中", "文", "ü", "'", "(", "ab", "go", "té"}
	r := rand.New(rand.NewPCG(7, 18))
	draw := func(n int) string {
		var b strings.Builder
		for range n {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		return b.String()
	}
	yes := 0
	for trial := range 200000 {
		terms := make([]string, 1+r.IntN(3))
		for i := range terms {
			terms[i] = draw(1 + r.IntN(3))
		}
		lw := draw(r.IntN(9))
		q := &passageQuery{terms: terms}
		want := mayHaveByRuns(terms, lw)
		if got := q.mayHave(lw); got != want {
			t.Fatalf("trial %d: mayHave(%q) with terms %q = %v, want %v", trial, lw, terms, got, want)
		}
		if want {
			yes++
		}
	}
	if yes < 20000 || yes > 180000 {
		t.Errorf("%d of 200000 words may have a term: the draw tests too little of one answer", yes)
	}
}

// FuzzMayHave compares mayHave with splitting words into runs
// (mayHaveByRuns) for any word and up to three terms (a term is never
// empty: the analyzer makes none). The same query is asked about two words
// in turn, as a scan does, so that the second finds the first's runs in the
// buffer.
func FuzzMayHave(f *testing.F) {
	for _, seed := range [][4]string{
		{"go", "", "", "(go"},
		{"の", "動", "", "ごとに動作が異なるため、ここでは各自の環境"},
		{"featur", "status", "span", `class="related-pages">#feature/statuses</span`},
		{"中", "文", "", "中文"},
		{"té", "ü", "", "a-té.ü"},
		{"a", "", "", "\xffa\xe4\xb8"},
		{"1", "b", "", "x_1(b"},
	} {
		f.Add(seed[0], seed[1], seed[2], seed[3])
	}
	f.Fuzz(func(t *testing.T, a, b, c, lw string) {
		var terms []string
		for _, term := range []string{a, b, c} {
			if term != "" {
				terms = append(terms, term)
			}
		}
		if len(terms) == 0 {
			return
		}
		q := &passageQuery{terms: terms}
		for _, w := range []string{lw, strings.ToLower(lw)} {
			want := mayHaveByRuns(terms, w)
			if got := q.mayHave(w); got != want {
				t.Fatalf("mayHave(%q) with terms %q = %v, want %v", w, terms, got, want)
			}
		}
	})
}

// rawTerms analyses a text into its runs of letters and digits as they are
// written: a word passed to it without lowering finds other terms.
type rawTerms struct{}

func (rawTerms) Terms(text string) ([]string, error) { return strings.FieldsFunc(text, notAlnum), nil }

func (rawTerms) DocFreqs(context.Context, []string) (uint64, []uint64, error) {
	return 0, nil, errors.New("not counted")
}

// scanByFields is scan as first written: every field of the text lowered,
// and tested by its runs.
func scanByFields(q *passageQuery, text string) (int, []found) {
	n := 0
	var out []found
	for w := range strings.FieldsSeq(text) {
		if lw := strings.ToLower(w); mayHaveByRuns(q.terms, lw) {
			ts, _ := q.termsOf(lw)
			for _, t := range ts {
				out = append(out, found{n, t})
			}
		}
		n++
	}
	return n, out
}

// TestScanAsByFields compares scan with lowering and testing every field,
// over random texts of letters in both cases (with the runes that lower
// outside their own script's letters: U+0130, the Kelvin sign, final
// sigma), white space of several kinds, bytes that are not UTF-8, and
// random terms, some of them less than a rune.
func TestScanAsByFields(t *testing.T) {
	pieces := []string{"a", "A", "i", "I", "İ", "k", "K", "K", "σ", "Σ", "ς", "中", "文", "é", "É", "ǅ", "ǆ", "Ǆ",
		"go", "Go", "GO", "t", "T", "1", "_", "-", ".", "/", "\xff", "\xe4\xb8", " ", " ", "\n", "\t", "\u00a0", "\u3000", "\u0085",
		"\u1680", "\u2000", "\u202f", "\u205f", "\u2029", "\u2010", "\u00a9", "\u1681", "\u3001", "\xe2", "\xe2\x80", "\xc2", "\xe1\x9a"}
	lower := []string{"a", "i", "k", "σ", "ς", "中", "é", "ǆ", "go", "t", "1", "_", "\ufffd", "\xe4\xb8", "i̇"}
	r := rand.New(rand.NewPCG(18, 7))
	draw := func(from []string, n int) string {
		var b strings.Builder
		for range n {
			b.WriteString(from[r.IntN(len(from))])
		}
		return b.String()
	}
	nfound := 0
	for trial := range 20000 {
		terms := make([]string, 1+r.IntN(3))
		for i := range terms {
			terms[i] = draw(lower, 1+r.IntN(2))
		}
		pool := append(slices.Clip(pieces), terms...)
		for _, t := range terms {
			pool = append(pool, strings.ToUpper(t), " "+t, " "+strings.ToTitle(t))
		}
		want := &passageQuery{tc: rawTerms{}, terms: terms, memo: map[string][]int{}}
		// One query scans several texts, as it does a recall's
		// candidates: what it keeps of one text must not change the next.
		got := &passageQuery{tc: rawTerms{}, terms: terms, memo: map[string][]int{}}
		// The scan of a text kept lowered, and one that meets a text
		// kept lowered and one not, as a server's recalls do.
		low := &passageQuery{tc: rawTerms{}, terms: terms, memo: map[string][]int{}}
		mixed := &passageQuery{tc: rawTerms{}, terms: terms, memo: map[string][]int{}}
		for k := range 3 {
			text := draw(pool, r.IntN(40))
			wn, wf := scanByFields(want, text)
			gn, gf, err := got.scan(text)
			if err != nil {
				t.Fatal(err)
			}
			if gn != wn || !slices.Equal(gf, wf) {
				t.Fatalf("trial %d: scan(%q) with terms %q = %d words, %v; want %d, %v", trial, text, terms, gn, gf, wn, wf)
			}
			ln, lf, err := low.scanLowered(newLowered(text))
			if err != nil {
				t.Fatal(err)
			}
			if ln != wn || !slices.Equal(lf, wf) {
				t.Fatalf("trial %d: scanLowered(%q) with terms %q = %d words, %v; want %d, %v", trial, text, terms, ln, lf, wn, wf)
			}
			scan := mixed.scan
			if (trial+k)%2 == 0 {
				scan = func(text string) (int, []found, error) { return mixed.scanLowered(newLowered(text)) }
			}
			if mn, mf, err := scan(text); err != nil || mn != wn || !slices.Equal(mf, wf) {
				t.Fatalf("trial %d: a scan of %q after others, with terms %q = %d words, %v, %v; want %d, %v", trial, text, terms, mn, mf, err, wn, wf)
			}
			nfound += len(wf)
		}
	}
	if nfound < 10000 {
		t.Errorf("only %d terms found in 20000 texts: the draw tests too little", nfound)
	}
}

// TestTextsLoweredWhenMetAgain checks that a text is kept lowered the
// second time it is scanned, not the first (a process that recalls once
// pays nothing for it), and that its scans then find what the scan of the
// text finds.
func TestTextsLoweredWhenMetAgain(t *testing.T) {
	text := fmt.Sprintf("Going GOES gopher Über über go-to %d ", time.Now().UnixNano())
	text = strings.Repeat(text, 50)
	if l := lowerText(text); l != nil {
		t.Fatal("a text met once is kept lowered")
	}
	l := lowerText(text)
	if l == nil {
		t.Fatal("a text met again is not kept lowered")
	}
	if again := lowerText(text); again != l {
		t.Fatal("a text kept lowered is lowered again")
	}
	if l.word(1) != "goes" || len(l.starts) != 350 {
		t.Fatalf("lowered: word 1 %q of %d, want goes of 350", l.word(1), len(l.starts))
	}
	for range 2 {
		want := &passageQuery{tc: wordTerms{}, terms: []string{"go", "über"}, memo: map[string][]int{}}
		got := &passageQuery{tc: wordTerms{}, terms: []string{"go", "über"}, memo: map[string][]int{}}
		wn, wf, err := want.scan(text)
		if err != nil {
			t.Fatal(err)
		}
		gn, gf, err := got.scanKept(text)
		if err != nil || gn != wn || !slices.Equal(gf, wf) || len(gf) != 150 {
			t.Fatalf("scanKept = %d words, %d found, %v; want %d, %d (150)", gn, len(gf), err, wn, len(wf))
		}
	}
}

// TestLowerStaysInOrbit checks, for every rune, that lowersTo its lower case
// has it: what scan's filter of words relies on.
func TestLowerStaysInOrbit(t *testing.T) {
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if l := unicode.ToLower(r); !slices.Contains(lowersTo(l), r) {
			t.Fatalf("%U lowers to %U, which lowersTo does not know", r, l)
		}
	}
}

// TestCountWordsAsFields compares countWords with strings.Fields over
// random texts of words, white space of several kinds and bytes that are
// not UTF-8.
func TestCountWordsAsFields(t *testing.T) {
	pieces := []string{"a", "bc", "中", "é", "\xff", "\xe4\xb8", " ", "  ", "\n", "\t", "\u00a0", "\u3000", "\u0085", "\u2028",
		"\u1680", "\u2000", "\u202f", "\u205f", "\u2010", "\u00a9", "\u1681", "\u3001", "\xe2", "\xe2\x80", "\xc2", "\xe1\x9a"}
	r := rand.New(rand.NewPCG(3, 5))
	for trial := range 20000 {
		var b strings.Builder
		for range r.IntN(30) {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		text := b.String()
		most := 1 + r.IntN(12)
		if got, want := countWords(text, most), min(len(strings.Fields(text)), most); got != want {
			t.Fatalf("trial %d: countWords(%q, %d) = %d, want %d", trial, text, most, got, want)
		}
	}
}

// TestSpaceLeadHasEverySpace checks, for every rune of several bytes that
// unicode.IsSpace holds, that spaceLead marks its first byte, and that it
// marks no byte that starts none: what scan and countWords rely on to pass
// the other bytes without decoding.
func TestSpaceLeadHasEverySpace(t *testing.T) {
	var want [256]bool
	for r := rune(utf8.RuneSelf); r <= unicode.MaxRune; r++ {
		if unicode.IsSpace(r) {
			want[utf8.AppendRune(nil, r)[0]] = true
		}
	}
	if spaceLead != want {
		for b := range 256 {
			if spaceLead[b] != want[b] {
				t.Errorf("spaceLead[%#x] = %v, want %v", b, spaceLead[b], want[b])
			}
		}
	}
}

// TestAppendLowerAsToLower compares appendLower with strings.ToLower over
// random words of both cases, runes that lower to more or fewer bytes and
// bytes that are not UTF-8.
func TestAppendLowerAsToLower(t *testing.T) {
	pieces := []string{"a", "Z", "İ", "K", "Σ", "ς", "中", "É", "ǅ", "Ⱥ", "ȿ", "\xff", "\xe4\xb8", "\ufffd", "GO", "_"}
	r := rand.New(rand.NewPCG(5, 9))
	var buf []byte
	for trial := range 20000 {
		var b strings.Builder
		for range r.IntN(8) {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		w := b.String()
		if buf = appendLower(buf[:0], w); string(buf) != strings.ToLower(w) {
			t.Fatalf("trial %d: appendLower(%q) = %q, want %q", trial, w, buf, strings.ToLower(w))
		}
	}
}

// TestScanAllocatesPerNewWord checks that scan makes no string of a word it
// has tested before: a long note repeats its words, in capitals too, and a
// recall's candidates share them. Lowering each such word anew was most of
// the allocations of a recall's passages.
func TestScanAllocatesPerNewWord(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	text := strings.Repeat("Going GOES gopher Über über go-to ", 200)
	q := &passageQuery{tc: wordTerms{}, terms: []string{"go", "über"}, memo: map[string][]int{}}
	if _, _, err := q.scan(text); err != nil {
		t.Fatal(err)
	}
	var found []found
	allocs := testing.AllocsPerRun(20, func() {
		var err error
		if _, found, err = q.scan(text); err != nil {
			t.Fatal(err)
		}
	})
	// The list of what is found grows by doubling: about log2(600).
	if len(found) != 600 || allocs > 16 {
		t.Errorf("scan found %d terms with %v allocations, want 600 with at most 16", len(found), allocs)
	}
	// A new word in lower case is kept under the text's own string: a
	// long note of distinct words costs the memo's growth, not a string a
	// word.
	var b strings.Builder
	for i := range 500 {
		fmt.Fprintf(&b, "xg%c%c ", 'a'+i%26, 'a'+i/26)
	}
	distinct := b.String()
	allocs = testing.AllocsPerRun(10, func() {
		fresh := &passageQuery{tc: wordTerms{}, terms: []string{"go"}, memo: map[string][]int{}}
		if _, _, err := fresh.scan(distinct); err != nil {
			t.Fatal(err)
		}
	})
	if allocs > 60 {
		t.Errorf("a first scan of 500 distinct words in lower case: %v allocations, want at most 60", allocs)
	}
}

// TestScanPassesASCIIWordsWithoutAStart checks that a word of ASCII with a
// letter a term starts with, but not the term's start itself, is neither
// lowered nor remembered: in English text most words have such a letter,
// and looking each up was most of a long note's scan.
func TestScanPassesASCIIWordsWithoutAStart(t *testing.T) {
	q := &passageQuery{tc: wordTerms{}, terms: []string{"task", "abc"}, memo: map[string][]int{}}
	n, found, err := q.scan("The test Task at a table, TASK. to abc-ide; a-b Ta.sk ätask tasks")
	if err != nil {
		t.Fatal(err)
	}
	if n != 13 || len(found) != 3 {
		t.Fatalf("scan = %d words, %v; want 13 words and 3 terms found", n, found)
	}
	var kept []string
	for w := range q.memo {
		kept = append(kept, w)
	}
	slices.Sort(kept)
	// "ätask" is not ASCII: it is tested as before.
	if want := []string{"abc-ide;", "table,", "task", "task.", "tasks", "ätask"}; !slices.Equal(kept, want) {
		t.Errorf("scan remembered %q, want %q", kept, want)
	}
}
