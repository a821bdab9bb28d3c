//go:build !unix

package atomicfile

import "os"

// Open opens path with flag, as os.OpenFile(path, flag, 0) does.
func Open(path string, flag int) (*os.File, error) {
	return os.OpenFile(path, flag, 0)
}
