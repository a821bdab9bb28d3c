package store

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/cortexmem/cortex/bench"
	"github.com/cortexmem/cortex/config"
	"github.com/cortexmem/cortex/dedup"
	"github.com/cortexmem/cortex/memories"
	"github.com/cortexmem/cortex/vault"
)

func testWords(title, body string) ([]uint64, dedup.Keys) {
	text := title + "\n" + body
	return dedup.New(text).Words(), dedup.KeysOf(text)
}

// overlapsByPath is what WordOverlaps gave, by note path: shared words and
// set size.
func overlapsByPath(t *testing.T, ov memories.WordOverlaps) map[string][2]int {
	t.Helper()
	out := map[string][2]int{}
	for _, o := range ov.All {
		e, err := ov.Entry(o.Ref)
		if err != nil {
			t.Fatal(err)
		}
		if _, dup := out[e.Path]; dup {
			t.Fatalf("%s counted twice", e.Path)
		}
		out[e.Path] = [2]int{o.Common, o.Len}
	}
	return out
}

// everySetMerged is the brute-force reference: every readable memory of
// projects but superseded ones and except, read and merged with words.
func everySetMerged(t *testing.T, sn *snapshot, projects []string, words []uint64, except string) map[string][2]int {
	t.Helper()
	entries, _, err := sn.cat.EntriesHashedWhere(func(p, _, _ string) bool { return slices.Contains(projects, p) })
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][2]int{}
	for _, e := range entries {
		if e.Status == memories.StatusSuperseded || e.ID == except {
			continue
		}
		title, body, err := sn.LoadText(context.Background(), e.Path)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		ws, _ := testWords(title, body)
		if c := dedup.Intersect(words, ws); c > 0 {
			out[e.Path] = [2]int{c, len(ws)}
		}
	}
	return out
}

// TestWordOverlapsAsEverySetMerged: the counts a project's word index gives
// (with what the journal changed since its base compared apart) are, for
// every memory sharing a word, those of merging the new memory's set with
// the memory's set read from its note: over 2,500 notes of a small
// vocabulary, after saves, an edit, a deletion, with a memory excluded, with
// the index made, read again, and made again for a new base.
func TestWordOverlapsAsEverySetMerged(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join(dir, "vault")
	if _, err := bench.WriteVault(root, 2500, 11, time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)); err != nil {
		t.Fatal(err)
	}
	v, err := vault.New(root, "cortex")
	if err != nil {
		t.Fatal(err)
	}
	st, err := Open(Options{Vault: v, State: config.State{Home: filepath.Join(dir, "state")}, LockTimeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	svc := memories.NewService(st)
	gen := bench.NewGenerator(12, time.Date(2026, 11, 2, 0, 0, 0, 0, time.UTC))
	probes := make([]*memories.Memory, 12)
	for i := range probes {
		probes[i] = gen.Memory()
	}
	check := func(stage string) {
		t.Helper()
		err := st.View(ctx, func(snap memories.Snapshot) error {
			sn := snap.(*snapshot)
			for i, m := range probes {
				projects := []string{m.Project, "general"}
				words, _ := testWords(m.Title, m.Body)
				except := ""
				if i%3 == 0 {
					// A memory sharing words, left out as a replacement's.
					ref := everySetMerged(t, sn, projects, words, "")
					for p := range ref {
						if r, _ := sn.cat.Get(p); r != nil {
							except = r.ID
							break
						}
					}
				}
				ov, err := sn.WordOverlaps(ctx, projects, words, except, testWords)
				if err != nil {
					return err
				}
				want := everySetMerged(t, sn, projects, words, except)
				if diff := cmp.Diff(want, overlapsByPath(t, ov)); diff != "" {
					t.Errorf("%s, probe %d (%s): word overlaps differ from every set merged (-merged +index):\n%s", stage, i, m.Project, diff)
				}
				if len(want) < 50 {
					t.Errorf("%s, probe %d: %d memories share a word, want a test where most are not looked at", stage, i, len(want))
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	check("first, the indexes made")
	check("read again")
	// The journal: saves, a note edited and one deleted.
	for i := 0; i < 30; i++ {
		m := gen.Memory()
		if _, err := svc.Save(ctx, memories.SaveRequest{Title: m.Title, Content: m.Body, Project: m.Project}); err != nil {
			var rej *memories.RejectedError
			if !errors.As(err, &rej) {
				t.Fatal(err)
			}
		}
	}
	var edited, deleted string
	err = st.View(ctx, func(snap memories.Snapshot) error {
		sn := snap.(*snapshot)
		entries, err := sn.cat.EntriesWhere(func(p, _, _ string) bool { return p == probes[0].Project })
		edited, deleted = entries[3].Path, entries[7].Path
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	note := func(p string) string { return filepath.Join(root, "cortex", filepath.FromSlash(p)) }
	data, err := os.ReadFile(note(edited))
	if err != nil {
		t.Fatal(err)
	}
	head, _, _ := strings.Cut(string(data), "\n---\n")
	if err := os.WriteFile(note(edited), []byte(head+"\n---\n\n"+probes[0].Body+" Edited.\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(note(deleted)); err != nil {
		t.Fatal(err)
	}
	later := time.Now().Add(time.Minute)
	for _, p := range []string{note(edited), filepath.Dir(note(edited))} {
		if err := os.Chtimes(p, later, later); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := st.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	check("after the journal's changes")
	check("after the journal's changes, read again")
	if _, err := st.Rebuild(ctx); err != nil {
		t.Fatal(err)
	}
	st.wordReads.Store(0)
	check("a new base")
	if got := st.WordReads(); got != 0 {
		t.Errorf("%d notes read to make the indexes of a new base, want 0 (their sets are kept)", got)
	}
}
