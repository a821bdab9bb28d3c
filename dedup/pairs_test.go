package dedup

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

type fixtureSide struct {
	Title string `json:"title"`
	Body  string `json:"body"`
	From  string `json:"from"`
}

func (s fixtureSide) text() string { return s.Title + "\n" + s.Body }

type fixturePair struct {
	ID        string      `json:"id"`
	Kind      string      `json:"kind"`
	Duplicate bool        `json:"duplicate"`
	Why       string      `json:"why"`
	New       fixtureSide `json:"new"`
	Old       fixtureSide `json:"old"`
}

func loadPairs(t *testing.T, name string) []fixturePair {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "fixtures", "dedup", name))
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Pairs []fixturePair `json:"pairs"`
	}
	if err := json.Unmarshal(data, &f); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return f.Pairs
}

func TestDuplicatePairs(t *testing.T) {
	th := DefaultThresholds()
	for _, name := range []string{"dev.json", "holdout.json"} {
		pairs := loadPairs(t, name)
		type row struct {
			n, refused int
			dup        bool
		}
		kinds := map[string]*row{}
		var tp, fp, fn int
		for _, p := range pairs {
			s := Compare(New(p.New.text()), New(p.Old.text()))
			refused := s.Score >= th.Duplicate
			r := kinds[p.Kind]
			if r == nil {
				r = &row{dup: p.Duplicate}
				kinds[p.Kind] = r
			}
			r.n++
			if refused {
				r.refused++
			}
			switch {
			case refused && p.Duplicate:
				tp++
			case refused && !p.Duplicate:
				fp++
				t.Logf("refused a distinct memory: %s (%.2f: %s)", p.ID, s.Score, p.Why)
			case !refused && p.Duplicate:
				fn++
				t.Logf("kept a duplicate: %s (%.2f: %s)", p.ID, s.Score, p.Why)
			}
		}
		var names []string
		for k := range kinds {
			names = append(names, k)
		}
		sort.Strings(names)
		var b strings.Builder
		for _, k := range names {
			r := kinds[k]
			fmt.Fprintf(&b, "%-14s dup=%-5v %3d pairs, %3d refused\n", k, r.dup, r.n, r.refused)
		}
		prec, rec := float64(tp)/float64(tp+fp), float64(tp)/float64(tp+fn)
		t.Logf("%s:\n%sprecision %.3f, recall %.3f", name, b.String(), prec, rec)
	}
}
