//go:build !unix

package index

import (
	"errors"
	"os"
)

func mmap(*os.File, int64) ([]byte, error) {
	return nil, errors.New("files are not mapped on this system")
}
