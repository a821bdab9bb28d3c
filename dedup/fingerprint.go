package dedup

import (
	"math/bits"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"
	"unsafe"
)

// Fingerprint holds what is compared of a text: its words (stemmed,
// abbreviations expanded, stop words dropped; in Chinese and Japanese, the
// characters and the pairs of them), the bigrams of its raw tokens, and its key
// words (see keys.go): numbers, identifiers and code tokens, words with an
// opposite, negated words, platforms and subject words. Each set is a sorted
// slice of distinct 64-bit hashes, so comparing two fingerprints is a merge of
// sorted slices. Build one per text with New; a Fingerprint is never changed
// after, and is safe to share.
type Fingerprint struct {
	words, bigrams []uint64

	numbers     []uint64    // numbers, as written in digits or words
	codes       []uint64    // identifiers and code tokens
	codeWords   []uint64    // the words written as code, as the word set holds them
	codeBigrams []uint64    // the pairs of words in a row in code, as bigrams
	polar       []polarWord // words with an opposite
	title       []uint64    // the words of the first line
	titlePolar  []polarWord // those with an opposite
	negated     []uint64    // words right after a negation
	denied      []uint64    // words of sentences with a negation
	platforms   uint32      // a bit per platform named
	salient     []uint64    // words of the first line said again: the subject
	names       []uint64    // words written with a capital inside a sentence, and of links' texts
}

// New computes the fingerprint of text. Callers pass a memory as its title, a
// new line and its content: the first line is the title, whose words said
// again in the text are its subject.
//
// Stop words are left out of the word set and out of the token sequence the
// bigrams are taken from, so "signing in production" and "signing for
// production" share the bigram "signing production". A text made only of stop
// words keeps them all, so that every text with a token has a fingerprint.
// Bigrams do not span the end of a sentence or a line.
func New(text string) *Fingerprint {
	f := build(text, false)
	if len(f.words) == 0 {
		f = build(text, true) // only stop words, or nothing at all
	}
	return f
}

// hasher turns tokens into the sets.
type hasher struct {
	f        Fingerprint
	prev     uint64 // hash of the sentence's last token
	prevCJK  bool   // it is a Chinese or Japanese character
	prevTok  uint64 // hash of the last token, stop words included
	n        int    // how many tokens of the sentence so far, up to 1
	word     []byte // scratch for the word form of a token
	keepStop bool
	negate   int     // how many of the next words a negation applies to
	phrasal  bool    // the sentence has a verb that takes on/off, in/out
	title    bool    // the tokens are the first line's
	said     []int32 // how many times the rest says each word of the title
	// sentence holds the words of the sentence so far, and negative says it
	// has a negation: then they are denied when it ends.
	sentence []uint64
	negative bool
	start    bool // no token yet
}

// negationScope is how many content words after a negation it applies to:
// "does not need to be disabled" negates need and disabled.
const negationScope = 2

var hashCan, hashT, hashInstead, hashOf = hashString("can"), hashString("t"), hashString("instead"), hashString("of")

func build(text string, keepStop bool) *Fingerprint {
	// The sets are gathered in buffers kept between texts, and each is
	// copied out at its size once sorted: a text's sets grew by doubling,
	// and were copied again when their guessed capacity was too large.
	scratch := sortScratchPool.Get().(*sortScratch)
	defer sortScratchPool.Put(scratch)
	g := &scratch.sets
	if g.word == nil {
		// Words' forms are made in these (64 bytes hold any word).
		g.word, g.buf = make([]byte, 0, 64), make([]byte, 0, 64)
	}
	h := hasher{keepStop: keepStop, word: g.word[:0], start: true}
	h.f.words, h.f.bigrams, h.f.title = g.words[:0], g.bigrams[:0], g.title[:0]
	h.f.negated, h.f.denied, h.f.names = g.negated[:0], g.denied[:0], g.names[:0]
	h.f.polar, h.sentence = g.polar[:0], g.sentence[:0]
	// The buffers as grown, kept for the next text, however this one ends.
	defer func() {
		g.word, g.sentence = h.word, h.sentence
	}()
	var buf [64]byte
	// The first line on its own, to know its words; the new line that
	// follows breaks the line, so n-grams come out the same.
	firstLine := text
	if i := strings.IndexByte(text, '\n'); i >= 0 {
		firstLine = text[:i]
	}
	h.title = true
	scan(firstLine, buf[:0], h.add)
	h.endSentence()
	titlePolar := len(h.f.polar)
	g.title = h.f.title
	h.f.title = sortInPlace(h.f.title, scratch)
	h.said = make([]int32, len(h.f.title))
	h.title = false
	scan(text[len(firstLine):], buf[:0], h.add)
	h.endSentence()

	if !lead(firstLine, text[len(firstLine):]) {
		h.f.salient = h.subject()
	}
	g.polar, g.words, g.bigrams = h.f.polar, h.f.words, h.f.bigrams
	g.negated, g.denied, g.names = h.f.negated, h.f.denied, h.f.names
	h.f.titlePolar = sortPolar(slices.Clone(h.f.polar[:titlePolar])) // not in place: polar is sorted next
	h.f.polar = sortPolar(h.f.polar)
	h.f.words = sortInPlace(h.f.words, scratch)
	h.f.bigrams = sortInPlace(h.f.bigrams, scratch)
	h.f.negated = sortInPlace(h.f.negated, scratch)
	h.f.denied = sortInPlace(h.f.denied, scratch)
	h.f.names = appendLinkNames(h.f.names, text[len(firstLine):], h.word)
	h.f.names = sortInPlace(h.f.names, scratch)

	k := keyScanner{buf: g.buf[:0], scratch: h.word}
	k.numbers, k.codes, k.codeWords, k.codeBigrams = g.numbers[:0], g.codes[:0], g.codeWords[:0], g.codeBigrams[:0]
	k.scanKeys(text)
	g.buf, g.numbers, g.codes, g.codeWords, g.codeBigrams = k.buf, k.numbers, k.codes, k.codeWords, k.codeBigrams
	h.f.numbers = sortInPlace(k.numbers, scratch)
	h.f.codes = sortInPlace(k.codes, scratch)
	h.f.codeWords = sortInPlace(k.codeWords, scratch)
	h.f.codeBigrams = sortInPlace(k.codeBigrams, scratch)
	h.f.copyOut()
	return &h.f
}

// copyOut moves the fingerprint's sets, sorted in the buffers they were
// gathered in, to one slice of their total size: one allocation a text
// instead of one a set. Each set's capacity is its length, so that an
// append to one never writes over the next.
func (f *Fingerprint) copyOut() {
	sets := [...]*[]uint64{&f.title, &f.words, &f.bigrams, &f.negated, &f.denied, &f.names,
		&f.numbers, &f.codes, &f.codeWords, &f.codeBigrams}
	total := 0
	for _, s := range sets {
		total += len(*s)
	}
	all := make([]uint64, total)
	for _, s := range sets {
		if len(*s) == 0 {
			*s = nil
			continue
		}
		n := copy(all, *s)
		*s, all = all[:n:n], all[n:]
	}
}

// memSize is about how many bytes f holds: its sets and itself.
func (f *Fingerprint) memSize() int {
	n := int(unsafe.Sizeof(*f)) + 16*(cap(f.polar)+cap(f.titlePolar))
	for _, s := range [...][]uint64{f.title, f.words, f.bigrams, f.negated, f.denied, f.names, f.numbers, f.codes, f.codeWords, f.codeBigrams, f.salient} {
		n += 8 * cap(s)
	}
	return n
}

// sortPolar is p sorted and free of repeats, in a slice of its own (p is
// a buffer kept between texts), nil when empty. p is sorted in place.
func sortPolar(p []polarWord) []polarWord {
	slices.SortFunc(p, comparePolar)
	if len(p) == 0 {
		return nil
	}
	return slices.Clone(slices.Compact(p))
}

func (h *hasher) add(tok []byte, b brk) {
	capital := b&capitalFlag != 0
	b &^= capitalFlag
	// A capital is a name's only where a sentence or line does not start.
	start := h.start || b != noBreak
	h.start = false
	if b != noBreak {
		h.n = 0
		h.prevCJK = false
		h.phrasal = false
		if b == sentenceBreak {
			h.endSentence()
		}
	}
	t := hashBytes(tok)
	prev := h.prevTok
	h.prevTok = t
	sp, special := specials().get(t)
	if special {
		h.f.platforms |= sp.platform
		// on/off, in/out, up/down are opposites after a verb that takes them
		// ("turn autolock off", "log in"), not as prepositions ("on Linux").
		if sp.isPolar && h.phrasal {
			h.f.polar = append(h.f.polar, sp.polar)
		}
	}
	negation := special && sp.negation || t == hashT && prev == hashCan || t == hashOf && prev == hashInstead
	h.negative = h.negative || negation
	if !h.keepStop && (special && sp.stop || isHiragana(tok)) {
		if negation {
			h.negate = negationScope
		}
		return
	}
	st := appendStem(h.word[:0], tok)
	w, _ := wordOfStem(st, tok, t)
	h.f.words = append(h.f.words, w)
	h.sentence = append(h.sentence, w)
	if capital && !start && !h.title {
		h.f.names = append(h.f.names, w)
	}
	if h.title {
		h.f.title = append(h.f.title, w)
	} else if i, ok := slices.BinarySearch(h.f.title, w); ok {
		h.said[i]++
	}
	switch {
	case negation:
		h.negate = negationScope
	case h.negate > 0:
		h.f.negated = append(h.f.negated, w)
		h.negate--
	}
	if info, ok := wordInfos().get(w); ok {
		if info.isPolar {
			h.f.polar = append(h.f.polar, info.polar)
		}
		h.phrasal = h.phrasal || info.phrasal
	} else if p, ok := prefixPolar(st); ok {
		h.f.polar = append(h.f.polar, p)
	}
	// Chinese and Japanese are written without spaces, a word being one to
	// four characters: pairs of characters are words too, or any two texts
	// would share most of their words.
	cjk := len(tok) >= 3 && tok[0] >= 0xE2 && isCJKToken(tok)
	if h.n >= 1 {
		bi := mix(h.prev, t)
		h.f.bigrams = append(h.f.bigrams, bi)
		if cjk && h.prevCJK {
			h.f.words = append(h.f.words, bi)
			h.sentence = append(h.sentence, bi)
		}
	}
	h.prev, h.prevCJK = t, cjk
	h.n = 1
}

// isCJKToken reports whether tok is one Chinese or Japanese character, as
// Tokens makes them.
func isCJKToken(tok []byte) bool {
	r, size := utf8.DecodeRune(tok)
	return size == len(tok) && isCJK(r)
}

// endSentence ends a sentence: a negation reaches no further, and if the
// sentence had one, its words are denied.
func (h *hasher) endSentence() {
	if h.negative {
		h.f.denied = append(h.f.denied, h.sentence...)
	}
	h.sentence = h.sentence[:0]
	h.negative = false
	h.negate = 0
}

// lead reports whether title is the start of the text's first line, as the
// title a memory saved without one is given (cut with "…" when long): then
// it names nothing the text does not say, and is no subject.
func lead(title, rest string) bool {
	title = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(title), "…"))
	rest = strings.TrimLeft(rest, " \t\r\n")
	if i := strings.IndexByte(rest, '\n'); i >= 0 {
		rest = rest[:i]
	}
	return title != "" && strings.Contains(rest, title)
}

// subject picks the words of the first line (the title) that the rest of
// the text says again: what the note is about.
func (h *hasher) subject() []uint64 {
	var out []uint64
	for i, w := range h.f.title {
		if info, _ := wordInfos().get(w); h.said[i] >= subjectRepeats && !info.heading {
			out = append(out, w)
		}
	}
	return out
}

// subjectRepeats is how many times the text must say a title word for it to
// be the subject.
const subjectRepeats = 1

// sortSet is s sorted and free of repeats, in a slice of its size (a pool
// keeps fingerprints for a whole import), nil when empty. s, a buffer kept
// between texts, is sorted in place. scratch is reused between calls.
// Below a few hundred values a comparison sort is as fast as bucketSort and
// needs no scratch memory.
func sortSet(s []uint64, scratch *sortScratch) []uint64 {
	return slices.Clone(sortInPlace(s, scratch))
}

// sortInPlace is s sorted and free of repeats, in s's own memory; nil when
// empty.
func sortInPlace(s []uint64, scratch *sortScratch) []uint64 {
	if len(s) < 128 {
		slices.Sort(s)
	} else {
		bucketSort(s, scratch)
	}
	if len(s) == 0 {
		return nil
	}
	return slices.Compact(s)
}

// sortScratchPool keeps the working memory of bucketSort between the
// fingerprints of an import.
var sortScratchPool = sync.Pool{New: func() any { return new(sortScratch) }}

// sortScratch is the working memory of bucketSort, and the buffers build
// gathers a text's sets in.
type sortScratch struct {
	counts []int32
	out    []uint64
	sets   setBuffers
}

// setBuffers are the buffers a fingerprint's sets are gathered in.
type setBuffers struct {
	words, bigrams, title, negated, denied, names, sentence []uint64
	numbers, codes, codeWords, codeBigrams                  []uint64
	polar                                                   []polarWord
	word, buf                                               []byte
}

// bucketSort sorts s, whose values are hashes and so spread evenly, by
// distributing them into about len(s) buckets by their top bits and sorting
// each bucket, which holds one or two values: linear time, several times
// faster than slices.Sort on the 1,700 values of a 10 KB text, where sorting
// was most of New's time. An uneven input only makes the buckets bigger; each
// is sorted with slices.Sort, so the worst case stays n·log n.
func bucketSort(s []uint64, scratch *sortScratch) {
	width := uint(bits.Len(uint(len(s))))
	shift := 64 - width
	nb := 1 << width
	if cap(scratch.counts) < nb+1 {
		scratch.counts = make([]int32, nb+1)
	}
	counts := scratch.counts[:nb+1]
	clear(counts)
	for _, v := range s {
		counts[v>>shift+1]++
	}
	for i := 1; i <= nb; i++ {
		counts[i] += counts[i-1]
	}
	if cap(scratch.out) < len(s) {
		scratch.out = make([]uint64, len(s))
	}
	out := scratch.out[:len(s)]
	for _, v := range s {
		k := v >> shift
		out[counts[k]] = v
		counts[k]++
	}
	// counts[k] is now the end of bucket k, and the start of bucket k+1.
	start := int32(0)
	for _, end := range counts[:nb] {
		switch b := out[start:end]; {
		case len(b) == 2:
			if b[0] > b[1] {
				b[0], b[1] = b[1], b[0]
			}
		case len(b) > 2:
			slices.Sort(b)
		}
		start = end
	}
	copy(s, out)
}

// hashBytes is 64-bit FNV-1a: deterministic across processes and machines.
func hashBytes(b []byte) uint64 {
	h := uint64(14695981039346656037)
	for _, c := range b {
		h ^= uint64(c)
		h *= 1099511628211
	}
	return h
}

func hashString(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return h
}

// mix combines two hashes in order (mix(a, b) ≠ mix(b, a)), with a splitmix64
// finaliser so that the result is as well spread as its inputs.
func mix(a, b uint64) uint64 {
	x := a*0x9E3779B97F4A7C15 + b
	x ^= x >> 30
	x *= 0xBF58476D1CE4E5B9
	x ^= x >> 27
	x *= 0x94D049BB133111EB
	x ^= x >> 31
	return x
}

// Empty reports whether the text had no token at all; such a text is like
// nothing and nothing is like it.
func (f *Fingerprint) Empty() bool { return f == nil || len(f.words) == 0 }

// Similarity is a score with its parts, for explain output.
type Similarity struct {
	// Words is how much of the new text's words the old one holds
	// (Containment).
	Words float64
	// Conflict is what keeps the texts distinct however much they share ("" when
	// nothing does).
	Conflict Conflict
	// Score is Words, at most 0.5 when there is a conflict.
	Score float64
	// Related is how related the texts are, whichever is new (see Related).
	Related float64
}

// Compare scores the new text against an old one and gives the parts. It is
// not symmetric: it measures how much of what the new text says the old one
// already says.
func Compare(newer, older *Fingerprint) Similarity {
	if newer.Empty() || older.Empty() {
		return Similarity{}
	}
	common := Intersect(newer.words, older.words)
	s := Similarity{
		Words:   float64(common) / float64(len(newer.words)),
		Related: 2 * float64(common) / float64(len(newer.words)+len(older.words)),
	}
	s.Score = s.Words
	if s.Conflict = conflict(newer, older); s.Conflict != "" {
		s.Score = min(s.Score, conflictCap)
	}
	return s
}

// Score is how much of what the newer text says the older one already says,
// in [0,1]; 0 when either text is empty. The order matters: a short summary
// scores high against the long section it summarises (all it says is known),
// the long section low against the summary.
//
// It is the share of the new text's words that the old one has, at most 0.5
// when the texts conflict: a number, identifier or code token of the new text the
// old one lacks, opposite words, a negation, other platforms, other subjects
// (see Conflict). Word order does not count: a paraphrase reorders and
// rewords, and what tells two near-identical texts apart is a key word, not a
// bigram.
func Score(newer, older *Fingerprint) float64 { return Compare(newer, older).Score }

// Related is how related two texts are, the same whichever is new: the
// share of their words they have in common, counted on both (2|a∩b| /
// (|a|+|b|)). It ranks the memories a new one links to: Score would rank
// first a long note that holds many of a short one's common words, wherever
// they are; Related asks that the words be a part of both. Conflicts do not
// count: "enable X" and "disable X" are as related as notes get.
func Related(a, b *Fingerprint) float64 {
	if a.Empty() || b.Empty() {
		return 0
	}
	return 2 * float64(Intersect(a.words, b.words)) / float64(len(a.words)+len(b.words))
}

// Containment is |a∩b| / |a|: how much of a is in b; 0 when either is empty.
// a and b must be sorted and free of repeats, as a Fingerprint's sets are.
func Containment(a, b []uint64) float64 {
	if len(a) == 0 || len(b) == 0 {
		return 0
	}
	return float64(Intersect(a, b)) / float64(len(a))
}

// Intersect is |a∩b| of two sorted word sets (Fingerprint.Words).
func Intersect(a, b []uint64) int {
	common := 0
	for i, j := 0, 0; i < len(a) && j < len(b); {
		switch {
		case a[i] < b[j]:
			i++
		case a[i] > b[j]:
			j++
		default:
			common++
			i++
			j++
		}
	}
	return common
}

// Words is the fingerprint's word set, sorted and free of repeats: all that
// Related, and Compare's Words, read of a text. The slice must not be
// modified.
func (f *Fingerprint) Words() []uint64 {
	if f == nil {
		return nil
	}
	return f.words
}

// Overlap is what Compare gives as Words and Related for newer against an
// older text known only by its word set (Words of its fingerprint), to the
// bit: a comparison with many texts can keep their word sets alone, and
// build the whole fingerprint only of those whose Words reaches a threshold
// (Score is at most Words).
func Overlap(newer *Fingerprint, older []uint64) (words, related float64) {
	if newer.Empty() || len(older) == 0 {
		return 0, 0
	}
	return OverlapCount(newer, Intersect(newer.words, older), len(older))
}

// OverlapCount is Overlap for an older text of olderLen words that has
// common of newer's words, counted otherwise (an inverted list of the
// words of many texts counts them without merging each set), to the bit.
func OverlapCount(newer *Fingerprint, common, olderLen int) (words, related float64) {
	if newer.Empty() {
		return 0, 0
	}
	return OverlapOf(len(newer.words), common, olderLen)
}

// OverlapOf is OverlapCount for a newer text of newerLen words (not 0), to
// the bit: a caller that knows only the sizes (a word index bounding what a
// memory can still score) computes what OverlapCount would.
func OverlapOf(newerLen, common, olderLen int) (words, related float64) {
	if olderLen == 0 {
		return 0, 0
	}
	return float64(common) / float64(newerLen), 2 * float64(common) / float64(newerLen+olderLen)
}
