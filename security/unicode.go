package security

import (
	"slices"
	"unicode"
	"unicode/utf8"
)

// unicodeRules find characters that render as nothing, or that reorder what is
// displayed, so that a person reviewing a memory reads something other than what
// a model is given.
//
// Several of these characters are also letters' glue that whole languages
// need: Persian writes "می‌خواهم" with a zero-width non-joiner, Sinhala
// "ශ්‍රී" with a zero-width joiner, Khmer and Thai mark word breaks with a
// zero-width space, Hebrew and Arabic text places its directional marks, an
// emoji ZWJ sequence joins pictographs. So a character is refused where it
// hides text — inside a Latin word or an identifier, in a run of invisible
// characters, next to letters of a script that has no use for it — and let
// through where the script around it needs it.
func unicodeRules() []*rule {
	return []*rule{
		{
			id:       "unicode.zero_width",
			category: CategoryUnicode,
			desc: "zero-width and other invisible characters (U+200B–U+200D, U+2060–U+2064, U+206A–U+206F, U+FEFF, U+180E, Hangul fillers) where they hide or split text: " +
				"inside or next to Latin words and identifiers, in runs, next to letters of scripts that do not use them; " +
				"a joiner or non-joiner between letters of a script that uses it (Arabic, Persian, Indic, Sinhala, Khmer…), a zero-width space between words of a script written without spaces (Thai, Lao, Khmer, Burmese, Tibetan…), " +
				"a joiner inside an emoji sequence and a byte order mark at the very start are allowed",
			triggers: utf8Strings(0x200b, 0x200c, 0x200d, 0x2060, 0x2061, 0x2062, 0x2063, 0x2064,
				0x206a, 0x206b, 0x206c, 0x206d, 0x206e, 0x206f, 0xfeff, 0x180e, 0x3164, 0xffa0),
			pattern: `[\x{200B}-\x{200D}\x{2060}-\x{2064}\x{206A}-\x{206F}\x{FEFF}\x{180E}\x{3164}\x{FFA0}]+`,
			run:     true,
			check:   checkZeroWidth,
		},
		{
			id:       "unicode.bidi",
			category: CategoryUnicode,
			desc: "bidirectional embeddings, overrides and isolates (U+202A–U+202E, U+2066–U+2069) that make text display in another order than it is read; " +
				"the directional marks (U+200E, U+200F, U+061C) only inside or between Latin words and identifiers, in runs, or on a line without right-to-left letters",
			triggers: utf8Strings(0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069, 0x200e, 0x200f, 0x061c),
			pattern:  `[\x{202A}-\x{202E}\x{2066}-\x{2069}\x{200E}\x{200F}\x{061C}]+`,
			run:      true,
			check:    checkBidi,
		},
		{
			id:       "unicode.tag",
			category: CategoryUnicode,
			desc:     "Unicode tag characters (U+E0000–U+E007F), invisible copies of ASCII used to smuggle instructions; the tag sequence of a subdivision flag emoji (🏴 + 4–6 tags + cancel tag) is allowed",
			triggers: []string{"\U000e0000"[:3], "\U000e0040"[:3]}, // F3 A0 80, F3 A0 81
			pattern:  `[\x{E0000}-\x{E007F}]+`,
			maxLen:   4096,
			run:      true,
			check:    checkTags,
		},
		{
			id:       "unicode.variation_selector",
			category: CategoryUnicode,
			desc: "variation selectors (U+FE00–U+FE0F, U+E0100–U+E01EF) that select no glyph and can carry a byte each: two or more in a row, or one after a letter or a space; " +
				"an emoji or text presentation selector after an emoji, digit or symbol (❤️, 1️⃣), and a selector after a CJK ideograph or a Myanmar letter, are allowed",
			// FE00–FE3F and E0100–E01FF: the selectors and their neighbours,
			// which the expression then leaves out.
			triggers: []string{"\ufe00"[:2], "\U000e0100"[:3], "\U000e0140"[:3], "\U000e0180"[:3], "\U000e01c0"[:3]},
			pattern:  `[\x{FE00}-\x{FE0F}\x{E0100}-\x{E01EF}]+`,
			run:      true,
			check:    checkVariationSelectors,
		},
	}
}

// utf8Strings returns the UTF-8 encodings of rs, the triggers of a rule
// about single characters.
func utf8Strings(rs ...rune) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = string(r)
	}
	return out
}

// isInvisible reports the characters the unicode rules are about, and the tag
// characters: a neighbour that is one of them makes a run, whichever rule it
// belongs to.
func isInvisible(r rune) bool {
	switch {
	case r >= 0x200b && r <= 0x200f, r >= 0x202a && r <= 0x202e, r >= 0x2060 && r <= 0x206f:
		return true
	case r == 0xfeff, r == 0x180e, r == 0x061c, r == 0x3164, r == 0xffa0:
		return true
	case r >= 0xe0000 && r <= 0xe007f:
		return true
	}
	return isVariationSelector(r)
}

func isVariationSelector(r rune) bool {
	return r >= 0xfe00 && r <= 0xfe0f || r >= 0xe0100 && r <= 0xe01ef
}

// checkZeroWidth judges a run of zero-width characters by the characters
// either side of it. A run of two or more hides text whatever is around it
// (binary messages are spelled in runs of them), as do the word joiner, the
// invisible operators, the deprecated format characters and the Hangul fillers
// (the "invisible identifier" of backdoored JavaScript) anywhere. A byte order
// mark is allowed at offset 0, where editors write it.
func checkZeroWidth(text string, start, end int) (int, int, bool) {
	from := start
	if start == 0 && text[:min(end, 3)] == "\ufeff" {
		if from = 3; from == end {
			return 0, 0, false
		}
	}
	c, size := utf8.DecodeRuneInString(text[from:])
	if from+size != end {
		return start, end, true // a run
	}
	prev, _ := utf8.DecodeLastRuneInString(text[:from])
	next, _ := utf8.DecodeRuneInString(text[end:])
	if start == 0 {
		prev = -1 // the start, or a byte order mark
	}
	if end == len(text) {
		next = -1
	}
	if c == 0x200d && isEmojiPart(prev) && isEmoji(next) {
		return 0, 0, false // 👩‍💻 is woman, ZWJ, laptop
	}
	var uses func(*scriptInfo) bool
	switch c {
	case 0x200b:
		uses = func(s *scriptInfo) bool { return s.noSpaces }
	case 0x200c, 0x200d:
		uses = func(s *scriptInfo) bool { return s.joins }
	case 0x180e:
		uses = func(s *scriptInfo) bool { return s.name == "Mongolian" }
	default:
		return start, end, true
	}
	before := prev
	if before >= 0 {
		before = baseBefore(text, from)
	}
	if scriptNeeds(uses, classify(before), classify(next)) {
		return 0, 0, false
	}
	return start, end, true
}

// scriptNeeds reports whether a zero-width character between a and b serves
// the script on one side: between two letters (or marks, digits, signs) of
// one script that uses it, or between such a letter and a neutral character
// (a space, punctuation, the end: Malayalam's old chillu letters end a word
// with virama + ZWJ), or at the border between such a script and a Latin word
// (Persian writes the plural suffix of "API" as "API‌ها"). A character next to
// a Latin letter on both sides, or next to a Latin letter and a space, is inside
// or at the edge of a Latin word; next to a letter of a script that does not
// use it (Cyrillic, Greek, Han…) it hides text there.
func scriptNeeds(uses func(*scriptInfo) bool, a, b charClass) bool {
	aNeeds := a.script != nil && uses(a.script)
	bNeeds := b.script != nil && uses(b.script)
	switch {
	case aNeeds && bNeeds:
		return a.script == b.script
	case aNeeds:
		return b.kind == neutralChar || b.kind == latinChar
	case bNeeds:
		return a.kind == neutralChar || a.kind == latinChar
	}
	return false
}

// checkBidi refuses every embedding, override and isolate: they reorder what
// is displayed (the Trojan Source attacks), and even balanced isolates can swap
// two runs of text. The directional marks (LRM, RLM, ALM) only resolve the
// direction of neutral characters next to right-to-left text, which is what
// Hebrew, Arabic and Persian writers use them for; they are refused where they
// can have no such use and only split text: in a run of three or more, on a
// line without a right-to-left letter, or where they split a Latin word, an
// identifier or a Latin phrase ("ig<LRM>nore", ".<LRM>env", "ignore<LRM> previous").
func checkBidi(text string, start, end int) (int, int, bool) {
	n := 0
	for _, r := range text[start:end] {
		if r != 0x200e && r != 0x200f && r != 0x061c {
			return start, end, true
		}
		n++
	}
	if n > 2 || !rtlNearby(text, start, end) || splitsLatin(text, start, end) {
		return start, end, true
	}
	return 0, 0, false
}

// rtlNearby reports whether the line around text[start:end] holds a
// right-to-left letter within lookAround bytes.
func rtlNearby(text string, start, end int) bool {
	for i := start; i > 0 && i > start-lookAround; {
		r, size := utf8.DecodeLastRuneInString(text[:i])
		if r == '\n' {
			break
		}
		if isRTL(r) {
			return true
		}
		i -= size
	}
	for i := end; i < len(text) && i < end+lookAround; {
		r, size := utf8.DecodeRuneInString(text[i:])
		if r == '\n' {
			break
		}
		if isRTL(r) {
			return true
		}
		i += size
	}
	return false
}

// isRTL reports a letter of a right-to-left script (Hebrew, Arabic, Syriac,
// Thaana, N'Ko, Samaritan, Mandaic and their presentation forms).
func isRTL(r rune) bool {
	switch {
	case r >= 0x0590 && r <= 0x08ff:
		return unicode.IsLetter(r)
	case r >= 0xfb1d && r <= 0xfdff, r >= 0xfe70 && r <= 0xfefe:
		return unicode.IsLetter(r)
	case r >= 0x10800 && r <= 0x10fff, r >= 0x1e800 && r <= 0x1efff:
		return unicode.IsLetter(r)
	}
	return false
}

// splitsLatin reports whether text[start:end] lies inside an ASCII word or
// identifier, or at the edge of one where it splits a Latin phrase or a
// command. (The phrase rules also read a mark between words as part of the
// gap; see sep.)
func splitsLatin(text string, start, end int) bool {
	var p, n, nn byte = ' ', ' ', ' '
	if start > 0 {
		p = text[start-1]
	}
	if end < len(text) {
		n = text[end]
	}
	if end+1 < len(text) {
		nn = text[end+1]
	}
	word := func(c byte) bool { return isAlnum(c) || c == '_' }
	joint := func(c byte) bool { return c == '.' || c == '-' || c == '/' || c == ':' || c == '@' || c == '~' }
	switch {
	case word(p) && word(n):
		return true // "ig<LRM>nore"
	case joint(p) && word(n):
		return true // ".<LRM>env", "config.<LRM>yaml"
	case word(p) && joint(n) && word(nn):
		return true // "config<LRM>.yaml"
	}
	// Against an ASCII word or sign on one side, and after blanks an ASCII
	// letter or sign on the other: "ignore<LRM> previous", "curl<LRM> -d". A
	// right-to-left paragraph needs no mark between two left-to-right words;
	// before a number it does ("Go<RLM> 1.23").
	i := start
	for i > 0 && (text[i-1] == ' ' || text[i-1] == '\t') {
		i--
	}
	j := end
	for j < len(text) && (text[j] == ' ' || text[j] == '\t') {
		j++
	}
	ascii := func(c byte) bool { return c > ' ' && c < 0x7f && !('0' <= c && c <= '9') }
	return (i == start) != (j == end) && i > 0 && j < len(text) && ascii(text[i-1]) && ascii(text[j])
}

// checkTags allows the tag sequence of a subdivision flag: 🏴 followed by a
// region and subdivision code spelled in tag letters and digits (gbeng, gbsct,
// usca…) and the cancel tag. Four to six tags cannot carry an instruction.
// Every tag is a trigger, but the rule is a run: its match starts where the
// run does, just after the flag.
func checkTags(text string, start, end int) (int, int, bool) {
	prev, _ := utf8.DecodeLastRuneInString(text[:start])
	if prev != 0x1F3F4 {
		return start, end, true
	}
	n := 0
	for i := start; i < end; {
		r, size := utf8.DecodeRuneInString(text[i:])
		i += size
		if r == 0xE007F {
			if i == end && n >= 4 && n <= 6 {
				return 0, 0, false
			}
			return start, end, true
		}
		if !(r >= 0xE0030 && r <= 0xE0039 || r >= 0xE0061 && r <= 0xE007A) {
			return start, end, true
		}
		n++
	}
	return start, end, true
}

// checkVariationSelectors allows a variation selector where it selects a
// glyph of the character before it: a character takes one, so a second in a
// row selects nothing and can only carry data (a message of any length can
// hide after one emoji, a byte per selector). A doubled emoji presentation
// selector (❤️️), which some keyboards write, carries none and is allowed.
// One selector is allowed after an emoji, a digit, # or * (the keycaps 1️⃣,
// #️⃣) or another symbol (the standardized variants of math symbols), and
// after a CJK ideograph (ideographic variation sequences, 葛󠄀) or a Myanmar
// letter; after a Latin or other letter, a space or nothing it hides a byte.
func checkVariationSelectors(text string, start, end int) (int, int, bool) {
	v, size := utf8.DecodeRuneInString(text[start:])
	if start+size != end {
		if text[start:end] != "\ufe0f\ufe0f" {
			return start, end, true
		}
	}
	prev, _ := utf8.DecodeLastRuneInString(text[:start])
	if start == 0 || isInvisible(prev) {
		return start, end, true
	}
	symbol := isEmoji(prev) || !unicode.IsLetter(prev) && !unicode.IsSpace(prev) && unicode.IsGraphic(prev) && !unicode.IsMark(prev)
	switch {
	case v >= 0xe0100:
		return start, end, !unicode.Is(unicode.Han, prev)
	case v == 0xfe0e || v == 0xfe0f:
		return start, end, !symbol
	}
	return start, end, !symbol && !unicode.Is(unicode.Han, prev) && !unicode.Is(unicode.Myanmar, prev)
}

// isEmoji approximates the Extended_Pictographic property, which the unicode
// package does not carry: the emoji planes and the older symbol blocks that
// emoji sequences use (♀, ♂, ⚕, ❤, ✈ …).
func isEmoji(r rune) bool {
	switch {
	case r >= 0x1F000 && r <= 0x1FAFF:
		return true
	case r >= 0x2600 && r <= 0x27BF, r >= 0x2B00 && r <= 0x2BFF, r >= 0x2190 && r <= 0x21FF:
		return true
	case r == 0x00A9 || r == 0x00AE || r == 0x203C || r == 0x2049 || r == 0x2122 || r == 0x2139:
		return true
	case r >= 0x2300 && r <= 0x23FF:
		return true
	}
	return false
}

// isEmojiPart also accepts what may end an emoji before a joiner: a variation
// selector (❤️) or a skin-tone modifier.
func isEmojiPart(r rune) bool {
	return isEmoji(r) || r == 0xFE0F || r >= 0x1F3FB && r <= 0x1F3FF
}

// charKind is what a character next to an invisible one is, for the rules.
type charKind uint8

const (
	neutralChar   charKind = iota // space, punctuation, symbol, emoji, the start or end of the text
	latinChar                     // an ASCII letter, digit or _, or a Latin letter
	scriptChar                    // a letter, mark or sign of one of the scripts in scriptTable
	otherChar                     // a letter or mark of another script (Cyrillic, Greek, Han…)
	invisibleChar                 // another invisible character
)

type charClass struct {
	kind   charKind
	script *scriptInfo // for latinChar (non-ASCII) and scriptChar
}

// scriptInfo says what a script uses the zero-width characters for.
type scriptInfo struct {
	name     string
	joins    bool // ZWNJ and ZWJ shape its letters (Arabic, Indic, Sinhala, Khmer…)
	noSpaces bool // it is written without spaces between words; ZWSP marks the breaks
}

// The scripts whose letters the zero-width characters shape or separate. Only
// these are allowed them: attacks are written in the others (an injection in
// Chinese or Russian split by a zero-width space reads the same to a person).
var (
	joiningScripts = []string{
		"Arabic", "Syriac", "Thaana", "Nko", "Mongolian", "Hanifi_Rohingya", "Adlam", "Mandaic",
		"Devanagari", "Bengali", "Gurmukhi", "Gujarati", "Oriya", "Tamil", "Telugu", "Kannada", "Malayalam", "Sinhala",
		"Tibetan", "Myanmar", "Khmer", "Tai_Tham", "Javanese", "Balinese", "Sundanese", "Batak", "Buginese",
		"Lepcha", "Limbu", "Chakma", "Meetei_Mayek", "Syloti_Nagri", "Newa", "Grantha", "Sharada", "Takri",
		"Tirhuta", "Kaithi", "Brahmi", "Modi", "Siddham", "Dogra", "Saurashtra", "Kharoshthi", "Rejang", "Cham", "Tai_Viet",
	}
	unspacedScripts = []string{
		"Thai", "Lao", "Khmer", "Myanmar", "Tibetan", "Tai_Tham", "Tai_Le", "New_Tai_Lue", "Tai_Viet",
		"Javanese", "Balinese", "Buginese", "Cham",
	}
)

// scriptRange maps a range of code points to its script.
type scriptRange struct {
	lo, hi rune
	script *scriptInfo
}

// scriptTable is the sorted ranges of the scripts above and of Latin, built on
// first use from the unicode package's tables.
func scriptTable() []scriptRange { return theScripts.get() }

var theScripts = &lazy[[]scriptRange]{build: func() []scriptRange {
	infos := map[string]*scriptInfo{"Latin": {name: "Latin"}}
	for _, n := range joiningScripts {
		infos[n] = &scriptInfo{name: n, joins: true}
	}
	for _, n := range unspacedScripts {
		if infos[n] == nil {
			infos[n] = &scriptInfo{name: n}
		}
		infos[n].noSpaces = true
	}
	var out []scriptRange
	for name, info := range infos {
		t, ok := unicode.Scripts[name]
		if !ok {
			panic("security: no script " + name)
		}
		for _, r := range t.R16 {
			out = appendRange(out, rune(r.Lo), rune(r.Hi), rune(r.Stride), info)
		}
		for _, r := range t.R32 {
			out = appendRange(out, rune(r.Lo), rune(r.Hi), rune(r.Stride), info)
		}
	}
	slices.SortFunc(out, func(a, b scriptRange) int { return int(a.lo - b.lo) })
	return out
}}

func appendRange(out []scriptRange, lo, hi, stride rune, info *scriptInfo) []scriptRange {
	if stride == 1 {
		return append(out, scriptRange{lo, hi, info})
	}
	for r := lo; r <= hi; r += stride {
		out = append(out, scriptRange{r, r, info})
	}
	return out
}

// classify says what r is; -1 stands for the start or end of the text.
func classify(r rune) charClass {
	switch {
	case r < 0:
		return charClass{kind: neutralChar}
	case r < utf8.RuneSelf:
		if isAlnum(byte(r)) || r == '_' {
			return charClass{kind: latinChar}
		}
		return charClass{kind: neutralChar}
	case isInvisible(r):
		return charClass{kind: invisibleChar}
	}
	t := scriptTable()
	i, found := slices.BinarySearchFunc(t, r, func(s scriptRange, r rune) int {
		switch {
		case s.hi < r:
			return -1
		case s.lo > r:
			return 1
		}
		return 0
	})
	if found {
		if t[i].script.name == "Latin" {
			return charClass{kind: latinChar, script: t[i].script}
		}
		return charClass{kind: scriptChar, script: t[i].script}
	}
	if (unicode.IsLetter(r) || unicode.IsMark(r)) && !unicode.Is(unicode.Common, r) && !unicode.Is(unicode.Inherited, r) {
		return charClass{kind: otherChar}
	}
	return charClass{kind: neutralChar}
}

// baseBefore returns the character before offset i, passing over the
// combining marks that belong to no script (the Arabic vowel signs, accents),
// which take the script of the letter they sit on; -1 at the start.
func baseBefore(text string, i int) rune {
	for k := 0; k < 8 && i > 0; k++ {
		r, size := utf8.DecodeLastRuneInString(text[:i])
		if !unicode.Is(unicode.Mn, r) || isVariationSelector(r) || !unicode.Is(unicode.Inherited, r) {
			return r
		}
		i -= size
	}
	if i == 0 {
		return -1
	}
	r, _ := utf8.DecodeLastRuneInString(text[:i])
	return r
}
