package store_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/cortexmem/cortex/config"
	"github.com/cortexmem/cortex/memories"
	"github.com/cortexmem/cortex/store"
	"github.com/cortexmem/cortex/vault"
)

// TestSyncChangedStatsTheNamedNotes: SyncChanged takes in the notes edited
// in place that its paths name, and the notes created and deleted (their
// folder's time changed) whether named or not; a note edited in place that
// it is not told about is left for a full Sync — it stats the named notes,
// not every note. Paths outside the cortex folder, folders, unknown files
// and notes named twice change nothing.
func TestSyncChangedStatsTheNamedNotes(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join(dir, "vault")
	abs := func(name string) string { return filepath.Join(root, "cortex", "memories", "web", name) }
	past := time.Now().Add(-time.Hour)
	write := func(name, title string) {
		t.Helper()
		p := abs(name)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		text := fmt.Sprintf("---\ntitle: %s\nproject: web\n---\nThe body of %s, long enough to be a memory.\n", title, title)
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		// Long before the index looks: trusted on its time, never a
		// suspect read for its content.
		if err := os.Chtimes(p, past, past); err != nil {
			t.Fatal(err)
		}
	}
	for _, n := range []string{"a", "b", "c"} {
		write(n+".md", "Note "+n)
	}
	if err := os.Chtimes(filepath.Dir(abs("a.md")), past, past); err != nil {
		t.Fatal(err)
	}
	v, err := vault.New(root, "cortex")
	if err != nil {
		t.Fatal(err)
	}
	// A freshness of 0: every other check stats every note, so only
	// SyncChanged itself can leave an unnamed edit for later.
	st, err := store.Open(store.Options{Vault: v, State: config.State{Home: filepath.Join(dir, "state")}, LockTimeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := st.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	titles := func() []string {
		t.Helper()
		var out []string
		err := st.View(ctx, func(s memories.Snapshot) error {
			es, err := s.Entries()
			for _, e := range es {
				out = append(out, filepath.Base(e.Path)+" "+e.Title)
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		sort.Strings(out)
		return out
	}

	// In place: the folder's time stays as it was.
	write("a.md", "Note a edited")
	write("b.md", "Note b edited, longer")
	if err := os.Chtimes(filepath.Dir(abs("a.md")), past, past); err != nil {
		t.Fatal(err)
	}
	rep, err := st.SyncChanged(ctx, []string{abs("a.md"), abs("a.md"), abs(""), abs("unknown.md"), filepath.Join(dir, "elsewhere.md"), root})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Updated != 1 || rep.Added != 0 || rep.Removed != 0 {
		t.Errorf("SyncChanged of a: %+v, want one note updated", rep)
	}

	// Created and deleted: found by the folder's time, named or not.
	write("d.md", "Note d")
	if err := os.Remove(abs("c.md")); err != nil {
		t.Fatal(err)
	}
	if rep, err = st.SyncChanged(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if rep.Added != 1 || rep.Removed != 1 || rep.Updated != 0 {
		t.Errorf("SyncChanged after a create and a delete: %+v, want one added and one removed", rep)
	}

	// b was never named: a full Sync finds it.
	if rep, err = st.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if rep.Updated != 1 || rep.Added+rep.Removed != 0 {
		t.Errorf("Sync after: %+v, want b updated", rep)
	}
	want := []string{"a.md Note a edited", "b.md Note b edited, longer", "d.md Note d"}
	if d := cmp.Diff(want, titles()); d != "" {
		t.Errorf("after Sync (-want +got):\n%s", d)
	}

	// A named note that is gone, its folder's time as the index saw it,
	// is removed: only its stat can tell.
	if err := os.Chtimes(filepath.Dir(abs("a.md")), past, past); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(abs("d.md")); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(filepath.Dir(abs("a.md")), past, past); err != nil {
		t.Fatal(err)
	}
	if rep, err = st.SyncChanged(ctx, []string{abs("d.md")}); err != nil {
		t.Fatal(err)
	}
	if rep.Removed != 1 {
		t.Errorf("SyncChanged of a deleted note: %+v, want it removed", rep)
	}
}
