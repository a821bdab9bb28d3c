//go:build unix

package vault

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// TestOpenNoFollowAsOpenFile: opened without the poller, a note reads as
// os.OpenFile gives it, under the same name, and the errors are
// os.OpenFile's: a *fs.PathError of "open" naming the path, that
// errors.Is tells as fs.ErrNotExist for a missing note; a symbolic link is
// errIsLink.
func TestOpenNoFollowAsOpenFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "note.md")
	if err := os.WriteFile(p, []byte("# A note\n\nbody\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := openNoFollow(p)
	if err != nil {
		t.Fatal(err)
	}
	data, err := io.ReadAll(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil || string(data) != "# A note\n\nbody\n" || f.Name() != p {
		t.Errorf("read %q (name %q, error %v), want the note's bytes under %q", data, f.Name(), err, p)
	}
	missing := filepath.Join(dir, "gone.md")
	_, err = openNoFollow(missing)
	_, want := os.OpenFile(missing, os.O_RDONLY, 0)
	var pe *fs.PathError
	if !errors.Is(err, fs.ErrNotExist) || !errors.As(err, &pe) || pe.Op != "open" || pe.Path != missing || err.Error() != want.Error() {
		t.Errorf("missing note: %v, want %v", err, want)
	}
	link := filepath.Join(dir, "link.md")
	if err := os.Symlink(p, link); err != nil {
		t.Skip(err)
	}
	if _, err := openNoFollow(link); !errors.Is(err, errIsLink) {
		t.Errorf("a link: %v, want errIsLink", err)
	}
}
