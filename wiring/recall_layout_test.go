package wiring_test

import (
	"context"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/oklog/ulid/v2"

	"github.com/cortexmem/cortex/memories"
	"github.com/cortexmem/cortex/wiring"
)

// TestRecallSameOverIndexLayouts: recall's answer is a function of the
// notes, not of the order the index holds them in. The same 300 note files
// are indexed in two vaults: saved in batches of 100 in one, copied into
// the other in reverse order, 60 at a time, with the index brought up to
// date after each. Five notes have both words of the query and 295 one of
// them, alike: the every-word search finds too few, and the any-word
// search's cut at 50 falls among the 295. Bleve kept the ones it met first,
// so the two vaults recalled different notes after the five.
func TestRecallSameOverIndexLayouts(t *testing.T) {
	ctx := context.Background()
	at := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	now := at.AddDate(1, 0, 0)

	a := settings(t)
	ca, err := wiring.Open(a, wiring.Options{NoAccessLog: true})
	if err != nil {
		t.Fatal(err)
	}
	ids := memories.NewULIDGen(ulid.Monotonic(rand.NewChaCha8([32]byte{}), 0))
	saver := ca.NewService(memories.WithChecks(memories.Checks{}), memories.WithIDGen(ids))
	var reqs []memories.SaveRequest
	for i := range 300 {
		content := "A tied note for the team"
		if i%60 == 0 {
			content = "Tied words for the team"
		}
		// A day apart: none lends to another as its neighbour.
		reqs = append(reqs, memories.SaveRequest{Content: content, Created: at.AddDate(0, 0, i)})
	}
	for start := 0; start < len(reqs); start += 100 {
		items, err := saver.SaveBatch(ctx, reqs[start:start+100])
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range items {
			if it.Err != nil {
				t.Fatal(it.Err)
			}
		}
	}

	// The notes' files, copied into the second vault in reverse order.
	var notes []string
	from := filepath.Join(a.Vault, "cortex", "memories")
	err = filepath.WalkDir(from, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".md") {
			notes = append(notes, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(notes) != len(reqs) {
		t.Fatalf("%d note files, want %d", len(notes), len(reqs))
	}
	slices.Reverse(notes)
	b := settings(t)
	cb, err := wiring.Open(b, wiring.Options{NoAccessLog: true})
	if err != nil {
		t.Fatal(err)
	}
	for start := 0; start < len(notes); start += 60 {
		for _, p := range notes[start : start+60] {
			rel, err := filepath.Rel(a.Vault, p)
			if err != nil {
				t.Fatal(err)
			}
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			to := filepath.Join(b.Vault, rel)
			if err := os.MkdirAll(filepath.Dir(to), 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(to, data, 0o600); err != nil {
				t.Fatal(err)
			}
		}
		// Any command brings the index up to date with the notes.
		if _, err := cb.NewService().List(ctx, memories.ListRequest{Project: memories.DefaultProject}); err != nil {
			t.Fatal(err)
		}
	}

	type shown struct {
		ID    string
		Score float64
	}
	answer := func(c *wiring.Cortex, query string) []shown {
		t.Helper()
		res, err := c.NewService(memories.WithClock(func() time.Time { return now })).Recall(ctx, memories.RecallRequest{Query: query})
		if err != nil {
			t.Fatal(err)
		}
		var out []shown
		for _, r := range res.Results {
			out = append(out, shown{r.Memory.ID, r.Score})
		}
		return out
	}
	for _, query := range []string{"tied words", "words tied note"} {
		got, want := answer(cb, query), answer(ca, query)
		if len(want) != memories.DefaultRecallLimit {
			t.Fatalf("%q: %d results, want %d", query, len(want), memories.DefaultRecallLimit)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%q: the notes indexed in reverse, 60 at a time, recall otherwise than saved in batches of 100 (-batches +reverse):\n%s", query, diff)
		}
	}
}
