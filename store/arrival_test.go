package store_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/cortexmem/cortex/bench"
)

// TestPullSeenByTheNextCommand: a git pull changes, adds and removes
// thousands of notes at once; the next command — even one starting within
// the freshness window of the command before, when only folders are checked
// — answers from the notes as they now are: what it lists, recalls and maps
// is what an index rebuilt from scratch gives.
func TestPullSeenByTheNextCommand(t *testing.T) {
	cases := []struct{ notes, changed, added, removed int }{
		{notes: 400, changed: 60, added: 20, removed: 20},
		// Only edits: no folder gains or loses a name, so the folders alone
		// tell nothing (a writer's check, which a new or removed note would
		// start, stats every note anyway).
		{notes: 400, changed: 80},
	}
	if os.Getenv("CORTEX_BULK") != "" {
		// 2,000 notes of 10,000 changed by one pull: minutes on a small
		// machine (three indexes of 10,000 notes built), so only on
		// request (make bulk); the benchmark times the same pull.
		cases = append(cases, struct{ notes, changed, added, removed int }{notes: 10000, changed: 1200, added: 400, removed: 400})
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("%d of %d", c.changed+c.added+c.removed, c.notes), func(t *testing.T) {
			dir := t.TempDir()
			root := filepath.Join(dir, "vault")
			gitIndex := filepath.Join(root, ".git", "index")
			if err := os.MkdirAll(filepath.Dir(gitIndex), 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(gitIndex, []byte("DIRC"), 0o600); err != nil {
				t.Fatal(err)
			}
			end := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)
			if _, err := bench.WriteVault(root, c.notes, uint64(c.notes), end); err != nil {
				t.Fatal(err)
			}
			// A freshness window far longer than the test: only the pull
			// itself can make the next command check every note.
			e := &env{t: t, root: root, home: filepath.Join(dir, "state")}
			e.open(time.Hour)
			if got := len(e.list()); got != c.notes {
				t.Fatalf("%d notes listed before the pull, want %d", got, c.notes)
			}
			a, err := bench.Arrive(root, c.changed, c.added, c.removed, 9, end)
			if err != nil {
				t.Fatal(err)
			}
			// git writes its index after the work tree.
			now := time.Now()
			if err := os.Chtimes(gitIndex, now, now); err != nil {
				t.Fatal(err)
			}
			e.open(time.Hour) // the next command, a new process
			got := e.list()
			var words []string
			var ids []string
			for _, list := range [][]string{a.Changed, a.Added} {
				for _, id := range list[:min(10, len(list))] {
					words, ids = append(words, a.Words[id]), append(ids, id)
				}
			}
			recalled := map[string][]string{}
			for _, w := range words {
				recalled[w] = e.recall(w)
			}
			gotMap := e.read("_index.md")

			fresh := &env{t: t, root: root, home: filepath.Join(dir, "fresh-state")}
			fresh.open(time.Hour)
			want := fresh.list()
			if len(want) != c.notes-c.removed+c.added {
				t.Fatalf("a fresh index lists %d notes, want %d", len(want), c.notes-c.removed+c.added)
			}
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("list after the pull differs from a fresh index (-fresh +got):\n%s", d)
			}
			// Each word is in one note: the first result (the notes it links
			// to follow it).
			for i, w := range words {
				if got := recalled[w]; len(got) == 0 || got[0] != ids[i] {
					t.Errorf("recall %s after the pull = %v, want %s first", w, got, ids[i])
				}
				if d := cmp.Diff(fresh.recall(w), recalled[w]); d != "" {
					t.Errorf("recall %s after the pull differs from a fresh index (-fresh +got):\n%s", w, d)
				}
			}
			if wantMap := fresh.read("_index.md"); gotMap != wantMap {
				t.Errorf("the map of contents after the pull is not the one a fresh index renders")
			}
			for _, id := range a.Removed[:min(5, len(a.Removed))] {
				for _, m := range got {
					if m.ID == id {
						t.Errorf("removed note %s still listed", id)
					}
				}
			}
		})
	}
}
