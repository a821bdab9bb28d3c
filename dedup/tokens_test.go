package dedup

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func TestTokens(t *testing.T) {
	tests := []struct {
		name string
		text string
		want []string
	}{
		{"empty", "", nil},
		{"only separators", "  ... --- !!! \n\t", nil},
		{"words", "Hello, World!", []string{"hello", "world"}},
		{"identifier with a dot", "pkg.Func", []string{"pkg", "func"}},
		{"snake case", "snake_case", []string{"snake", "case"}},
		{"camel case is one word", "getUserName", []string{"getusername"}},
		{"letters and digits", "RS256 and k8s on x86_64", []string{"rs256", "and", "k8s", "on", "x86", "64"}},
		{"a decimal", "version 3.14", []string{"version", "3", "14"}},
		{"path", "~/.cortex/config.yaml", []string{"cortex", "config", "yaml"}},
		{"accents", "Café NAÏVE über", []string{"café", "naïve", "über"}},
		{"german", "Straße", []string{"straße"}},
		{"cyrillic", "Привет, Мир", []string{"привет", "мир"}},
		{"greek final sigma", "ΣΊΣΥΦΟΣ σίσυφος", []string{"σίσυφοσ", "σίσυφοσ"}},
		{"turkish dotted capital", "İstanbul", []string{"istanbul"}},
		{"chinese one token per character", "数据库连接", []string{"数", "据", "库", "连", "接"}},
		{"japanese kana and kanji", "データを保存", []string{"デ", "ー", "タ", "を", "保", "存"}},
		{"cjk next to latin", "abc日本def", []string{"abc", "日", "本", "def"}},
		{"korean stays in words", "한국어 텍스트", []string{"한국어", "텍스트"}},
		{"devanagari keeps its vowel signs", "हिन्दी भाषा", []string{"हिन्दी", "भाषा"}},
		{"a combining accent continues the word", "e\u0301cole", []string{"e\u0301cole"}},
		{"a leading combining mark is dropped", "\u0301abc", []string{"abc"}},
		{"arabic-indic digits", "٣٤ items", []string{"٣٤", "items"}},
		{"emoji separate", "🚀launch🎉now", []string{"launch", "now"}},
		{"symbols are not digits", "Ⅻ ① ² ½", nil},
		{"cjk symbols are not letters", "㋹㌀〇", nil},
		{"halfwidth katakana", "ﾃﾞｰﾀ", []string{"ﾃ", "ﾞ", "ｰ", "ﾀ"}},
		{"invalid utf-8 separates", "ab\xffcd\xe3\x81", []string{"ab", "cd"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Tokens(tt.text)
			if diff := cmp.Diff(tt.want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("Tokens(%q) (-want +got):\n%s", tt.text, diff)
			}
		})
	}
}

// TestSentences checks where n-grams are cut: at a new line and at a full stop
// followed by white space, not inside "pkg.Func", "3.14" or "./cmd".
func TestSentences(t *testing.T) {
	tests := []struct {
		text string
		want []string // the tokens, "|" before each that starts a sentence, "/" a line, "^" with a capital
	}{
		{"One two. Three four", []string{"^one", "two", "|^three", "four"}},
		{"the Docker CLI and iPhone, École", []string{"the", "^docker", "^cli", "and", "iphone", "^école"}},
		{"cell | Cell", []string{"cell", "/^cell"}},
		{"One two.Three", []string{"^one", "two", "^three"}},
		{"pkg.Func and 3.14", []string{"pkg", "^func", "and", "3", "14"}},
		{"commit .env files", []string{"commit", "env", "files"}},
		{"go run ./cmd now", []string{"go", "run", "cmd", "now"}},
		{"wait... now", []string{"wait", "|now"}},
		{"line one\nline two", []string{"line", "one", "/line", "two"}},
		{"line one\r\nline two", []string{"line", "one", "/line", "two"}},
		{"para one\n\npara two", []string{"para", "one", "|para", "two"}},
		{"end.\nNext", []string{"end", "|^next"}},
		{"Note: this", []string{"^note", "|this"}},
		{"Really?! Yes; no", []string{"^really", "|^yes", "|no"}},
		{"end.) Next", []string{"end", "|^next"}},
		{"一。二", []string{"一", "|二"}},
		{"- a\n- b", []string{"a", "/b"}},
	}
	for _, tt := range tests {
		var got []string
		scan(tt.text, nil, func(tok []byte, b brk) {
			s := string(tok)
			if b&capitalFlag != 0 {
				s = "^" + s
			}
			switch b &^ capitalFlag {
			case lineBreak:
				s = "/" + s
			case sentenceBreak:
				s = "|" + s
			}
			got = append(got, s)
		})
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("scan(%q) (-want +got):\n%s", tt.text, diff)
		}
	}
}
