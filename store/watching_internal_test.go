package store

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCatchUpLeavesTheCheckToAWatcher: while a watcher in the process runs
// (Watching), the catch-up after a save — the MCP server's, in the
// background — does the owed index work and looks at the folders only, even
// with the watcher unsettled by the save's own events: a note edited in
// place meanwhile is left to the watcher, whose re-index the edit's event
// names. Without a watcher, the catch-up past the freshness window stats
// every note and takes the edit in.
func TestCatchUpLeavesTheCheckToAWatcher(t *testing.T) {
	for _, watching := range []bool{true, false} {
		e := newOwedEnv(t)
		_, svc := e.open()
		first := save(t, svc, "A first memory so that the index exists, about the reptile house")
		st, svc := e.open()
		st.freshness = 0 // a check not told otherwise stats every note
		st.Watching(watching)

		abs := st.v.Abs(first.Path)
		dir, err := os.Stat(filepath.Dir(abs))
		if err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(abs)
		if err != nil {
			t.Fatal(err)
		}
		edited := []byte(strings.Replace(string(data), "reptile house", "reptile house and the aviary", 1))
		if err := os.WriteFile(abs, edited, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(filepath.Dir(abs), dir.ModTime(), dir.ModTime()); err != nil {
			t.Fatal(err)
		}

		st.Followed(true) // the save trusts the watcher
		save(t, svc, "The lemur island ropes are checked for fraying weekly")
		st.Followed(false) // the save's own events unsettle it
		if e.owed().Empty() {
			t.Fatal("setup: the save left no index work owed")
		}
		if err := st.catchUp(context.Background()); err != nil {
			t.Fatal(err)
		}
		if !e.owed().Empty() {
			t.Errorf("watching %v: the catch-up left index work owed", watching)
		}
		_, cat, err := st.load()
		if err != nil {
			t.Fatal(err)
		}
		r, err := cat.Get(first.Path)
		cat.Close()
		if err != nil || r == nil {
			t.Fatalf("the first note's record: %v, %v", r, err)
		}
		if took := r.Hash == hash(edited); took == watching {
			t.Errorf("watching %v: the catch-up took the edit made in place in: %v, want %v", watching, took, !watching)
		}
		st.Watching(false)
	}
}

// TestSaveChecksTheNotesAWatcherNamed: while a watcher in the process waits
// to take in the notes its events named (Named), a save past the freshness
// window stats those notes and looks at the folders, not at every note: a
// second save right after a first one, whose own files unsettled the
// watcher, used to stat the whole vault. A note edited in place that no
// event named yet is left to the watcher; once the watcher cannot say what
// changed (Followed(false)), or without a watcher, the save stats every
// note again and takes it in.
func TestSaveChecksTheNotesAWatcherNamed(t *testing.T) {
	for _, watching := range []bool{true, false} {
		e := newOwedEnv(t)
		_, svc := e.open()
		named := save(t, svc, "The reptile house heating is checked at dawn")
		unnamed := save(t, svc, "The aviary netting is inspected for tears monthly")
		st, svc := e.open()
		st.freshness = 0 // a check not told otherwise stats every note
		st.Watching(watching)
		st.Followed(true)

		editInPlace := func(rel, from, to string) []byte {
			t.Helper()
			abs := st.v.Abs(rel)
			dir, err := os.Stat(filepath.Dir(abs))
			if err != nil {
				t.Fatal(err)
			}
			data, err := os.ReadFile(abs)
			if err != nil {
				t.Fatal(err)
			}
			edited := []byte(strings.Replace(string(data), from, to, 1))
			if err := os.WriteFile(abs, edited, 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Chtimes(filepath.Dir(abs), dir.ModTime(), dir.ModTime()); err != nil {
				t.Fatal(err)
			}
			return edited
		}
		took := func(rel string, data []byte) bool {
			t.Helper()
			_, cat, err := st.load()
			if err != nil {
				t.Fatal(err)
			}
			defer cat.Close()
			r, err := cat.Get(rel)
			if err != nil || r == nil {
				t.Fatalf("the record of %s: %v, %v", rel, r, err)
			}
			return r.Hash == hash(data)
		}
		namedEdit := editInPlace(named.Path, "at dawn", "at dawn and at dusk")
		unnamedEdit := editInPlace(unnamed.Path, "monthly", "monthly and after storms")
		st.Named(st.v.Abs(named.Path))
		save(t, svc, "The lemur island ropes are checked for fraying weekly")
		if !took(named.Path, namedEdit) {
			t.Errorf("watching %v: the save did not take in the edit of the note the watcher named", watching)
		}
		if got := took(unnamed.Path, unnamedEdit); got == watching {
			t.Errorf("watching %v: the save took in the edit no event named: %v, want %v", watching, got, !watching)
		}

		st.Followed(false) // the watcher cannot say what changed
		save(t, svc, "The penguin pool filters are backwashed on Fridays")
		if !took(unnamed.Path, unnamedEdit) {
			t.Errorf("watching %v: the save after Followed(false) did not stat every note", watching)
		}
		st.Watching(false)
	}
}
