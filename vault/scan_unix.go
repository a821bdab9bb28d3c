//go:build unix

package vault

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sync"

	"golang.org/x/sys/unix"

	"github.com/cortexmem/cortex/atomicfile"
)

// statSplit is the number of notes in one folder above which their stats are
// shared between goroutines.
const statSplit = 512

// statDir returns a folder's modification time.
func statDir(dir string) (int64, error) {
	var st unix.Stat_t
	if err := unix.Stat(dir, &st); err != nil {
		return 0, &os.PathError{Op: "stat", Path: dir, Err: err}
	}
	if st.Mode&unix.S_IFMT != unix.S_IFDIR {
		return 0, errNotDir
	}
	return st.Mtim.Nano(), nil
}

// statNames stats names relative to the folder's descriptor, which spares the
// kernel a path walk per file; large folders are split between goroutines.
func statNames(dir string, names []string) ([]fileStat, error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, fmt.Errorf("read folder %s: %w", dir, err)
	}
	defer f.Close()
	fd := int(f.Fd())
	out := make([]fileStat, len(names))
	stat := func(lo, hi int) {
		var st unix.Stat_t
		for i := lo; i < hi; i++ {
			if unix.Fstatat(fd, names[i], &st, 0) != nil || st.Mode&unix.S_IFMT != unix.S_IFREG {
				continue // gone, a dangling link, or not a file
			}
			out[i] = fileStat{ok: true, size: st.Size, mtime: st.Mtim.Nano()}
		}
	}
	if len(names) < statSplit {
		stat(0, len(names))
		return out, nil
	}
	var wg sync.WaitGroup
	half := len(names) / 2
	wg.Add(1)
	go func() { defer wg.Done(); stat(0, half) }()
	stat(half, len(names))
	wg.Wait()
	return out, nil
}

// readDir reads a folder, looks its notes up with find (their known
// positions), and stats the notes find does not know, or every one with
// statAll (the others are reported as notes without a stat). A note that is
// a link to something else than a file, a link readable refuses, or
// vanished, is not a note.
func readDir(dir string, find func(name string) int, statAll bool, readable func(abs string) bool) ([]dirEntry, error) {
	des, err := listDir(dir)
	if err != nil {
		return nil, fmt.Errorf("read folder %s: %w", dir, err)
	}
	out := make([]dirEntry, len(des))
	var names []string
	var idx []int
	for i, de := range des {
		t := de.typ
		out[i] = dirEntry{name: de.name, dir: t.IsDir(), known: -1}
		if !isNoteName(de.name) || !(t.IsRegular() || t&os.ModeSymlink != 0) {
			continue
		}
		out[i].known = find(de.name)
		if t.IsRegular() && !statAll && out[i].known >= 0 {
			out[i].note = true
			continue
		}
		if t&os.ModeSymlink != 0 && !readable(dir+"/"+de.name) {
			continue
		}
		names = append(names, de.name)
		idx = append(idx, i)
	}
	stats, err := statNames(dir, names)
	if err != nil {
		return nil, err
	}
	for j, i := range idx {
		if st := stats[j]; st.ok {
			out[i].note, out[i].stated, out[i].size, out[i].mtime = true, true, st.size, st.mtime
		}
	}
	return out, nil
}

// dirent is a folder's entry as listing it tells: its name and its type
// bits (fs.FileMode.Type).
type dirent struct {
	name string
	typ  fs.FileMode
}

// openNoFollow opens path for reading unless it is a symbolic link (then
// errIsLink), in one system call for the common case of a plain file, and
// without the runtime's poller (atomicfile.Open). Its errors are
// os.OpenFile's: *fs.PathError of the open.
func openNoFollow(path string) (*os.File, error) {
	f, err := atomicfile.Open(path, os.O_RDONLY|unix.O_NOFOLLOW)
	if err == nil {
		return f, nil
	}
	// Linux and macOS say ELOOP, FreeBSD EMLINK; a link in a folder above
	// gives ELOOP too, which Lstat tells apart.
	if errors.Is(err, unix.ELOOP) || errors.Is(err, unix.EMLINK) {
		if fi, lerr := os.Lstat(path); lerr == nil && fi.Mode()&os.ModeSymlink != 0 {
			return nil, errIsLink
		}
	}
	return nil, err
}
