//go:build linux

package atomicfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"

	"golang.org/x/sys/unix"
)

// unnamedRefused holds the folders where linkUnnamed could not make or
// link a file without a name (a file system without O_TMPFILE, no /proc):
// CreateUnlisted goes the named way there from then on.
var unnamedRefused sync.Map

// unnamedFiles counts the files linkUnnamed put in place, for tests.
var unnamedFiles atomic.Int64

// linkUnnamed is CreateUnlistedStat through a file without a name: the
// bytes are written to an O_TMPFILE file in path's folder and synced, then
// the file is linked at path, failing when path exists (fs.ErrExist), as
// the named way does. done is false, with nothing written at path, where
// the folder's file system cannot (the caller then goes the named way,
// which also words any error the folder gives, a missing one for
// instance). fi is the file's stat, taken once it is synced.
func linkUnnamed(path string, data []byte) (fi fs.FileInfo, done bool, _ error) {
	dir := filepath.Dir(path)
	if _, no := unnamedRefused.Load(dir); no {
		return nil, false, nil
	}
	fd, err := unix.Open(dir, unix.O_TMPFILE|unix.O_WRONLY|unix.O_CLOEXEC, uint32(FilePerm))
	if err != nil {
		if errors.Is(err, unix.EOPNOTSUPP) || errors.Is(err, unix.EISDIR) || errors.Is(err, unix.EINVAL) || errors.Is(err, unix.ENOSYS) {
			unnamedRefused.Store(dir, true)
		}
		return nil, false, nil
	}
	f := os.NewFile(uintptr(fd), path)
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if err == nil {
		// Linking changes the file's change time, not its size or
		// modification time.
		fi, err = f.Stat()
	}
	if err == nil {
		// Linked through /proc, which needs no privilege (AT_EMPTY_PATH
		// does).
		err = unix.Linkat(unix.AT_FDCWD, "/proc/self/fd/"+strconv.Itoa(fd), unix.AT_FDCWD, path, unix.AT_SYMLINK_FOLLOW)
		switch {
		case errors.Is(err, unix.EEXIST):
			err = fs.ErrExist
		case err != nil:
			unnamedRefused.Store(dir, true)
			_ = f.Close()
			return nil, false, nil
		}
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, true, fmt.Errorf("create %s: %w", path, err)
	}
	unnamedFiles.Add(1)
	return fi, true, nil
}
