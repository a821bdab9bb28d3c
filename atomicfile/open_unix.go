//go:build unix

package atomicfile

import (
	"errors"
	"io/fs"
	"os"

	"golang.org/x/sys/unix"
)

// Open opens path with flag, as os.OpenFile(path, flag, 0) does, but
// without offering the file to the runtime's poller: os.OpenFile makes a
// regular file non-blocking, has the poller refuse it and makes it blocking
// again, four system calls more on every open (os.NewFile asks only whether
// it is non-blocking). A recall appends to the access log and reads notes,
// a save reads the notes it compares: each paid them. flag may hold the
// system's own flags too (O_NOFOLLOW). Its errors are os.OpenFile's: a
// *fs.PathError of "open".
func Open(path string, flag int) (*os.File, error) {
	for {
		fd, err := unix.Open(path, flag|unix.O_CLOEXEC, 0)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return nil, &fs.PathError{Op: "open", Path: path, Err: err}
		}
		return os.NewFile(uintptr(fd), path), nil
	}
}
