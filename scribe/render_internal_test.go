package scribe

import "testing"

// TestLiteral: the [[…]] a person or an agent wrote go into code spans,
// where Obsidian makes no link of them; brackets already in code, and text
// without them, stay as they are.
func TestLiteral(t *testing.T) {
	tests := []struct{ in, want string }{
		{"Remember the number 42. [[S:turn1]]", "Remember the number 42. `[[S:turn1]]`"},
		{"See ![[diagram.png]] and [[Note|alias]].", "See `![[diagram.png]]` and `[[Note|alias]]`."},
		{"two [[a]][[b]]", "two `[[a]]` `[[b]]`"},
		{"kept `[[as code]]` and ``a ` [[b]]``", "kept `[[as code]]` and ``a ` [[b]]``"},
		{"a lone ` then [[x]]", "a lone ` then ``[[x]]``"},
		{"00`[[0]]", "00` ``[[0]]``"},
		{"[[x]]` then", "`[[x]]` ` then"},
		{"inside `[[0]]` already", "inside `[[0]]` already"},
		{"a [[`tick`]] inside", "a ``[[`tick`]]`` inside"},
		{"``0[[`]]", "``0```[[`]]```"},
		{"```\n[[in a fence]]\n```\nafter [[x]]", "```\n[[in a fence]]\n```\nafter `[[x]]`"},
		{"~~~go\nm := [[2]]int{}\n", "~~~go\nm := [[2]]int{}\n"},
		{"not closed [[x", "not closed [[x"},
		{"across [[lines\n]] no", "across [[lines\n]] no"},
		{"[single] and [x](y)", "[single] and [x](y)"},
		{"", ""},
	}
	for _, tt := range tests {
		if got := literal(tt.in); got != tt.want {
			t.Errorf("literal(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// FuzzLiteral: literal only ever adds backticks and spaces, and is a no-op
// on its own output's brackets (each is in code once it has run).
func FuzzLiteral(f *testing.F) {
	for _, s := range []string{"[[a]] `[[b]]` ![[c]]", "```\n[[x]]\n", "`` [[`]] ``", "[[[[a]]]]", "!![[x]]]"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := literal(s)
		i := 0
		for j := 0; j < len(got); j++ {
			if i < len(s) && got[j] == s[i] {
				i++
				continue
			}
			if got[j] != '`' && got[j] != ' ' {
				t.Fatalf("literal(%q) = %q: changed more than backticks and spaces", s, got)
			}
		}
		if i != len(s) {
			t.Fatalf("literal(%q) = %q: dropped text", s, got)
		}
		if again := literal(got); again != got {
			t.Fatalf("literal is not stable on %q: %q then %q", s, got, again)
		}
	})
}
