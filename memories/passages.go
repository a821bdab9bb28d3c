package memories

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"hash/maphash"
	"io/fs"
	"math"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// TermCounter is a Snapshot that analyses text as its index does and counts
// the memories that have a term: recall needs both to score a long memory's
// passages (FeaturePassages). A snapshot that is not one scores none.
type TermCounter interface {
	// Terms is text's terms as the index analyses a body, in order, each as
	// often as it occurs.
	Terms(text string) ([]string, error)
	// DocFreqs is how many memories the index holds and how many of them
	// have each term in their body.
	DocFreqs(ctx context.Context, terms []string) (total uint64, dfs []uint64, err error)
}

// Passages (FeaturePassages). BM25 scores a memory as a whole: a long one —
// a conversation imported as one note, thirty turns — scores as high for
// the query's words scattered over unrelated turns as for the same words
// said together in the turn that answers. A long memory's score is therefore
// averaged with its best passage's: the best window of passageWords words
// (windows overlapping by half), scored by the query's words in it as BM25
// would score a document that short, each relative to the best among the
// candidates. A memory no longer than one window is its own only passage:
// its score is left as it is, so that notes of a few lines rank exactly as
// without the feature. (Measured on the development sets, windows of 100 to
// 400 words gave about the same gains on the session file, 200 is the
// middle. Passage-level evidence combined with the whole document's is
// Callan's, SIGIR 1994.)
const (
	passageWords = 200
	// passageK1 saturates a term's count in a passage as BM25's k1 does.
	passageK1 = 1.2
	// passageTitleWeight counts the title's words in every passage, as often
	// as the index's title boost counts them in the whole memory: a title
	// says what each part of the memory is about.
	passageTitleWeight = 2
	// passageCandidates is how many of the best candidates, as a multiple
	// of the limit, have their passages scored: reading and analysing every
	// candidate's text costs more than the blend, and one far down the
	// list does not reach the results.
	passageCandidates = 2
)

// scorePassages averages each long candidate's score with its best
// passage's (see passageWords). hits are sorted best first; so is the
// result.
func scorePassages(ctx context.Context, snap Snapshot, text string, hits []Hit, limit int) ([]Hit, error) {
	tc, ok := snap.(TermCounter)
	if !ok || len(hits) == 0 || text == "" {
		return hits, nil
	}
	qterms, err := tc.Terms(text)
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	var terms []string
	for _, t := range qterms {
		if !containsString(terms, t) {
			terms = append(terms, t)
		}
	}
	if len(terms) == 0 {
		return hits, nil
	}
	// The candidates' texts are read first: when none is longer than a
	// passage and the candidates are in order, no score changes and the
	// passages need not be scored at all (most notes are a few lines).
	n := min(len(hits), max(passageCandidates*limit, 1))
	texts := make([]candidateText, n)
	anyLong := false
	for i, h := range hits[:n] {
		title, body, err := loadText(ctx, snap, h.Path)
		if errors.Is(err, fs.ErrNotExist) {
			continue // deleted since it was indexed: recall skips it
		}
		if err != nil {
			return nil, err
		}
		texts[i] = candidateText{title: title, body: body, read: true}
		// Once one is long, every candidate is scanned below, which counts
		// its words again: they need not be counted here.
		if !anyLong && countWords(body, passageWords+1) > passageWords {
			anyLong = true
		}
	}
	if !anyLong && slices.IsSortedFunc(hits, func(a, b Hit) int { return cmp.Compare(b.Score, a.Score) }) {
		return hits, nil
	}
	total, dfs, err := tc.DocFreqs(ctx, terms)
	if err != nil {
		return nil, err
	}
	q := passageQuery{tc: tc, idf: make([]float64, len(terms)), terms: terms, memo: map[string][]int{}}
	for i := range terms {
		q.idf[i] = math.Log(1 + (float64(total)-float64(dfs[i])+0.5)/(float64(dfs[i])+0.5))
	}
	best, bestPassage := 0.0, 0.0
	passage := make([]float64, n)
	long := make([]bool, n)
	for i, h := range hits[:n] {
		best = max(best, h.Score)
		if !texts[i].read {
			continue
		}
		title, body := texts[i].title, texts[i].body
		words, found, err := q.scanKept(body)
		if err != nil {
			return nil, err
		}
		// Every passage has the title (unless it is the body's first line,
		// which the index does not count as one) and the tags.
		var shared []int
		if !IsTitleFrom(title, body) {
			tt, err := q.termsOf(title)
			if err != nil {
				return nil, err
			}
			for range passageTitleWeight {
				shared = append(shared, tt...)
			}
		}
		for _, tag := range h.Tags {
			tt, err := q.termsOf(tag)
			if err != nil {
				return nil, err
			}
			shared = append(shared, tt...)
		}
		passage[i] = q.best(words, found, shared)
		long[i] = words > passageWords
		bestPassage = max(bestPassage, passage[i])
	}
	if best <= 0 || bestPassage <= 0 {
		return hits, nil
	}
	out := make([]Hit, len(hits))
	copy(out, hits)
	for i := range n {
		if long[i] {
			out[i].Score = best * (out[i].Score/best + passage[i]/bestPassage) / 2
		}
	}
	sortByScore(out)
	return out, nil
}

// candidateText is a candidate's title and body as read for its passages.
type candidateText struct {
	title, body string
	read        bool
}

// passageQuery is the query's terms with their IDF, and what is known of the
// words of the memories read so far.
type passageQuery struct {
	tc    TermCounter
	terms []string
	idf   []float64
	// memo holds, for a word (lower case), the indexes of the query's terms
	// the index's analysis makes of it: none for a word mayHave ruled out.
	memo map[string][]int
	// lower is the buffer a word is lowered into.
	lower []byte
	// starts is what a word needs to be looked at (see scan), made on
	// the first scan.
	starts *starts
	// runs is mayHave's buffer of a word's runs.
	runs [][2]int
	// prefixes is what mayHave and scanLowered look for, made on first
	// use (see termStarts).
	prefixes []string
}

// termStarts is the starts of the query's terms that a word is searched
// for: all but each term's last byte (stemming may have changed its last
// letter: happy, happi), each once. Terms of one character of a script
// written without spaces share theirs: the 42 terms of a Japanese sentence
// have 16.
func (q *passageQuery) termStarts() []string {
	if q.prefixes == nil {
		q.prefixes = make([]string, 0, len(q.terms))
		for _, t := range q.terms {
			if p := t[:max(len(t)-1, 1)]; !slices.Contains(q.prefixes, p) {
				q.prefixes = append(q.prefixes, p)
			}
		}
	}
	return q.prefixes
}

// found is a term of the query (its index) at a word of a text.
type found struct{ word, term int }

// termsOf is the indexes of the query's terms text has, as often as it has
// them.
func (q *passageQuery) termsOf(text string) ([]int, error) {
	ts, err := q.tc.Terms(text)
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	var out []int
	for _, t := range ts {
		if i := slices.Index(q.terms, t); i >= 0 {
			out = append(out, i)
		}
	}
	return out, nil
}

// scan counts the words of text (separated by white space) and finds the
// query's terms in them. Analysing the whole text as the index does costs
// about as much as the rest of recall for a note of a few kilobytes; only a
// word that starts like a term of the query (all but the term's last letter,
// which stemming may have changed: happy, happi) is analysed, once per
// recall. A word is lowered and tested (mayHave) only when it has a letter
// that lowers to the first of a term's (see starts): most words of a long
// note have none. It is lowered into a buffer and looked up in memo, which
// holds every word tested so far, those without a term too: a word repeated
// in a text or across the candidates is tested once. A byte of several
// that cannot start white space (see spaceLead) is passed without decoding
// its rune, unless the rune may be the start of a term. The words are the
// fields strings.Fields makes.
func (q *passageQuery) scan(text string) (int, []found, error) {
	if q.starts == nil {
		q.starts = newStarts(q.termStarts())
	}
	// wide: a rune of several bytes may be the start of a term, so each
	// must be decoded until the word may have one.
	wide := q.starts.anyWide || len(q.starts.wide) > 0
	n := 0
	var out []found
	for i := 0; i < len(text); {
		if c := text[i]; c < utf8.RuneSelf {
			if asciiSpace[c] {
				i++
				continue
			}
		} else if spaceLead[c] {
			if r, size := utf8.DecodeRuneInString(text[i:]); unicode.IsSpace(r) {
				i += size
				continue
			}
		}
		start, may, ascii := i, false, true
		for i < len(text) {
			c := text[i]
			if c < utf8.RuneSelf {
				if asciiSpace[c] {
					break
				}
				may = may || q.starts.ascii[c]
				i++
				continue
			}
			ascii = false
			if !spaceLead[c] && (may || !wide) {
				// Not white space, and its rune need not be known: its
				// continuation bytes are passed the same way.
				i++
				continue
			}
			r, size := utf8.DecodeRuneInString(text[i:])
			if unicode.IsSpace(r) {
				break
			}
			may = may || q.starts.anyWide || slices.Contains(q.starts.wide, r)
			i += size
		}
		if may && ascii && !q.starts.holdsPrefix(text[start:i]) {
			// A word of ASCII letters lowers byte by byte: when no term's
			// start is in it in either case, mayHave of its lower case is
			// false, and it need not be lowered nor looked up.
			may = false
		}
		if may {
			w := text[start:i]
			q.lower = appendLower(q.lower[:0], w)
			ts, ok := q.memo[string(q.lower)]
			if !ok {
				// A word already in lower case is its own key, a string
				// of the text's; only another needs one of its own.
				lw := w
				if string(q.lower) != w {
					lw = string(q.lower)
				}
				var err error
				if ts, err = q.remember(lw); err != nil {
					return 0, nil, err
				}
			}
			for _, t := range ts {
				out = append(out, found{n, t})
			}
		}
		n++
	}
	return n, out, nil
}

// remember is the query's terms the lowered word lw holds (none when
// mayHave says it cannot hold one), kept in the memo.
func (q *passageQuery) remember(lw string) ([]int, error) {
	var ts []int
	if q.mayHave(lw) {
		var err error
		if ts, err = q.termsOf(lw); err != nil {
			return nil, err
		}
	}
	q.memo[lw] = ts
	return ts, nil
}

// appendLower appends s in lower case to b, as strings.ToLower makes it (a
// byte that is not UTF-8 becomes U+FFFD), without a string of its own.
func appendLower(b []byte, s string) []byte {
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			b = append(b, c)
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		b = utf8.AppendRune(b, unicode.ToLower(r))
		i += size
	}
	return b
}

// spaceAt is the length of what starts at text[i] that a scan passes at
// once, and whether it is white space: an ASCII byte, a byte of several that
// cannot start white space (see spaceLead, passed without decoding its
// rune), or a decoded rune. (scan, the hot loop, has it written out.)
func spaceAt(text string, i int) (size int, space bool) {
	c := text[i]
	if c < utf8.RuneSelf {
		return 1, asciiSpace[c]
	}
	if !spaceLead[c] {
		return 1, false
	}
	r, size := utf8.DecodeRuneInString(text[i:])
	return size, unicode.IsSpace(r)
}

// countWords is how many words (the fields strings.Fields makes) text has,
// counted up to most. A byte of several that cannot start white space (see
// spaceLead) is passed without decoding its rune.
func countWords(text string, most int) int {
	n, in := 0, false
	for i := 0; i < len(text) && n < most; {
		var space bool
		if c := text[i]; c < utf8.RuneSelf {
			space = asciiSpace[c]
			i++
		} else if !spaceLead[c] {
			i++
		} else {
			r, size := utf8.DecodeRuneInString(text[i:])
			space = unicode.IsSpace(r)
			i += size
		}
		if !space && !in {
			n++
		}
		in = !space
	}
	return n
}

// spaceLead marks the bytes from utf8.RuneSelf that start the UTF-8 of a
// rune unicode.IsSpace holds (U+0085, U+00A0, U+1680, U+2000 to U+3000): no
// other byte of several, a continuation byte included, begins white space,
// so a scan passes it without decoding. TestSpaceLeadHasEverySpace checks
// it against every rune.
var spaceLead = func() (lead [256]bool) {
	mark := func(r rune) {
		var b [utf8.UTFMax]byte
		utf8.EncodeRune(b[:], r)
		lead[b[0]] = true
	}
	mark('\u0085')
	mark('\u00a0')
	for _, rg := range unicode.White_Space.R16 {
		for r := rune(rg.Lo); r <= rune(rg.Hi); r += rune(rg.Stride) {
			if r >= utf8.RuneSelf {
				mark(r)
			}
		}
	}
	for _, rg := range unicode.White_Space.R32 {
		for r := rune(rg.Lo); r <= rune(rg.Hi); r += rune(rg.Stride) {
			if r >= utf8.RuneSelf {
				mark(r)
			}
		}
	}
	return lead
}()

// asciiSpace is the white space of unicode.IsSpace below utf8.RuneSelf.
var asciiSpace = [utf8.RuneSelf]bool{'\t': true, '\n': true, '\v': true, '\f': true, '\r': true, ' ': true}

// starts is what a word must have for its lower case to hold the start of
// one of the query's terms: a rune that lowers (unicode.ToLower, as
// strings.ToLower does rune by rune) to the first rune of a term. Lowering
// maps a rune only within its case-folding orbit, but for U+0130 (capital I
// with a dot, lowered to i): TestLowerStaysInOrbit checks this against every
// rune.
type starts struct {
	ascii [utf8.RuneSelf]bool
	wide  []rune
	// anyWide: every rune from U+0080 may lower to a start, when a term's
	// start is less than a whole rune (a term of one rune of several bytes).
	anyWide bool
	// prefixes are the terms' starts that mayHave looks for (all but a
	// term's last byte) made only of ASCII: the only ones a word of ASCII
	// can hold.
	prefixes []string
}

// holdsPrefix reports whether w, a word of ASCII, holds one of prefixes
// once lowered (byte by byte, as appendLower lowers ASCII): mayHave of its
// lower case can be true only then.
func (s *starts) holdsPrefix(w string) bool {
	for _, p := range s.prefixes {
		for i := 0; i+len(p) <= len(w); i++ {
			j := 0
			for j < len(p) && lowerASCII(w[i+j]) == p[j] {
				j++
			}
			if j == len(p) {
				return true
			}
		}
	}
	return false
}

func lowerASCII(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// newStarts is the starts of the query's terms, each once (termStarts).
func newStarts(termStarts []string) *starts {
	s := &starts{}
	for _, p := range termStarts {
		if isASCII(p) {
			s.prefixes = append(s.prefixes, p)
		}
		r0, size := utf8.DecodeRuneInString(p)
		if r0 == utf8.RuneError && size <= 1 {
			s.anyWide = true
			if p[0] < utf8.RuneSelf {
				s.ascii[p[0]] = true
			}
			continue
		}
		for _, r := range lowersTo(r0) {
			if r < utf8.RuneSelf {
				s.ascii[r] = true
			} else if !slices.Contains(s.wide, r) {
				s.wide = append(s.wide, r)
			}
		}
	}
	return s
}

func isASCII(s string) bool {
	for i := range len(s) {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// lowersTo is every rune that unicode.ToLower maps to r.
func lowersTo(r rune) []rune {
	var out []rune
	for f := r; ; {
		if unicode.ToLower(f) == r {
			out = append(out, f)
		}
		if f = unicode.SimpleFold(f); f == r {
			break
		}
	}
	if r == 'i' {
		out = append(out, '\u0130')
	}
	return out
}

// mayHave reports whether a word (lower case), or a run of letters and
// digits in it, starts as a term of the query does: the same answer as
// splitting the word into its runs and testing each (mayHaveByRuns, kept by
// the tests). The runs are found only once some term's start is in the word
// past its first byte (strings.Index, no rune decoded): most words of a long
// note have none. They are found once for all the terms, each a slice of the
// word: a run of a script written without spaces is a whole phrase, in which
// a term of one character's start is found at every character that shares
// its leading bytes, and each was checked again, for each term.
func (q *passageQuery) mayHave(lw string) bool {
	runs, haveRuns := q.runs[:0], false
	for _, p := range q.termStarts() {
		if strings.HasPrefix(lw, p) {
			return true
		}
		if !haveRuns {
			if len(lw) < 2 || !strings.Contains(lw[1:], p) {
				continue
			}
			runs, haveRuns = appendRuns(runs, lw), true
			q.runs = runs
		}
		for _, r := range runs {
			if strings.HasPrefix(lw[r[0]:r[1]], p) {
				return true
			}
		}
	}
	return false
}

// appendRuns appends the runs of letters and digits of lw that start past
// its first byte, each [start, end), to runs: a run starts at a letter or
// digit after a rune that is neither, and ends before the next rune that is
// neither, or with the word.
func appendRuns(runs [][2]int, lw string) [][2]int {
	start, prevAlnum := -1, true // a run at byte 0 is not one of them
	for i, r := range lw {
		alnum := !notAlnum(r)
		switch {
		case alnum && !prevAlnum:
			start = i
		case !alnum && start >= 0:
			runs = append(runs, [2]int{start, i})
			start = -1
		}
		prevAlnum = alnum
	}
	if start >= 0 {
		runs = append(runs, [2]int{start, len(lw)})
	}
	return runs
}

func notAlnum(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }

// best is the best score of a window of passageWords words of a text of
// words words whose query terms are found (or of the whole text, when
// shorter), windows overlapping by half, the terms of shared counting in
// each. A window's score is BM25's without length normalisation (windows
// are all one length), scaled by the share of the query's terms it has, as
// the index's search scales a memory's.
func (q *passageQuery) best(words int, found []found, shared []int) float64 {
	tf := make([]int, len(q.idf))
	score := func(from, to int) float64 {
		clear(tf)
		for _, t := range shared {
			tf[t]++
		}
		for _, f := range found {
			if f.word >= from && f.word < to {
				tf[f.term]++
			}
		}
		s, n := 0.0, 0
		for i, c := range tf {
			if c > 0 {
				f := float64(c)
				s += q.idf[i] * f * (passageK1 + 1) / (f + passageK1)
				n++
			}
		}
		return s * float64(n) / float64(len(tf))
	}
	if words <= passageWords {
		return score(0, words)
	}
	best := 0.0
	for from := 0; ; from += passageWords / 2 {
		to := min(from+passageWords, words)
		best = max(best, score(from, to))
		if to == words {
			return best
		}
	}
}

// Lowered texts. A server answers recall after recall over the same notes:
// the best candidates of one question are often those of the next, and
// scan lowers and tests their words anew each time. A text met a second
// time is therefore kept lowered (see lowered), and its scan looks for the
// terms' starts in the lowered text (strings.Index, which passes the bytes
// between the starts without looking at each) rather than testing the words
// one by one: the same words found, tested by the same memo and mayHave, in
// the same order. A text met once is scanned as before, so that a process
// that recalls once does no more work than it did.
const (
	// loweredMax is the longest text kept lowered.
	loweredMax = 1 << 20
	// loweredBytes bounds what the texts kept lowered and their lowered
	// forms hold; loweredSize how many texts are known. Either full, the
	// texts are forgotten and met anew.
	loweredBytes = 16 << 20
	loweredSize  = 1 << 14
)

// lowered is a text's words lowered (appendLower), each followed by a
// space, and where each starts; of is the text.
type lowered struct {
	of     string
	text   string
	starts []int32
}

// word is the lowered word i.
func (l *lowered) word(i int) string {
	end := len(l.text)
	if i+1 < len(l.starts) {
		end = int(l.starts[i+1])
	}
	return l.text[l.starts[i] : end-1]
}

// at is the index of the word the byte at off of the lowered text is in
// (the space after a word counts as the word's).
func (l *lowered) at(off int) int {
	i, found := slices.BinarySearch(l.starts, int32(off))
	if !found {
		i--
	}
	return i
}

// loweredTexts holds the texts met, by their hash: metOnce for a text met
// once (only its hash is kept), its lowered form for one met again. A
// lowered form is used only for the text it was made of.
var loweredTexts struct {
	sync.Mutex
	m     map[uint64]*lowered
	bytes int
}

var (
	metOnce     = &lowered{}
	loweredSeed = maphash.MakeSeed()
)

// lowerText is text's words lowered (see lowered), made on the second time
// text is met; nil the first time, or for a text too long to keep.
func lowerText(text string) *lowered {
	if len(text) > loweredMax {
		return nil
	}
	h := maphash.String(loweredSeed, text)
	c := &loweredTexts
	c.Lock()
	l := c.m[h]
	c.Unlock()
	switch {
	case l == nil:
		keepLowered(h, metOnce, 16)
		return nil
	case l != metOnce && l.of == text:
		return l
	case l != metOnce:
		return nil // another text of the same hash: met anew
	}
	l = newLowered(text)
	keepLowered(h, l, len(text)+len(l.text)+4*len(l.starts)+64)
	return l
}

// keepLowered keeps l under h; it costs about cost bytes.
func keepLowered(h uint64, l *lowered, cost int) {
	c := &loweredTexts
	c.Lock()
	defer c.Unlock()
	if c.m == nil || len(c.m) >= loweredSize || c.bytes+cost > loweredBytes {
		c.m, c.bytes = make(map[uint64]*lowered), 0
	}
	c.m[h] = l
	c.bytes += cost
}

// newLowered lowers text's words (the fields strings.Fields makes).
func newLowered(text string) *lowered {
	var b []byte
	var starts []int32
	for i := 0; i < len(text); {
		if size, space := spaceAt(text, i); space {
			i += size
			continue
		}
		start := i
		for i < len(text) {
			size, space := spaceAt(text, i)
			if space {
				break
			}
			i += size
		}
		if b == nil {
			b = make([]byte, 0, len(text)+len(text)/8+1)
		}
		starts = append(starts, int32(len(b)))
		b = appendLower(b, text[start:i])
		b = append(b, ' ')
	}
	return &lowered{of: text, text: string(b), starts: starts}
}

// scanKept is scan, over text's lowered form when text was met before (see
// lowered).
func (q *passageQuery) scanKept(text string) (int, []found, error) {
	l := lowerText(text)
	if l == nil {
		return q.scan(text)
	}
	return q.scanLowered(l)
}

// scanLowered is scan of the text l lowers. A word whose lower case holds no
// term's start (all but its last byte, as mayHave looks for) has no term:
// only the words the starts are found in are tested, in the text's order.
// No start holds a space (a term is a token of the text's analysis), so
// none is found across two words.
func (q *passageQuery) scanLowered(l *lowered) (int, []found, error) {
	var words []int32
	for _, p := range q.termStarts() {
		for off := 0; off < len(l.text); {
			i := strings.Index(l.text[off:], p)
			if i < 0 {
				break
			}
			w := l.at(off + i)
			words = append(words, int32(w))
			// The word is tested whole: its other starts need not be found.
			off = len(l.text)
			if w+1 < len(l.starts) {
				off = int(l.starts[w+1])
			}
		}
	}
	slices.Sort(words)
	words = slices.Compact(words)
	var out []found
	for _, w := range words {
		lw := l.word(int(w))
		ts, ok := q.memo[lw]
		if !ok {
			var err error
			if ts, err = q.remember(lw); err != nil {
				return 0, nil, err
			}
		}
		for _, t := range ts {
			out = append(out, found{int(w), t})
		}
	}
	return len(l.starts), out, nil
}
