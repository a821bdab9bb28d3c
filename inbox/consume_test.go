package inbox

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// TestConsume: an event read from pending/ moves to processed/ or, with its
// reason written beside it, to failed/; names that are not event files of
// pending/ are refused; processed events older than a cutoff are pruned and
// failed ones never.
func TestConsume(t *testing.T) {
	now := time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)
	b := newInbox(t, &now)
	var ids []string
	for i := range 3 {
		now = now.Add(time.Hour)
		id, err := b.Capture(Request{Content: "event number " + string(rune('a'+i))})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	names, err := b.PendingEvents()
	if err != nil || len(names) != 3 {
		t.Fatalf("pending %v, %v", names, err)
	}
	data, err := b.ReadPending(names[0])
	if err != nil {
		t.Fatal(err)
	}
	if ev, err := Parse(data); err != nil || ev.ID != ids[0] {
		t.Fatalf("read %v, %v", ev, err)
	}
	if err := b.MarkProcessed(names[0]); err != nil {
		t.Fatal(err)
	}
	if err := b.MarkProcessed(names[1]); err != nil {
		t.Fatal(err)
	}
	if err := b.MarkFailed(names[2], "content: too short"); err != nil {
		t.Fatal(err)
	}
	reason, err := os.ReadFile(filepath.Join(b.Failed(), ids[2]+ErrorSuffix))
	if err != nil || string(reason) != "content: too short\n" {
		t.Errorf("reason %q, %v", reason, err)
	}
	for _, bad := range []string{"", "../x.md", ".tmp.md", "x.txt", names[0]} {
		if err := b.MarkProcessed(bad); err == nil {
			t.Errorf("MarkProcessed(%q) did not fail", bad)
		}
	}
	// Cut between the first and the second event: only the first goes.
	n, err := b.PruneProcessed(now.Add(-90 * time.Minute))
	if err != nil || n != 1 {
		t.Fatalf("pruned %d, %v", n, err)
	}
	left, _ := eventNames(b.Processed())
	if !slices.Equal(left, []string{names[1]}) {
		t.Errorf("processed/ holds %v", left)
	}
	if n, err := b.PruneProcessed(now.Add(time.Hour)); err != nil || n != 1 {
		t.Errorf("pruned %d, %v", n, err)
	}
	if failed, _ := eventNames(b.Failed()); len(failed) != 1 {
		t.Errorf("failed/ holds %v", failed)
	}
}

// TestSweepTemps: the temporary files of writers killed mid-write go —
// every one in processed/ and failed/, a capture's in pending/ once it is
// older than PendingTempAge — and events, reasons and other hidden files
// stay.
func TestSweepTemps(t *testing.T) {
	now := time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)
	b := newInbox(t, &now)
	id, err := b.Capture(Request{Content: "an event that stays pending"})
	if err != nil {
		t.Fatal(err)
	}
	names, err := b.PendingEvents()
	if err != nil || len(names) != 1 {
		t.Fatalf("pending %v, %v", names, err)
	}
	write := func(dir, name string, mtime time.Time) {
		t.Helper()
		if err := os.MkdirAll(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, mtime, mtime); err != nil {
			t.Fatal(err)
		}
	}
	old, fresh := now.Add(-time.Hour), now.Add(-time.Second)
	write(b.Failed(), "."+id+ErrorSuffix+".cortex-tmp-1234", fresh)     // swept
	write(b.Processed(), "."+names[0]+".cortex-tmp-ab", fresh)          // swept
	write(b.Failed(), ".notes", old)                                    // not cortex's
	write(b.Pending(), "."+names[0]+".tmp-111", old)                    // swept: a dead capture
	write(b.Pending(), "."+names[0]+".cortex-tmp-77", old)              // swept: a dead capture (named by atomicfile)
	write(b.Pending(), ".notes.cortex-tmp-78", old)                     // kept: not a capture's
	write(b.Pending(), ".01kzzzzzzzzzzzzzzzzzzzzzzz.md.tmp-222", fresh) // kept: may be writing
	write(b.Pending(), ".obsidian.tmp-333", old)                        // kept: not a capture's
	n, err := b.SweepTemps(now)
	if err != nil || n != 4 {
		t.Fatalf("swept %d, %v; want 4", n, err)
	}
	var left []string
	for _, dir := range []string{b.Pending(), b.Processed(), b.Failed()} {
		ents, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range ents {
			left = append(left, filepath.Base(dir)+"/"+e.Name())
		}
	}
	slices.Sort(left)
	want := []string{
		"failed/.notes",
		"pending/" + names[0],
		"pending/.01kzzzzzzzzzzzzzzzzzzzzzzz.md.tmp-222",
		"pending/.obsidian.tmp-333",
		"pending/.notes.cortex-tmp-78",
	}
	slices.Sort(want)
	if !slices.Equal(left, want) {
		t.Errorf("left %q, want %q", left, want)
	}
	// A second sweep finds nothing.
	if n, err := b.SweepTemps(now); err != nil || n != 0 {
		t.Errorf("second sweep %d, %v", n, err)
	}
}
