package store

import (
	"bytes"
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/cortexmem/cortex/memories"
)

// eventLines is how many lines the audit log at path holds.
func eventLines(t *testing.T, path string) int {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Error(err)
	}
	return bytes.Count(data, []byte("\n"))
}

// TestSaveSyncsFolderBesideAuditLog checks that a save makes its note's
// name durable (the sync of its folder) at the same time as it appends the
// audit log, not before, and that it returns only once the folder is
// synced: the folder's sync waits here until the save's line is in the
// audit log, which a save that synced the folder first would never reach.
func TestSaveSyncsFolderBesideAuditLog(t *testing.T) {
	e := newOwedEnv(t)
	st, svc := e.open()
	save(t, svc, "The first note makes the project's folder before the one timed.")
	lines := eventLines(t, st.EventLog())
	var synced []string
	var waited error
	st.syncDir = func(dir string) error {
		for deadline := time.Now().Add(10 * time.Second); eventLines(t, st.EventLog()) == lines; time.Sleep(time.Millisecond) {
			if time.Now().After(deadline) {
				waited = errors.New("the audit log did not get the save's line while its folder was being synced")
				break
			}
		}
		synced = append(synced, dir)
		return st.v.SyncFolder(dir)
	}
	res := save(t, svc, "Zebras sleep standing up and lie down only for deep sleep.")
	if waited != nil {
		t.Error(waited)
	}
	if want := []string{"memories/zoo"}; len(synced) != 1 || synced[0] != want[0] {
		t.Errorf("folders synced = %q, want %q", synced, want)
	}
	if !strings.HasPrefix(res.Path, "memories/zoo/") {
		t.Errorf("the note was written to %s, want memories/zoo/", res.Path)
	}
}

// TestSaveFailsWhenFolderSyncFails checks that a save whose note's name
// cannot be made durable says so instead of reporting the note saved, and
// that the note is then indexed as any note found in the vault: the next
// save sees it.
func TestSaveFailsWhenFolderSyncFails(t *testing.T) {
	e := newOwedEnv(t)
	st, svc := e.open()
	st.syncDir = func(string) error { return errors.New("disk gone") }
	text := "Otters hold hands while they sleep so that they do not drift apart."
	_, err := svc.Save(context.Background(), memories.SaveRequest{Content: text, Project: "zoo"})
	if err == nil || !strings.Contains(err.Error(), "disk gone") {
		t.Fatalf("save with a failing folder sync: err = %v, want the sync's error", err)
	}
	st.syncDir = nil
	_, err = svc.Save(context.Background(), memories.SaveRequest{Content: text, Project: "zoo"})
	var rej *memories.RejectedError
	if !errors.As(err, &rej) {
		t.Errorf("saving the same text again: err = %v, want a refusal as a duplicate of the note written", err)
	}
}
