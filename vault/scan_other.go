//go:build !unix

package vault

import (
	"fmt"
	"os"
	"path/filepath"
)

func statDir(dir string) (int64, error) {
	fi, err := os.Stat(dir)
	if err != nil {
		return 0, err
	}
	if !fi.IsDir() {
		return 0, errNotDir
	}
	return fi.ModTime().UnixNano(), nil
}

func statNames(dir string, names []string) ([]fileStat, error) {
	out := make([]fileStat, len(names))
	for i, n := range names {
		fi, err := os.Stat(filepath.Join(dir, n))
		if err != nil || !fi.Mode().IsRegular() {
			continue
		}
		out[i] = fileStat{ok: true, size: fi.Size(), mtime: fi.ModTime().UnixNano()}
	}
	return out, nil
}

func readDir(dir string, find func(name string) int, statAll bool, readable func(abs string) bool) ([]dirEntry, error) {
	des, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("read folder %s: %w", dir, err)
	}
	out := make([]dirEntry, len(des))
	for i, de := range des {
		out[i] = dirEntry{name: de.Name(), dir: de.IsDir(), known: -1}
		if !isNoteName(de.Name()) || de.IsDir() {
			continue
		}
		out[i].known = find(de.Name())
		if de.Type().IsRegular() && !statAll && out[i].known >= 0 {
			out[i].note = true
			continue
		}
		if de.Type()&os.ModeSymlink != 0 && !readable(filepath.Join(dir, de.Name())) {
			continue
		}
		if st, _ := statNames(dir, []string{de.Name()}); st[0].ok {
			out[i].note, out[i].stated, out[i].size, out[i].mtime = true, true, st[0].size, st[0].mtime
		}
	}
	return out, nil
}

// openNoFollow opens path for reading unless it is a symbolic link (then
// errIsLink).
func openNoFollow(path string) (*os.File, error) {
	fi, err := os.Lstat(path)
	if err != nil {
		return nil, err
	}
	if fi.Mode()&os.ModeSymlink != 0 {
		return nil, errIsLink
	}
	return os.Open(path)
}
