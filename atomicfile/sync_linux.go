//go:build linux

package atomicfile

import (
	"fmt"
	"iter"
	"os"

	"golang.org/x/sys/unix"
)

// SyncAll makes the files durable: on Linux one syncfs of the file system
// that holds dir flushes them all, where an fsync each would wait for the disk
// once per file.
func SyncAll(dir string, _ iter.Seq[string]) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("sync %s: %w", dir, err)
	}
	err = unix.Syncfs(int(d.Fd()))
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("sync %s: %w", dir, err)
	}
	return nil
}
