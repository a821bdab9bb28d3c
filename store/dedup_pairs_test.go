package store_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cortexmem/cortex/importer"
	"github.com/cortexmem/cortex/memories"
)

// The labelled pairs of fixtures/dedup (see its README) through the real save
// and import paths: the index proposing the candidates, the thresholds, the
// pool of an import's earlier memories. Each pair gets a project of its own,
// so that pairs never meet. The decision measured is whether the new memory is
// refused as a duplicate of the old one.

type dedupSide struct {
	Title string `json:"title"`
	Body  string `json:"body"`
}

type dedupPair struct {
	ID        string    `json:"id"`
	Kind      string    `json:"kind"`
	Duplicate bool      `json:"duplicate"`
	New       dedupSide `json:"new"`
	Old       dedupSide `json:"old"`
}

func loadDedupPairs(t *testing.T) []dedupPair {
	t.Helper()
	var all []dedupPair
	for _, name := range []string{"dev.json", "holdout.json"} {
		data, err := os.ReadFile(filepath.Join("..", "fixtures", "dedup", name))
		if err != nil {
			t.Fatal(err)
		}
		var f struct {
			Pairs []dedupPair `json:"pairs"`
		}
		if err := json.Unmarshal(data, &f); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		all = append(all, f.Pairs...)
	}
	return all
}

func pairProject(i int) string { return fmt.Sprintf("pair%03d", i) }

// dedupScore counts the decisions on the pairs and checks them against the
// floors: almost no distinct memory refused (precision), nearly every
// repeat refused (recall).
type dedupScore struct {
	tp, fp, fn int
	byKind     map[string][2]int // kind → pairs, refused
}

func (s *dedupScore) add(t *testing.T, p dedupPair, refused bool) {
	t.Helper()
	if s.byKind == nil {
		s.byKind = map[string][2]int{}
	}
	k := s.byKind[p.Kind]
	k[0]++
	switch {
	case refused && p.Duplicate:
		s.tp++
	case refused:
		s.fp++
		t.Logf("refused a distinct memory: %s", p.ID)
	case p.Duplicate:
		s.fn++
		t.Logf("kept a repeat: %s", p.ID)
	}
	if refused {
		k[1]++
	}
	s.byKind[p.Kind] = k
}

func (s *dedupScore) check(t *testing.T, path string) {
	t.Helper()
	kinds := make([]string, 0, len(s.byKind))
	for k := range s.byKind {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %-12s %5s %7s\n", path, "kind", "pairs", "refused")
	for _, k := range kinds {
		fmt.Fprintf(&b, "%s: %-12s %5d %7d\n", path, k, s.byKind[k][0], s.byKind[k][1])
	}
	precision := float64(s.tp) / float64(s.tp+s.fp)
	recall := float64(s.tp) / float64(s.tp+s.fn)
	fmt.Fprintf(&b, "%s: precision %.3f, recall %.3f (%d repeats refused, %d distinct refused, %d repeats kept)",
		path, precision, recall, s.tp, s.fp, s.fn)
	t.Log("\n" + b.String())
	if precision < 0.95 || recall < 0.9 {
		t.Errorf("%s: precision %.3f, recall %.3f; want at least 0.95 and 0.9", path, precision, recall)
	}
}

// TestDedupPairsSave saves the old memory of each pair, then the new one, and
// counts the new ones refused as already existing.
func TestDedupPairsSave(t *testing.T) {
	if testing.Short() {
		t.Skip("saves 584 memories; the pairs' scores are checked by the dedup package's tests")
	}
	pairs := loadDedupPairs(t)
	e := newEnv(t, time.Second)
	ctx := context.Background()
	req := func(i int, s dedupSide) memories.SaveRequest {
		return memories.SaveRequest{Title: s.Title, Content: s.Body, Project: pairProject(i)}
	}
	var olds, news []memories.SaveRequest
	for i, p := range pairs {
		olds, news = append(olds, req(i, p.Old)), append(news, req(i, p.New))
	}
	items, err := e.svc.SaveBatch(ctx, olds)
	if err != nil {
		t.Fatal(err)
	}
	oldIDs := make([]string, len(items))
	for i, it := range items {
		if it.Err != nil {
			t.Fatalf("%s: the old memory was not saved: %v", pairs[i].ID, it.Err)
		}
		oldIDs[i] = it.Result.ID
	}
	// A batch saves each memory through the checks of a save; the new
	// memories are in other projects than each other.
	items, err = e.svc.SaveBatch(ctx, news)
	if err != nil {
		t.Fatal(err)
	}
	var score dedupScore
	var rej *memories.RejectedError
	for i, it := range items {
		refused := errors.As(it.Err, &rej) && rej.Existing != nil
		if it.Err != nil && !refused {
			t.Fatalf("%s: the new memory failed otherwise: %v", pairs[i].ID, it.Err)
		}
		if refused && rej.Existing.ID != oldIDs[i] {
			t.Fatalf("%s: refused as a repeat of %s, not of the old memory of its pair", pairs[i].ID, rej.Existing.ID)
		}
		score.add(t, pairs[i], refused)
	}
	score.check(t, "save")
}

// TestDedupPairsImport imports the pairs as notes: the old and the new
// memory of a pair in one import (the new one compared with the earlier
// items of the same import), then the new ones alone into a vault that holds
// the old ones. An import takes a note it has seen before, in any project, as
// a repeat by its source fingerprint (title and content); some pairs share a
// note (the pause section is the old memory of one pair and the new one of
// another), so the pairs are imported in groups that share none.
func TestDedupPairsImport(t *testing.T) {
	if testing.Short() {
		t.Skip("imports 1,168 notes in groups; the pairs' scores are checked by the dedup package's tests")
	}
	pairs := loadDedupPairs(t)
	var groups [][]int
	var seen []map[string]bool
	for i, p := range pairs {
		keys := []string{p.Old.Title + "\x00" + p.Old.Body, p.New.Title + "\x00" + p.New.Body}
		g := 0
		for ; g < len(groups); g++ {
			if !seen[g][keys[0]] && !seen[g][keys[1]] {
				break
			}
		}
		if g == len(groups) {
			groups, seen = append(groups, nil), append(seen, map[string]bool{})
		}
		groups[g] = append(groups[g], i)
		seen[g][keys[0]], seen[g][keys[1]] = true, true
	}
	root := filepath.Join(t.TempDir(), "home")
	note := func(dir string, i int, s dedupSide) {
		t.Helper()
		p := filepath.Join(root, dir, pairProject(i)+".md")
		text := fmt.Sprintf("---\ntitle: %s\nproject: %s\n---\n%s\n", strconv.Quote(s.Title), pairProject(i), s.Body)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for g, group := range groups {
		for _, i := range group {
			// One import reads "1-old" before "2-new".
			note(filepath.Join(fmt.Sprint(g), "both", "1-old"), i, pairs[i].Old)
			note(filepath.Join(fmt.Sprint(g), "both", "2-new"), i, pairs[i].New)
			note(filepath.Join(fmt.Sprint(g), "old"), i, pairs[i].Old)
			note(filepath.Join(fmt.Sprint(g), "new"), i, pairs[i].New)
		}
	}
	ctx := context.Background()
	importInto := func(t *testing.T, e *env, dir string) *memories.ImportResult {
		t.Helper()
		svc := memories.NewService(e.st, memories.WithImporter(&importer.Source{Options: importer.Options{Home: root}}))
		res, err := svc.Import(ctx, memories.ImportRequest{Path: filepath.Join(root, dir)})
		if err != nil {
			t.Fatal(err)
		}
		if res.Unsafe != 0 || res.Skipped != 0 {
			t.Fatalf("%s: %s; want every note read and safe: %+v %+v", dir, res.Message(), res.Skips, res.Rejected)
		}
		return res
	}
	// refusedNew gives the pairs whose new note was refused as a repeat.
	refusedNew := func(t *testing.T, res *memories.ImportResult, newDir string) map[int]bool {
		t.Helper()
		out := map[int]bool{}
		for _, r := range res.Rejected {
			dir, name := filepath.Split(r.Source)
			if r.Kind != "duplicate" || filepath.Base(filepath.Clean(dir)) != newDir {
				t.Fatalf("%s refused: %s", r.Source, r.Reason)
			}
			var i int
			if _, err := fmt.Sscanf(name, "pair%03d.md", &i); err != nil {
				t.Fatalf("the refusal of %q: %v", r.Source, err)
			}
			out[i] = true
		}
		return out
	}

	t.Run("within one import", func(t *testing.T) {
		var score dedupScore
		for g, group := range groups {
			e := newEnv(t, time.Second)
			refused := refusedNew(t, importInto(t, e, filepath.Join(fmt.Sprint(g), "both")), "2-new")
			for _, i := range group {
				score.add(t, pairs[i], refused[i])
			}
		}
		score.check(t, "import, within")
	})
	t.Run("against stored memories", func(t *testing.T) {
		var score dedupScore
		for g, group := range groups {
			e := newEnv(t, time.Second)
			if res := importInto(t, e, filepath.Join(fmt.Sprint(g), "old")); res.Duplicates != 0 {
				t.Fatalf("the old notes: %s", res.Message())
			}
			refused := refusedNew(t, importInto(t, e, filepath.Join(fmt.Sprint(g), "new")), "new")
			for _, i := range group {
				score.add(t, pairs[i], refused[i])
			}
		}
		score.check(t, "import, stored")
	})
}
