package dedup

import (
	"bytes"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// The word set: tokens less stop words, stemmed, abbreviations expanded.

// stem strips a few English suffixes from a lower-case word so that the forms
// of a word meet: plurals (-s, -es, -ies), -ed and -ing, -tion/-sion, -ment, and
// a final e ("cache", "caches", "cached", "caching" all give "cach"). It is a
// light, predictable cut, not a dictionary: the result need not be a word, and
// unrelated words may meet ("note" and "not"). Words of fewer than four
// letters and words with anything other than a–z (digits, accents, other
// scripts) are left alone, and no stem is shorter than three letters.
func stem(w string) string { return string(appendStem(nil, []byte(w))) }

// appendStem appends the stem of w to dst.
func appendStem(dst, w []byte) []byte {
	start := len(dst)
	dst = append(dst, w...)
	if len(w) < 4 {
		return dst
	}
	for _, c := range w {
		if c < 'a' || c > 'z' {
			return dst
		}
	}
	b := dst[start:]
	// Plurals: classes → class, queries → query, tests → test; not "status",
	// "analysis" or "class".
	switch n := len(b); {
	case hasSuffix(b, "sses"):
		b = b[:n-2]
	case n >= 5 && hasSuffix(b, "ies"):
		b = append(b[:n-3], 'y')
	case b[n-1] == 's' && b[n-2] != 's' && b[n-2] != 'u' && b[n-2] != 'i':
		b = b[:n-1]
	}
	// Past and progressive: copied → copy, stopped → stop, running → run,
	// used → use; not "need", "string" or "thing" (no vowel before -ing).
	switch n := len(b); {
	case n >= 5 && hasSuffix(b, "ied"):
		b = append(b[:n-3], 'y')
	case hasSuffix(b, "ed") && !hasSuffix(b, "eed") && hasVowel(b[:n-2]):
		b = tidy(b[:n-2])
	case hasSuffix(b, "ing") && hasVowel(b[:n-3]):
		b = tidy(b[:n-3])
	}
	// Nouns of action: migration → migrat (as migrate → migrat), connection →
	// connect, deployment → deploy.
	switch n := len(b); {
	case n >= 7 && (hasSuffix(b, "tion") || hasSuffix(b, "sion")):
		b = b[:n-3]
	case n >= 8 && hasSuffix(b, "ment"):
		b = b[:n-4]
	}
	// A final e: cache → cach, to meet caching → cach; not "free".
	if n := len(b); n >= 4 && b[n-1] == 'e' && b[n-2] != 'e' {
		b = b[:n-1]
	}
	return dst[:start+len(b)]
}

// tidy finishes a word cut before -ed or -ing: a doubled final consonant is
// undoubled (stopp → stop, but "call", "pass" and "add" stay), and a cut that
// left fewer than three letters gets its e back (us → use).
func tidy(b []byte) []byte {
	n := len(b)
	if n < 3 {
		return append(b, 'e')
	}
	if c := b[n-1]; n > 3 && c == b[n-2] && c != 'l' && c != 's' && c != 'z' && !isVowel(c) {
		return b[:n-1]
	}
	return b
}

func hasSuffix(b []byte, s string) bool {
	return len(b) >= len(s) && string(b[len(b)-len(s):]) == s
}

func isVowel(c byte) bool { return c == 'a' || c == 'e' || c == 'i' || c == 'o' || c == 'u' }

// hasVowel reports whether b has a vowel, counting a y after the first letter.
func hasVowel(b []byte) bool {
	for i, c := range b {
		if isVowel(c) || c == 'y' && i > 0 {
			return true
		}
	}
	return false
}

// stopWords are English function words, dropped from the word set and from
// the n-grams because they say nothing about the topic and would make any two
// English notes look alike: NLTK's English list (the common reference), less
// the words that turn a rule around (no, nor, not, only), plus a few more that
// notes are full of (also, every, per, via, etc, e.g.) and the fragments of
// contractions ("it's" gives "it", "s"). A few equally common Chinese
// characters are in it too; Hiragana, which carries Japanese grammar rather
// than topic, is treated the same way (see isStop). Other languages have no
// stop words here.
var stopWords = sync.OnceValue(func() map[string]struct{} {
	return setOf(
		// NLTK's list without no, nor, not, only.
		"i", "me", "my", "myself", "we", "our", "ours", "ourselves", "you", "your",
		"yours", "yourself", "yourselves", "he", "him", "his", "himself", "she",
		"her", "hers", "herself", "it", "its", "itself", "they", "them", "their",
		"theirs", "themselves", "what", "which", "who", "whom", "this", "that",
		"these", "those", "am", "is", "are", "was", "were", "be", "been", "being",
		"have", "has", "had", "having", "do", "does", "did", "doing", "a", "an",
		"the", "and", "but", "if", "or", "because", "as", "until", "while", "of",
		"at", "by", "for", "with", "about", "against", "between", "into", "through",
		"during", "before", "after", "above", "below", "to", "from", "up", "down",
		"in", "out", "on", "off", "over", "under", "again", "further", "then",
		"once", "here", "there", "when", "where", "why", "how", "all", "any",
		"both", "each", "few", "more", "most", "other", "some", "such", "own",
		"same", "so", "than", "too", "very", "can", "will", "just", "should", "now",
		// Contraction fragments, as NLTK has them.
		"s", "t", "d", "ll", "m", "o", "re", "ve", "y", "ain", "aren", "couldn",
		"didn", "doesn", "don", "hadn", "hasn", "haven", "isn", "ma", "mightn",
		"mustn", "needn", "shan", "shouldn", "wasn", "weren", "won", "wouldn",
		// Common in notes.
		"also", "could", "would", "may", "might", "shall", "must", "every", "per",
		"via", "etc", "e", "g", "eg", "ie", "whether", "either", "onto", "upon",
		"within", "whose",
		"的", "了", "是", "在", "和", "也", "就", "都", "而", "与", "或", "及", "这", "那",
	)
})

func setOf(words ...string) map[string]struct{} {
	m := make(map[string]struct{}, len(words))
	for _, w := range words {
		m[w] = struct{}{}
	}
	return m
}

// synonymTable lists, for each canonical word, the abbreviations and variants
// that mean it in developer notes. The word set holds the canonical word's stem
// for all of them, so "db" meets "database" and "configs" meets "configured".
// Keep it small and unambiguous: an entry that is wrong in one project joins
// unrelated notes everywhere.
var synonymTable = [][]string{
	{"authentication", "auth", "authn", "authenticate"},
	{"authorization", "authz", "authorize"},
	{"database", "db"},
	{"configuration", "config", "cfg", "conf", "configure"},
	{"repository", "repo"},
	{"environment", "env"},
	{"kubernetes", "k8s", "kube"},
	{"postgresql", "postgres", "pg"},
	{"javascript", "js"},
	{"typescript", "ts"},
	{"python", "py"},
	{"message", "msg"},
	{"error", "err"},
	{"function", "fn", "func"},
	{"directory", "dir", "folder"},
	{"package", "pkg"},
	{"dependency", "dep", "deps"},
	{"development", "dev"},
	{"production", "prod"},
	{"performance", "perf"},
	{"implementation", "impl"},
	{"application", "app"},
	{"request", "req"},
	{"response", "resp"},
	{"argument", "arg", "args"},
	{"parameter", "param", "params"},
	{"variable", "var", "vars"},
	{"documentation", "doc", "docs"},
	{"credential", "cred", "creds"},
	{"password", "pw", "pwd", "passwd"},
	{"temporary", "tmp", "temp"},
	{"maximum", "max"},
	{"minimum", "min"},
	{"asynchronous", "async"},
	{"information", "info"},
	{"multiple", "several"},
	{"specification", "spec"},
	{"administrator", "admin"},
	{"library", "lib"},
	{"utility", "util"},
	{"certificate", "cert"},
	{"identifier", "id"},
	{"string", "str"},
	{"integer", "int"},
	{"boolean", "bool"},
	{"command", "cmd"},
	{"reference", "ref"},
	{"object", "obj"},
	{"previous", "prev"},
	{"attribute", "attr"},
	{"initialization", "init", "initialize"},
	{"internationalization", "i18n"},
	{"localization", "l10n"},
	{"millisecond", "ms"},
}

// synonym is a canonical word of synonymTable: the word, the hash of its stem
// (what the word set holds for all its spellings), and its first abbreviation,
// which QueryTerms adds so that the index finds either spelling.
type synonym struct {
	word, short string
	stem        uint64
}

// synonyms maps the hashed stem of every word of synonymTable, canonical words
// included, to its canonical word. It is built once and never changed.
var synonyms = sync.OnceValue(func() *table[*synonym] {
	t := newTable[*synonym](4 * len(synonymTable))
	for _, row := range synonymTable {
		s := &synonym{word: row[0], short: row[1], stem: hashString(stem(row[0]))}
		t.put(s.stem, s)
		for _, v := range row[1:] {
			t.put(hashString(stem(v)), s)
		}
	}
	return t
})

// stops is stopWords, hashed.
var stops = sync.OnceValue(func() *table[struct{}] {
	t := newTable[struct{}](len(stopWords()))
	for w := range stopWords() {
		t.put(hashString(w), struct{}{})
	}
	return t
})

// word is a token's form in the word set: its stem, or its canonical word's
// stem, hashed; and the synonym, if any.
func word(tok []byte, h uint64, scratch []byte) (uint64, *synonym) {
	return wordOfStem(appendStem(scratch[:0], tok), tok, h)
}

// wordOfStem is word for a token whose stem is st.
func wordOfStem(st, tok []byte, h uint64) (uint64, *synonym) {
	if len(st) != len(tok) { // stemming only ever shortens
		h = hashBytes(st)
	}
	if s, ok := synonyms().get(h); ok {
		return s.stem, s
	}
	// Plurals of short abbreviations, which stem leaves alone: dbs, ids.
	if len(tok) == 3 && tok[2] == 's' {
		if s, ok := synonyms().get(hashBytes(tok[:2])); ok {
			return s.stem, s
		}
	}
	return h, nil
}

// isStop reports whether the token tok, whose hash is h, is a stop word or a
// Hiragana character.
func isStop(tok []byte, h uint64) bool {
	if isHiragana(tok) {
		return true
	}
	_, ok := stops().get(h)
	return ok
}

// isHiragana reports whether tok is one Hiragana character.
func isHiragana(tok []byte) bool {
	if len(tok) == 3 && tok[0] == 0xE3 { // U+3000–U+3FFF
		r, _ := utf8.DecodeRune(tok)
		return unicode.Is(unicode.Hiragana, r)
	}
	return false
}

// table is a read-only open-addressing hash table keyed by 64-bit hashes: the
// per-token lookups then cost a multiplication and a comparison or two, where a
// map[string] would hash the token again.
type table[V any] struct {
	keys  []uint64 // 0 is an empty slot
	vals  []V
	shift uint
}

// newTable makes a table for up to n keys, at most a quarter full.
func newTable[V any](n int) *table[V] {
	bits := uint(4)
	for 1<<bits < 4*n {
		bits++
	}
	return &table[V]{keys: make([]uint64, 1<<bits), vals: make([]V, 1<<bits), shift: 64 - bits}
}

func (t *table[V]) slot(k uint64) uint64 { return (k * 0x9E3779B97F4A7C15) >> t.shift }

func (t *table[V]) put(k uint64, v V) {
	k = max(k, 1)
	mask := uint64(len(t.keys) - 1)
	for i := t.slot(k); ; i = (i + 1) & mask {
		if t.keys[i] == 0 || t.keys[i] == k {
			t.keys[i], t.vals[i] = k, v
			return
		}
	}
}

func (t *table[V]) get(k uint64) (V, bool) {
	k = max(k, 1)
	mask := uint64(len(t.keys) - 1)
	for i := t.slot(k); t.keys[i] != 0; i = (i + 1) & mask {
		if t.keys[i] == k {
			return t.vals[i], true
		}
	}
	var zero V
	return zero, false
}

// rows maps the hashed stem of every spelling of synonymTable to its row.
var rows = sync.OnceValue(func() *table[[]string] {
	t := newTable[[]string](4 * len(synonymTable))
	for _, row := range synonymTable {
		for _, v := range row {
			t.put(hashString(stem(v)), row)
		}
	}
	return t
})

// blankPaths returns text with every path or URL (a run of characters
// without white space that holds a slash or a backslash) replaced by spaces.
func blankPaths(text string) string {
	if !strings.ContainsAny(text, "/\\") {
		return text
	}
	b := []byte(text)
	for i := 0; i < len(b); {
		if isSpaceByte(b[i]) {
			i++
			continue
		}
		j := i
		for j < len(b) && !isSpaceByte(b[j]) {
			j++
		}
		if bytes.ContainsAny(b[i:j], "/\\") {
			for k := i; k < j; k++ {
				b[k] = ' '
			}
		}
		i = j
	}
	return string(b)
}

// OutsidePaths is text with every path or URL (a run of non-space characters
// holding a slash or a backslash) blanked out: the words written as words.
// An index uses it to tell a word from a folder's name, so that a search for
// "library" does not find "/var/lib/" through "lib" (see Synonyms).
func OutsidePaths(text string) string { return blankPaths(text) }

// isSpaceByte reports whether c is ASCII white space.
func isSpaceByte(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}

// Synonyms lists, for each word of text that the synonym table knows
// (lower-cased, as Tokens gives it), the other spellings of its meaning:
// "db" gives database, "k8s" gives kubernetes and kube. A search can then match
// a note that spells the word another way. Words without synonyms are absent.
// Words inside a path or URL ("/var/lib/postgres", "src\\lib\\util") are names,
// not words: they get no synonyms, so that a query naming /var/lib/ does not
// look for "library".
func Synonyms(text string) map[string][]string {
	var out map[string][]string
	scan(blankPaths(text), nil, func(tok []byte, _ brk) {
		st := appendStem(nil, tok)
		row, ok := rows().get(hashBytes(st))
		if !ok && len(tok) == 3 && tok[2] == 's' { // plurals of short abbreviations: dbs, ids
			row, ok = rows().get(hashBytes(tok[:2]))
		}
		if !ok {
			return
		}
		w := string(tok)
		if out == nil {
			out = map[string][]string{}
		}
		if _, done := out[w]; done {
			return
		}
		var alts []string
		for _, v := range row {
			if v != w && stem(v) != string(st) {
				alts = append(alts, v)
			}
		}
		out[w] = alts
	})
	return out
}
