package vault

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
)

// dirNames lists the names in dir, sorted.
func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	des, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, de := range des {
		names = append(names, de.Name())
	}
	return names
}

func checkContent(t *testing.T, path, want string) {
	t.Helper()
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Errorf("%s holds %q, want %q", filepath.Base(path), got, want)
	}
}

func TestWriteFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "note.md")
	for _, content := range []string{"first", "second, longer", ""} {
		if err := WriteFile(path, []byte(content)); err != nil {
			t.Fatalf("WriteFile(%q): %v", content, err)
		}
		checkContent(t, path, content)
		if got := dirNames(t, dir); !slices.Equal(got, []string{"note.md"}) {
			t.Errorf("folder holds %q, want only note.md", got)
		}
	}
	if runtime.GOOS != "windows" {
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if got := fi.Mode().Perm(); got != FilePerm {
			t.Errorf("permissions %v, want %v", got, FilePerm)
		}
	}
}

func TestWriteFileFails(t *testing.T) {
	dir := t.TempDir()
	if err := WriteFile(filepath.Join(dir, "missing", "note.md"), []byte("x")); err == nil {
		t.Error("WriteFile into a missing folder succeeded")
	}
	// Replacing a folder fails, and leaves no temporary file behind.
	if err := os.Mkdir(filepath.Join(dir, "taken"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(filepath.Join(dir, "taken"), []byte("x")); err == nil {
		t.Error("WriteFile over a folder succeeded")
	}
	if got := dirNames(t, dir); !slices.Equal(got, []string{"taken"}) {
		t.Errorf("folder holds %q after failed writes, want only taken", got)
	}
}

func TestCreateFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "note.md")
	if err := CreateFile(path, []byte("original")); err != nil {
		t.Fatalf("CreateFile: %v", err)
	}
	err := CreateFile(path, []byte("replacement"))
	if !errors.Is(err, fs.ErrExist) {
		t.Errorf("CreateFile over an existing file: got %v, want an error matching fs.ErrExist", err)
	}
	checkContent(t, path, "original")
	if got := dirNames(t, dir); !slices.Equal(got, []string{"note.md"}) {
		t.Errorf("folder holds %q, want only note.md", got)
	}
	if err := CreateFile(filepath.Join(dir, "missing", "x.md"), []byte("x")); err == nil || errors.Is(err, fs.ErrExist) {
		t.Errorf("CreateFile into a missing folder: got %v, want an error other than fs.ErrExist", err)
	}
}

func TestIsTemp(t *testing.T) {
	tests := []struct {
		name string
		want bool
	}{
		{".note.md.cortex-tmp-0123456789ab", true},
		{"._index.md.cortex-tmp-x", true},
		{".cortex-tmp-", true},
		{"note.md.cortex-tmp-0123", false}, // not hidden: not one of ours
		{"note.md", false},
		{".note.md", false},
		{".obsidian", false},
	}
	for _, tt := range tests {
		if got := IsTemp(tt.name); got != tt.want {
			t.Errorf("IsTemp(%q) = %v, want %v", tt.name, got, tt.want)
		}
	}
}

// TestTempNames: the temporary files writes leave behind when they die are
// the ones IsTemp and the scan recognise.
func TestTempNames(t *testing.T) {
	dir := t.TempDir()
	tmp, err := writeTemp(filepath.Join(dir, "note.md"), []byte("x"), true)
	if err != nil {
		t.Fatal(err)
	}
	if name := filepath.Base(tmp); !IsTemp(name) || filepath.Dir(tmp) != dir {
		t.Errorf("temporary file %s: IsTemp = %v, want a temporary file in %s", tmp, IsTemp(name), dir)
	}
	other, err := writeTemp(filepath.Join(dir, "note.md"), []byte("x"), true)
	if err != nil {
		t.Fatal(err)
	}
	if other == tmp {
		t.Errorf("two writes share the temporary file %s", tmp)
	}
}

func TestMkdirAll(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "a", "b")
	if err := MkdirAll(dir); err != nil {
		t.Fatal(err)
	}
	if err := MkdirAll(dir); err != nil {
		t.Errorf("MkdirAll of an existing folder: %v", err)
	}
	fi, err := os.Stat(dir)
	if err != nil {
		t.Fatal(err)
	}
	if runtime.GOOS != "windows" && fi.Mode().Perm() != DirPerm {
		t.Errorf("permissions %v, want %v", fi.Mode().Perm(), DirPerm)
	}
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := MkdirAll(filepath.Join(file, "sub")); err == nil {
		t.Error("MkdirAll under a file succeeded")
	}
}

func TestWriteDerived(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "_index.md")
	for _, content := range []string{"first\n", "second, longer\n"} {
		if err := WriteDerived(p, []byte(content)); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != content {
			t.Errorf("got %q, want %q", got, content)
		}
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("files left: %v", entries)
	}
}
