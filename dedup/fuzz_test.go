package dedup

import (
	"slices"
	"testing"
	"unicode"
	"unicode/utf8"
)

// FuzzTokens checks the invariants of the tokens and the score on any text:
// no panic; tokens are non-empty, lower-case, letters and digits (and marks
// after the first rune); tokenising two texts joined by a space gives the
// tokens of each; a text with a token scores 1 against itself (its key words
// agree with its words: no conflict with itself); every word of a text is in
// the text with another one after it; Score is in [0,1].
func FuzzTokens(f *testing.F) {
	for _, p := range duplicatePairs[:12] {
		f.Add(p.newer, p.old)
	}
	for _, s := range []string{
		"", " ", "pkg.Func snake_case", "日本語のテキスト", "Привет мир", "e\u0301cole \u0301x",
		"ΣΊΣΥΦΟΣ", "İ", "ab\xffcd\xe3\x81", "🚀🎉", "the of and", "Note: x. y!\nz", "हिन्दी",
		// Key words: code spans and blocks, pipes, links, negations, numbers
		// next to other scripts, opposites after a verb.
		"Run `docker café run -f x` and `make lint`", "```console\n$ docker plugin ls | grep x\nID  NAME\n```",
		"| `-f` | `bool` | Force the disable |", "See [`docker plugin install`](plugin_install.md). [[S:turn1]] [[a|b]]",
		"It doesn't export the contents; can't, won't, instead of X, without Y.", "数据库20个 `5s` 三 five v2.0 ~/.ssh/id_ed25519",
		"Turn autolock off.\nLog in. Scale up", "/run:rw,noexec,size=65536k e.g. read/write macOS/Linux useQuery REDIS_URL",
		"Ünïcödé `ßtraße_ok x` É `école-x`", "``` \n` a ``b`` c",
	} {
		f.Add(s, "Redis caches sessions")
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		ta, tb := Tokens(a), Tokens(b)
		for _, tok := range ta {
			checkToken(t, tok)
		}
		if got, want := Tokens(a+" "+b), slices.Concat(ta, tb); !slices.Equal(got, want) {
			t.Fatalf("Tokens(a+\" \"+b) = %q, want Tokens(a), Tokens(b) = %q", got, want)
		}

		fa, fb := New(a), New(b)
		if fa.Empty() != (len(ta) == 0) {
			t.Fatalf("New(%q).Empty() = %v with %d tokens", a, fa.Empty(), len(ta))
		}
		if self := Score(fa, New(a)); len(ta) > 0 && self != 1 || len(ta) == 0 && self != 0 {
			t.Fatalf("Score(a, a) = %v with %d tokens", self, len(ta))
		}
		if self := Compare(fa, New(a)); len(ta) > 0 && self.Conflict != "" {
			t.Fatalf("a conflicts with itself: %+v", self)
		}
		for _, ab := range []float64{Score(fa, fb), Score(fb, fa)} {
			if !(ab >= 0 && ab <= 1) {
				t.Fatalf("Score = %v, not in [0,1]", ab)
			}
		}
		if joined := Compare(fa, New(a+"\n\n"+b)); len(build(a, false).words) > 0 && joined.Words != 1 {
			t.Fatalf("a against a and b: words %v, want 1", joined.Words)
		}

		terms := QueryTerms(a, b, 8)
		if len(terms) > 8 {
			t.Fatalf("QueryTerms gave %d terms, asked for 8", len(terms))
		}
		seen := map[string]bool{}
		for _, term := range terms {
			if seen[term] {
				t.Fatalf("QueryTerms repeats %q: %q", term, terms)
			}
			seen[term] = true
		}
	})
}

func checkToken(t *testing.T, tok string) {
	t.Helper()
	if tok == "" || !utf8.ValidString(tok) {
		t.Fatalf("token %q is empty or not UTF-8", tok)
	}
	for i, r := range tok {
		switch {
		case unicode.ToLower(r) != r || r == 'ς':
			t.Fatalf("token %q is not lower case at %q", tok, r)
		case unicode.IsLetter(r) || unicode.IsDigit(r):
		case i > 0 && unicode.Is(unicode.M, r):
		default:
			t.Fatalf("token %q has %q (%U), not a letter or digit", tok, r, r)
		}
	}
}
