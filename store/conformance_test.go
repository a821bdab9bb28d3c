package store_test

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/cortexmem/cortex/config"
	"github.com/cortexmem/cortex/memories"
	"github.com/cortexmem/cortex/memories/memoriestest"
	"github.com/cortexmem/cortex/store"
	"github.com/cortexmem/cortex/vault"
)

// TestBackendConformance: the store does what memories.Backend promises,
// checked by the suite the services' fake passes too.
func TestBackendConformance(t *testing.T) {
	memoriestest.RunBackendSuite(t, func(t *testing.T) memories.Backend {
		dir := t.TempDir()
		v, err := vault.New(filepath.Join(dir, "vault"), "cortex")
		if err != nil {
			t.Fatal(err)
		}
		st, err := store.Open(store.Options{Vault: v, State: config.State{Home: filepath.Join(dir, "state")}, LockTimeout: 10 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		return st
	})
}
