package memories

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cortexmem/cortex/dedup"
)

// syllableWord is a made-up word of plain letters that no stemming,
// synonym, stop word or key-word rule touches, so that the word sets are
// exactly the words written: k numbers it.
func syllableWord(k int) string {
	const cons, vows = "bfgklmprt", "aoa"
	var b strings.Builder
	for range 3 {
		b.WriteByte(cons[k%len(cons)])
		k /= len(cons)
		b.WriteByte(vows[k%len(vows)])
		k /= len(vows)
	}
	return b.String()
}

// exactImportSet is an import where the pool's old lookup (the twenty
// pooled texts sharing most of a candidate's ten rarest words) misses true
// duplicates: an anchor note of common words, fillers of common words of
// which some also hold ten "hot" words, and copies of the anchor with the
// hot words added. A copy shares none of its rarest words (the hot ones)
// with the anchor, and more than twenty fillers share all of them, yet
// holds the anchor's every word: Words is 41/52. Random near-copies of
// earlier notes, some across projects, make more duplicates and ties.
func exactImportSet(seed uint64) []ImportCandidate {
	rng := rand.New(rand.NewPCG(seed, 11))
	common := make([]string, 100)
	for i := range common {
		common[i] = syllableWord(i)
	}
	hot := make([]string, 10)
	for i := range hot {
		hot[i] = syllableWord(500 + i)
	}
	anchor := slices.Clone(common[:40])
	var cands []ImportCandidate
	var bodies []string
	add := func(project string, words []string) {
		i := len(cands)
		body := strings.Join(words, " ") + "."
		bodies = append(bodies, body)
		c := cand(fmt.Sprintf("n%04d.md", i), body, fmt.Sprintf("h%d", i), inProject(project))
		c.Request.Title = "Note " + syllableWord(1000+i)
		cands = append(cands, c)
	}
	projects := []string{"web", "web", "web", "api", DefaultProject}
	add("web", anchor)
	for i := range 320 {
		switch {
		case i%40 == 39: // the anchor again, with the hot words
			add("web", append(slices.Clone(anchor), hot...))
		case i%9 == 8 && len(bodies) > 1: // an earlier note, cut or added to
			words := strings.Fields(strings.TrimSuffix(bodies[rng.IntN(len(bodies))], "."))
			words = words[:len(words)-rng.IntN(len(words)/3+1)]
			if rng.IntN(2) == 0 {
				words = append(words, common[rng.IntN(len(common))])
			}
			add(projects[rng.IntN(len(projects))], words)
		default:
			var words []string
			for _, k := range rng.Perm(len(common))[:25] {
				words = append(words, common[k])
			}
			if i%8 == 0 {
				words = append(words, hot...)
			}
			add("web", words)
		}
	}
	return cands
}

// allPairsDecisions decides an import as comparing each candidate with every
// memory accepted before it in its project and general does (dedup.Compare,
// SPEC §5's score): for each refused candidate, the titles of the earlier
// memories scoring best (any of them may be named, ties being broken by id).
func allPairsDecisions(t *testing.T, svc *Service, cands []ImportCandidate) map[string][]string {
	t.Helper()
	type kept struct {
		m  *Memory
		fp *dedup.Fingerprint
	}
	var accepted []kept
	out := map[string][]string{}
	for _, c := range cands {
		m, err := svc.newMemory("content", c.Request)
		if err != nil {
			t.Fatal(err)
		}
		fp := dedup.New(m.Title + "\n" + m.Body)
		best, titles := 0.0, []string(nil)
		for _, a := range accepted {
			if a.m.Project != m.Project && a.m.Project != DefaultProject {
				continue
			}
			switch s := dedup.Compare(fp, a.fp).Score; {
			case s < svc.checks.Thresholds.Duplicate || s < best:
			case s > best:
				best, titles = s, []string{a.m.Title}
			default:
				titles = append(titles, a.m.Title)
			}
		}
		if titles != nil {
			out[c.Source] = titles
			continue
		}
		accepted = append(accepted, kept{m, fp})
	}
	return out
}

// TestImportDecidesAsAllPairs: an import refuses exactly the candidates
// that comparing each with every earlier memory refuses, naming one of
// those it repeats most, on sets where looking at the twenty pooled texts
// that share most of a candidate's rarest words misses duplicates.
func TestImportDecidesAsAllPairs(t *testing.T) {
	for seed := range uint64(3) {
		cands := exactImportSet(seed)
		svc, _ := newTestService(newFake(t), WithImporter(&fakeImporter{set: &ImportSet{Candidates: cands}}))
		want := allPairsDecisions(t, svc, cands)
		res, err := svc.Import(context.Background(), ImportRequest{Path: "x", DryRun: true, batch: 64})
		if err != nil {
			t.Fatal(err)
		}
		got := map[string][]string{}
		for _, r := range res.Rejected {
			title, ok := strings.CutPrefix(r.Reason, "repeats \"")
			if r.Kind != "duplicate" || !ok {
				t.Fatalf("seed %d: %s refused otherwise: %+v", seed, r.Source, r)
			}
			title = strings.TrimSuffix(title, "\", earlier in this import")
			if !slices.Contains(want[r.Source], title) {
				t.Errorf("seed %d: %s repeats %q, want one of %q", seed, r.Source, title, want[r.Source])
			}
			got[r.Source] = want[r.Source]
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("seed %d: refused by comparing all pairs (-) and by the import (+):\n%s", seed, diff)
		}
		if len(want) < 10 {
			t.Errorf("seed %d: only %d duplicates in the set", seed, len(want))
		}
	}
}
