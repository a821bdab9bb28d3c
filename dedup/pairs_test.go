package dedup

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The labelled pairs of fixtures/dedup (see its README): a new memory, an old
// one, and whether the new one says nothing the old one does not (a
// duplicate). dev.json is what the rule was worked out on; holdout.json was
// written after, and measured as it came.

type fixtureSide struct {
	Title string `json:"title"`
	Body  string `json:"body"`
	From  string `json:"from"`
}

// text is the side as the callers fingerprint a memory: title, new line,
// content.
func (s fixtureSide) text() string { return s.Title + "\n" + s.Body }

type fixturePair struct {
	ID        string      `json:"id"`
	Kind      string      `json:"kind"`
	Duplicate bool        `json:"duplicate"`
	Why       string      `json:"why"`
	New       fixtureSide `json:"new"`
	Old       fixtureSide `json:"old"`
}

var fixtureFiles = []string{"dev.json", "holdout.json"}

func loadPairs(t testing.TB, name string) []fixturePair {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "fixtures", "dedup", name))
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Sources map[string]struct {
			Repository string `json:"repository"`
			Licence    string `json:"licence"`
		} `json:"sources"`
		Pairs []fixturePair `json:"pairs"`
	}
	if err := json.Unmarshal(data, &f); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	// Every side says where it comes from: this set, or a source of the file
	// with its licence ("paraphrase of docker-cli:docs/…").
	for _, p := range f.Pairs {
		for _, s := range []fixtureSide{p.New, p.Old} {
			ok := s.From == "written for this set"
			for key, src := range f.Sources {
				ok = ok || strings.Contains(s.From, key+":") && src.Repository != "" && src.Licence != ""
			}
			if !ok {
				t.Errorf("%s: %s: a side from %q, not a source of the file with its licence", name, p.ID, s.From)
			}
		}
	}
	return f.Pairs
}

// decision is what a threshold decides on a pair's score.
type decision struct {
	name    string
	refuses func(s float64) bool
}

// confusion counts a decision's outcomes, by kind of pair.
type confusion struct {
	tp, fp, fn, tn int
	kinds          map[string]*[2]int // pairs, refused
	wrong          []string
}

func (c *confusion) add(p fixturePair, s float64, refused bool) {
	if c.kinds == nil {
		c.kinds = map[string]*[2]int{}
	}
	k := c.kinds[p.Kind]
	if k == nil {
		k = &[2]int{}
		c.kinds[p.Kind] = k
	}
	k[0]++
	if refused {
		k[1]++
	}
	switch {
	case refused && p.Duplicate:
		c.tp++
	case refused:
		c.fp++
		c.wrong = append(c.wrong, fmt.Sprintf("refused a distinct memory: %s (%.2f; %s)", p.ID, s, p.Why))
	case p.Duplicate:
		c.fn++
		c.wrong = append(c.wrong, fmt.Sprintf("kept a repeat: %s (%.2f; %s)", p.ID, s, p.Why))
	default:
		c.tn++
	}
}

func (c *confusion) precision() float64 { return float64(c.tp) / float64(c.tp+c.fp) }
func (c *confusion) recall() float64    { return float64(c.tp) / float64(c.tp+c.fn) }

// TestDuplicatePairs is the report: for each file, the pairs of each kind and
// how many the save (and import) threshold refuses, with the precision and
// recall of the duplicate decision; and the mined decision (skip above
// MinedSkip) for comparison. Run with -v for the table. A distinct memory
// refused is the costly error (it is lost), so precision has the higher
// floor.
func TestDuplicatePairs(t *testing.T) {
	th := DefaultThresholds()
	decisions := []decision{
		{"save/import", func(s float64) bool { return s >= th.Duplicate }},
		{"mined skip", func(s float64) bool { return s > th.MinedSkip }},
	}
	var all [2]confusion
	var b strings.Builder
	for _, name := range fixtureFiles {
		var byFile [2]confusion
		for _, p := range loadPairs(t, name) {
			s := Score(New(p.New.text()), New(p.Old.text()))
			for i, d := range decisions {
				byFile[i].add(p, s, d.refuses(s))
				all[i].add(p, s, d.refuses(s))
			}
		}
		c := byFile[0]
		fmt.Fprintf(&b, "\n%s, refused at the save threshold (%g):\n%-12s %-9s %5s %7s\n", name, th.Duplicate, "kind", "label", "pairs", "refused")
		kinds := make([]string, 0, len(c.kinds))
		for k := range c.kinds {
			kinds = append(kinds, k)
		}
		slices.Sort(kinds)
		for _, k := range kinds {
			label := "distinct"
			if c.kinds[k][0] > 0 && isDuplicateKind(k) {
				label = "duplicate"
			}
			fmt.Fprintf(&b, "%-12s %-9s %5d %7d\n", k, label, c.kinds[k][0], c.kinds[k][1])
		}
		for i, d := range decisions {
			fmt.Fprintf(&b, "%s, %s: precision %.3f, recall %.3f (%d repeats refused, %d distinct refused, %d repeats kept, %d distinct kept)\n",
				name, d.name, byFile[i].precision(), byFile[i].recall(), byFile[i].tp, byFile[i].fp, byFile[i].fn, byFile[i].tn)
		}
		for _, w := range c.wrong {
			fmt.Fprintf(&b, "  %s\n", w)
		}
		if c.precision() < 0.95 || c.recall() < 0.9 {
			t.Errorf("%s: precision %.3f, recall %.3f at the save threshold; want at least 0.95 and 0.9", name, c.precision(), c.recall())
		}
	}
	fmt.Fprintf(&b, "\nall pairs, save/import: precision %.3f, recall %.3f; mined skip: precision %.3f, recall %.3f\n",
		all[0].precision(), all[0].recall(), all[1].precision(), all[1].recall())
	t.Log(b.String())
	if all[0].precision() < 0.95 || all[0].recall() < 0.9 {
		t.Errorf("all pairs: precision %.3f, recall %.3f; want at least 0.95 and 0.9", all[0].precision(), all[0].recall())
	}
}

func isDuplicateKind(k string) bool {
	switch k {
	case "exact", "paraphrase", "abbreviation", "addition", "summary":
		return true
	}
	return false
}

// TestPairLabels keeps the kinds and labels of the set consistent, so that
// the table means what it says.
func TestPairLabels(t *testing.T) {
	ids := map[string]bool{}
	for _, name := range fixtureFiles {
		for _, p := range loadPairs(t, name) {
			if ids[p.ID] {
				t.Errorf("%s: %s twice", name, p.ID)
			}
			ids[p.ID] = true
			if p.Duplicate != isDuplicateKind(p.Kind) {
				t.Errorf("%s: %s is a %s pair labelled duplicate=%v", name, p.ID, p.Kind, p.Duplicate)
			}
		}
	}
	if len(ids) < 200 {
		t.Errorf("%d pairs, want at least 200", len(ids))
	}
}

// TestFixtureTextsAgreeWithThemselves: every text of the set, real
// documentation with tables, code blocks, links and shortcuts, scores 1 against
// itself: its key words are read the same way as its words, so nothing
// conflicts with itself.
func TestFixtureTextsAgreeWithThemselves(t *testing.T) {
	for _, name := range fixtureFiles {
		for _, p := range loadPairs(t, name) {
			for _, s := range []fixtureSide{p.New, p.Old} {
				if c := Compare(New(s.text()), New(s.text())); c.Score != 1 {
					t.Errorf("%s: %q against itself: %+v", p.ID, s.Title, c)
				}
			}
		}
	}
}
