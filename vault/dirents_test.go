//go:build unix

package vault

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestListDirAsReadDir holds listDir to os.File.ReadDir: the same names
// with the same types, over a folder whose records take many reads of the
// kernel's, and entries of every kind.
func TestListDirAsReadDir(t *testing.T) {
	dir := t.TempDir()
	for i := range 3000 {
		name := strings.Repeat("n", 1+i%200) + "-" + strings.Repeat("x", i%7) + string(rune('a'+i%26)) + ".md"
		if err := os.WriteFile(filepath.Join(dir, name), nil, 0o600); err != nil && !errors.Is(err, fs.ErrExist) {
			t.Fatal(err)
		}
	}
	for _, name := range []string{"sub", ".hidden-folder", "naïve 数据库", "with space"} {
		if err := os.Mkdir(filepath.Join(dir, name), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	for name, data := range map[string]string{".hidden.md": "x", "über ñote.md": "x", "a": "", "no-ext": "x"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for name, target := range map[string]string{"link.md": "a", "dangling.md": "nowhere", "dirlink": "sub"} {
		if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo.md"), 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := listDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	des, err := f.ReadDir(-1)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	want := make([]dirent, len(des))
	for i, de := range des {
		want[i] = dirent{name: de.Name(), typ: de.Type()}
	}
	byName := func(a, b dirent) int { return strings.Compare(a.name, b.name) }
	slices.SortFunc(got, byName)
	slices.SortFunc(want, byName)
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(dirent{})); diff != "" {
		t.Errorf("listDir differs from ReadDir (-want +got):\n%s", diff)
	}
	if len(got) < 3000 {
		t.Errorf("%d entries, want the 3,000 files and more", len(got))
	}
}

func TestListDirErrors(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "note.md")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := listDir(filepath.Join(dir, "missing")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a missing folder: %v, want fs.ErrNotExist", err)
	}
	if _, err := listDir(file); err == nil {
		t.Error("a file listed as a folder")
	}
}
