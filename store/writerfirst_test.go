package store_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cortexmem/cortex/config"
	"github.com/cortexmem/cortex/filelock"
	"github.com/cortexmem/cortex/memories"
	"github.com/cortexmem/cortex/store"
	"github.com/cortexmem/cortex/vault"
)

// TestBackToBackReadsLetAWriterIn: a resident store answering reads back to
// back (an MCP server under a burst of recalls) holds the shared index lock
// from one to the next; a writer of another process that needs the index
// exclusively still gets in well within its lock timeout. It used to wait
// for a pause in the reads that never came, and fail.
func TestBackToBackReadsLetAWriterIn(t *testing.T) {
	e := newEnv(t, time.Hour)
	e.save("The staging pool holds 20 connections per pod because of max_connections.", "api")
	open := func(timeout time.Duration, resident bool) *store.Store {
		v, err := vault.New(e.root, "cortex")
		if err != nil {
			t.Fatal(err)
		}
		st, err := store.Open(store.Options{Vault: v, State: config.State{Home: e.home}, LockTimeout: timeout,
			Freshness: time.Hour, Resident: resident})
		if err != nil {
			t.Fatal(err)
		}
		return st
	}
	server := memories.NewService(open(10*time.Second, true))
	ctx, cancel := context.WithCancel(context.Background())
	var reads atomic.Int64
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for ctx.Err() == nil {
			if _, err := server.Recall(ctx, memories.RecallRequest{Query: "staging pool"}); err != nil && ctx.Err() == nil {
				t.Errorf("recall: %v", err)
				return
			}
			reads.Add(1)
		}
	}()
	defer func() { cancel(); wg.Wait() }()
	for deadline := time.Now().Add(10 * time.Second); reads.Load() < 20; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the reads did not start")
		}
	}
	// A rebuild publishes its generation holding the index lock exclusively.
	writer := open(2*time.Second, false)
	if _, err := writer.Rebuild(context.Background()); err != nil {
		t.Fatalf("rebuild while another store reads back to back: %v", err)
	}
	before := reads.Load()
	for deadline := time.Now().Add(10 * time.Second); reads.Load() < before+20; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the reads did not go on after the rebuild")
		}
	}
}

// openResident opens a resident store (an MCP server's) on e's vault and
// returns it with the path of its index lock.
func openResident(t *testing.T, e *env) (*store.Store, string) {
	t.Helper()
	v, err := vault.New(e.root, "cortex")
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(store.Options{Vault: v, State: config.State{Home: e.home}, LockTimeout: time.Hour,
		Freshness: time.Hour, Resident: true})
	if err != nil {
		t.Fatal(err)
	}
	return st, filepath.Join(st.VaultState(), "index.lock")
}

// TestResidentReadInsideTheLockPassesAWaitingWriter: a resident store's read
// that goes View's ordinary way (here, to index a note written by hand)
// holds the shared index lock while it searches, and the search opens the
// index the resident keeps, taking a second shared hold. A writer of another
// process that waits for the index lock meanwhile must not make that second
// hold wait: the writer waits for the first, so both waited until a lock
// timed out (an MCP server's recall and its watcher's sync stalled a minute,
// and CLI saves behind them gave up).
func TestResidentReadInsideTheLockPassesAWaitingWriter(t *testing.T) {
	e := newEnv(t, time.Hour)
	saved := e.save("The staging pool holds 20 connections per pod because of max_connections.", "api")
	st, lockPath := openResident(t, e)
	// A note written by hand: the read's check finds it, and the read
	// indexes it the ordinary way before it answers.
	hand := filepath.Join(filepath.Dir(filepath.Join(e.root, "cortex", saved.Path)), "by-hand.md")
	if err := os.WriteFile(hand, []byte("The staging pool is watched by the on-call dashboard.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	writerIn := make(chan error, 1)
	searched := make(chan error, 1)
	go func() {
		searched <- st.View(ctx, func(snap memories.Snapshot) error {
			// The read holds the shared index lock: a writer now waits.
			go func() {
				l, err := filelock.AcquireAhead(ctx, lockPath, time.Hour)
				if err == nil {
					err = l.Release()
				}
				writerIn <- err
			}()
			for !filelock.WriterWaiting(lockPath) {
				select {
				case err := <-writerIn:
					return fmt.Errorf("a writer took the index lock during the read (%v)", err)
				case <-time.After(time.Millisecond):
				}
			}
			hits, err := snap.Search(ctx, memories.SearchRequest{Text: "staging pool", Size: 10})
			if err == nil && len(hits) != 2 {
				err = fmt.Errorf("%d hits, want 2", len(hits))
			}
			return err
		})
	}()
	select {
	case err := <-searched:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the read's search waited for the writer that waits for the read")
	}
	select {
	case err := <-writerIn:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the writer did not get the index lock after the read")
	}
}

// TestResidentReadAfterASaveHoldsTheLock: a resident store answering a read
// from a catalog it loads again (another process saved since its last read)
// answers under the shared index lock, so no writer swaps or removes the
// generation under it. It used to let the lock go with the old catalog.
func TestResidentReadAfterASaveHoldsTheLock(t *testing.T) {
	e := newEnv(t, time.Hour)
	e.save("The staging pool holds 20 connections per pod because of max_connections.", "api")
	st, lockPath := openResident(t, e)
	read := func() {
		t.Helper()
		err := st.View(context.Background(), func(memories.Snapshot) error {
			l, err := filelock.TryAcquire(lockPath)
			if l != nil {
				_ = l.Release()
				return fmt.Errorf("a writer took the index lock during the read")
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	read()
	e.save("The deploy freeze starts on Friday at noon for the payments team.", "api")
	read() // the catalog changed: loaded again
}
