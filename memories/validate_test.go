package memories

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

func TestCheckContent(t *testing.T) {
	tests := []struct {
		name    string
		content string
		wantErr string // part of the rule broken; empty when valid
	}{
		{"plain", "Use tabs for indentation", ""},
		{"empty", "", "must not be empty"},
		{"whitespace only", " \n\t\r\n  ", "must not be empty"},
		{"punctuation only", "!!! ... ???", "has 0 letters or digits"},
		{"nine letters and digits", "abc 123 de f", "has 9 letters or digits"},
		{"nine among punctuation", "--a-b-c-- **d** (e) [f] g? h! 1.", "has 9 letters or digits"},
		{"exactly ten", "abcde 12345", ""},
		{"ten letters of other scripts", "日本語のテキストです", ""},
		{"ten accented letters", "éèêëàâäôöü", ""},
		{"at the maximum", strings.Repeat("a", MaxContentChars), ""},
		{"over the maximum", strings.Repeat("a", MaxContentChars+1), fmt.Sprintf("is %d characters; the maximum is %d", MaxContentChars+1, MaxContentChars)},
		{"multi-byte runes count once", strings.Repeat("é", MaxContentChars), ""},
		{"multi-byte runes over the maximum", strings.Repeat("é", MaxContentChars+1), fmt.Sprintf("is %d characters", MaxContentChars+1)},
		{"four-byte runes count once", strings.Repeat("𝄞", MaxContentChars-10) + "abcdefghij", ""},
		{"invalid UTF-8", "valid text then \xff\xfe", "valid UTF-8"},
		{"NUL byte", "some text\x00 after a NUL", "NUL"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckContent("content", tt.content)
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("got error %q, want none", err)
				}
				return
			}
			checkArgError(t, err, "content", tt.wantErr)
		})
	}
}

func TestCheckContentNamesItsArgument(t *testing.T) {
	checkArgError(t, CheckContent("replacement", "short"), "replacement")
}

func TestCheckTitle(t *testing.T) {
	tests := []struct {
		name    string
		title   string
		want    string
		wantErr string
	}{
		{"plain", "Use tabs", "Use tabs", ""},
		{"tab", "Use\ttabs", "", "control characters"},
		{"spaces trimmed", "   Use tabs   ", "Use tabs", ""},
		{"unicode", "Préférer les tabulations ✓", "Préférer les tabulations ✓", ""},
		{"newline", "first\nsecond", "", "one line"},
		{"carriage return", "first\rsecond", "", "one line"},
		{"trailing newline", "title\n", "", "one line"},
		{"bell", "ding\x07dong", "", "control characters"},
		{"escape", "\x1b[31mred", "", "control characters"},
		{"delete", "del\x7f", "", "control characters"},
		{"C1 control", "next\u0085line", "", "control characters"},
		{"empty", "", "", "must not be empty"},
		{"blank", "    ", "", "must not be empty"},
		{"at the maximum", strings.Repeat("t", MaxTitleChars), strings.Repeat("t", MaxTitleChars), ""},
		{"at the maximum once trimmed", "  " + strings.Repeat("t", MaxTitleChars) + "  ", strings.Repeat("t", MaxTitleChars), ""},
		{"multi-byte at the maximum", strings.Repeat("ü", MaxTitleChars), strings.Repeat("ü", MaxTitleChars), ""},
		{"too long", strings.Repeat("t", MaxTitleChars+1), "", fmt.Sprintf("is %d characters; the maximum is %d", MaxTitleChars+1, MaxTitleChars)},
		{"invalid UTF-8", "bad \xc3", "", "valid UTF-8"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := CheckTitle(tt.title)
			if tt.wantErr != "" {
				checkArgError(t, err, "title", tt.wantErr)
				return
			}
			if err != nil {
				t.Fatalf("got error %q, want none", err)
			}
			if got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestTitleFrom(t *testing.T) {
	const w9 = "alphabeta" // nine letters
	words := func(n int) string { return strings.TrimSpace(strings.Repeat(w9+" ", n)) }
	tests := []struct {
		name    string
		content string
		want    string
	}{
		{"one line", "Use tabs for indentation", "Use tabs for indentation"},
		{"first line only", "Use tabs\nbecause gofmt does", "Use tabs"},
		{"blank lines skipped", "\n   \n\t\nSecond line first\nthird", "Second line first"},
		{"heading marks", "# Heading here\nbody", "Heading here"},
		{"deep heading", "### Deep heading", "Deep heading"},
		{"indented heading", "   ##   Indented heading  \nbody", "Indented heading"},
		{"quote", "> quoted text", "quoted text"},
		{"list item", "- item one\n- item two", "item one"},
		{"task item", "- [ ] write the migration", "write the migration"},
		{"bold is kept", "**Bold** claim about caching", "**Bold** claim about caching"},
		{"emphasis is kept", "*never* log request bodies", "*never* log request bodies"},
		{"quoted heading", "> ## Quoted heading", "Quoted heading"},
		{"empty heading skipped", "#\n##  \nReal title", "Real title"},
		{"control characters become spaces", "alpha\x07beta", "alpha beta"},
		{"exactly the length", strings.Repeat("x", DefaultTitleLen), strings.Repeat("x", DefaultTitleLen)},
		{"one over without spaces", strings.Repeat("x", DefaultTitleLen+1), strings.Repeat("x", DefaultTitleLen) + "…"},
		{"cut before a space", words(6) + " gamma", words(6) + "…"},                          // 59 letters, a space, more
		{"cut inside a word", words(5) + " alphabetagamma", words(5) + "…"},                  // the sixth word crosses 60
		{"cut right after a word", words(5) + " alphabetaz more", words(5) + " alphabetaz…"}, // the 61st character is a space
		{"punctuation before the cut dropped", words(5) + ", alphabetagamma", words(5) + "…"},
		{"no boundary in the second half", "short " + strings.Repeat("x", 70), "short " + strings.Repeat("x", DefaultTitleLen-6) + "…"},
		{"no spaces at all", strings.Repeat("漢", 70), strings.Repeat("漢", DefaultTitleLen) + "…"},
		{"cyrillic words", strings.Repeat("синхронно ", 5) + "синхронноабвгд", strings.TrimSpace(strings.Repeat("синхронно ", 5)) + "…"},
		// The midpoint rule counts characters, not bytes: two-byte letters are
		// cut where the same line in ASCII letters is.
		{"ascii, early space", strings.Repeat("a", 19) + " " + strings.Repeat("b", 50), strings.Repeat("a", 19) + " " + strings.Repeat("b", 40) + "…"},
		{"cyrillic, early space", strings.Repeat("ж", 19) + " " + strings.Repeat("щ", 50), strings.Repeat("ж", 19) + " " + strings.Repeat("щ", 40) + "…"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := TitleFrom(tt.content)
			if got != tt.want {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
			if n := utf8.RuneCountInString(got); n > DefaultTitleLen+1 {
				t.Errorf("title has %d characters, more than %d and the ellipsis", n, DefaultTitleLen)
			}
			if !utf8.ValidString(got) {
				t.Errorf("title %q is not valid UTF-8", got)
			}
			if _, err := CheckTitle(got); err != nil {
				t.Errorf("derived title %q fails CheckTitle: %v", got, err)
			}
		})
	}
}

func TestNormalizeTags(t *testing.T) {
	many := func(n int) []string {
		var out []string
		for i := range n {
			out = append(out, fmt.Sprintf("tag%d", i))
		}
		return out
	}
	tests := []struct {
		name    string
		in      []string
		want    []string
		wantErr string
	}{
		{"none", nil, nil, ""},
		{"hash dropped", []string{"#go"}, []string{"go"}, ""},
		{"several hashes", []string{"##go"}, []string{"go"}, ""},
		{"lower case", []string{"GoLang"}, []string{"golang"}, ""},
		{"spaces become dashes", []string{"  Machine   Learning "}, []string{"machine-learning"}, ""},
		{"hash then space", []string{"# spaced"}, []string{"spaced"}, ""},
		{"commas split one item", []string{"a, b ,c"}, []string{"a", "b", "c"}, ""},
		{"order kept", []string{"zeta", "alpha", "mid"}, []string{"zeta", "alpha", "mid"}, ""},
		{"duplicates dropped", []string{"go", "Go", "#go", "x,go"}, []string{"go", "x"}, ""},
		{"nested", []string{"lang/go"}, []string{"lang/go"}, ""},
		{"underscore and dash", []string{"snake_case", "kebab-case"}, []string{"snake_case", "kebab-case"}, ""},
		{"unicode letters", []string{"日本語", "Café"}, []string{"日本語", "café"}, ""},
		{"digits with letters", []string{"v2", "2024-q1"}, []string{"v2", "2024-q1"}, ""},
		{"empty items skipped", []string{"", " ", "#", ",,"}, nil, ""},
		{"plus", []string{"ok", "c++"}, nil, `"c++"`},
		{"punctuation named", []string{"bad!tag"}, nil, `tag "bad!tag" may hold only letters`},
		{"dot", []string{"node.js"}, nil, `"node.js"`},
		{"hash inside", []string{"a#b"}, nil, `"a#b"`},
		{"only digits", []string{"2024"}, nil, `tag "2024" must not be only digits`},
		{"only digits after hash", []string{"#42"}, nil, "only digits"},
		{"at the length limit", []string{strings.Repeat("t", MaxTagChars)}, []string{strings.Repeat("t", MaxTagChars)}, ""},
		{"too long", []string{strings.Repeat("t", MaxTagChars+1)}, nil, fmt.Sprintf("longer than %d characters", MaxTagChars)},
		{"at the count limit", many(MaxTags), many(MaxTags), ""},
		{"duplicates do not count", append(many(MaxTags), "tag0", "TAG1", "#tag2"), many(MaxTags), ""},
		{"too many", many(MaxTags + 1), nil, fmt.Sprintf("has %d tags; the maximum is %d", MaxTags+1, MaxTags)},
		{"too many in one item", []string{strings.Join(many(MaxTags+1), ",")}, nil, "the maximum is"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := NormalizeTags(tt.in)
			if tt.wantErr != "" {
				checkArgError(t, err, "tags", tt.wantErr)
				return
			}
			if err != nil {
				t.Fatalf("got error %q, want none", err)
			}
			if diff := cmp.Diff(got, tt.want); diff != "" {
				t.Errorf("tags (-got +want):\n%s", diff)
			}
		})
	}
}

func TestNormalizeScope(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    string
		wantErr string
	}{
		{"empty", "", "", ""},
		{"blank", "   ", "", ""},
		{"lower case", "WebApp", "webapp", ""},
		{"spaces become dashes", "  My   Project ", "my-project", ""},
		{"dots underscores dashes", "node.js_v2-beta", "node.js_v2-beta", ""},
		{"unicode letters", "Проект Café", "проект-café", ""},
		{"parent folder", "../x", "", `"../x" may hold only letters`},
		{"slash", "a/b", "", "may hold only"},
		{"backslash", `a\b`, "", "may hold only"},
		{"colon", "c:", "", "may hold only"},
		{"hidden", ".hidden", "", `".hidden" must start with a letter or digit`},
		{"dot dot", "..", "", "must start with"},
		{"leading dash", "-x", "", "must start with"},
		{"at the limit", strings.Repeat("p", MaxScopeChars), strings.Repeat("p", MaxScopeChars), ""},
		{"multi-byte at the limit", strings.Repeat("ü", MaxScopeChars), strings.Repeat("ü", MaxScopeChars), ""},
		{"too long", strings.Repeat("p", MaxScopeChars+1), "", fmt.Sprintf("longer than %d characters", MaxScopeChars)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := NormalizeScope("area", tt.in)
			if tt.wantErr != "" {
				checkArgError(t, err, "area", tt.wantErr)
				return
			}
			if err != nil {
				t.Fatalf("got error %q, want none", err)
			}
			if got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestParseType(t *testing.T) {
	tests := []struct {
		in      string
		want    Type
		wantErr string
	}{
		{"", TypeNote, ""},
		{"  ", TypeNote, ""},
		{"decision", TypeDecision, ""},
		{"Decision", TypeDecision, ""},
		{" GOTCHA ", TypeGotcha, ""},
		{"reflection", TypeReflection, ""},
		{"idea", "", `"idea" is not a type; use one of decision, preference, convention, gotcha, fact, lesson, note, meeting, action, session, episode, summary, reflection`},
		{"notes", "", "is not a type"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseType(tt.in)
			if tt.wantErr != "" {
				checkArgError(t, err, "type", tt.wantErr)
				return
			}
			if err != nil {
				t.Fatalf("got error %q, want none", err)
			}
			if got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestParseTypeAcceptsEveryType(t *testing.T) {
	for _, typ := range Types {
		got, err := ParseType(string(typ))
		if err != nil || got != typ {
			t.Errorf("ParseType(%q) = %q, %v; want %q, nil", typ, got, err, typ)
		}
	}
}

func TestCheckImportance(t *testing.T) {
	tests := []struct {
		in      int
		want    int
		wantErr bool
	}{
		{0, DefaultImportance, false},
		{1, 1, false},
		{3, 3, false},
		{5, 5, false},
		{6, 0, true},
		{-1, 0, true},
		{100, 0, true},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.in), func(t *testing.T) {
			got, err := CheckImportance(tt.in)
			if tt.wantErr {
				checkArgError(t, err, "importance", fmt.Sprintf("is %d; it must be from 1 to 5", tt.in))
				return
			}
			if err != nil {
				t.Fatalf("got error %q, want none", err)
			}
			if got != tt.want {
				t.Errorf("got %d, want %d", got, tt.want)
			}
		})
	}
}

// titleFromWhole is TitleFrom as it was before it cut the first line to the
// characters that matter: mapping and counting the whole line.
func titleFromWhole(content string) string {
	line := ""
	for l := range strings.SplitSeq(content, "\n") {
		if l = stripLineMarks(l); l != "" {
			line = l
			break
		}
	}
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
	if runes[DefaultTitleLen] != ' ' {
		if i := strings.LastIndexByte(cut, ' '); i >= 0 && utf8.RuneCountInString(cut[:i]) > DefaultTitleLen/2 {
			cut = cut[:i]
		}
	}
	return strings.TrimRight(cut, " ,.;:-") + "…"
}

// TestTitleFromCutsAsWhole: TitleFrom, which maps and counts only the first
// line's first characters, gives what mapping and counting the whole line
// gives, for lines around the title's length of spaces, punctuation,
// control characters, letters of several bytes and bytes that are not UTF-8.
func TestTitleFromCutsAsWhole(t *testing.T) {
	parts := []string{"a", "b", " ", ",", ".", "-", "\x07", "\u0085", "ж", "漢", "\xff", "\xe6\xbc", "#", "> ", "\n", "\t", "\u00a0"}
	rng := rand.New(rand.NewPCG(17, 1))
	for range 20000 {
		var b strings.Builder
		n := DefaultTitleLen - 10 + rng.IntN(30)
		if rng.IntN(10) == 0 {
			n = rng.IntN(3 * DefaultTitleLen)
		}
		for range n {
			b.WriteString(parts[rng.IntN(len(parts))])
		}
		content := b.String()
		if got, want := TitleFrom(content), titleFromWhole(content); got != want {
			t.Fatalf("TitleFrom(%q) = %q, whole line gives %q", content, got, want)
		}
	}
}

// TestIsTitleFrom: IsTitleFrom says what comparing with TitleFrom says, for
// the derived title itself, for titles that differ from it early or late
// (a character changed, one more, one fewer, "…" added or taken off), and
// for unrelated ones, over contents of spaces, punctuation, control
// characters, marks, letters of several bytes and bytes that are not UTF-8.
func TestIsTitleFrom(t *testing.T) {
	parts := []string{"a", "b", " ", ",", ".", "-", "\x07", "\u0085", "ж", "漢", "\xff", "\xe6\xbc", "#", "> ", "\n", "\t", "\u00a0", "…", "\ufffd"}
	rng := rand.New(rand.NewPCG(29, 3))
	derived, fast := 0, 0
	check := func(title, content string) {
		t.Helper()
		want := title == TitleFrom(content)
		if got := IsTitleFrom(title, content); got != want {
			t.Fatalf("IsTitleFrom(%q, %q) = %v, want %v (TitleFrom gives %q)", title, content, got, want, TitleFrom(content))
		}
		if want {
			derived++
		}
	}
	for range 20000 {
		var b strings.Builder
		n := rng.IntN(2 * DefaultTitleLen)
		for range n {
			b.WriteString(parts[rng.IntN(len(parts))])
		}
		content := b.String()
		title := TitleFrom(content)
		check(title, content)
		rs := []rune(title)
		if len(rs) > 0 {
			i := rng.IntN(len(rs))
			changed := append([]rune{}, rs...)
			changed[i] = []rune(parts[rng.IntN(len(parts))])[0]
			check(string(changed), content)
			check(string(rs[:i]), content)
			check(string(rs[:i])+"…", content)
		}
		check(title+parts[rng.IntN(len(parts))], content)
		check(strings.TrimSuffix(title, "…"), content)
		check(title+"…", content)
		other := parts[rng.IntN(len(parts))] + parts[rng.IntN(len(parts))]
		check(other, content)
		if !strings.HasPrefix(strings.TrimSpace(content), strings.TrimSuffix(other, "…")) {
			fast++
		}
	}
	if derived < 20000 || fast == 0 {
		t.Fatalf("%d derived titles checked and %d unrelated ones: the cases are not what the test means", derived, fast)
	}
}

// FuzzIsTitleFrom: for any title and content, IsTitleFrom is the comparison
// with TitleFrom, and the derived title is recognised.
func FuzzIsTitleFrom(f *testing.F) {
	f.Add("Use tabs", "Use tabs\nbecause gofmt does")
	f.Add("Heading here", "# Heading here\nbody")
	f.Add("alpha beta", "alpha\x07beta")
	f.Add(strings.Repeat("x", DefaultTitleLen)+"…", strings.Repeat("x", DefaultTitleLen+5))
	f.Add("\ufffd", "\xff")
	f.Add("", "\n\n")
	f.Fuzz(func(t *testing.T, title, content string) {
		if got, want := IsTitleFrom(title, content), title == TitleFrom(content); got != want {
			t.Fatalf("IsTitleFrom(%q, %q) = %v, want %v", title, content, got, want)
		}
		if !IsTitleFrom(TitleFrom(content), content) {
			t.Fatalf("IsTitleFrom does not recognise TitleFrom(%q) = %q", content, TitleFrom(content))
		}
	})
}
