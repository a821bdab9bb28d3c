package atomicfile

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
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

func TestWrite(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "note.md")
	for _, content := range []string{"first", "second, longer", ""} {
		if err := Write(path, []byte(content)); err != nil {
			t.Fatalf("Write(%q): %v", content, err)
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

func TestWriteFails(t *testing.T) {
	dir := t.TempDir()
	if err := Write(filepath.Join(dir, "missing", "note.md"), []byte("x")); err == nil {
		t.Error("Write into a missing folder succeeded")
	}
	// Replacing a folder fails, and leaves no temporary file behind.
	if err := os.Mkdir(filepath.Join(dir, "taken"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := Write(filepath.Join(dir, "taken"), []byte("x")); err == nil {
		t.Error("Write over a folder succeeded")
	}
	if got := dirNames(t, dir); !slices.Equal(got, []string{"taken"}) {
		t.Errorf("folder holds %q after failed writes, want only taken", got)
	}
}

func TestCreate(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "note.md")
	if err := Create(path, []byte("original")); err != nil {
		t.Fatalf("Create: %v", err)
	}
	err := Create(path, []byte("replacement"))
	if !errors.Is(err, fs.ErrExist) {
		t.Errorf("Create over an existing file: got %v, want an error matching fs.ErrExist", err)
	}
	checkContent(t, path, "original")
	if got := dirNames(t, dir); !slices.Equal(got, []string{"note.md"}) {
		t.Errorf("folder holds %q, want only note.md", got)
	}
	if err := Create(filepath.Join(dir, "missing", "x.md"), []byte("x")); err == nil || errors.Is(err, fs.ErrExist) {
		t.Errorf("Create into a missing folder: got %v, want an error other than fs.ErrExist", err)
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
	tmp, err := writeTemp(filepath.Join(dir, "note.md"), []byte("x"), FilePerm, true)
	if err != nil {
		t.Fatal(err)
	}
	if name := filepath.Base(tmp); !IsTemp(name) || filepath.Dir(tmp) != dir {
		t.Errorf("temporary file %s: IsTemp = %v, want a temporary file in %s", tmp, IsTemp(name), dir)
	}
	other, err := writeTemp(filepath.Join(dir, "note.md"), []byte("x"), FilePerm, true)
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

// TestWriteFrom: content written in pieces lands whole, durably
// (WriteFrom) or not (WriteDerivedFrom); a write that fails leaves the old
// file and no temporary one; a link is refused.
func TestWriteFrom(t *testing.T) {
	pieces := func(parts ...string) func(io.Writer) error {
		return func(w io.Writer) error {
			for _, s := range parts {
				if _, err := io.WriteString(w, s); err != nil {
					return err
				}
			}
			return nil
		}
	}
	for name, write := range map[string]func(string, func(io.Writer) error) error{"WriteFrom": WriteFrom, "WriteDerivedFrom": WriteDerivedFrom} {
		dir := t.TempDir()
		p := filepath.Join(dir, "words")
		if err := write(p, pieces("one, ", "two, ", "three")); err != nil {
			t.Fatal(err)
		}
		broken := errors.New("made up")
		err := write(p, func(w io.Writer) error {
			if err := pieces("half")(w); err != nil {
				return err
			}
			return broken
		})
		if !errors.Is(err, broken) {
			t.Errorf("%s: a failing write returned %v, want %v", name, err, broken)
		}
		if got, err := os.ReadFile(p); err != nil || string(got) != "one, two, three" {
			t.Errorf("%s: after a failed write the file holds %q (%v), want the first content", name, got, err)
		}
		if names := dirNames(t, dir); !slices.Equal(names, []string{"words"}) {
			t.Errorf("%s: files left: %v", name, names)
		}
		link := filepath.Join(dir, "link")
		if err := os.Symlink(p, link); err == nil {
			if err := write(link, pieces("ours")); !errors.Is(err, ErrLink) {
				t.Errorf("%s: over a link: %v, want ErrLink", name, err)
			}
		}
	}
}

// TestRefusesLinks: a write never replaces a symbolic link with a file, nor
// writes through it; the link and what it leads to stay as they were.
func TestRefusesLinks(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "target")
	if err := os.WriteFile(target, []byte("theirs"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(target, link); err != nil {
		t.Skipf("no symbolic links: %v", err)
	}
	for name, write := range map[string]func(string, []byte) error{"Write": Write, "WriteDerived": WriteDerived} {
		err := write(link, []byte("ours"))
		var le *LinkError
		if !errors.Is(err, ErrLink) || !errors.As(err, &le) || le.Path != link || le.Target != target {
			t.Errorf("%s over a link: %v, want a *LinkError naming %s and %s", name, err, link, target)
		}
		if fi, err := os.Lstat(link); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
			t.Errorf("%s replaced the link", name)
		}
		checkContent(t, target, "theirs")
	}
	if err := Create(link, []byte("ours")); !errors.Is(err, fs.ErrExist) {
		t.Errorf("Create over a link: %v, want fs.ErrExist", err)
	}
	if got := dirNames(t, dir); !slices.Equal(got, []string{"link", "target"}) {
		t.Errorf("folder holds %q, want only link and target", got)
	}
}

// TestPlaceMany: many files written to temporary files, synced together and
// placed, as a batch of new notes is; a file already at a path is never
// replaced.
func TestPlaceMany(t *testing.T) {
	dir := t.TempDir()
	taken := filepath.Join(dir, "b")
	if err := os.WriteFile(taken, []byte("taken"), 0o600); err != nil {
		t.Fatal(err)
	}
	var tmps []string
	for i, name := range []string{"a", "b"} {
		tmp := TempPath(filepath.Join(dir, name), "batch"+strconv.Itoa(i))
		fi, err := WriteTemp(tmp, []byte("new "+name))
		if err != nil {
			t.Fatal(err)
		}
		if fi.Size() != int64(len("new "+name)) || !IsTemp(filepath.Base(tmp)) {
			t.Errorf("WriteTemp(%s): size %d, IsTemp %v", tmp, fi.Size(), IsTemp(filepath.Base(tmp)))
		}
		if _, err := WriteTemp(tmp, nil); !errors.Is(err, fs.ErrExist) {
			t.Errorf("WriteTemp over a temporary file: %v, want fs.ErrExist", err)
		}
		tmps = append(tmps, tmp)
	}
	if err := SyncAll(dir, slices.Values(tmps)); err != nil {
		t.Fatal(err)
	}
	if err := Place(tmps[0], filepath.Join(dir, "a")); err != nil {
		t.Fatal(err)
	}
	if err := Place(tmps[1], taken); !errors.Is(err, fs.ErrExist) {
		t.Errorf("Place over a file: %v, want fs.ErrExist", err)
	}
	if err := SyncDir(dir); err != nil {
		t.Fatal(err)
	}
	checkContent(t, filepath.Join(dir, "a"), "new a")
	checkContent(t, taken, "taken")
	if got := dirNames(t, dir); !slices.Equal(got, []string{"." + "b" + tempMarker + "batch1", "a", "b"}) {
		t.Errorf("folder holds %q", got)
	}
}

// TestWriteMode: the file gets the permission asked for, whatever the umask
// and whatever it had before, and a link is still refused.
func TestWriteMode(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "settings.json")
	if err := os.WriteFile(path, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, perm := range []fs.FileMode{0o644, 0o640, 0o600} {
		if err := WriteMode(path, []byte("new"), perm); err != nil {
			t.Fatal(err)
		}
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if runtime.GOOS != "windows" && fi.Mode().Perm() != perm {
			t.Errorf("permission %v, want %v", fi.Mode().Perm(), perm)
		}
		if data, _ := os.ReadFile(path); string(data) != "new" {
			t.Errorf("content %q", data)
		}
	}
	link := filepath.Join(dir, "link.json")
	if err := os.Symlink(path, link); err != nil {
		t.Skip(err)
	}
	if err := WriteMode(link, []byte("x"), 0o644); !errors.Is(err, ErrLink) {
		t.Errorf("write through a link: %v, want ErrLink", err)
	}
}
