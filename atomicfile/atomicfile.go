// Package atomicfile writes files whole or not at all: a reader, or a process
// that starts after a crash, sees the old content or the new, never a part.
// Every write goes to a hidden temporary file beside the target, which is
// then renamed (or linked) into place; the durable writes also wait for the
// disk, the file's and its folder's. It also creates folders and files with
// cortex's permissions (SPEC §2: private to their owner).
//
// A symbolic link at a path to be replaced is refused (a *LinkError) rather
// than replaced by a file: the link is the person's. It depends on nothing
// else in cortex; the vault builds its notes' rules on it.
package atomicfile

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
)

// Permissions of what cortex creates (SPEC §2).
const (
	FilePerm fs.FileMode = 0o600
	DirPerm  fs.FileMode = 0o700
)

// tempMarker is part of every temporary file's name. Temporary files start with a
// dot, so Obsidian never shows them.
const tempMarker = ".cortex-tmp-"

// IsTemp reports whether a file name is one of cortex's temporary files.
func IsTemp(name string) bool {
	return strings.HasPrefix(name, ".") && strings.Contains(name, tempMarker)
}

// TempPath is a temporary file's path for path, told apart from others by
// tag: hidden, beside path, and recognised by IsTemp.
func TempPath(path, tag string) string {
	dir, base := filepath.Split(path)
	return filepath.Join(dir, "."+base+tempMarker+tag)
}

// ErrLink marks a refusal to write over a symbolic link.
var ErrLink = errors.New("cortex never replaces a symbolic link with a file")

// LinkError is a write refused because the file is a symbolic link. It
// matches ErrLink.
type LinkError struct {
	Path   string
	Target string
}

func (e *LinkError) Error() string {
	return fmt.Sprintf("%s is a symbolic link to %s: %v", e.Path, e.Target, ErrLink)
}

// Unwrap makes the error match ErrLink.
func (e *LinkError) Unwrap() error { return ErrLink }

// RefuseLink returns a *LinkError when path is a symbolic link, nil
// otherwise (a missing file included).
func RefuseLink(path string) error {
	fi, err := os.Lstat(path)
	if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		return nil
	}
	target, _ := os.Readlink(path)
	return &LinkError{Path: path, Target: target}
}

// Write replaces path with data atomically and durably. A path that is a
// symbolic link is refused (a *LinkError).
func Write(path string, data []byte) error {
	return WriteMode(path, data, FilePerm)
}

// WriteMode is Write giving the file the permission perm: for a file that is
// not cortex's own (an agent's settings), which keeps the permission it had.
func WriteMode(path string, data []byte, perm fs.FileMode) error {
	return writeFromMode(path, perm, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// WriteFrom is Write for content made in pieces by write, which writes it
// to w: a file written as it is made rather than held whole in memory (an
// index catalog's base is tens of megabytes at 100,000 notes). An error from
// write leaves path as it was.
func WriteFrom(path string, write func(w io.Writer) error) error {
	return writeFromMode(path, FilePerm, write)
}

// writeFromMode is WriteFrom giving the file the permission perm.
func writeFromMode(path string, perm fs.FileMode, write func(w io.Writer) error) error {
	if err := RefuseLink(path); err != nil {
		return err
	}
	tmp, err := writeTempFrom(path, perm, true, write)
	if err != nil {
		return err
	}
	if err := replace(tmp, path); err != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("replace %s: %w", path, err)
	}
	return SyncDir(filepath.Dir(path))
}

// WriteDerived replaces path with data atomically but does not wait for the disk:
// for files cortex derives from others (the map of contents, a cache), which a
// process crash cannot tear and which the next change rewrites after a power
// loss. Like Write it refuses to replace a symbolic link.
func WriteDerived(path string, data []byte) error {
	return WriteDerivedFrom(path, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// WriteDerivedFrom is WriteDerived for content made in pieces by write,
// which writes it to w: a file too large to be held whole in memory (a
// vault's word sets are hundreds of megabytes at 100,000 notes). An error
// from write leaves path as it was.
func WriteDerivedFrom(path string, write func(w io.Writer) error) error {
	if err := RefuseLink(path); err != nil {
		return err
	}
	tmp, err := writeTempFrom(path, FilePerm, false, write)
	if err != nil {
		return err
	}
	if err := replace(tmp, path); err != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("replace %s: %w", path, err)
	}
	return nil
}

// Create writes data to path atomically and durably, failing with an error
// that matches fs.ErrExist when path already exists: a new file never
// replaces another.
func Create(path string, data []byte) error {
	if err := CreateUnlisted(path, data); err != nil {
		return err
	}
	return SyncDir(filepath.Dir(path))
}

// CreateUnlisted is Create but for the sync of path's folder: the file's
// bytes are on the disk before its name is, as Create has them, but the
// name becomes durable only once the caller has synced the folder
// (SyncDir), which it must do before it counts the file as written. A
// caller with other files to sync can then wait for the disk once for
// them all, the folder's sync beside the others.
func CreateUnlisted(path string, data []byte) error {
	_, err := CreateUnlistedStat(path, data)
	return err
}

// CreateUnlistedStat is CreateUnlisted that also returns what the file
// system says of the file it wrote (its size and modification time), taken
// from the file before it got its name: a caller that keeps a record of the
// file need not read it back.
func CreateUnlistedStat(path string, data []byte) (fs.FileInfo, error) {
	// Where the file system can, the bytes go to a file without a name
	// (linkUnnamed): no temporary name is made in the folder and removed
	// again, nor left behind by a crash.
	if fi, done, err := linkUnnamed(path, data); done {
		return fi, err
	}
	tmp, err := writeTemp(path, data, FilePerm, true)
	if err != nil {
		return nil, err
	}
	fi, err := os.Stat(tmp)
	if err != nil {
		_ = os.Remove(tmp)
		return nil, fmt.Errorf("create %s: %w", path, err)
	}
	if err := os.Link(tmp, path); err != nil {
		_ = os.Remove(tmp)
		var le *os.LinkError
		if errors.As(err, &le) && errors.Is(le.Err, fs.ErrExist) {
			return nil, fmt.Errorf("create %s: %w", path, fs.ErrExist)
		}
		return nil, fmt.Errorf("create %s: %w", path, err)
	}
	if err := os.Remove(tmp); err != nil {
		return nil, fmt.Errorf("create %s: remove temporary file: %w", path, err)
	}
	return fi, nil
}

// linkPlace links tmp to path, failing when path exists, then removes tmp.
func linkPlace(tmp, path string) error {
	if err := os.Link(tmp, path); err != nil {
		return err
	}
	return os.Remove(tmp)
}

// WriteTemp writes data to the new file tmp (a TempPath) without syncing it,
// and returns what the file system says of it (its size and modification
// time). Writers of many files write each to a temporary file, sync them
// together (SyncAll), then Place each.
func WriteTemp(tmp string, data []byte) (fs.FileInfo, error) {
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, FilePerm)
	if err != nil {
		return nil, err
	}
	_, err = f.Write(data)
	var fi os.FileInfo
	if err == nil {
		fi, err = f.Stat()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = os.Remove(tmp)
		return nil, err
	}
	return fi, nil
}

// writeTemp writes data to a new hidden file beside path with the permission
// perm, and syncs it when sync is set.
func writeTemp(path string, data []byte, perm fs.FileMode, sync bool) (string, error) {
	return writeTempFrom(path, perm, sync, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// writeTempFrom is writeTemp of what write writes.
func writeTempFrom(path string, perm fs.FileMode, sync bool, write func(w io.Writer) error) (string, error) {
	var rnd [6]byte
	if _, err := rand.Read(rnd[:]); err != nil {
		return "", err
	}
	tmp := TempPath(path, hex.EncodeToString(rnd[:]))
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, FilePerm)
	if err != nil {
		return "", fmt.Errorf("write %s: %w", path, err)
	}
	err = write(f)
	if err == nil && perm != FilePerm {
		err = f.Chmod(perm) // not through OpenFile: the umask would change it
	}
	if err == nil && sync {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = os.Remove(tmp)
		return "", fmt.Errorf("write %s: %w", path, err)
	}
	return tmp, nil
}

// SyncDir makes a rename in dir durable. Windows cannot sync folders; renames
// there are durable on their own.
func SyncDir(dir string) error {
	if runtime.GOOS == "windows" {
		return nil
	}
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("sync %s: %w", dir, err)
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("sync %s: %w", dir, err)
	}
	return nil
}

// MkdirAll creates dir and its parents with cortex's folder permission.
func MkdirAll(dir string) error {
	if err := os.MkdirAll(dir, DirPerm); err != nil {
		return fmt.Errorf("create folder: %w", err)
	}
	return nil
}
