package vault

import (
	"path/filepath"
	"testing"
)

// TestRel: Rel is Abs the other way, and refuses what is not below the
// cortex folder.
func TestRel(t *testing.T) {
	root := t.TempDir()
	v, err := New(root, "cortex")
	if err != nil {
		t.Fatal(err)
	}
	for _, rel := range []string{"memories/web/a.md", "_index.md", "x"} {
		if got, ok := v.Rel(v.Abs(rel)); !ok || got != rel {
			t.Errorf("Rel(Abs(%q)) = %q, %v", rel, got, ok)
		}
	}
	for _, abs := range []string{v.Dir, root, filepath.Join(root, "other.md"), filepath.Join(root, "cortexx", "a.md"), filepath.Dir(root)} {
		if got, ok := v.Rel(abs); ok {
			t.Errorf("Rel(%q) = %q, true; want false", abs, got)
		}
	}
}
