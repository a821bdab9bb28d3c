package store_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cortexmem/cortex/config"
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
