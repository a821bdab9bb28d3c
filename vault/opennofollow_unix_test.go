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

// TestOpenNoFollowAsOpenFile: a note opens and reads through
// atomicfile.Open (whose errors TestOpenAsOpenFile checks against
// os.OpenFile's); what openNoFollow adds is that a symbolic link is
// errIsLink, and a missing note stays fs.ErrNotExist.
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
	if err != nil || string(data) != "# A note\n\nbody\n" {
		t.Errorf("read %q (%v), want the note's bytes", data, err)
	}
	if _, err := openNoFollow(filepath.Join(dir, "gone.md")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a missing note: %v, want fs.ErrNotExist", err)
	}
	link := filepath.Join(dir, "link.md")
	if err := os.Symlink(p, link); err != nil {
		t.Skip(err)
	}
	if _, err := openNoFollow(link); !errors.Is(err, errIsLink) {
		t.Errorf("a link: %v, want errIsLink", err)
	}
}
