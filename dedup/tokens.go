package dedup

import (
	"unicode"
	"unicode/utf8"
)

// Tokens splits text into lower-cased word tokens: runs of Unicode letters and
// digits, so "pkg.Func" gives "pkg", "func" and "snake_case" gives "snake",
// "case"; camelCase is not split ("getUserName" is one token, as it is one
// word to whoever searches for it). A combining mark continues the token it follows (Devanagari and Thai
// words keep their vowel signs); a mark with no token before it is dropped.
//
// Chinese and Japanese are written without spaces, so a run of Han, Hiragana or
// Katakana would make a whole sentence one token and no two sentences would
// share a word. Each such character is a token of its own instead; the bigrams
// and trigrams of those tokens are then the character n-grams that CJK search
// engines use. Hangul is spaced like English and stays in runs.
//
// Final sigma is folded into sigma, as upper case has only one. Everything
// else (punctuation, symbols, emoji, invalid UTF-8) separates tokens.
// Text is not Unicode-normalised: "é" as one code point and as "e" plus a
// combining accent give different tokens.
func Tokens(text string) []string {
	var toks []string
	scan(text, make([]byte, 0, 64), func(tok []byte, _ brk) {
		toks = append(toks, string(tok))
	})
	return toks
}

// A break is what separates a token from the one before: nothing, a line
// break, or the end of a sentence (a full stop, a blank line). N-grams stop at
// both; a negation reaches across a line break, as prose wraps. capitalFlag is
// added when the token was written with a capital first letter.
type brk uint8

const (
	noBreak brk = iota
	lineBreak
	sentenceBreak

	capitalFlag brk = 1 << 7
)

// scan calls emit for each token of text, in order, lower-cased, in a buffer
// that is reused for the next token, with the break between the previous
// token and this one (and capitalFlag).
func scan(text string, buf []byte, emit func(tok []byte, b brk)) {
	tok := buf[:0]
	stop := noBreak  // the break since the last token
	newlines := 0    // line feeds since the last token
	sawStop := false // the separators since the last token hold a full stop
	capital := false // the token so far starts with a capital letter
	out := func() {
		b := stop
		if capital {
			b |= capitalFlag
		}
		emit(tok, b)
		tok = tok[:0]
		stop, newlines, capital = noBreak, 0, false
	}
	// sep notes a separator: a full stop followed by white space ("end. Next",
	// not "pkg.Func", "3.14" or "commit .env") or a blank line ends a
	// sentence, a new line a line.
	sep := func(r rune) {
		if len(tok) > 0 {
			out()
		}
		switch r {
		case '\n':
			if newlines++; newlines >= 2 || sawStop {
				stop = sentenceBreak
			}
			stop = max(stop, lineBreak)
		case '\r', '\u2028', '|': // a table's cells are lines
			if sawStop {
				stop = sentenceBreak
			}
			stop = max(stop, lineBreak)
		case '\u2029', '。', '！', '？', '；', '：', '｡':
			stop = sentenceBreak
		case '.', '!', '?', ';', ':':
			sawStop = true
		default:
			if sawStop && unicode.IsSpace(r) {
				stop = sentenceBreak
			}
		}
	}
	for i := 0; i < len(text); {
		c := text[i]
		if c < utf8.RuneSelf {
			i++
			switch {
			case 'a' <= c && c <= 'z' || '0' <= c && c <= '9':
				tok = append(tok, c)
			case 'A' <= c && c <= 'Z':
				capital = capital || len(tok) == 0
				tok = append(tok, c+'a'-'A')
			default:
				sep(rune(c))
				continue
			}
			sawStop = false
			continue
		}
		r, size := utf8.DecodeRuneInString(text[i:])
		i += size
		switch {
		case r == utf8.RuneError:
			sep(r)
			continue
		case isCJK(r):
			if len(tok) > 0 {
				out()
			}
			tok = utf8.AppendRune(tok, r)
			out()
			sawStop = false
			continue
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			capital = capital || len(tok) == 0 && unicode.IsUpper(r)
			if r = unicode.ToLower(r); r == 'ς' {
				r = 'σ' // Greek final sigma is the same letter
			}
			tok = utf8.AppendRune(tok, r)
		case unicode.Is(unicode.M, r):
			if len(tok) == 0 {
				continue // a mark with nothing to attach to; neither a token nor a separator
			}
			tok = utf8.AppendRune(tok, r)
		default:
			sep(r)
			continue
		}
		sawStop = false
	}
	if len(tok) > 0 {
		out()
	}
}

// isCJK reports whether r is a Han, Hiragana or Katakana letter (the Katakana
// prolonged sound mark included), which Chinese and Japanese write unspaced.
// The symbols of those scripts (circled and squared Katakana) are not letters.
func isCJK(r rune) bool {
	if r < 0x2E80 {
		return false
	}
	if r == 'ー' || r == 'ｰ' {
		return true
	}
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana) && unicode.IsLetter(r)
}
