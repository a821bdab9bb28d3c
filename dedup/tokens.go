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
	scan(text, make([]byte, 0, 64), func(tok []byte, _ bool) {
		toks = append(toks, string(tok))
	})
	return toks
}

// scan calls emit for each token of text, in order, lower-cased, in a buffer
// that is reused for the next token. stop reports that a sentence or line ended
// between the previous token and this one, so that n-grams do not span it.
func scan(text string, buf []byte, emit func(tok []byte, stop bool)) {
	tok := buf[:0]
	stop := false    // a sentence ended since the last token
	sawStop := false // the separators since the last token hold a full stop
	flush := func() {
		if len(tok) > 0 {
			emit(tok, stop)
			tok = tok[:0]
			stop = false
		}
		sawStop = false
	}
	// sep notes a separator: a full stop followed by white space ("end. Next",
	// not "pkg.Func", "3.14" or "commit .env") or a new line ends a sentence.
	sep := func(r rune) {
		if len(tok) > 0 {
			emit(tok, stop)
			tok = tok[:0]
			stop = false
		}
		switch r {
		case '\n', '\r', '\u2028', '\u2029', '。', '！', '？', '；', '：', '｡':
			stop = true
		case '.', '!', '?', ';', ':':
			sawStop = true
		default:
			if sawStop && unicode.IsSpace(r) {
				stop = true
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
			flush()
			tok = utf8.AppendRune(tok, r)
			flush()
			continue
		case unicode.IsLetter(r) || unicode.IsDigit(r):
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
	flush()
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
