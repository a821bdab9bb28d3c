package store

import (
	"context"
	"fmt"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/cortexmem/cortex/vault"
)

// TestNamedNotesOfEarlierSavesAreTrusted: the notes a watcher names after
// saves in a row are read again by content only while their times are too
// recent to trust, as the vault's scan judges them: the last save's note,
// not those of saves further back than the fine window (the 2-second margin
// of coarse times had every save re-read all those before it), and a note
// whose time is a whole millisecond (a coarse time) still within the
// 2-second margin.
func TestNamedNotesOfEarlierSavesAreTrusted(t *testing.T) {
	if vault.FineWindow() == 0 {
		t.Skip("file times are not known to be fine here")
	}
	e := newOwedEnv(t)
	st, svc := e.open()
	var named []string
	for i := range 3 {
		named = append(named, save(t, svc, fmt.Sprintf("The otter pool %d needs its filter cleaned every %d days.", i, i+3)).Path)
	}
	time.Sleep(2*vault.FineWindow() + 20*time.Millisecond)
	last := save(t, svc, "Feed the lynx at six in the morning.").Path
	named = append(named, last)

	suspects := func() []string {
		t.Helper()
		_, cat, err := st.load()
		if err != nil {
			t.Fatal(err)
		}
		defer cat.Close()
		res := &vault.ScanResult{}
		if _, err := st.statNamed(cat, st.scanOptions(cat, false, false), res, named); err != nil {
			t.Fatal(err)
		}
		if len(res.Changed)+len(res.Removed) != 0 {
			t.Fatalf("statNamed found changed %v, removed %v; want none", res.Changed, res.Removed)
		}
		var out []string
		for _, f := range res.Suspect {
			out = append(out, f.Path)
		}
		slices.Sort(out)
		return out
	}
	if got := suspects(); !slices.Equal(got, []string{last}) {
		t.Errorf("after saves in a row, the named notes read again = %q; want only the last save's %q", got, last)
	}

	// A coarse time (whole milliseconds, as a network share's) within the
	// 2-second margin is not trusted, fine window or not.
	coarse := time.Now().Add(-200 * time.Millisecond).Truncate(time.Millisecond)
	if err := os.Chtimes(st.v.Abs(named[0]), coarse, coarse); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
	// Another save writes the catalog well after the lynx's: its note is
	// then trusted too (and this one is not named).
	time.Sleep(2*vault.FineWindow() + 20*time.Millisecond)
	save(t, svc, "The penguins' water is kept at four degrees.")
	if got := suspects(); !slices.Equal(got, []string{named[0]}) {
		t.Errorf("with a coarse time of %q, the named notes read again = %q; want only it", named[0], got)
	}
}

// TestNamedNotesCheckedCleanAreLetGo: a note a watcher named, once a check
// finds it as its record says, is no longer stat'ed by the checks that
// follow (in a run of the server's saves, each stat'ed the notes of all the
// saves before it until the watcher settled); one found changed, or named
// again after the check read the names, is still pending.
func TestNamedNotesCheckedCleanAreLetGo(t *testing.T) {
	if vault.FineWindow() == 0 {
		t.Skip("file times are not known to be fine here")
	}
	e := newOwedEnv(t)
	_, svc := e.open()
	kept := save(t, svc, "The otter pool needs its filter cleaned every third day.").Path
	edited := save(t, svc, "The reptile house heating is checked at dawn.").Path
	st, svc := e.open()
	st.freshness = 0 // a check not told otherwise stats every note
	st.Watching(true)
	defer st.Watching(false)
	st.Followed(true)
	time.Sleep(2*vault.FineWindow() + 20*time.Millisecond) // no time too recent to trust
	st.Named(st.v.Abs(kept))
	st.Named(st.v.Abs(edited))
	abs := st.v.Abs(edited)
	data, err := os.ReadFile(abs)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(abs, append(data, []byte("\nAnd again at dusk.\n")...), 0o600); err != nil {
		t.Fatal(err)
	}
	pending := func() []string {
		t.Helper()
		p, _, ok := st.pendingNamed()
		if !ok {
			t.Fatal("the pending notes are not known")
		}
		return p
	}
	save(t, svc, "The lemur island ropes are checked for fraying weekly.")
	if got := pending(); !slices.Equal(got, []string{edited}) {
		t.Errorf("after a save's check, pending = %q; want only the note found changed, %q", got, edited)
	}
	// The edit is taken in now: the next check finds it as its record says.
	time.Sleep(2*vault.FineWindow() + 20*time.Millisecond)
	save(t, svc, "The penguin pool filters are backwashed on Fridays.")
	if got := pending(); len(got) != 0 {
		t.Errorf("after the edit was taken in, pending = %q; want none", got)
	}
	// Named again after a check read the names: kept, and so after the
	// watcher settled in between.
	st.Named(st.v.Abs(kept))
	names, at, _ := st.pendingNamed()
	st.Named(st.v.Abs(kept))
	st.namedChecked(names, at)
	if got := pending(); !slices.Equal(got, []string{kept}) {
		t.Errorf("named again after the check read the names, pending = %q; want %q", got, kept)
	}
	names, at, _ = st.pendingNamed()
	st.Followed(true)
	st.Named(st.v.Abs(kept))
	st.namedChecked(names, at)
	if got := pending(); !slices.Equal(got, []string{kept}) {
		t.Errorf("named again after the watcher settled, pending = %q; want %q", got, kept)
	}
}
