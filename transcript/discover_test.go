package transcript

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestAddRoot: a folder is walked once, however many paths reach it; a
// missing folder, a file and a repeat are skipped with their reasons.
func TestAddRoot(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "real")
	if err := os.Mkdir(real, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(real, filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "file"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	d := NewDiscovery(ClaudeCode)
	var walked []string
	walk := func(p string) { walked = append(walked, p) }
	for _, name := range []string{"real", "link", "missing", "file"} {
		d.AddRoot(Root{Path: filepath.Join(dir, name), From: "default"}, walk)
	}
	d.Sort()
	if diff := cmp.Diff([]string{real}, walked); diff != "" {
		t.Errorf("walked (-want +got):\n%s", diff)
	}
	want := []Skip{
		{filepath.Join(dir, "file"), "not a folder"},
		{filepath.Join(dir, "link"), "the same folder as " + real},
		{filepath.Join(dir, "missing"), "no such folder"},
	}
	if diff := cmp.Diff(want, d.Skipped); diff != "" {
		t.Errorf("skipped (-want +got):\n%s", diff)
	}
	if len(d.Roots) != 4 || !d.Roots[0].Exists || d.Roots[1].Exists || d.Roots[2].Exists {
		t.Errorf("roots: %+v", d.Roots)
	}
}
