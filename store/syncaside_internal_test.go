package store

import (
	"context"
	"errors"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cortexmem/cortex/memories"
)

// zooMemory is a memory of project zoo, ready to create, with id and body.
func zooMemory(id, body string) *memories.Memory {
	at := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	return &memories.Memory{
		ID: id, Title: memories.TitleFrom(body), Type: memories.TypeNote, Project: "zoo",
		Source: memories.SourceUser, Status: memories.StatusActive, Importance: 3,
		Created: at, Updated: at, Body: body,
	}
}

// awaitSync waits for a sync started to be told on started, and checks
// it is of the zoo project's folder.
func awaitSync(t *testing.T, started <-chan string) error {
	t.Helper()
	select {
	case dir := <-started:
		if dir != "memories/zoo" {
			t.Errorf("the sync started is of %s, want memories/zoo", dir)
		}
		return nil
	case <-time.After(10 * time.Second):
		return errors.New("the folder's sync did not start while the writer went on after Create")
	}
}

// TestCreateStartsItsFolderSync: the sync of the folder a note is created
// in starts as soon as the note is linked, while the writer goes on (its
// fn has not returned), and the writer returns only once it is done. Here
// fn waits, after Create, for the sync to start: a writer that synced its
// folders only once fn returned would never get there.
func TestCreateStartsItsFolderSync(t *testing.T) {
	e := newOwedEnv(t)
	st, svc := e.open()
	save(t, svc, "The first note makes the project's folder before the one timed.")
	started := make(chan string, 4)
	var done atomic.Bool
	st.syncDir = func(dir string) error {
		started <- dir
		time.Sleep(20 * time.Millisecond) // a slow disk: the writer must wait for it
		err := st.v.SyncFolder(dir)
		done.Store(true)
		return err
	}
	err := st.Update(context.Background(), func(tx memories.Tx) error {
		m := zooMemory("01kabcdefghjkmnpqrstvwxyz0", "Zebras sleep standing up and lie down only for deep sleep.")
		if err := tx.Create(context.Background(), m); err != nil {
			return err
		}
		return awaitSync(t, started)
	})
	if err != nil {
		t.Fatal(err)
	}
	if !done.Load() {
		t.Error("the writer returned before its folder's sync was done")
	}
}

// TestCreateSyncsAFolderAgainForALaterNote: a note linked in a folder whose
// sync a Create of the same writer started already is made durable by
// another sync of the folder, begun once that note is there: the first
// sync, which fn waits for here before it creates the second note, may
// have passed before the second note's name was in the folder.
func TestCreateSyncsAFolderAgainForALaterNote(t *testing.T) {
	e := newOwedEnv(t)
	st, svc := e.open()
	save(t, svc, "The first note makes the project's folder before the ones timed.")
	started := make(chan string, 4)
	var mu sync.Mutex
	var second string
	var seen []bool // at each sync, whether the second note was in the folder
	st.syncDir = func(dir string) error {
		mu.Lock()
		there := false
		if second != "" {
			_, err := os.Stat(st.v.Abs(second))
			there = err == nil
		}
		seen = append(seen, there)
		mu.Unlock()
		started <- dir
		return st.v.SyncFolder(dir)
	}
	err := st.Update(context.Background(), func(tx memories.Tx) error {
		a := zooMemory("01kabcdefghjkmnpqrstvwxyz1", "Zebras sleep standing up and lie down only for deep sleep.")
		if err := tx.Create(context.Background(), a); err != nil {
			return err
		}
		if err := awaitSync(t, started); err != nil {
			return err
		}
		b := zooMemory("01kabcdefghjkmnpqrstvwxyz2", "Giraffes sleep for about thirty minutes a day, in short naps.")
		if err := tx.Create(context.Background(), b); err != nil {
			return err
		}
		mu.Lock()
		second = b.Path
		mu.Unlock()
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(seen) != 2 || seen[0] || !seen[1] {
		t.Errorf("syncs of the folder, whether the second note was there at each: %v; want [false true]", seen)
	}
}
