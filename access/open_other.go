//go:build !unix

package access

import "os"

// openAppend opens the file at p to append to.
func openAppend(p string) (*os.File, error) {
	return os.OpenFile(p, os.O_WRONLY|os.O_APPEND, 0)
}
