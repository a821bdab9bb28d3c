package security

import (
	"encoding/base64"
	"math"
	"regexp"
	"strings"
	"sync"
	"unicode/utf8"
)

// redactedPrefix starts every redaction marker.
const redactedPrefix = "[REDACTED:"

// entropy is the Shannon entropy of s in bits per byte. Random keys over a
// 62-character alphabet score above 4.5 at length 40 and above 3.5 at length 12;
// words and identifiers score lower.
func entropy(s string) float64 {
	if s == "" {
		return 0
	}
	var counts [256]int
	for i := 0; i < len(s); i++ {
		counts[s[i]]++
	}
	n := float64(len(s))
	h := 0.0
	for _, c := range counts {
		if c > 0 {
			p := float64(c) / n
			h -= p * math.Log2(p)
		}
	}
	return h
}

// placeholderWords mark a value as an example rather than a secret. They are
// compared with the folded value.
var placeholderWords = []string{
	"xxxx", "****", "....", "<", ">", "${", "$(", "{{", "}}", "%(", "%s",
	"your", "example", "placeholder", "changeme", "change_me", "change-me",
	"redacted", "dummy", "sample", "insert", "replace", "fixme", "todo",
	"fake", "test", "secret_here", "token_here", "key_here", "here",
	"password", "passwd", "secret", "mytoken", "mykey", "foobar", "foo", "bar",
	"...", "…", "0000", "1234", "abcd",
}

// isPlaceholder reports whether a value is an example, a template or a
// reference to a secret held elsewhere rather than the secret itself.
func isPlaceholder(v string) bool {
	f := foldString(v)
	for _, w := range placeholderWords {
		if strings.Contains(f, w) {
			return true
		}
	}
	return isReference(f) || isRepeated(f)
}

// isReference reports whether a folded value names where a secret lives: an
// environment or template variable, a secrets-manager path, a function call, a
// member of a configuration object.
func isReference(f string) bool {
	if f == "" {
		return true
	}
	switch f[0] {
	case '$', '%', '{', '[', '(', '@', '&', '*', '!':
		return true
	}
	for _, w := range []string{"env.", "environ", "getenv", "secrets.", "vault:", "vault.", "ref+", "arn:", "ssm:", "(", "config.", "settings.", "self.", "this.", "process."} {
		if strings.Contains(f, w) {
			return true
		}
	}
	return false
}

// isRepeated reports a value of one repeated character, or of a run such as
// 123456789 or abcdefgh.
func isRepeated(f string) bool {
	same, run := true, true
	for i := 1; i < len(f); i++ {
		same = same && f[i] == f[0]
		run = run && f[i] == f[i-1]+1
	}
	return same || run
}

func hasDigit(s string) bool  { return strings.ContainsAny(s, "0123456789") }
func hasLetter(s string) bool { return strings.IndexFunc(s, isASCIILetter) >= 0 }

func isASCIILetter(r rune) bool { return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' }

// randomLooking reports a value that is long enough and varied enough to be a
// generated key: letters and digits mixed, and entropy of at least min bits.
func randomLooking(v string, min float64) bool {
	return hasDigit(v) && hasLetter(v) && entropy(v) >= min && !isPlaceholder(v)
}

// entropyAtLeast builds a check that drops findings below min bits per byte,
// and placeholders.
func entropyAtLeast(min float64) func(string, int, int) (int, int, bool) {
	return func(text string, start, end int) (int, int, bool) {
		v := text[start:end]
		return start, end, entropy(v) >= min && !isPlaceholder(v)
	}
}

// notExample drops the placeholder keys that vendors print in their
// documentation (AKIAIOSFODNN7EXAMPLE and the like).
func notExample(text string, start, end int) (int, int, bool) {
	v := foldString(text[start:end])
	return start, end, !strings.Contains(v, "example") && !isRepeated(v[len(v)/2:])
}

// decodeBase64 decodes standard or URL-safe base64, padded or not.
func decodeBase64(s string) ([]byte, bool) {
	s = strings.TrimRight(s, "=")
	for _, enc := range []*base64.Encoding{base64.RawURLEncoding, base64.RawStdEncoding} {
		if b, err := enc.DecodeString(s); err == nil {
			return b, true
		}
	}
	return nil, false
}

// sep is the flexible gap between the words of a phrase: white space (with
// no-break space) and markdown emphasis.
const sep = `[\s\x{a0}*_~]+`

// words turns a phrase written with single spaces into a pattern whose words
// may be separated by any sep.
func words(p string) string {
	return strings.ReplaceAll(p, " ", sep)
}

func utf8DecodeLast(s string) (rune, int) { return utf8.DecodeLastRuneInString(s) }

// lazyRE compiles a helper expression on first use, like the rule table.
func lazyRE(pattern string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(pattern) })
}
