//go:build unix

package store

import (
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// readMapped gives the bytes of the file at path, mapped read-only into
// memory rather than copied, and the function that releases them. A word
// index is megabytes (8.8 MB at 10,000 notes of real length) that a save
// reads once: reading it into fresh memory, page by page, cost about a
// quarter of a one-shot save. Files it maps are only ever replaced whole
// (atomicfile.WriteDerived renames a new file over the old one), so the
// mapping keeps showing the file as opened. An empty file, or one that
// cannot be mapped, is read (mapped is false).
func readMapped(path string) (_ []byte, release func(), mapped bool, _ error) {
	data, release, _, mapped, err := readMappedFile(path)
	return data, release, mapped, err
}

// readMappedFile is readMapped, with the file as it was opened (nil when
// it was read, not mapped).
func readMappedFile(path string) (_ []byte, release func(), _ os.FileInfo, mapped bool, _ error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, nil, false, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, nil, nil, false, err
	}
	if size := fi.Size(); size > 0 && int64(int(size)) == size {
		if data, err := syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_SHARED); err == nil {
			return data, func() { _ = syscall.Munmap(data) }, fi, true, nil
		}
	}
	data, err := os.ReadFile(path)
	return data, func() {}, nil, false, err
}

// dropResident takes the pages of data, a read-only mapping of a file that
// readMapped made, out of the process's resident memory: they stay in the
// page cache, and are mapped again, from it, where they are next read. A
// file's large pages are mapped whole on a read (a megabyte at a time),
// so that one check of a word index left all of it resident.
func dropResident(data []byte) {
	_ = unix.Madvise(data, unix.MADV_DONTNEED) // syscall has no Madvise on macOS
}

// fileNumbers is the device and inode of the file fi describes.
func fileNumbers(fi os.FileInfo) (dev, ino uint64) {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Dev), uint64(st.Ino) // of other types on other systems
	}
	return 0, 0
}
