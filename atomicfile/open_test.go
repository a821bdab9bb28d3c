package atomicfile

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// TestOpenAsOpenFile: Open reads and appends as os.OpenFile does, under the
// same name, and its errors are os.OpenFile's: a *fs.PathError of "open"
// naming the path, that errors.Is tells as fs.ErrNotExist for a missing
// file.
func TestOpenAsOpenFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "log")
	if err := os.WriteFile(p, []byte("one\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	w, err := Open(p, os.O_WRONLY|os.O_APPEND)
	if err != nil {
		t.Fatal(err)
	}
	_, err = w.Write([]byte("two\n"))
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatal(err)
	}
	r, err := Open(p, os.O_RDONLY)
	if err != nil {
		t.Fatal(err)
	}
	data, err := io.ReadAll(r)
	if cerr := r.Close(); err == nil {
		err = cerr
	}
	if err != nil || string(data) != "one\ntwo\n" || r.Name() != p {
		t.Errorf("read %q (name %q, error %v), want the appended bytes under %q", data, r.Name(), err, p)
	}
	missing := filepath.Join(dir, "gone")
	_, err = Open(missing, os.O_WRONLY|os.O_APPEND)
	_, want := os.OpenFile(missing, os.O_WRONLY|os.O_APPEND, 0)
	var pe *fs.PathError
	if !errors.Is(err, fs.ErrNotExist) || !errors.As(err, &pe) || pe.Op != "open" || pe.Path != missing || err.Error() != want.Error() {
		t.Errorf("missing file: %v, want %v", err, want)
	}
}
