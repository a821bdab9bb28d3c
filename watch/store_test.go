package watch_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/cortexmem/cortex/config"
	"github.com/cortexmem/cortex/memories"
	"github.com/cortexmem/cortex/store"
	"github.com/cortexmem/cortex/vault"
	"github.com/cortexmem/cortex/watch"
)

func openStore(t *testing.T, root, state string) *store.Store {
	t.Helper()
	v, err := vault.New(root, "cortex")
	if err != nil {
		t.Fatal(err)
	}
	// A long freshness: only the watcher's Sync looks at the vault.
	st, err := store.Open(store.Options{Vault: v, State: config.State{Home: state}, LockTimeout: 10 * time.Second, Freshness: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// indexed lists what the store's catalog holds, without bringing it up to
// date: id, path and title of each note.
func indexed(t *testing.T, st *store.Store) []string {
	t.Helper()
	var out []string
	err := st.View(context.Background(), func(s memories.Snapshot) error {
		es, err := s.Entries()
		for _, e := range es {
			out = append(out, e.Path+" "+e.Title)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(out)
	return out
}

func note(t *testing.T, root, rel, title string) {
	t.Helper()
	write(t, filepath.Join(root, "cortex", rel), fmt.Sprintf("---\ntitle: %s\nproject: web\n---\nThe body of %s, long enough to be a memory.\n", title, title))
}

// TestIndexFollowsTheVault: notes created, edited, renamed (by an editor's
// save by rename too) and deleted while the watcher runs are indexed as a
// fresh rebuild of the vault indexes them, within the debounce window; a
// watcher stopped and started again catches up with what changed while it
// was not running. The job syncs with Sync every time, or, as the MCP
// server's and cortex watch's do, with SyncChanged after its first run:
// the notes its events name and the folders are enough.
func TestIndexFollowsTheVault(t *testing.T) {
	t.Run("Sync", func(t *testing.T) { indexFollowsTheVault(t, false) })
	t.Run("SyncChanged", func(t *testing.T) { indexFollowsTheVault(t, true) })
}

func indexFollowsTheVault(t *testing.T, changed bool) {
	dir := t.TempDir()
	root := filepath.Join(dir, "vault")
	note(t, root, "memories/web/a.md", "Alpha")
	st := openStore(t, root, filepath.Join(dir, "state"))
	var runs, runsChanged atomic.Int64
	job := watch.Job{Name: "index", Dirs: []string{filepath.Join(root, "cortex")}, Run: func(ctx context.Context) error {
		defer runs.Add(1)
		_, err := st.Sync(ctx)
		return err
	}}
	if changed {
		job.RunChanged = func(ctx context.Context, paths []string) error {
			defer runs.Add(1)
			runsChanged.Add(1)
			_, err := st.SyncChanged(ctx, paths)
			return err
		}
	}
	// caughtUp syncs once more: nothing is left to take in when the watcher
	// did it, and the index is what a rebuild of the vault gives.
	caughtUp := func(what string) {
		t.Helper()
		settle(&runs)
		rep, err := st.Sync(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if n := rep.Added + rep.Updated + rep.Removed; n != 0 {
			t.Errorf("%s: %d changes were left for the next command (%+v)", what, n, rep)
		}
		if diff := cmp.Diff(indexed(t, openStore(t, root, t.TempDir())), indexed(t, st)); diff != "" {
			t.Errorf("%s: the index differs from a rebuild (-rebuild +index):\n%s", what, diff)
		}
	}

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	w := watch.New(watch.Options{Jobs: []watch.Job{job}, Debounce: debounce})
	go func() { done <- w.Run(ctx) }()
	eventually(t, "the first run", func() bool { return runs.Load() == 1 })
	note(t, root, "memories/web/b.md", "Beta")
	note(t, root, "memories/web/a.md", "Alpha edited")
	note(t, root, "memories/web/.c.md.tmp", "Gamma")
	if err := os.Rename(filepath.Join(root, "cortex/memories/web/.c.md.tmp"), filepath.Join(root, "cortex/memories/web/c.md")); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(root, "cortex/memories/web/b.md"), filepath.Join(root, "cortex/memories/web/b2.md")); err != nil {
		t.Fatal(err)
	}
	note(t, root, "memories/ops/d.md", "Delta in a new folder")
	caughtUp("create, edit, save by rename, rename, new folder")
	if err := os.Remove(filepath.Join(root, "cortex/memories/web/c.md")); err != nil {
		t.Fatal(err)
	}
	caughtUp("delete")
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}

	// While no watcher runs, a change waits for the next command.
	note(t, root, "memories/web/e.md", "Epsilon")
	note(t, root, "memories/web/f.md", "Zeta")
	ctx, cancel = context.WithCancel(context.Background())
	defer cancel()
	before := runs.Load()
	w = watch.New(watch.Options{Jobs: []watch.Job{job}, Debounce: debounce})
	go func() { done <- w.Run(ctx) }()
	eventually(t, "the restarted watcher's first run", func() bool { return runs.Load() > before })
	caughtUp("restart")
	cancel()
	<-done
	if changed && runsChanged.Load() == 0 {
		t.Error("SyncChanged never ran")
	}
}
