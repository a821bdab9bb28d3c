package sqlitedb_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cortexmem/cortex/transcript"
	"github.com/cortexmem/cortex/transcript/sqlitedb"
	"github.com/cortexmem/cortex/transcript/sqlitedb/sqlitedbtest"
)

// TestAddDatabase: a database is listed; a file of the tool's name that is
// not one, one cut inside its header, and one the person cannot read are
// skipped with why; an empty one and a missing one as AddFile says.
func TestAddDatabase(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.db")
	sqlitedbtest.Build(t, good, []byte(schema+`{"id":1,"body":"a"}`+"\n"), true)
	data, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	write := func(name string, b []byte, mode os.FileMode) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, mode); err != nil {
			t.Fatal(err)
		}
		return p
	}
	text := write("text.db", []byte("not a database at all, just some words in a file\n"), 0o600)
	cut := write("cut.db", data[:40], 0o600)
	empty := write("empty.db", nil, 0o600)
	locked := write("locked.db", data, 0o000)

	d := transcript.NewDiscovery(transcript.OpenCode)
	for _, p := range []string{good, text, cut, empty, locked, filepath.Join(dir, "missing.db")} {
		sqlitedb.AddDatabase(&d, p, "", transcript.RoleSession)
	}
	var files []string
	for _, f := range d.Files {
		files = append(files, filepath.Base(f.Path))
	}
	skipped := map[string]string{}
	for _, s := range d.Skipped {
		skipped[filepath.Base(s.Path)] = s.Reason
	}
	wantFiles := []string{"good.db"}
	if os.Geteuid() == 0 {
		// root reads a file whatever its mode.
		wantFiles = append(wantFiles, "locked.db")
	} else if r := skipped["locked.db"]; r != "cannot be read: permission denied" {
		t.Errorf("locked.db skipped as %q", r)
	}
	if diff := cmp.Diff(wantFiles, files); diff != "" {
		t.Errorf("files (-want +got):\n%s", diff)
	}
	for name, want := range map[string]string{
		"text.db":    "cannot be read: the database is damaged or not a database: no SQLite header",
		"cut.db":     "cannot be read: the database is damaged or not a database: 40 bytes, shorter than the header",
		"empty.db":   "empty",
		"missing.db": "no such file or directory",
	} {
		if got := skipped[name]; !strings.Contains(got, want) {
			t.Errorf("%s skipped as %q, want %q", name, got, want)
		}
	}
}
