package store

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/cortexmem/cortex/memories"
	"github.com/cortexmem/cortex/vault"
)

// folderScan is how the next command's check sees folder rel: whether it
// reads it again, and what it finds changed.
func folderScan(t *testing.T, st *Store, rel string) (read bool, changed int) {
	t.Helper()
	gen, cat, err := st.load()
	if err != nil {
		t.Fatal(err)
	}
	defer cat.Close()
	res, err := st.scan(gen, cat, false, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res.Read {
		read = read || r == rel
	}
	return read, len(res.Changed) + len(res.Removed)
}

// TestSavesInARowKeepTheirFolder: a save that sees nothing but its own
// note change its folder gives the folder back a time the catalog records,
// so the next command does not read again a folder that may hold every
// note of the vault; a note another program adds to the folder at any
// point is still found by the next command.
func TestSavesInARowKeepTheirFolder(t *testing.T) {
	if runtime.GOOS != "linux" || vault.FineWindow() == 0 {
		t.Skip("folders are kept only where inotify and fine file times are")
	}
	e := newOwedEnv(t)
	rel := "memories/zoo"
	_, svc := e.open()
	for i := range 3 {
		save(t, svc, fmt.Sprintf("The otter pool %d needs its filter cleaned every %d days.", i, i+3))
	}
	time.Sleep(50 * time.Millisecond) // past the fine window (the first save read the folder)
	for i := range 4 {
		_, svc := e.open()
		save(t, svc, fmt.Sprintf("Feed the lynx number %d at %d in the morning.", i, i+6))
		st, _ := e.open()
		if read, changed := folderScan(t, st, rel); read || changed != 0 {
			t.Errorf("after save %d in a row: the next check reads %s: %v, finds %d changed; want neither", i, rel, read, changed)
		}
	}

	// Another program's note, made while a save writes (between its
	// commit and its look at the folder): found.
	st, svc := e.open()
	foreign := filepath.Join(e.root, "cortex", rel, "written-by-hand.md")
	st.beforeKeep = func() {
		if err := os.WriteFile(foreign, []byte("---\ntitle: By hand\n---\n\nThe heron eats at noon.\n"), 0o600); err != nil {
			t.Error(err)
		}
	}
	save(t, svc, "The penguins' water is kept at four degrees.")
	st, _ = e.open()
	if read, changed := folderScan(t, st, rel); !read || changed != 1 {
		t.Errorf("a note made by hand during a save: the next check reads the folder %v, finds %d changed; want read, 1", read, changed)
	}
	_, svc = e.open()
	res, err := svc.Recall(context.Background(), memories.RecallRequest{Query: "heron", Limit: 5})
	if err != nil || len(res.Results) != 1 {
		t.Errorf("recall of the note made by hand = %v, %v; want it", res, err)
	}

	// And one made after the save: found too.
	time.Sleep(50 * time.Millisecond)
	_, svc = e.open()
	save(t, svc, "The meerkats' lamp goes off at eight.")
	if err := os.WriteFile(filepath.Join(e.root, "cortex", rel, "also-by-hand.md"), []byte("---\ntitle: Also\n---\n\nThe ibis sleeps late.\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	st, _ = e.open()
	if read, changed := folderScan(t, st, rel); !read || changed != 1 {
		t.Errorf("a note made by hand after a save: the next check reads the folder %v, finds %d changed; want read, 1", read, changed)
	}
}

// inotifyFDs counts this process's open inotify instances.
func inotifyFDs(t *testing.T) int {
	t.Helper()
	des, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, de := range des {
		if l, err := os.Readlink(filepath.Join("/proc/self/fd", de.Name())); err == nil && l == "anon_inode:inotify" {
			n++
		}
	}
	return n
}

// TestSaveClosesItsFolderFollower: a save that follows its folder closes
// the follower before it returns, kept or not (a process that saves many
// times must not run out of them).
func TestSaveClosesItsFolderFollower(t *testing.T) {
	if runtime.GOOS != "linux" || vault.FineWindow() == 0 {
		t.Skip("folders are followed only where inotify and fine file times are")
	}
	e := newOwedEnv(t)
	_, svc := e.open()
	save(t, svc, "The otter pool needs its filter cleaned every third day.")
	time.Sleep(50 * time.Millisecond) // past the fine window: the next saves follow the folder
	before := inotifyFDs(t)
	for i := range 5 {
		st, svc := e.open()
		if i%2 == 1 {
			st.beforeKeep = func() { // not kept
				_ = os.WriteFile(filepath.Join(e.root, "cortex", "memories", "zoo", fmt.Sprintf("hand-%d.md", i)), []byte("# by hand\n"), 0o600)
			}
		}
		save(t, svc, fmt.Sprintf("Feed the lynx number %d at %d in the morning.", i, i+6))
	}
	if after := inotifyFDs(t); after != before {
		t.Errorf("%d inotify instances open after 5 saves, %d before", after, before)
	}
}
