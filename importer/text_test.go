package importer

import (
	"strings"
	"testing"
	"unicode"

	"github.com/google/go-cmp/cmp"
)

func TestParseTextGolden(t *testing.T) {
	for _, name := range []string{"note", "french", "japanese"} {
		t.Run(name, func(t *testing.T) {
			fixture := "text/" + name + ".txt"
			items, skips := parseText(fixture, fixtureBytes(t, fixture))
			checkItems(t, KindText, items, skips)
			golden(t, "text/"+name, renderItems(items, skips))
		})
	}
}

func TestParseText(t *testing.T) {
	const body = "Restart the search workers after every schema change."
	note := func(title, content string) Item {
		return Item{Title: title, Content: content, Source: "n.txt", Kind: KindText}
	}
	tests := []struct {
		name      string
		in        string
		wantItems []Item
		wantSkips []Skip
	}{
		{name: "empty", in: "", wantSkips: []Skip{{"n.txt", "empty"}}},
		{name: "white space only", in: " \r\n\t\n ", wantSkips: []Skip{{"n.txt", "empty"}}},
		{name: "byte order mark only", in: "\xef\xbb\xbf\n", wantSkips: []Skip{{"n.txt", "empty"}}},
		{name: "too short", in: "TODO: call Bob", wantSkips: []Skip{{"n.txt", tooShort(11)}}},
		{
			name:      "the first non-empty line is the title",
			in:        "\n\n   Search workers  \n\n" + body + "\n",
			wantItems: []Item{note("Search workers", "Search workers  \n\n"+body)},
		},
		{
			name:      "byte order mark and CRLF",
			in:        "\xef\xbb\xbfSearch workers\r\n\r\n" + body + "\r\nOld Macs end lines with CR only.\r",
			wantItems: []Item{note("Search workers", "Search workers\n\n"+body+"\nOld Macs end lines with CR only.")},
		},
		{
			name:      "control characters are dropped",
			in:        "Search\x00 workers\x1b[0m\n" + body + "\x07",
			wantItems: []Item{note("Search workers[0m", "Search workers[0m\n"+body)},
		},
		{
			name:      "invalid UTF-8",
			in:        "Search workers\nCaf\xe9 " + body,
			wantSkips: []Skip{{"n.txt", "not valid UTF-8 text: byte 0xe9 at line 2, column 4"}},
		},
		{
			name: "a long first line is cut at a word",
			in:   strings.Repeat("Restart the search workers ", 5) + "\n" + body,
			wantItems: []Item{note(
				"Restart the search workers Restart the search workers Restart the search…",
				strings.Repeat("Restart the search workers ", 5)+"\n"+body,
			)},
		},
		{
			name:      "a long first line without spaces is cut anywhere",
			in:        strings.Repeat("検索ワーカー", 20),
			wantItems: []Item{note(strings.Repeat("検索ワーカー", 13)+"検…", strings.Repeat("検索ワーカー", 20))},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			gotItems, gotSkips := parseText("n.txt", []byte(tt.in))
			checkItems(t, KindText, gotItems, gotSkips)
			if diff := cmp.Diff(tt.wantItems, gotItems); diff != "" {
				t.Errorf("items (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantSkips, gotSkips); diff != "" {
				t.Errorf("skips (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseTextSplitsLongText(t *testing.T) {
	para := strings.Repeat("The nightly backup is copied to a second region. ", 30)
	in := "Backups\n\n" + strings.Repeat(para+"\n\n", 10) + "ok."
	items, skips := parseText("n.txt", []byte(in))
	checkItems(t, KindText, items, skips)
	var got []string
	for _, it := range items {
		got = append(got, it.Title+" | "+it.Source)
	}
	want := []string{"Backups (1/2) | n.txt (1/2)", "Backups (2/2) | n.txt (2/2)"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("items (-want +got):\n%s", diff)
	}
	if len(skips) > 0 {
		t.Errorf("skips %v, want none", skips)
	}
}

func TestSplitSkipsAShortLastPiece(t *testing.T) {
	in := strings.Repeat("x", 10000) + "\n\n!!"
	items, skips := split(Item{Title: "T", Source: "n.txt", Kind: KindText}, in)
	checkItems(t, KindText, items, skips)
	var got []string
	for _, it := range items {
		got = append(got, it.Title)
	}
	if diff := cmp.Diff([]string{"T (1/2)"}, got); diff != "" {
		t.Errorf("titles (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]Skip{{"n.txt (2/2)", tooShort(0)}}, skips); diff != "" {
		t.Errorf("skips (-want +got):\n%s", diff)
	}
}

func TestTitleOf(t *testing.T) {
	tests := []struct {
		in   string
		max  int
		want string
	}{
		{"", 10, ""},
		{"  a\tb\r\nc\u2028d\u0085e  ", 20, "a b c d e"},
		{"exactly ten", 11, "exactly ten"},
		{"one two three four", 10, "one two…"},
		{"one two, three", 10, "one two…"},
		{"abcdefghijklmnop", 10, "abcdefghi…"},
		{"a bcdefghijklmnop", 10, "a bcdefgh…"},
		{"-----------------", 10, "…"},
		{"Caf\xe9 au lait", 20, "Caf\uFFFD au lait"},
	}
	for _, tt := range tests {
		if got := titleOf(tt.in, tt.max); got != tt.want {
			t.Errorf("titleOf(%q, %d) = %q, want %q", tt.in, tt.max, got, tt.want)
		}
	}
}

func TestTagOf(t *testing.T) {
	tests := []struct{ in, want string }{
		{"person", "person"},
		{"Core Component", "core-component"},
		{"#Mobile App", "mobile-app"},
		{"area/backend", "area/backend"},
		{"C# / .NET team", "c-net-team"},
		{"/a//b/", "a/b"},
		{"  ", ""},
		{"2024", ""},
		{"!!!", ""},
		{"Équipe données", "équipe-données"},
		{strings.Repeat("ab", 40), strings.Repeat("ab", 32)},
		{strings.Repeat("a", 63) + " b", strings.Repeat("a", 63)},
	}
	for _, tt := range tests {
		if got := tagOf(tt.in); got != tt.want {
			t.Errorf("tagOf(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func FuzzParseText(f *testing.F) {
	fuzzSeeds(f, "text",
		"Title line\r\nbody with enough words to keep\r",
		strings.Repeat("long line without breaks ", 500),
		"\x00\x01 control \x7f characters and enough letters to keep",
	)
	f.Fuzz(func(t *testing.T, data []byte) {
		checkParser(t, KindText, parseText, data)
	})
}

// TestMeaningfulUpTo: counting stops at the limit, and below it the count is
// meaningful's (the reason a short section gives names it).
func TestMeaningfulUpTo(t *testing.T) {
	for _, s := range []string{"", "   ", "ab, cd!", "Ünïcödé 語 123", strings.Repeat("x ", 19), strings.Repeat("é", 20), strings.Repeat("word ", 50), "— … ☃"} {
		want := min(meaningful(s), MinSectionChars)
		if got := meaningfulUpTo(s, MinSectionChars); got != want {
			t.Errorf("meaningfulUpTo(%q) = %d, want %d", s, got, want)
		}
	}
	for _, r := range []rune{'a', 'Z', '0', '9', 'é', '語', 'ß', '٣', ' ', '-', '_', '\u00aa', '\u00b2', '\x7f'} {
		if got, want := isLetterOrDigit(r), unicode.IsLetter(r) || unicode.IsDigit(r); got != want {
			t.Errorf("isLetterOrDigit(%q) = %v, want %v", r, got, want)
		}
	}
}
