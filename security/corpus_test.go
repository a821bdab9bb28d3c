package security

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// maxFalsePositiveRate is the share of benign notes Scan may reject.
const maxFalsePositiveRate = 0.01

// readCorpus loads a corpus file: samples separated by lines that are exactly
// "%%", after a leading block of "#" comment lines. A "#" line later in the
// file is content (a markdown heading).
func readCorpus(t *testing.T, name string) []string {
	t.Helper()
	return readSamples(t, filepath.Join("testdata", "corpus", name))
}

// readSamples reads a file in the corpus format (see readCorpus).
func readSamples(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("reading corpus: %v", err)
	}
	lines := strings.Split(strings.ReplaceAll(string(b), "\r\n", "\n"), "\n")
	i := 0
	for i < len(lines) && strings.HasPrefix(lines[i], "#") {
		i++
	}
	var (
		samples []string
		cur     []string
	)
	flush := func() {
		s := strings.Trim(strings.Join(cur, "\n"), "\n")
		if strings.TrimSpace(s) != "" {
			samples = append(samples, s)
		}
		cur = cur[:0]
	}
	for _, l := range lines[i:] {
		if l == "%%" {
			flush()
			continue
		}
		cur = append(cur, l)
	}
	flush()
	return samples
}

func excerpt(s string) string {
	s = strings.ReplaceAll(s, "\n", "⏎")
	if r := []rune(s); len(r) > 110 {
		s = string(r[:110]) + "…"
	}
	return s
}

// TestCorpus runs Scan over the hand-written corpus: every malicious sample
// must be caught, and at most 1% of the benign ones may be. Both rates are
// printed (go test -v -run Corpus).
func TestCorpus(t *testing.T) {
	malicious := readCorpus(t, "malicious.txt")
	benign := readCorpus(t, "benign.txt")
	if len(malicious) < 150 || len(benign) < 400 {
		t.Fatalf("corpus too small: %d malicious (want ≥ 150), %d benign (want ≥ 400)", len(malicious), len(benign))
	}

	var missed []string
	for i, s := range malicious {
		if len(Scan(s)) == 0 {
			missed = append(missed, fmt.Sprintf("malicious #%d: %s", i+1, excerpt(s)))
		}
	}
	var flagged []string
	for i, s := range benign {
		if fs := Scan(s); len(fs) > 0 {
			f := fs[0]
			flagged = append(flagged, fmt.Sprintf("benign #%d: %s %q in %s", i+1, f, s[f.Start:f.End], excerpt(s)))
		}
	}
	caught := len(malicious) - len(missed)
	fpRate := float64(len(flagged)) / float64(len(benign))
	summary := fmt.Sprintf("corpus: caught %d/%d malicious (%.1f%%), false positives %d/%d benign (%.2f%%)",
		caught, len(malicious), 100*float64(caught)/float64(len(malicious)), len(flagged), len(benign), 100*fpRate)
	t.Log(summary)
	if testing.Verbose() {
		fmt.Println(summary)
	}
	for _, m := range missed {
		t.Errorf("missed %s", m)
	}
	for _, f := range flagged {
		t.Logf("false positive %s", f)
	}
	if fpRate > maxFalsePositiveRate {
		t.Errorf("false-positive rate %.2f%% is over %.0f%%", 100*fpRate, 100*maxFalsePositiveRate)
	}
}
