//go:build unix

package filelock

import (
	"errors"

	"golang.org/x/sys/unix"
)

// intentHeld reports whether a process holds the intent file p (a writer
// waiting): an exclusive lock on it is refused. Three system calls, or one
// when no writer ever waited: os.OpenFile's for a regular file are six (it
// offers the file to the poller, which refuses it), and a stat first and an
// unlock before the close made ten. Closing the file releases the test lock.
func intentHeld(p string) bool {
	fd, err := unix.Open(p, unix.O_RDONLY|unix.O_CLOEXEC|unix.O_NONBLOCK, 0) // never waits on a FIFO
	if err != nil {
		return false // no writer ever waited for it
	}
	defer unix.Close(fd)
	for {
		err = unix.Flock(fd, unix.LOCK_EX|unix.LOCK_NB)
		if !errors.Is(err, unix.EINTR) {
			return errors.Is(err, unix.EWOULDBLOCK)
		}
	}
}
