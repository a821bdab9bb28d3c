package security

import (
	"cmp"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"
)

// fuzzSeeds are the corpus samples, the rule vectors and the redaction
// vectors: texts that reach deep into every rule.
func fuzzSeeds(t *testing.T) []string {
	t.Helper()
	seeds := append(readCorpus(t, "malicious.txt"), readCorpus(t, "benign.txt")...)
	for _, rv := range ruleVectors {
		for _, v := range rv.positives {
			seeds = append(seeds, v.text)
		}
		seeds = append(seeds, rv.negatives...)
	}
	for _, tt := range redactTests {
		seeds = append(seeds, tt.in)
	}
	files, err := filepath.Glob(filepath.Join(multilingualDir, "*.txt"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if filepath.Base(f) != "attacks.txt" {
			seeds = append(seeds, readSamples(t, f)...)
		}
	}
	for _, a := range readAttacks(t) {
		seeds = append(seeds, a.text)
	}
	return seeds
}

// checkScan checks the properties every result of Scan or ScanCredentials
// has: findings inside the text, on rune boundaries, with the right line and
// category, sorted by Start then Rule, and those of one rule not overlapping.
func checkScan(t *testing.T, text string, fs []Finding) {
	t.Helper()
	for i, f := range fs {
		checkFinding(t, text, f)
		if i == 0 {
			continue
		}
		p := fs[i-1]
		if cmp.Or(cmp.Compare(p.Start, f.Start), strings.Compare(p.Rule, f.Rule)) > 0 {
			t.Errorf("findings %v [%d,%d) and %v [%d,%d) are out of order", p, p.Start, p.End, f, f.Start, f.End)
		}
	}
	byRule := slices.Clone(fs)
	slices.SortStableFunc(byRule, func(a, b Finding) int { return strings.Compare(a.Rule, b.Rule) })
	for i := 1; i < len(byRule); i++ {
		if p, f := byRule[i-1], byRule[i]; p.Rule == f.Rule && f.Start < p.End {
			t.Errorf("findings of %s overlap: [%d,%d) and [%d,%d)", f.Rule, p.Start, p.End, f.Start, f.End)
		}
	}
}

// checkRedact checks the properties of Redact(text): the output is the input
// with each returned finding replaced by its marker and every other byte
// kept, in order; it holds no credential; redacting it again changes nothing;
// a text without credentials comes back as it was.
func checkRedact(t *testing.T, text string) {
	t.Helper()
	out, fs := Redact(text)
	checkScan(t, text, fs)
	var want strings.Builder
	at := 0
	for _, f := range fs {
		if f.Category != CategoryCredential {
			t.Errorf("Redact replaced %v, which is not a credential", f)
		}
		if f.Start < at || f.End > len(text) {
			t.Errorf("Redact returned %v [%d,%d) overlapping the one before or outside the text", f, f.Start, f.End)
			return
		}
		want.WriteString(text[at:f.Start])
		want.WriteString(redactedPrefix + f.Rule + "]")
		at = f.End
	}
	want.WriteString(text[at:])
	if out != want.String() {
		t.Errorf("Redact(%q) = %q, want the input with its %d findings replaced: %q", text, out, len(fs), want.String())
	}
	if left := ScanCredentials(out); len(left) > 0 {
		t.Errorf("Redact(%q) = %q, which still has credential findings %v", text, out, left)
	}
	again, more := Redact(out)
	if again != out || len(more) > 0 {
		t.Errorf("Redact is not idempotent: Redact(%q) = %q, %v", out, again, more)
	}
	if len(ScanCredentials(text)) == 0 && (out != text || len(fs) > 0) {
		t.Errorf("Redact(%q) = %q, %v, want the text unchanged: it has no credential", text, out, fs)
	}
}

func FuzzScan(f *testing.F) {
	for _, s := range fuzzSeeds(&testing.T{}) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		fs := Scan(text)
		checkScan(t, text, fs)
		if diff := gocmp.Diff(fs, Scan(text)); diff != "" {
			t.Errorf("Scan(%q) is not deterministic (-first +second):\n%s", text, diff)
		}
		creds := ScanCredentials(text)
		checkScan(t, text, creds)
		for _, c := range creds {
			if c.Category != CategoryCredential {
				t.Errorf("ScanCredentials(%q) returned %v, not a credential", text, c)
			}
			if !slices.Contains(fs, c) {
				t.Errorf("ScanCredentials(%q) found %v [%d,%d), which Scan did not", text, c, c.Start, c.End)
			}
		}
	})
}

func FuzzRedact(f *testing.F) {
	for _, s := range fuzzSeeds(&testing.T{}) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		checkRedact(t, text)
	})
}
