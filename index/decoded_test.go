package index

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestLookupsKeepDecodedRecords: a catalog read from its file (not mapped,
// as a long-running process reads it) answers a lookup it made before
// without reading the file again, and each answer is the caller's own: a
// change to one is not seen by the next lookup. The file's metadata is
// overwritten after the first lookups to tell a read from a kept record
// (a base file is never changed in place otherwise). A lookup of a kept
// record allocates only the caller's copy.
func TestLookupsKeepDecodedRecords(t *testing.T) {
	dir := t.TempDir()
	base, _ := fixtureFiles(t)
	c, err := loadBytes(t, dir, base, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if c.base == nil || c.base.mapped != nil {
		t.Fatal("the test needs a base file that is read, not mapped")
	}
	var ids []string
	want := map[string]Record{}
	for _, r := range fixture() {
		got, err := c.ByID(r.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got == nil {
			continue
		}
		ids = append(ids, r.ID)
		want[r.ID] = *got
		byPath, err := c.Get(got.Path)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(*got, *byPath); diff != "" {
			t.Errorf("Get(%q) differs from ByID (-ByID +Get):\n%s", got.Path, diff)
		}
		got.Title = "changed by a caller"
	}
	if len(ids) < 3 {
		t.Fatalf("only %d records found: the test says little", len(ids))
	}
	// Damage every metadata record: a lookup that reads the file now
	// fails or finds other values.
	f, err := os.OpenFile(filepath.Join(dir, catalogFile), os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	junk := make([]byte, c.base.metaLen)
	for i := range junk {
		junk[i] = 0xff
	}
	if _, err := f.WriteAt(junk, c.base.metaAt); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	for _, id := range ids {
		got, err := c.ByID(id)
		if err != nil {
			t.Fatalf("ByID(%q) after the first lookup: %v", id, err)
		}
		if diff := cmp.Diff(want[id], *got); diff != "" {
			t.Errorf("ByID(%q) again differs (-first +again):\n%s", id, diff)
		}
	}
	// A kept record costs its copy, not its path made again (each recall
	// looks up its hits by id).
	if !raceEnabled {
		i := slices.IndexFunc(ids, func(id string) bool { return strings.Contains(want[id].Path, "/") })
		if i < 0 {
			t.Fatal("no record in a folder: the test says little")
		}
		if n := testing.AllocsPerRun(20, func() { _, _ = c.ByID(ids[i]) }); n != 1 {
			t.Errorf("ByID of a kept record made %v allocations, want 1 (the caller's copy)", n)
		}
	}
}
