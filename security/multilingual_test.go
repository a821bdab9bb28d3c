package security

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// multilingualDir holds the no-refusal corpus: ordinary developer prose in
// many languages and emoji sequences, each file one language, and the attacks
// that hide text with the same invisible characters (attacks.txt).
const multilingualDir = "../fixtures/multilingual"

// minLanguages is how many languages the corpus must cover (emoji.txt is not
// one).
const minLanguages = 20

// TestMultilingualNoRefusals scans every note of the multilingual corpus as
// save does (the content, then the title: its first line) and requires that
// none is refused. Persian needs the zero-width non-joiner, Sinhala,
// Bengali, Marathi and Malayalam the joiner, Khmer, Thai, Lao and Burmese the
// zero-width space, Hebrew and Arabic the directional marks, emoji their
// joiners, tags and selectors: the test also requires that the corpus holds
// each of them, so that it cannot pass on text that has none.
func TestMultilingualNoRefusals(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(multilingualDir, "*.txt"))
	if err != nil {
		t.Fatal(err)
	}
	files = slices.DeleteFunc(files, func(f string) bool { return filepath.Base(f) == "attacks.txt" })
	languages, notes, refused := 0, 0, 0
	seen := map[string]int{}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".txt")
		if name != "emoji" {
			languages++
		}
		samples := readSamples(t, f)
		if len(samples) < 2 {
			t.Errorf("%s: %d notes, want at least 2", name, len(samples))
		}
		for i, s := range samples {
			notes++
			countInvisibles(s, seen)
			title, _, _ := strings.Cut(s, "\n")
			for _, part := range []struct{ what, text string }{{"content", s}, {"title", title}} {
				if fs := Scan(part.text); len(fs) > 0 {
					fd := fs[0]
					refused++
					t.Errorf("%s note %d: %s refused: %v on %+q in %s", name, i+1, part.what, fd, part.text[fd.Start:fd.End], excerpt(part.text))
					break // one refusal per note
				}
			}
		}
	}
	t.Logf("multilingual corpus: %d languages, %d notes, %d refused", languages, notes, refused)
	if languages < minLanguages {
		t.Errorf("the corpus covers %d languages, want at least %d", languages, minLanguages)
	}
	for _, want := range []struct {
		what string
		min  int
	}{
		{"ZWNJ in a script", 20}, {"ZWNJ after a Latin word", 2}, {"ZWJ in a script", 15}, {"ZWJ in emoji", 30},
		{"ZWSP", 40}, {"LRM", 4}, {"RLM", 4}, {"ALM", 1}, {"BOM at the start", 1},
		{"tag flag", 3}, {"keycap", 5}, {"VS16", 20}, {"VS15", 2}, {"IVS", 1}, {"skin tone", 10}, {"regional indicator", 10},
	} {
		if seen[want.what] < want.min {
			t.Errorf("the corpus has %d of %s, want at least %d: it no longer tests what it is for", seen[want.what], want.what, want.min)
		}
	}
	if testing.Verbose() {
		var keys []string
		for k := range seen {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			t.Logf("  %-20s %d", k, seen[k])
		}
	}
}

// countInvisibles counts the characters the corpus is there to exercise.
func countInvisibles(s string, seen map[string]int) {
	if strings.HasPrefix(s, "\ufeff") {
		seen["BOM at the start"]++
	}
	prev := rune(-1)
	for i, r := range s {
		switch {
		case r == 0x200c && prev < utf8.RuneSelf:
			seen["ZWNJ after a Latin word"]++
		case r == 0x200c:
			seen["ZWNJ in a script"]++
		case r == 0x200d && isEmojiPart(prev):
			seen["ZWJ in emoji"]++
		case r == 0x200d:
			seen["ZWJ in a script"]++
		case r == 0x200b:
			seen["ZWSP"]++
		case r == 0x200e:
			seen["LRM"]++
		case r == 0x200f:
			seen["RLM"]++
		case r == 0x061c:
			seen["ALM"]++
		case r == 0xe007f && i > 0:
			seen["tag flag"]++
		case r == 0x20e3:
			seen["keycap"]++
		case r == 0xfe0f:
			seen["VS16"]++
		case r == 0xfe0e:
			seen["VS15"]++
		case r >= 0xe0100 && r <= 0xe01ef:
			seen["IVS"]++
		case r >= 0x1f3fb && r <= 0x1f3ff:
			seen["skin tone"]++
		case r >= 0x1f1e6 && r <= 0x1f1ff:
			seen["regional indicator"]++
		}
		prev = r
	}
}

// invisibleAttack is a line of attacks.txt: the rule that must catch the
// text, and the text.
type invisibleAttack struct {
	line int
	rule string
	text string
}

// readAttacks reads attacks.txt: "#" comment lines, blank lines, and lines
// "<rule> <text>" whose text is written as the inside of a Go string literal,
// so that every invisible character shows as an escape (\u200b).
func readAttacks(t *testing.T) []invisibleAttack {
	t.Helper()
	f, err := os.Open(filepath.Join(multilingualDir, "attacks.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []invisibleAttack
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		l := sc.Text()
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		rule, lit, ok := strings.Cut(l, " ")
		if !ok {
			t.Fatalf("attacks.txt:%d: want \"<rule> <text>\", got %q", n, l)
		}
		text, err := strconv.Unquote(`"` + lit + `"`)
		if err != nil {
			t.Fatalf("attacks.txt:%d: the text is not a Go string literal's inside: %v", n, err)
		}
		out = append(out, invisibleAttack{line: n, rule: rule, text: text})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestInvisibleAttacks requires that every attack of attacks.txt is refused
// by the rule it names: zero-width characters inside the words of an
// instruction or a command, runs of them, tag-character smuggling, Trojan
// Source reordering, variation-selector smuggling, directional marks that
// split Latin words. Many of them sit in the same scripts the no-refusal
// corpus uses, so the two tests together pin the line between them.
func TestInvisibleAttacks(t *testing.T) {
	attacks := readAttacks(t)
	if len(attacks) < 40 {
		t.Fatalf("attacks.txt has %d attacks, want at least 40", len(attacks))
	}
	known := map[string]bool{}
	for _, r := range Rules() {
		known[r.ID] = true
	}
	caught := 0
	for _, a := range attacks {
		t.Run(fmt.Sprintf("line%d", a.line), func(t *testing.T) {
			if !known[a.rule] {
				t.Fatalf("attacks.txt:%d names %s, which Rules does not list", a.line, a.rule)
			}
			fs := Scan(a.text)
			for _, f := range fs {
				checkFinding(t, a.text, f)
				if f.Rule == a.rule {
					caught++
					return
				}
			}
			t.Errorf("attacks.txt:%d: Scan(%+q) = %v, want a finding of %s", a.line, a.text, fs, a.rule)
		})
	}
	t.Logf("invisible-character attacks: caught %d/%d", caught, len(attacks))
}
