package dedup

import (
	"cmp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// QueryTerms picks up to n distinctive words of a memory for the index query
// that finds the candidates to score, so that a 10,000-character memory does not
// become a 1,500-term query. Title words come first, then the text's. Within
// each, longer words, words mixing letters and digits (rs256, k8s, s3) and
// words said more than once come first, and earlier words break ties. Stop
// words, one-character tokens (but for CJK characters) and tokens over 64
// bytes (hashes, base64) are left out; forms of one word ("cache", "caching") count once, in the spelling first
// seen. A word with an entry in the synonym table brings its other spelling
// ("db" brings "database", "database" brings "db"), so the index, which knows
// nothing of abbreviations, finds a memory that spells it the other way; a
// word written only inside a path or URL brings none (see Synonyms).
//
// Terms are lower-cased tokens as Tokens gives them, not stems: the index
// analyses its query itself. The order is deterministic.
func QueryTerms(title, text string, n int) []string {
	if n <= 0 {
		return nil
	}
	type cand struct {
		tok     string
		tier    int // 0 title, 1 text
		pos     int
		count   int
		weight  int
		synonym *synonym
		isCanon bool
		// free: the word is written somewhere outside a path or URL.
		free bool
	}
	var cands []*cand
	byWord := map[uint64]*cand{}
	pos := 0
	scratch := make([]byte, 0, 64)
	add := func(tier int) func([]byte, brk) {
		return func(tok []byte, _ brk) {
			pos++
			h := hashBytes(tok)
			if len(tok) > 64 || isStop(tok, h) {
				return
			}
			r, size := utf8.DecodeRune(tok)
			if size == len(tok) && !isCJK(r) {
				return // a single letter or digit
			}
			w, syn := word(tok, h, scratch)
			if c, ok := byWord[w]; ok {
				c.count++
				return
			}
			c := &cand{tok: string(tok), tier: tier, pos: pos, count: 1, synonym: syn}
			if syn != nil {
				// The canonical spelling (or a form of it) brings the
				// abbreviation; any other brings the canonical word.
				c.isCanon = hashString(stem(c.tok)) == syn.stem && c.tok != syn.short
			}
			byWord[w] = c
			cands = append(cands, c)
		}
	}
	scan(title, nil, add(0))
	scan(text, nil, add(1))
	// A word inside a path or URL is a name ("/var/lib/" is no library): it
	// brings no other spelling unless it is also written as a word.
	if strings.ContainsAny(title, "/\\") || strings.ContainsAny(text, "/\\") {
		free := func(tok []byte, _ brk) {
			if w, _ := word(tok, hashBytes(tok), scratch); byWord[w] != nil {
				byWord[w].free = true
			}
		}
		scan(blankPaths(title), nil, free)
		scan(blankPaths(text), nil, free)
	} else {
		for _, c := range cands {
			c.free = true
		}
	}
	for _, c := range cands {
		c.weight = min(utf8.RuneCountInString(c.tok), 12) + 2*min(c.count-1, 3)
		if hasLetterAndDigit(c.tok) {
			c.weight += 4
		}
	}
	slices.SortFunc(cands, func(a, b *cand) int {
		return cmp.Or(cmp.Compare(a.tier, b.tier), cmp.Compare(b.weight, a.weight), cmp.Compare(a.pos, b.pos))
	})
	terms := make([]string, 0, min(n, 2*len(cands)))
	seen := map[string]bool{}
	push := func(t string) {
		if len(terms) < n && !seen[t] {
			seen[t] = true
			terms = append(terms, t)
		}
	}
	for _, c := range cands {
		push(c.tok)
		if s := c.synonym; s != nil && c.free {
			if c.isCanon {
				push(s.short)
			} else {
				push(s.word)
			}
		}
		if len(terms) == n {
			break
		}
	}
	return terms
}

func hasLetterAndDigit(s string) bool {
	var letter, digit bool
	for _, r := range s {
		letter = letter || unicode.IsLetter(r)
		digit = digit || unicode.IsDigit(r)
	}
	return letter && digit
}
