//go:build !unix

package filelock

import (
	"os"

	"github.com/gofrs/flock"

	"github.com/cortexmem/cortex/atomicfile"
)

// intentHeld reports whether a process holds the intent file p (a writer
// waiting): an exclusive lock on it is refused.
func intentHeld(p string) bool {
	if _, err := os.Stat(p); err != nil {
		return false // no writer ever waited for it
	}
	f := flock.New(p, flock.SetPermissions(atomicfile.FilePerm))
	ok, err := f.TryLock()
	if err != nil {
		return false
	}
	if ok {
		_ = f.Close()
		return false
	}
	return true
}
