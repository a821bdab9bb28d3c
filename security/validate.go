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

// longRandom is the length from which a value may be a generated key, in
// which a short placeholder word turns up by chance: about one random
// 40-character key in 300 holds "foo", "bar", "abcd", "test"… somewhere.
const longRandom = 16

// isPlaceholder reports whether a value is an example, a template or a
// reference to a secret held elsewhere rather than the secret itself. In a
// long value a placeholder word of four letters or fewer counts only as a
// word of its own, between punctuation or the ends ("my-test-key",
// "YOUR_TOKEN"), not inside a run of letters and digits, where chance puts it.
func isPlaceholder(v string) bool {
	f := foldString(v)
	for _, w := range placeholderWords {
		if len(w) > 4 || !isAlnum(w[0]) || len(f) < longRandom {
			for i := 0; ; {
				j := strings.Index(f[i:], w)
				if j < 0 {
					break
				}
				if j += i; oneCase(v[j : j+len(w)]) {
					return true
				}
				i = j + 1
			}
			continue
		}
		for i := 0; ; {
			j := strings.Index(f[i:], w)
			if j < 0 {
				break
			}
			j += i
			if k := j + len(w); !oneCase(v[j:k]) {
				// "BaR" inside "HWBaR!607": a typed word is written in
				// one case, or capitalised.
				i = j + 1
				continue
			}
			if k := j + len(w); (j == 0 || !isAlnum(f[j-1])) && (k == len(f) || !isAlnum(f[k])) {
				if w == "test" && testModeKey(f, j, k) {
					// duffel_test_…, FLWSECK_TEST-…: a payment vendor's
					// test-mode key is still a key.
					i = j + 1
					continue
				}
				return true
			}
			i = j + 1
		}
	}
	return isReference(f) || isRepeated(f)
}

// oneCase reports whether a word is written in lower case, in upper case
// or capitalised.
func oneCase(w string) bool {
	rest := w
	if len(w) > 0 {
		rest = w[1:]
	}
	return w == strings.ToLower(w) || w == strings.ToUpper(w) || rest == strings.ToLower(rest)
}

// testModeKey reports whether the word "test" at f[j:k] marks the mode of a
// key rather than a made-up value: what follows it holds a long random run.
func testModeKey(f string, j, k int) bool {
	run := 0
	for i := k; i <= len(f); i++ {
		if i < len(f) && (isAlnum(f[i]) || f[i] == '_' || f[i] == '-' || f[i] == '=') {
			run++
			continue
		}
		if run >= longRandom && randomEnough(strings.Trim(f[i-run:i], "_-="), 3.0) && hasDigit(f[i-run:i]) {
			return true
		}
		run = 0
	}
	return false
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

// isRepeated reports a value typed by running along the keyboard rather than
// drawn at random: one character repeated, a short pattern repeated
// ("abcd1234abcd1234"), or mostly runs such as 123456789 and abcdef
// ("1234567890abcdef").
func isRepeated(f string) bool {
	if len(f) < 2 {
		return true
	}
	up := 0
	for i := 1; i < len(f); i++ {
		if f[i] == f[i-1]+1 {
			up++
		}
	}
	if 4*up >= 3*(len(f)-1) {
		return true
	}
	for p := 1; p <= len(f)/2 && p <= 16; p++ {
		if f[p:] == f[:len(f)-p] {
			return true
		}
	}
	return false
}

func hasDigit(s string) bool  { return strings.ContainsAny(s, "0123456789") }
func hasLetter(s string) bool { return strings.IndexFunc(s, isASCIILetter) >= 0 }

func isASCIILetter(r rune) bool { return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' }

// randomLooking reports a value that is long enough and varied enough to be a
// generated key: letters and digits mixed, and random enough (randomEnough).
func randomLooking(v string, min float64) bool {
	return hasDigit(v) && hasLetter(v) && randomEnough(v, min) && !isPlaceholder(v) && !mostlyRuns(v)
}

// randomEnough reports whether v has min bits of entropy per byte, or three
// quarters of what its alphabet and length allow when that is less: 32 random
// hex digits score about 3.7 (never more than 4), and one in five scores under
// 3.5; twelve characters score at most 3.58.
func randomEnough(v string, min float64) bool {
	alphabet := 64.0
	switch {
	case isHex(v):
		alphabet = 16
	case strings.ToLower(v) == v || strings.ToUpper(v) == v:
		alphabet = 36
	}
	return entropy(v) >= math.Min(min, 0.75*math.Log2(math.Min(float64(len(v)), alphabet)))
}

func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i] | 0x20; !('0' <= s[i] && s[i] <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return s != ""
}

// entropyAtLeast builds a check that drops findings that are not random
// enough (randomEnough), and placeholders.
func entropyAtLeast(min float64) func(string, int, int) (int, int, bool) {
	return func(text string, start, end int) (int, int, bool) {
		v := text[start:end]
		return start, end, randomEnough(v, min) && !isPlaceholder(v)
	}
}

// isFiller reports a string that has a key's shape but was typed rather than
// generated: a character or a short pattern repeated ("ghp_xxxx…",
// "dapi0000…", "EAAAAAAA…"), or x's standing for the secret
// ("…/B00000000/XXXXXXXX…"). Generated keys score well above three bits per
// byte, even in hex (32 random hex digits score about 3.7).
func isFiller(v string) bool {
	return entropy(v) < 3.0 || strings.Contains(v, "xxxxx") || strings.Contains(v, "XXXXX") ||
		strings.Contains(foldString(v), "example")
}

// mostlyRuns reports a value typed along the keyboard in stretches
// ("abc123xyz-456def789ghij-klmnop…"): at least two in five of its
// neighbouring letters or digits follow each other (a→b, 4→5). In a random
// key over 62 characters about one pair in sixty does.
func mostlyRuns(v string) bool {
	pairs, up := 0, 0
	f := foldString(v)
	for i := 1; i < len(f); i++ {
		if isAlnum(f[i]) && isAlnum(f[i-1]) {
			pairs++
			if f[i] == f[i-1]+1 {
				up++
			}
		}
	}
	return pairs >= longRandom && 5*up >= 2*pairs
}

// isWordName reports a value made of words of one case joined by _ - or .,
// such as MY_PERSONAL_ACCESS_TOKEN or access-token-here: the name of a secret
// written where its value goes. A generated key mixes cases or has digits.
func isWordName(v string) bool {
	upper, lower := false, false
	for i := 0; i < len(v); i++ {
		switch c := v[i]; {
		case 'a' <= c && c <= 'z':
			lower = true
		case 'A' <= c && c <= 'Z':
			upper = true
		case c == '_' || c == '-' || c == '.':
		default:
			return false
		}
	}
	return upper != lower
}

// documentedKey reports the keys that vendors print in their documentation and
// tools ship as defaults: they open nothing. Each is split so that no secret
// scanner flags this file. A switch rather than a map, which would be built
// at every start of every command.
func documentedKey(s string) bool {
	switch s {
	// jwt.io's sample token, signed with "your-256-bit-secret".
	case "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9" + "." + "eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ" +
		"." + "SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c":
		return true
	// The test-mode key of Stripe's API reference.
	case "sk_test_" + "4eC39HqLyjWDarjtT1zdp7dc":
		return true
	// The example API keys of Firebase's Android SDK (firebase-android-sdk),
	// which gitleaks allows too.
	case "AI" + "za" + "Syabcdefghijklmnopqrstuvwxyz1234567",
		"AI" + "za" + "SyAnLA7NfeLquW1tJFpx_eQCxoX-oo6YyIs",
		"AI" + "za" + "SyCkEhVjf3pduRDt6d1yKOMitrUEke8agEM",
		"AI" + "za" + "SyDMAScliyLx7F0NPDEJi1QmyCgHIAODrlU",
		"AI" + "za" + "SyD3asb-2pEZVqMkmL6M9N6nHZRR_znhrh0",
		"AI" + "za" + "yDNSXIbFmlXbIE6mCzDLQAqITYefhixbX4A",
		"AI" + "za" + "SyAdOS2zB6NCsk1pCdZ4-P6GBdi_UUPwX7c",
		"AI" + "za" + "SyASWm6HmTMdYWpgMnjRBjxcQ9CKctWmLd4",
		"AI" + "za" + "SyANUvH9H9BsUccjsu2pCmEkOPjjaXeDQgY",
		"AI" + "za" + "SyA5_iVawFQ8ABuTZNUdcwERLJv_a_p4wtM",
		"AI" + "za" + "SyA4UrcGxgwQFTfaI3no3t7Lt1sjmdnP5sQ",
		"AI" + "za" + "SyDSb51JiIcB6OJpwwMicseKRhhrOq1cS7g",
		"AI" + "za" + "SyBF2RrAIm4a0mO64EShQfqfd2AFnzAvvuU",
		"AI" + "za" + "SyBcE-OOIbhjyR83gm4r2MFCu4MJmprNXsw",
		"AI" + "za" + "SyB8qGxt4ec15vitgn44duC5ucxaOi4FmqE",
		"AI" + "za" + "SyA8vmApnrHNFE0bApF4hoZ11srVL_n0nvY":
		return true
	// The search-only Algolia key of the npm-search index that every release
	// of Yarn 4 bundles (yarnpkg/berry#6201), public by design.
	case "6fe4476ee5a1" + "832882e326b5" + "06d14126":
		return true
	// The example passwords of NuGet's nuget.config reference, which
	// gitleaks allows too.
	case "33f!!" + "lloppa",
		"hal+9ooo" + "_da!sY":
		return true
	// The team token of HashiCorp's Terraform API documentation (sample
	// response of the team token endpoint).
	case "QnbSxjjhVMHJgw" + ".atlasv1." + "gxZnWIjI5j752DGqdwEUVLOFf0mtyaQ00H9bA1j90qWb254lEkQyOdfqqcq9zZL7Sm0":
		return true
	// The account key of the Azure Storage emulator (Azurite), devstoreaccount1.
	case "Eby8vdM02xNOcqFlqUwJPLlmEtlCDX" + "J1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/" + "K1SZFPTOtr/KBHBeksoGMGw==":
		return true
	}
	return false
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
// no-break space), markdown emphasis, and the invisible characters that can
// sit between words (zero-width space, joiners, directional marks, word
// joiner; see invisibleGap).
const sep = `[\s\x{a0}\x{200b}-\x{200f}\x{2060}\x{061c}*_~]+`

// words turns a phrase written with single spaces into a pattern whose words
// may be separated by any sep.
func words(p string) string {
	return strings.ReplaceAll(p, " ", sep)
}

func utf8DecodeLast(s string) (rune, int) { return utf8.DecodeLastRuneInString(s) }

// lazyRE compiles a helper expression on first use, like the rule table.
// lazyRE is a helper expression compiled on first use, like the rule
// table. Declared as a composite literal (a constant pattern, or a build
// function without captured variables), it costs nothing at start-up:
// the linker lays it out, and no command that never scans pays for it.
type lazyRE struct {
	once    sync.Once
	pattern string
	build   func() string // when set, makes the pattern
	re      *regexp.Regexp
}

// get compiles the expression on first use. The patterns are checked by
// the package's tests; a bad one panics as MustCompile does.
func (l *lazyRE) get() *regexp.Regexp {
	l.once.Do(func() {
		p := l.pattern
		if l.build != nil {
			p = l.build()
		}
		l.re = regexp.MustCompile(p)
	})
	return l.re
}
