package memories

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Limits on what a memory may hold. They are documented in the README; the MCP
// server's schemas repeat them.
const (
	MinContentChars = 10    // letters and digits, not counting spaces and punctuation
	MaxContentChars = 10000 // characters (runes) of the whole content
	MaxTitleChars   = 120
	DefaultTitleLen = 60
	MaxTags         = 20
	MaxTagChars     = 64
	MaxScopeChars   = 64 // project and area names
	MinImportance   = 1
	MaxImportance   = 5
)

// CheckContent validates the text of a memory.
func CheckContent(arg, content string) error {
	if !utf8.ValidString(content) {
		return invalid(arg, "must be valid UTF-8 text")
	}
	if strings.IndexByte(content, 0) >= 0 {
		return invalid(arg, "must not contain NUL bytes")
	}
	if n := utf8.RuneCountInString(content); n > MaxContentChars {
		return invalid(arg, "is %d characters; the maximum is %d", n, MaxContentChars)
	}
	if n := meaningfulCharsUpTo(content, MinContentChars); n < MinContentChars {
		if strings.TrimSpace(content) == "" {
			return invalid(arg, "must not be empty")
		}
		return invalid(arg, "has %d letters or digits; at least %d are needed", n, MinContentChars)
	}
	return nil
}

// meaningfulCharsUpTo is meaningfulChars(s) when that is below limit, else
// limit: a check against a minimum need not count a long text to its end.
func meaningfulCharsUpTo(s string, limit int) int {
	n := 0
	for _, r := range s {
		if r < utf8.RuneSelf && ('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9') ||
			r >= utf8.RuneSelf && (unicode.IsLetter(r) || unicode.IsDigit(r)) {
			if n++; n >= limit {
				return limit
			}
		}
	}
	return n
}

func meaningfulChars(s string) int {
	n := 0
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			n++
		}
	}
	return n
}

// CheckTitle validates an explicit title.
func CheckTitle(title string) (string, error) {
	if !utf8.ValidString(title) {
		return "", invalid("title", "must be valid UTF-8 text")
	}
	if strings.ContainsAny(title, "\r\n") {
		return "", invalid("title", "must be one line")
	}
	for _, r := range title {
		if unicode.IsControl(r) {
			return "", invalid("title", "must not contain control characters")
		}
	}
	title = strings.TrimSpace(title)
	if title == "" {
		return "", invalid("title", "must not be empty when given")
	}
	if n := utf8.RuneCountInString(title); n > MaxTitleChars {
		return "", invalid("title", "is %d characters; the maximum is %d", n, MaxTitleChars)
	}
	return title, nil
}

// TitleFrom derives a title from content: its first non-empty line without
// heading marks, cut to DefaultTitleLen characters at a word boundary.
func TitleFrom(content string) string {
	line := firstLine(content)
	// Only the line's first DefaultTitleLen+1 characters can be in the
	// title or decide its cut: a long first line (a paragraph, an imported
	// transcript's turn) is not mapped nor counted whole. Each character,
	// an invalid byte too, maps to one, so cutting first changes nothing.
	line = firstRunes(line, DefaultTitleLen+1)
	line = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, line)
	if utf8.RuneCountInString(line) <= DefaultTitleLen {
		return line
	}
	runes := []rune(line)
	cut := string(runes[:DefaultTitleLen])
	// Back up to the last space unless the cut already falls before one or
	// backing up would lose more than half (counted in characters, not bytes).
	if runes[DefaultTitleLen] != ' ' {
		if i := strings.LastIndexByte(cut, ' '); i >= 0 && utf8.RuneCountInString(cut[:i]) > DefaultTitleLen/2 {
			cut = cut[:i]
		}
	}
	return strings.TrimRight(cut, " ,.;:-") + "…"
}

// IsTitleFrom reports whether title is TitleFrom(content), without deriving
// the title when the first characters already tell them apart. A derived
// title, but for a last "…", is a prefix of the content's first non-empty
// line without its marks, each control character a space: a title that is
// not (an explicit title, as most are) cannot be the derived one, and
// recall asks this of every candidate it scores by passages, where
// deriving was 4% of a recall in the server.
func IsTitleFrom(title, content string) bool {
	rest := firstLine(content)
	for _, r := range strings.TrimSuffix(title, "…") {
		if rest == "" {
			return false
		}
		c, size := utf8.DecodeRuneInString(rest)
		if unicode.IsControl(c) {
			c = ' '
		}
		if c != r {
			return false
		}
		rest = rest[size:]
	}
	return title == TitleFrom(content)
}

// firstLine is content's first non-empty line without its marks
// (stripLineMarks); "" when it has none.
func firstLine(content string) string {
	for l := range strings.SplitSeq(content, "\n") {
		if l = stripLineMarks(l); l != "" {
			return l
		}
	}
	return ""
}

// firstRunes is s up to its first n characters (an invalid byte counts as
// one, as ranging over s counts it).
func firstRunes(s string, n int) string {
	k := 0
	for i := range s {
		if k == n {
			return s[:i]
		}
		k++
	}
	return s
}

// stripLineMarks removes the markdown that starts a line — heading marks, quote
// marks, a list bullet or a task box — and keeps inline markup such as **bold**.
func stripLineMarks(l string) string {
	l = strings.TrimSpace(l)
	for {
		before := l
		l = strings.TrimLeft(l, "#>")
		for _, bullet := range []string{"- [ ] ", "- [x] ", "- ", "* ", "+ "} {
			if strings.HasPrefix(l, bullet) {
				l = l[len(bullet):]
				break
			}
		}
		l = strings.TrimSpace(l)
		if l == before {
			return l
		}
	}
}

// NormalizeTags cleans a tag list the way Obsidian spells tags: no "#", lower case,
// no spaces (they become "-"), only letters, digits, "_", "-" and "/" (nested tags),
// not all digits; duplicates dropped, order kept. Each element may itself hold
// several tags separated by commas.
func NormalizeTags(in []string) ([]string, error) {
	var out []string
	seen := map[string]bool{}
	for _, item := range in {
		for _, raw := range strings.Split(item, ",") {
			tag, err := normalizeTag(raw)
			if err != nil {
				return nil, err
			}
			if tag == "" || seen[tag] {
				continue
			}
			seen[tag] = true
			out = append(out, tag)
		}
	}
	if len(out) > MaxTags {
		return nil, invalid("tags", "has %d tags; the maximum is %d", len(out), MaxTags)
	}
	return out, nil
}

func normalizeTag(raw string) (string, error) {
	t := strings.ToLower(strings.TrimSpace(raw))
	t = strings.TrimLeft(t, "#")
	t = strings.Join(strings.Fields(t), "-")
	if t == "" {
		return "", nil
	}
	if !utf8.ValidString(t) {
		return "", invalid("tags", "must be valid UTF-8 text")
	}
	for _, r := range t {
		if !(unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' || r == '-' || r == '/') {
			return "", invalid("tags", "tag %q may hold only letters, digits, '_', '-' and '/'", raw)
		}
	}
	if _, err := strconv.Atoi(t); err == nil {
		return "", invalid("tags", "tag %q must not be only digits", raw)
	}
	if utf8.RuneCountInString(t) > MaxTagChars {
		return "", invalid("tags", "tag %q is longer than %d characters", raw, MaxTagChars)
	}
	return t, nil
}

// NormalizeScope cleans a project or area name, which is also a folder name: lower
// case, spaces become "-", only letters, digits, ".", "_" and "-", not starting
// with "." or "-".
func NormalizeScope(arg, s string) (string, error) {
	s = strings.ToLower(strings.TrimSpace(s))
	s = strings.Join(strings.Fields(s), "-")
	if s == "" {
		return "", nil
	}
	if !utf8.ValidString(s) {
		return "", invalid(arg, "must be valid UTF-8 text")
	}
	for _, r := range s {
		if !(unicode.IsLetter(r) || unicode.IsDigit(r) || r == '.' || r == '_' || r == '-') {
			return "", invalid(arg, "%q may hold only letters, digits, '.', '_' and '-'", s)
		}
	}
	if s[0] == '.' || s[0] == '-' {
		return "", invalid(arg, "%q must start with a letter or digit", s)
	}
	if utf8.RuneCountInString(s) > MaxScopeChars {
		return "", invalid(arg, "%q is longer than %d characters", s, MaxScopeChars)
	}
	return s, nil
}

// ParseType checks a memory type; empty gives the default.
func ParseType(s string) (Type, error) {
	s = strings.ToLower(strings.TrimSpace(s))
	if s == "" {
		return DefaultType, nil
	}
	for _, t := range Types {
		if string(t) == s {
			return t, nil
		}
	}
	names := make([]string, len(Types))
	for i, t := range Types {
		names[i] = string(t)
	}
	return "", invalid("type", "%q is not a type; use one of %s", s, strings.Join(names, ", "))
}

// CheckImportance validates an importance; 0 means "not given" and yields the
// default.
func CheckImportance(n int) (int, error) {
	if n == 0 {
		return DefaultImportance, nil
	}
	if err := CheckRange("importance", n, MinImportance, MaxImportance); err != nil {
		return 0, err
	}
	return n, nil
}

// CheckRange checks that a whole-number argument is from lo to hi. Requests
// take 0 as "not given"; a transport that can tell a 0 typed by the caller
// from an argument left out (a CLI flag that was set, an MCP argument that is
// present) checks what was typed with CheckRange, so that 0 is refused with the
// same words everywhere.
func CheckRange(arg string, n, lo, hi int) error {
	if n < lo || n > hi {
		return invalid(arg, "is %d; it must be from %d to %d", n, lo, hi)
	}
	return nil
}
