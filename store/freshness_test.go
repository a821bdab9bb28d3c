package store_test

import (
	"strings"
	"testing"
	"time"
)

// TestEditInPlaceAndTheFreshnessWindow: a note edited in place (as Obsidian
// saves) changes neither its folder nor anything but the file, so only a
// stat of every note finds it. With freshness 0 every command makes that
// check and the next command sees the edit; with a window, a command that
// starts within it after the last full check does not (the README's rule),
// and the first one past it does.
func TestEditInPlaceAndTheFreshnessWindow(t *testing.T) {
	const window = 1500 * time.Millisecond
	for _, tc := range []struct {
		name      string
		freshness time.Duration
		atOnce    bool // the next command finds the new word
	}{
		{name: "freshness 0: the next command", freshness: 0, atOnce: true},
		{name: "within the window: once it has passed", freshness: window, atOnce: false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, tc.freshness)
			first := e.save("The staging pool holds 20 connections per pod because of max_connections.", "api")
			time.Sleep(2100 * time.Millisecond) // past the racy window: the note is settled
			e.open(tc.freshness)                // a new process
			if got := e.recall("staging pool"); len(got) != 1 {
				t.Fatalf("recall before the edit: %v", got)
			}
			edited := "---\nid: " + first.ID + "\ntitle: Staging pool\nproject: api\n---\n\nThe staging pool holds 40 connections per pod with pgbouncer.\n"
			e.editInPlace(strings.TrimPrefix(first.Path, "cortex/"), edited)
			e.open(tc.freshness)
			if got := len(e.recall("pgbouncer")); (got == 1) != tc.atOnce {
				t.Errorf("the next command found the edit %d times, want found %v", got, tc.atOnce)
			}
			time.Sleep(window)
			e.open(tc.freshness)
			if got := e.recall("pgbouncer"); len(got) != 1 {
				t.Errorf("a command past the window: recall of the new word = %v, want the edited note", got)
			}
		})
	}
}
