package store

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"testing"
)

// shortLivedCollector sets the collector as a short-lived command does
// (off up to 256 MB, no GOGC or GOMEMLIMIT in the environment) for the
// test, restoring it after, and returns what reads the settings: GOGC and
// the memory limit.
func shortLivedCollector(t *testing.T) func() [2]int64 {
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	percent := debug.SetGCPercent(-1)
	limit := debug.SetMemoryLimit(256 << 20)
	t.Cleanup(func() {
		debug.SetGCPercent(percent)
		debug.SetMemoryLimit(limit)
	})
	return func() [2]int64 {
		p := debug.SetGCPercent(0)
		debug.SetGCPercent(p)
		return [2]int64{int64(p), debug.SetMemoryLimit(-1)}
	}
}

// roomFromTheFirstNote has the heap limit rise with the notes from the
// first (see rebuildHeapLimitFor) for the test, so that a small vault's
// limit is told from the base.
func roomFromTheFirstNote(t *testing.T) {
	from := rebuildRoomFrom
	rebuildRoomFrom = 0
	t.Cleanup(func() { rebuildRoomFrom = from })
}

// TestBulkChangesCollectAsARebuild: applying hundreds of notes changed
// outside cortex (a pull, a sync) sets the collector as a rebuild does; a
// short-lived command's "off up to a small limit" would otherwise make it
// collect without pause once the heap passes that limit. A few changed
// notes leave the settings alone.
func TestBulkChangesCollectAsARebuild(t *testing.T) {
	settings := shortLivedCollector(t)
	before := settings()
	roomFromTheFirstNote(t) // a pull's limit is told from the base
	e := newOwedEnv(t)
	_, svc := e.open()
	save(t, svc, "The okapi enclosure is cleaned on Mondays before opening.")
	dir := filepath.Join(e.root, "cortex", "memories", "zoo")
	written := 0
	write := func(n int) {
		for range n {
			body := fmt.Sprintf("---\ntitle: Keeper note %d\n---\nKeeper note %d says the giraffe %d eats acacia at noon.\n", written, written, written)
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("keeper-%04d.md", written)), []byte(body), 0o600); err != nil {
				t.Fatal(err)
			}
			written++
		}
	}
	for _, tc := range []struct {
		name  string
		notes int
		want  [2]int64
	}{
		{"a few notes", 3, before},
		{"a pull's worth", bulkChanges, [2]int64{rebuildGCPercent, rebuildHeapLimitFor(bulkChanges)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			write(tc.notes)
			var during [2]int64
			applied := false
			applyHook = func() { during, applied = settings(), true }
			defer func() { applyHook = nil }()
			st, _ := e.open()
			rep, err := st.Sync(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if !applied || rep.Added != tc.notes {
				t.Fatalf("applied %v, %d notes added, want %d", applied, rep.Added, tc.notes)
			}
			if during != tc.want {
				t.Errorf("collector while applying %d notes: %v, want %v", tc.notes, during, tc.want)
			}
			if got := settings(); got != before {
				t.Errorf("collector after: %v, want %v as before", got, before)
			}
		})
	}
}

// TestWordSetsCollectAsARebuild: the first save, which makes every note's
// word set, sets the collector as a rebuild does (see above).
func TestWordSetsCollectAsARebuild(t *testing.T) {
	settings := shortLivedCollector(t)
	e := newOwedEnv(t)
	dir := filepath.Join(e.root, "cortex", "memories", "zoo")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	for i := range 5 {
		body := fmt.Sprintf("---\ntitle: Keeper note %d\n---\nKeeper note %d says the giraffe eats acacia at noon.\n", i, i)
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("keeper-%d.md", i)), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	st, _ := e.open()
	if _, err := st.Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
	var during [][2]int64
	applyHook = func() { during = append(during, settings()) }
	defer func() { applyHook = nil }()
	_, svc := e.open()
	save(t, svc, "The okapi enclosure is cleaned on Mondays before opening.")
	want := [][2]int64{{rebuildGCPercent, rebuildHeapLimit}}
	if len(during) != 1 || during[0] != want[0] {
		t.Errorf("collector while the word sets were made: %v, want %v", during, want)
	}
}

// TestWordSetsHoldOneProjectAtATime: making every project's word index
// (the MCP server's first step, after a rebuild) holds the entries of one
// project at a time, not the vault's: at 100,000 notes those were most of
// the server's peak memory.
func TestWordSetsHoldOneProjectAtATime(t *testing.T) {
	e := newOwedEnv(t)
	for p, n := range map[string]int{"zoo": 6, "farm": 3, "aquarium": 2} {
		dir := filepath.Join(e.root, "cortex", "memories", p)
		if err := os.MkdirAll(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		for i := range n {
			body := fmt.Sprintf("---\ntitle: %s note %d\nproject: %s\n---\nThe %s keeper %d feeds the animals at noon and checks the water.\n", p, i, p, p, i)
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("note-%d.md", i)), []byte(body), 0o600); err != nil {
				t.Fatal(err)
			}
		}
	}
	st, svc := e.open()
	if _, err := st.Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := svc.PrepareChecks(context.Background()); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"zoo", "farm", "aquarium"} {
		if _, err := os.Stat(st.wordIndexPath(p)); err != nil {
			t.Errorf("no word index of %s: %v", p, err)
		}
	}
	if got := st.wordGroupPeak.Load(); got != 6 {
		t.Errorf("entries held at once while making the word indexes: %d, want 6 (the largest project's)", got)
	}
}
