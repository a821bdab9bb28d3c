//go:build !linux

package atomicfile

import (
	"fmt"
	"iter"
	"os"
)

// SyncAll makes the files durable, one fsync each: only Linux can flush a
// whole file system at once.
func SyncAll(_ string, files iter.Seq[string]) error {
	for p := range files {
		f, err := os.OpenFile(p, os.O_RDWR, 0)
		if err != nil {
			return fmt.Errorf("sync %s: %w", p, err)
		}
		err = f.Sync()
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("sync %s: %w", p, err)
		}
	}
	return nil
}
