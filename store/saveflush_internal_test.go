package store

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cortexmem/cortex/memories"
)

// TestSaveWaitsForItsFlushes: a save syncs its folder and appends its
// audit line beside the rest of its work, and returns only once both are
// done: the folder's sync, slowed here, has finished and the line is in
// the log when Save returns.
func TestSaveWaitsForItsFlushes(t *testing.T) {
	e := newOwedEnv(t)
	st, svc := e.open()
	save(t, svc, "The first note makes the project's folder before the one timed.")
	lines := eventLines(t, st.EventLog())
	var synced atomic.Bool
	st.syncDir = func(dir string) error {
		time.Sleep(50 * time.Millisecond)
		err := st.v.SyncFolder(dir)
		synced.Store(true)
		return err
	}
	save(t, svc, "Zebras sleep standing up and lie down only for deep sleep.")
	if !synced.Load() {
		t.Error("the save returned before its folder's sync was done")
	}
	if got := eventLines(t, st.EventLog()); got != lines+1 {
		t.Errorf("the audit log holds %d lines after the save, want %d", got, lines+1)
	}
}

// TestSaveFailsWhenItsAuditLineCannotBeWritten: the audit log's append
// fails the save with its error; the note, written and its folder synced,
// is then a whole note the next save finds (refused as its duplicate), and
// no temporary file is left in its folder.
func TestSaveFailsWhenItsAuditLineCannotBeWritten(t *testing.T) {
	e := newOwedEnv(t)
	st, svc := e.open()
	save(t, svc, "The first note makes the project's folder and the audit log.")
	log := st.EventLog()
	if err := os.Remove(log); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(log, 0o700); err != nil { // an append cannot open it
		t.Fatal(err)
	}
	var synced atomic.Int32
	st.syncDir = func(dir string) error {
		synced.Add(1)
		return st.v.SyncFolder(dir)
	}
	text := "Otters hold hands while they sleep so that they do not drift apart."
	_, err := svc.Save(context.Background(), memories.SaveRequest{Content: text, Project: "zoo"})
	if err == nil || !strings.Contains(err.Error(), "event log") {
		t.Fatalf("save with an audit log that cannot be appended: err = %v, want the event log's error", err)
	}
	if synced.Load() != 1 {
		t.Errorf("the note's folder was synced %d times, want once", synced.Load())
	}
	names, err := os.ReadDir(st.v.Abs("memories/zoo"))
	if err != nil {
		t.Fatal(err)
	}
	var notes int
	for _, n := range names {
		if !strings.HasSuffix(n.Name(), ".md") {
			t.Errorf("%s is left in the note's folder", n.Name())
			continue
		}
		notes++
		data, err := os.ReadFile(filepath.Join(st.v.Abs("memories/zoo"), n.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if s := string(data); strings.Contains(s, "Otters") && !strings.HasSuffix(s, text+"\n") {
			t.Errorf("the note is not whole: %q", s)
		}
	}
	if notes != 2 {
		t.Errorf("the folder holds %d notes, want 2", notes)
	}
	_, err = svc.Save(context.Background(), memories.SaveRequest{Content: text, Project: "zoo"})
	var rej *memories.RejectedError
	if !errors.As(err, &rej) {
		t.Errorf("saving the same text again: err = %v, want a refusal as a duplicate of the note written", err)
	}
}
