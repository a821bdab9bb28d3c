package security

import (
	"unicode/utf8"
)

// unicodeRules find characters that render as nothing, or that reorder what is
// displayed, so that a person reviewing a memory reads something other than what
// a model is given.
func unicodeRules() []*rule {
	return []*rule{
		{
			id:       "unicode.zero_width",
			category: CategoryUnicode,
			desc:     "zero-width characters (U+200B–U+200D, U+2060, U+FEFF) that hide or split words; a joiner between two emoji and a byte order mark at the very start are allowed",
			triggers: []string{"\u200b", "\u200c", "\u200d", "\u2060", "\ufeff"},
			pattern:  `[\x{200B}-\x{200D}\x{2060}\x{FEFF}]+`,
			run:      true,
			check:    checkZeroWidth,
		},
		{
			id:       "unicode.bidi",
			category: CategoryUnicode,
			desc:     "bidirectional embeddings, overrides and isolates (U+202A–U+202E, U+2066–U+2069) that make text display in another order than it is read",
			triggers: []string{"\u202a", "\u202b", "\u202c", "\u202d", "\u202e", "\u2066", "\u2067", "\u2068", "\u2069"},
			pattern:  `[\x{202A}-\x{202E}\x{2066}-\x{2069}]+`,
			run:      true,
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
	}
}

// checkZeroWidth allows a single zero-width joiner between two emoji (👩‍💻 is
// woman, ZWJ, laptop) and a byte order mark at offset 0, which editors write and
// which hides nothing.
func checkZeroWidth(text string, start, end int) (int, int, bool) {
	if start == 0 && text[start:end] == "\ufeff" {
		return 0, 0, false
	}
	if text[start:end] == "\u200d" {
		prev, _ := utf8.DecodeLastRuneInString(text[:start])
		next, _ := utf8.DecodeRuneInString(text[end:])
		if isEmojiPart(prev) && isEmoji(next) {
			return 0, 0, false
		}
	}
	return start, end, true
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
