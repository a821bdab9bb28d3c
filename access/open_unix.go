//go:build unix

package access

import (
	"errors"
	"io/fs"
	"os"

	"golang.org/x/sys/unix"
)

// openAppend opens the file at p to append to, as os.OpenFile(p,
// os.O_WRONLY|os.O_APPEND, 0) does, but without offering it to the
// runtime's poller: os.OpenFile makes a regular file non-blocking, has the
// poller refuse it and makes it blocking again, four system calls that a
// recall, which appends to the log each time, paid each time.
func openAppend(p string) (*os.File, error) {
	for {
		fd, err := unix.Open(p, unix.O_WRONLY|unix.O_APPEND|unix.O_CLOEXEC, 0)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return nil, &fs.PathError{Op: "open", Path: p, Err: err}
		}
		return os.NewFile(uintptr(fd), p), nil
	}
}
