package dedup

import "strings"

// Words is New(text).Words(), to the bit, made without the rest of the
// fingerprint: no bigrams, key words, opposites, negations or names. A word
// index holds only the word sets of the notes it lists, and building the
// whole fingerprint of each of a large project's notes to keep its words
// was most of the time a first save after a rebuild spent.
func Words(text string) []uint64 {
	if ws := words(text, false); len(ws) > 0 {
		return ws
	}
	return words(text, true) // only stop words, or nothing at all
}

// words is build's word set, made as build makes it: the first line
// scanned apart from the rest.
func words(text string, keepStop bool) []uint64 {
	h := hasher{keepStop: keepStop, word: make([]byte, 0, 64)}
	h.f.words = make([]uint64, 0, len(text)/6+1)
	var buf [64]byte
	firstLine := text
	if i := strings.IndexByte(text, '\n'); i >= 0 {
		firstLine = text[:i]
	}
	scan(firstLine, buf[:0], h.addWord)
	scan(text[len(firstLine):], buf[:0], h.addWord)
	var scratch sortScratch
	return sortSet(h.f.words, &scratch)
}

// addWord is add for the word set alone: what add puts in it, and the state
// that decides it (the last word, whether it was a Chinese or Japanese
// character, whether the line or sentence broke since).
func (h *hasher) addWord(tok []byte, b brk) {
	if b&^capitalFlag != noBreak {
		h.n = 0
		h.prevCJK = false
	}
	t := hashBytes(tok)
	if !h.keepStop {
		if sp, special := specials().get(t); special && sp.stop || isHiragana(tok) {
			return
		}
	}
	st := appendStem(h.word[:0], tok)
	w, _ := wordOfStem(st, tok, t)
	h.f.words = append(h.f.words, w)
	cjk := len(tok) >= 3 && tok[0] >= 0xE2 && isCJKToken(tok)
	if h.n >= 1 && cjk && h.prevCJK {
		h.f.words = append(h.f.words, mix(h.prev, t))
	}
	h.prev, h.prevCJK = t, cjk
	h.n = 1
}
