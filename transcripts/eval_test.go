package transcripts

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/cortexmem/cortex/memories"
)

// TestEvalDataset runs the repository's transcript retrieval dataset: it
// must load, every relevant exchange must exist, and cortex's ranking must
// do at least as well as plain BM25 (a regression check; the figures are in
// the README). ripgrep is compared when it is installed.
func TestEvalDataset(t *testing.T) {
	if testing.Short() {
		t.Skip("indexes the whole dataset")
	}
	d, err := LoadEval("../fixtures/eval/transcript-search.json")
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Queries) < 60 {
		t.Errorf("%d queries; the dataset promises at least 60", len(d.Queries))
	}
	rep, err := RunEval(context.Background(), d, DefaultRanking(), Ripgrep())
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("cortex %+v\nBM25 %+v\nripgrep %+v (%s)", rep.Cortex, rep.Baseline, rep.Ripgrep, rep.RipgrepMissing)
	if rep.Cortex.MRR < rep.Baseline.MRR || rep.Cortex.RecallAt1 < rep.Baseline.RecallAt1 {
		t.Errorf("cortex %+v does worse than plain BM25 %+v", rep.Cortex, rep.Baseline)
	}
	if rep.Cortex.RecallAt1 < 0.85 {
		t.Errorf("cortex Recall@1 %.3f; it was 0.93 when the dataset was made", rep.Cortex.RecallAt1)
	}
	if rep.Ripgrep == nil && Ripgrep() != "" || rep.Ripgrep != nil && rep.RipgrepMissing != "" {
		t.Errorf("ripgrep %v, %q", rep.Ripgrep, rep.RipgrepMissing)
	}
	if len(rep.PerQuery) != len(d.Queries) {
		t.Errorf("%d per-query results for %d queries", len(rep.PerQuery), len(d.Queries))
	}
}

func TestEvalWithoutRipgrep(t *testing.T) {
	d := writeDataset(t, `{"sources":["a.jsonl"],"queries":[{"id":"q1","query":"capital of France","relevant":["a.jsonl:4"]}]}`)
	rep, err := RunEval(context.Background(), d, DefaultRanking(), "")
	if err != nil {
		t.Fatal(err)
	}
	if rep.Ripgrep != nil || rep.RipgrepMissing == "" {
		t.Errorf("ripgrep %v %q, want it skipped and said so", rep.Ripgrep, rep.RipgrepMissing)
	}
	if rep.Cortex.RecallAt1 != 1 || rep.Baseline.RecallAt1 != 1 {
		t.Errorf("cortex %+v baseline %+v, want the one query found first", rep.Cortex, rep.Baseline)
	}
}

// writeDataset writes a dataset beside a copy of the Claude Code a_qa
// fixture (named a.jsonl) and loads it.
func writeDataset(t *testing.T, dataset string) *EvalDataset {
	t.Helper()
	dir := t.TempDir()
	data, err := os.ReadFile(filepath.Join(fixtureRoot, "claude-code/2.1.197/a_qa.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "a.jsonl"), data)
	writeFile(t, filepath.Join(dir, "d.json"), []byte(dataset))
	d, err := LoadEval(filepath.Join(dir, "d.json"))
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestBadDatasets(t *testing.T) {
	for _, tc := range []struct{ name, data string }{
		{"not JSON", `{`},
		{"unknown key", `{"sources":["a.jsonl"],"queries":[],"documents":[]}`},
		{"no queries", `{"sources":["a.jsonl"],"queries":[]}`},
		{"missing source", `{"sources":["b.jsonl"],"queries":[{"id":"q","query":"x","relevant":["b.jsonl:1"]}]}`},
		{"twice the same id", `{"sources":["a.jsonl"],"queries":[{"id":"q","query":"x","relevant":["a.jsonl:4"]},{"id":"q","query":"y","relevant":["a.jsonl:4"]}]}`},
		{"relevant of no source", `{"sources":["a.jsonl"],"queries":[{"id":"q","query":"x","relevant":["c.jsonl:4"]}]}`},
		{"relevant without a line", `{"sources":["a.jsonl"],"queries":[{"id":"q","query":"x","relevant":["a.jsonl"]}]}`},
		{"no relevant", `{"sources":["a.jsonl"],"queries":[{"id":"q","query":"x","relevant":[]}]}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			writeFile(t, filepath.Join(dir, "a.jsonl"), []byte("{}\n"))
			writeFile(t, filepath.Join(dir, "d.json"), []byte(tc.data))
			if _, err := LoadEval(filepath.Join(dir, "d.json")); !errors.Is(err, memories.ErrInvalid) {
				t.Errorf("got %v, want an invalid dataset", err)
			}
		})
	}
	// A relevant line that starts no exchange is found when the dataset runs.
	d := writeDataset(t, `{"sources":["a.jsonl"],"queries":[{"id":"q1","query":"capital","relevant":["a.jsonl:2"]}]}`)
	if _, err := RunEval(context.Background(), d, DefaultRanking(), ""); !errors.Is(err, memories.ErrInvalid) {
		t.Errorf("got %v, want the line refused", err)
	}
}
