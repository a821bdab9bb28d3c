package store_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/cortexmem/cortex/config"
	"github.com/cortexmem/cortex/memories"
	"github.com/cortexmem/cortex/store"
	"github.com/cortexmem/cortex/vault"
)

// A store opened with NoRebuild answers a damaged or missing index with
// ErrRebuildNeeded, and leaves it as it is; without, it rebuilds.
func TestNoRebuild(t *testing.T) {
	e := newEnv(t, 0)
	e.save("The okapi arrives in spring", "zoo")
	bolts, _ := filepath.Glob(filepath.Join(e.st.VaultState(), "index", "gen-*", "bleve", "store", "root.bolt"))
	if len(bolts) != 1 {
		t.Fatalf("index files: %v", bolts)
	}
	if err := os.Remove(bolts[0]); err != nil {
		t.Fatal(err)
	}
	v, err := vault.New(e.root, "cortex")
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(store.Options{Vault: v, State: config.State{Home: e.home}, LockTimeout: time.Second, NoRebuild: true})
	if err != nil {
		t.Fatal(err)
	}
	svc := memories.NewService(st)
	_, err = svc.Recall(context.Background(), memories.RecallRequest{Query: "okapi"})
	if !errors.Is(err, store.ErrRebuildNeeded) {
		t.Fatalf("recall over a damaged index = %v, want ErrRebuildNeeded", err)
	}
	if _, err := os.Stat(bolts[0]); err == nil {
		t.Error("the index was rebuilt")
	}
	if got := e.recall("okapi"); len(got) != 1 {
		t.Errorf("an ordinary store rebuilds and finds %v", got)
	}
}
