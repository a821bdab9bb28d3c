package store_test

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cortexmem/cortex/memories"
)

// TestReadsReuseTheCatalog: the reads of one command (a briefing makes
// five) load the catalog once while nothing changes, yet each read still
// sees what was written before it, by this store or by another process.
func TestReadsReuseTheCatalog(t *testing.T) {
	for _, freshness := range []time.Duration{0, time.Minute} {
		t.Run(freshness.String(), func(t *testing.T) {
			e := newEnv(t, freshness)
			e.save("The staging pool holds 20 connections per pod.", "api")
			e.save("Retries back off exponentially up to 30 seconds.", "api")
			// Notes as old as a vault's usually are: none is too recent to
			// trust by its time, so a read has nothing to settle (settling
			// writes the catalog's journal).
			ageNotes(t, e)
			e.recall("pool") // catches up with the saves and the new times
			before := e.st.CatalogLoads()
			for range 3 {
				if got := e.recall("pool"); len(got) != 1 {
					t.Fatalf("recall pool = %v, want one memory", got)
				}
			}
			if got := len(e.list()); got != 2 {
				t.Fatalf("list = %d memories, want 2", got)
			}
			if got := e.st.CatalogLoads() - before; got != 0 {
				t.Errorf("four reads with nothing changed loaded the catalog %d times, want 0 (the first read's kept)", got)
			}

			// A write of this store is seen by the next read.
			mine := e.save("The pool timeout is five seconds on staging.", "api").ID
			if got := e.recall("pool"); !slices.Contains(got, mine) {
				t.Errorf("recall after this store's save = %v, want it to hold %s", got, mine)
			}
			// So is another process's.
			other := newEnvOn(t, e, freshness)
			theirs := other.save("The pool is drained before each deploy.", "api").ID
			if got := e.recall("pool"); !slices.Contains(got, theirs) || !slices.Contains(got, mine) {
				t.Errorf("recall after another store's save = %v, want %s and %s", got, mine, theirs)
			}
			if got := len(e.list()); got != 4 {
				t.Errorf("list after the saves = %d memories, want 4", got)
			}
		})
	}
}

// newEnvOn opens another store on e's vault and state folder, as another
// process would.
func newEnvOn(t *testing.T, e *env, freshness time.Duration) *env {
	t.Helper()
	o := &env{t: t, root: e.root, home: e.home}
	o.open(freshness)
	return o
}

// ageNotes sets the time of every file and folder of e's vault an hour back.
func ageNotes(t *testing.T, e *env) {
	t.Helper()
	old := time.Now().Add(-time.Hour)
	err := filepath.WalkDir(e.root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return os.Chtimes(p, old, old)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestConcurrentReadsShareTheCatalogSafely: reads of one store running at
// once, while it saves, each answer from a catalog no other read closes
// under it (run with -race), and the last read sees every save.
func TestConcurrentReadsShareTheCatalogSafely(t *testing.T) {
	e := newEnv(t, time.Minute)
	e.save("The staging pool holds 20 connections per pod.", "api")
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 5 {
				if _, err := e.svc.Recall(context.Background(), memories.RecallRequest{Query: "pool", Limit: 50}); err != nil {
					errs <- err
				}
			}
		}()
	}
	var ids []string
	for i := range 3 {
		ids = append(ids, e.save(fmt.Sprintf("Pool change %d: the limit moved to %d connections.", i, 30+i), "api").ID)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	got := e.recall("pool")
	for _, id := range ids {
		if !slices.Contains(got, id) {
			t.Errorf("recall after the saves = %v, want it to hold %s", got, id)
		}
	}
}

// TestSyncKeepsTheCatalog: a sync — the MCP server's watcher runs one after
// each save it sees, the server's own included — keeps its catalog for the
// saves and reads that follow, as a save keeps its own: it used to close
// it, and the next save read the catalog from disk again (a fifth of a
// save's time at 100,000 notes). What the sync took in is seen all the same.
func TestSyncKeepsTheCatalog(t *testing.T) {
	for _, resident := range []bool{false, true} {
		for _, changed := range []bool{false, true} {
			t.Run(fmt.Sprintf("resident=%v,changed=%v", resident, changed), func(t *testing.T) {
				e, v := newKeptEnv(t, resident)
				first := e.save("The staging pool holds 20 connections per pod.", "api")

				// An edit in place, as Obsidian makes one, that the sync is told of.
				abs := v.Abs(first.Path)
				data, err := os.ReadFile(abs)
				if err != nil {
					t.Fatal(err)
				}
				edited := strings.Replace(string(data), "20 connections", "20 connections and a warm spare", 1)
				if err := os.WriteFile(abs, []byte(edited), 0o600); err != nil {
					t.Fatal(err)
				}
				if changed {
					_, err = e.st.SyncChanged(context.Background(), []string{abs})
				} else {
					_, err = e.st.Sync(context.Background())
				}
				if err != nil {
					t.Fatal(err)
				}
				before := e.st.CatalogLoads()
				second := e.save("Retries back off exponentially up to 30 seconds.", "api").ID
				got := e.recall("warm spare retries")
				if loads := e.st.CatalogLoads() - before; loads != 0 {
					t.Errorf("a save and a recall after the sync loaded the catalog %d times, want 0 (the sync's kept)", loads)
				}
				if !slices.Contains(got, first.ID) || !slices.Contains(got, second) {
					t.Errorf("recall after the sync = %v, want the edited %s and the new %s", got, first.ID, second)
				}
			})
		}
	}
}
