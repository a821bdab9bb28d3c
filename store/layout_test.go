package store_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/cortexmem/cortex/memories"
	"github.com/cortexmem/cortex/store"
	"github.com/cortexmem/cortex/vault"
)

// LayoutOf names the folders the store uses, without opening it: capture
// and the hooks find the inbox where the store's own folder is, for any
// spelling of the vault's path.
func TestLayoutOf(t *testing.T) {
	e := newEnv(t, 0)
	e.save("The okapi arrives in spring", "zoo")
	v, err := vault.New(e.root, "cortex")
	if err != nil {
		t.Fatal(err)
	}
	got, err := store.LayoutOf(e.home, v.Dir)
	if err != nil {
		t.Fatal(err)
	}
	if got != e.st.Layout() {
		t.Errorf("LayoutOf = %+v, the store's %+v", got, e.st.Layout())
	}
	link := filepath.Join(filepath.Dir(e.root), "link")
	if err := os.Symlink(e.root, link); err != nil {
		t.Fatal(err)
	}
	viaLink, err := store.LayoutOf(e.home, filepath.Join(link, "cortex"))
	if err != nil || viaLink != got {
		t.Errorf("through a link: %+v, %v; want %+v", viaLink, err, got)
	}
	for _, p := range []string{got.Index(), got.Inbox(), got.Receipts()} {
		if filepath.Dir(p) != got.Dir {
			t.Errorf("%s is not in the vault's folder %s", p, got.Dir)
		}
	}
	if fi, err := os.Stat(got.Index()); err != nil || !fi.IsDir() {
		t.Errorf("the index folder %s: %v", got.Index(), err)
	}
	if store.HookLog(e.home) != filepath.Join(e.home, "hooks.log") {
		t.Errorf("hook log %s", store.HookLog(e.home))
	}
}

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
	st, err := store.Open(store.Options{Vault: v, StateDir: e.home, LockTimeout: time.Second, NoRebuild: true})
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
