package vault

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
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

// WriteFile replaces path with data atomically and durably. A path that is a
// symbolic link is refused (a *LinkError): the link is the person's.
func WriteFile(path string, data []byte) error {
	if err := refuseLink(path, path); err != nil {
		return err
	}
	tmp, err := writeTemp(path, data, true)
	if err != nil {
		return err
	}
	if err := replace(tmp, path); err != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("replace %s: %w", path, err)
	}
	return syncDir(filepath.Dir(path))
}

// WriteDerived replaces path with data atomically but does not wait for the disk:
// for files cortex derives from the notes (the map of contents), which a process
// crash cannot tear and which the next change rewrites after a power loss.
// Like WriteFile it refuses to replace a symbolic link.
func WriteDerived(path string, data []byte) error {
	if err := refuseLink(path, path); err != nil {
		return err
	}
	tmp, err := writeTemp(path, data, false)
	if err != nil {
		return err
	}
	if err := replace(tmp, path); err != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("replace %s: %w", path, err)
	}
	return nil
}

// CreateFile writes data to path atomically, failing with an error that matches
// fs.ErrExist when path already exists: a new note never replaces another.
func CreateFile(path string, data []byte) error {
	tmp, err := writeTemp(path, data, true)
	if err != nil {
		return err
	}
	defer os.Remove(tmp)
	if err := os.Link(tmp, path); err != nil {
		var le *os.LinkError
		if errors.As(err, &le) && errors.Is(le.Err, fs.ErrExist) {
			return fmt.Errorf("create %s: %w", path, fs.ErrExist)
		}
		return fmt.Errorf("create %s: %w", path, err)
	}
	if err := os.Remove(tmp); err != nil {
		return fmt.Errorf("create %s: remove temporary file: %w", path, err)
	}
	return syncDir(filepath.Dir(path))
}

// linkPlace links tmp to path, failing when path exists, then removes tmp.
func linkPlace(tmp, path string) error {
	if err := os.Link(tmp, path); err != nil {
		return err
	}
	return os.Remove(tmp)
}

// writeTempNamed writes data to the new hidden file tmp without syncing it,
// and returns its size and modification time as the file system has them.
func writeTempNamed(tmp string, data []byte) (FileStat, error) {
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, FilePerm)
	if err != nil {
		return FileStat{}, err
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
		return FileStat{}, err
	}
	return FileStat{Size: fi.Size(), MTime: fi.ModTime().UnixNano()}, nil
}

// writeTemp writes data to a new hidden file beside path, and syncs it.
func writeTemp(path string, data []byte, sync bool) (string, error) {
	dir, base := filepath.Split(path)
	var rnd [6]byte
	if _, err := rand.Read(rnd[:]); err != nil {
		return "", err
	}
	tmp := filepath.Join(dir, "."+base+tempMarker+hex.EncodeToString(rnd[:]))
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, FilePerm)
	if err != nil {
		return "", fmt.Errorf("write %s: %w", path, err)
	}
	_, err = f.Write(data)
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

// syncDir makes a rename in dir durable. Windows cannot sync folders; renames
// there are durable on their own.
func syncDir(dir string) error {
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
