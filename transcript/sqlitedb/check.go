package sqlitedb

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/cortexmem/cortex/transcript"
)

// Check tells cheaply, without copying the database, whether the file at
// path can be read as one: it opens for reading and starts with SQLite's
// header. It is what discovery says of a database it found but cannot read
// (a file of the tool's name that is not a database, one the person cannot
// read); Open still decides, since a page damaged past the header shows
// only there.
func Check(path string) error {
	f, err := os.Open(path)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			return pe.Err
		}
		return err
	}
	defer f.Close()
	head := make([]byte, 100)
	n, err := io.ReadFull(f, head)
	switch {
	case n >= len(magic) && string(head[:len(magic)]) != magic, n > 0 && n < len(magic) && string(head[:n]) != magic[:n]:
		return fmt.Errorf("%w: no SQLite header", ErrDamaged)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return fmt.Errorf("%w: %d bytes, shorter than the header", ErrDamaged, n)
	case err != nil && !errors.Is(err, io.EOF):
		return err
	}
	return nil
}

// AddDatabase lists the database at path in d as discovery's AddFile does
// (links not followed, empty files skipped), and when Check finds it
// unreadable, skips it instead with the reason.
func AddDatabase(d *transcript.Discovery, path, session, role string) {
	n := len(d.Files)
	d.AddFile(path, session, role)
	if len(d.Files) == n {
		return
	}
	if err := Check(path); err != nil {
		d.Files = d.Files[:n]
		d.Skip(path, "cannot be read: "+err.Error())
	}
}
