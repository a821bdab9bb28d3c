package store

import (
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// TestKeepWatchSetsTheFolderTime: a followed folder whose entries nothing
// changed is set to the time asked and said to hold it; a folder an entry
// was made in meanwhile, or another folder put in its place, is not.
func TestKeepWatchSetsTheFolderTime(t *testing.T) {
	follow := func(dir string) (*keepWatch, int64) {
		t.Helper()
		var st unix.Stat_t
		if err := unix.Lstat(dir, &st); err != nil {
			t.Fatal(err)
		}
		w := watch(dir, st.Mtim.Nano())
		if w == nil {
			t.Skip("inotify is not available")
		}
		t.Cleanup(w.close)
		return w, st.Mtim.Nano()
	}
	mtime := func(dir string) int64 {
		var st unix.Stat_t
		if err := unix.Lstat(dir, &st); err != nil {
			t.Fatal(err)
		}
		return st.Mtim.Nano()
	}

	dir := t.TempDir()
	w, m0 := follow(dir)
	v := keptTime(m0)
	if !w.setTime(v) {
		t.Fatal("a folder nothing changed: setTime says it does not hold the time set")
	}
	if got := mtime(dir); got != v {
		t.Errorf("folder time %d after setTime(%d)", got, v)
	}

	dir = t.TempDir()
	w, m0 = follow(dir)
	if err := os.WriteFile(filepath.Join(dir, "by-hand.md"), []byte("# by hand\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if w.setTime(keptTime(m0)) {
		t.Error("a folder a note was made in: setTime says it holds only what the save saw")
	}

	parent := t.TempDir()
	dir = filepath.Join(parent, "zoo")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	w, m0 = follow(dir)
	if err := os.Rename(dir, filepath.Join(parent, "old")); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if w.setTime(keptTime(m0)) {
		t.Error("another folder in the followed one's place: setTime says it holds the time set")
	}
}
