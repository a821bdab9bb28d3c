package importer

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/cortexmem/cortex/memories"
)

// Title lengths. A parser's title leaves room under memories.MaxTitleChars
// for the " (2/3)" that numbers the pieces of a long source.
const (
	titleMax     = 100
	textTitleMax = 80 // a text's first line
)

// parseText reads a plain-text file as one memory, titled by its first
// non-empty line, or as several when it is longer than a memory may be.
func parseText(path string, data []byte) ([]Item, []Skip) {
	data = stripBOM(data)
	if !utf8.Valid(data) {
		return nil, []Skip{{Source: path, Reason: invalidUTF8(data)}}
	}
	text := cleanText(string(data))
	if text == "" {
		return nil, []Skip{{Source: path, Reason: "empty"}}
	}
	if n := meaningful(text); n < MinSectionChars {
		return nil, []Skip{{Source: path, Reason: tooShort(n)}}
	}
	title := ""
	for _, l := range strings.Split(text, "\n") {
		if title = titleOf(l, textTitleMax); title != "" {
			break
		}
	}
	return split(Item{Title: title, Source: path, Kind: KindText}, text)
}

// split makes the items of one text with itemsOf and skips the pieces too
// short to be memories: a long text cut at its limit may leave a last piece
// of a few characters.
func split(base Item, content string) ([]Item, []Skip) {
	var skips []Skip
	items := itemsOf(base, content)
	kept := items[:0]
	for _, it := range items {
		if n := meaningful(it.Content); n < MinSectionChars {
			skips = append(skips, Skip{Source: it.Source, Reason: tooShort(n)})
			continue
		}
		kept = append(kept, it)
	}
	if len(kept) == 0 {
		kept = nil
	}
	return kept, skips
}

func tooShort(n int) string {
	return fmt.Sprintf("too short: %d letters or digits, at least %d are needed", n, MinSectionChars)
}

var bom = []byte("\xef\xbb\xbf")

func stripBOM(data []byte) []byte { return bytes.TrimPrefix(data, bom) }

// invalidUTF8 says where data stops being UTF-8, so that the reader can find
// the byte (a file in Latin-1 or another legacy encoding, usually).
func invalidUTF8(data []byte) string {
	line, col := 1, 1
	for i := 0; i < len(data); {
		r, n := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && n <= 1 {
			return fmt.Sprintf("not valid UTF-8 text: byte 0x%02x at line %d, column %d", data[i], line, col)
		}
		if r == '\n' {
			line, col = line+1, 0
		}
		col++
		i += n
	}
	return "not valid UTF-8 text"
}

// cleanText is s as memory content: valid UTF-8, "\n" line ends, no control
// characters but tabs and line ends (memories refuse NUL bytes), no byte
// order mark, no white space around it.
func cleanText(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	s = strings.TrimPrefix(s, "\uFEFF")
	s = strings.ReplaceAll(s, "\r\n", "\n")
	s = strings.Map(func(r rune) rune {
		switch {
		case r == '\r':
			return '\n'
		case r == '\n' || r == '\t':
			return r
		case unicode.IsControl(r):
			return -1
		}
		return r
	}, s)
	return strings.TrimSpace(s)
}

// titleOf makes a title of s: one line (control characters and runs of white
// space become one space) of at most max characters, cut at a word boundary
// with "…" appended when it is longer. Text without spaces (Japanese, a long
// identifier) is cut at the limit.
func titleOf(s string, max int) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	s = strings.Join(strings.FieldsFunc(s, func(r rune) bool {
		return unicode.IsSpace(r) || unicode.IsControl(r) || r == '\uFEFF'
	}), " ")
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	runes := []rune(s)
	keep := max - 1 // room for "…"
	cut := string(runes[:keep])
	// Back up to the last space unless the cut falls before one already or
	// backing up would lose more than half the title.
	if runes[keep] != ' ' {
		if i := strings.LastIndexByte(cut, ' '); i >= 0 && utf8.RuneCountInString(cut[:i]) > keep/2 {
			cut = cut[:i]
		}
	}
	return strings.TrimRight(cut, " ,.;:-") + "…"
}

// tagOf makes an Obsidian tag of s the way memories.NormalizeTags wants it:
// lower case, letters, digits and "_" kept, one "/" kept between two words
// ("area/backend": a nested tag), any other run of characters one "-"; ""
// when nothing is left or the tag would be refused.
func tagOf(s string) string {
	var b strings.Builder
	sep := "" // the separator owed before the next word
	for _, r := range strings.ToLower(s) {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_':
			if b.Len() > 0 {
				b.WriteString(sep)
			}
			b.WriteRune(r)
			sep = ""
		case r == '/' && sep != "-":
			sep = "/"
		default:
			sep = "-"
		}
	}
	t := b.String()
	if utf8.RuneCountInString(t) > memories.MaxTagChars {
		t = strings.TrimRight(string([]rune(t)[:memories.MaxTagChars]), "-/")
	}
	if t == "" {
		return ""
	}
	if ok, err := memories.NormalizeTags([]string{t}); err != nil || len(ok) != 1 || ok[0] != t {
		return ""
	}
	return t
}

// tagsOf makes the tags of raw names: cleaned with tagOf, without duplicates,
// at most memories.MaxTags of them.
func tagsOf(raw []string) []string {
	var out []string
	for _, s := range raw {
		t := tagOf(s)
		if t == "" || slices.Contains(out, t) {
			continue
		}
		out = append(out, t)
		if len(out) == memories.MaxTags {
			break
		}
	}
	return out
}
