//go:build linux

package atomicfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// testFolder is a new folder for the test; with named set, one that
// refuses unnamed files, as a file system without them does.
func testFolder(t *testing.T, named bool) string {
	dir := t.TempDir()
	if named {
		unnamedRefused.Store(dir, true)
		t.Cleanup(func() { unnamedRefused.Delete(dir) })
	}
	return dir
}

// TestCreateUnlistedWithoutAName: on a file system with unnamed files,
// CreateUnlisted writes the file without a temporary name (none is made
// and removed in the folder), with Create's content, permissions and
// refusal of an existing name; where the folder refuses them it goes the
// named way, with the same results and no temporary file left.
func TestCreateUnlistedWithoutAName(t *testing.T) {
	for _, named := range []bool{false, true} {
		dir := testFolder(t, named)
		path := filepath.Join(dir, "note.md")
		before := unnamedFiles.Load()
		if err := CreateUnlisted(path, []byte("original")); err != nil {
			t.Fatalf("named %v: CreateUnlisted: %v", named, err)
		}
		if _, refused := unnamedRefused.Load(dir); !refused {
			if n := unnamedFiles.Load() - before; n != 1 {
				t.Errorf("named %v: %d files put in place without a name, want 1", named, n)
			}
		} else if !named {
			t.Logf("the file system of %s has no unnamed files: the named way was taken", dir)
		}
		if named && unnamedFiles.Load() != before {
			t.Errorf("a folder that refused unnamed files got one")
		}
		err := CreateUnlisted(path, []byte("replacement"))
		if !errors.Is(err, fs.ErrExist) {
			t.Errorf("named %v: CreateUnlisted over an existing file: got %v, want fs.ErrExist", named, err)
		}
		checkContent(t, path, "original")
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if perm := fi.Mode().Perm(); perm&^FilePerm != 0 {
			t.Errorf("named %v: permissions %v, want at most %v", named, perm, FilePerm)
		}
		if got := dirNames(t, dir); !slices.Equal(got, []string{"note.md"}) {
			t.Errorf("named %v: folder holds %q, want only note.md", named, got)
		}
		if err := CreateUnlisted(filepath.Join(dir, "missing", "x.md"), []byte("x")); err == nil || errors.Is(err, fs.ErrExist) {
			t.Errorf("named %v: into a missing folder: got %v, want an error other than fs.ErrExist", named, err)
		}
	}
}

// TestCreateUnlistedStatIsTheFilesStat: the stat CreateUnlistedStat gives
// of the file it wrote is the one the file has once named (its size and
// modification time), the unnamed way and the named way.
func TestCreateUnlistedStatIsTheFilesStat(t *testing.T) {
	for _, named := range []bool{false, true} {
		dir := testFolder(t, named)
		path := filepath.Join(dir, "note.md")
		got, err := CreateUnlistedStat(path, []byte("twelve bytes"))
		if err != nil {
			t.Fatalf("named %v: %v", named, err)
		}
		want, err := os.Lstat(path)
		if err != nil {
			t.Fatal(err)
		}
		if got.Size() != want.Size() || !got.ModTime().Equal(want.ModTime()) {
			t.Errorf("named %v: stat %d bytes at %v, the file has %d bytes at %v", named, got.Size(), got.ModTime(), want.Size(), want.ModTime())
		}
		if _, err := CreateUnlistedStat(path, []byte("x")); !errors.Is(err, fs.ErrExist) {
			t.Errorf("named %v: over an existing file: got %v, want fs.ErrExist", named, err)
		}
	}
}
