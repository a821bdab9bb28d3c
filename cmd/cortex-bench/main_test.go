package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/cortexmem/cortex/bench"
	"github.com/cortexmem/cortex/wiring"
)

// newEnv generates a small vault and builds the cortex binary to time.
func newEnv(t *testing.T, notes int) (*env, string) {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the cortex binary")
	}
	tmp := t.TempDir()
	bin := filepath.Join(tmp, "cortex")
	if out, err := exec.Command("go", "build", "-o", bin, "github.com/cortexmem/cortex/cmd/cortex").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	e := &env{bin: bin, vault: filepath.Join(tmp, "vault"), home: filepath.Join(tmp, "state")}
	if _, err := bench.WriteVault(e.vault, notes, 1, time.Now()); err != nil {
		t.Fatal(err)
	}
	return e, tmp
}

// TestImportRuns: the harness times imports into an empty vault and into the
// generated one (it stopped at the empty vault once cortex refused to create
// a vault that does not exist).
func TestImportRuns(t *testing.T) {
	e, tmp := newEnv(t, 20)
	rs, err := importRuns(e, tmp, 5, 20)
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != 2 {
		t.Fatalf("%d results, want 2: %+v", len(rs), rs)
	}
}

// TestOpenAsTheBinary: the in-process timings open cortex with the settings
// the binary resolves from the harness's environment.
func TestOpenAsTheBinary(t *testing.T) {
	e, _ := newEnv(t, 5)
	c, err := e.open(wiring.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s := c.Settings
	if s.Vault != e.vault || s.Home != e.home || s.ConfigFile != filepath.Join(e.home, "none.yaml") || s.VaultFrom != "CORTEX_VAULT" {
		t.Errorf("settings %+v, want the vault %s and state folder %s from the environment", s, e.vault, e.home)
	}
	// The binary's index is the one the in-process runs use.
	if out, err := e.cmd("list").CombinedOutput(); err != nil {
		t.Fatalf("cortex list: %v\n%s", err, out)
	}
	if _, err := os.Stat(filepath.Join(c.Store.VaultState(), "index", "CURRENT")); err != nil {
		t.Errorf("the binary built no index where the in-process store looks: %v", err)
	}
}
