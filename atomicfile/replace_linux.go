//go:build linux

package atomicfile

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// replace moves the synced temporary file tmp to path. When path exists the two
// are exchanged atomically and the old file, now at tmp, is removed: a plain
// rename over an existing file makes ext4 flush and free the old file's blocks
// inside the rename, which costs milliseconds for a large file, while the
// exchange costs microseconds and is just as atomic for readers. A crash
// between the exchange and the removal leaves the old content at tmp, a
// temporary file that the next write cleans up.
func replace(tmp, path string) error {
	fi, err := os.Lstat(path)
	if err == nil && fi.Mode()&os.ModeSymlink != 0 {
		// Checked by the callers already; a link made since is refused too.
		return RefuseLink(path)
	}
	if err != nil || !fi.Mode().IsRegular() {
		return os.Rename(tmp, path) // nothing to exchange with, or not a file
	}
	err = unix.Renameat2(unix.AT_FDCWD, tmp, unix.AT_FDCWD, path, unix.RENAME_EXCHANGE)
	switch {
	case err == nil:
		if err := os.Remove(tmp); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
		return nil
	case errors.Is(err, unix.ENOENT), errors.Is(err, unix.EINVAL), errors.Is(err, unix.ENOSYS),
		errors.Is(err, unix.EOPNOTSUPP), errors.Is(err, unix.EXDEV), errors.Is(err, unix.EPERM):
		// No file to exchange with, or a file system that cannot exchange.
		return os.Rename(tmp, path)
	}
	return &os.LinkError{Op: "exchange", Old: tmp, New: path, Err: err}
}

// Place moves the temporary file tmp to path when no file is there, in one
// rename that refuses to replace (an error matching fs.ErrExist when path
// exists). File systems without that rename get a link and a removal.
func Place(tmp, path string) error {
	err := unix.Renameat2(unix.AT_FDCWD, tmp, unix.AT_FDCWD, path, unix.RENAME_NOREPLACE)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, unix.EEXIST):
		return &os.LinkError{Op: "rename", Old: tmp, New: path, Err: os.ErrExist}
	case errors.Is(err, unix.EINVAL), errors.Is(err, unix.ENOSYS), errors.Is(err, unix.EOPNOTSUPP):
		return linkPlace(tmp, path)
	}
	return &os.LinkError{Op: "rename", Old: tmp, New: path, Err: err}
}
