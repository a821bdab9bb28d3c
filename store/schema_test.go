package store_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cortexmem/cortex/index"
)

// An index built under an older mapping (its catalog names the schema it was
// built with) is rebuilt by the next command, which then finds the notes.
func TestOlderSchemaIsRebuilt(t *testing.T) {
	// Another schema name of the same length: the test rewrites the name in
	// the catalog in place.
	older := index.Schema[:len(index.Schema)-1] + "x"
	e := newEnv(t, 0)
	e.save("The okapi arrives in spring", "zoo")
	cats, _ := filepath.Glob(filepath.Join(e.st.VaultState(), "index", "gen-*", "catalog"))
	if len(cats) != 1 {
		t.Fatalf("catalogs: %v", cats)
	}
	data, err := os.ReadFile(cats[0])
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Count(data, []byte(index.Schema)) != 1 {
		t.Fatalf("the catalog names schema %q %d times", index.Schema, bytes.Count(data, []byte(index.Schema)))
	}
	if err := os.WriteFile(cats[0], bytes.Replace(data, []byte(index.Schema), []byte(older), 1), 0o600); err != nil {
		t.Fatal(err)
	}
	e.open(0)
	rep, err := e.st.Sync(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Full || !strings.Contains(rep.Reason, "schema "+older) {
		t.Errorf("sync over an index of schema %s: full %v, reason %q; want a rebuild for the schema", older, rep.Full, rep.Reason)
	}
	if got := e.recall("okapi"); len(got) != 1 {
		t.Errorf("recall after the rebuild: %v", got)
	}
}
