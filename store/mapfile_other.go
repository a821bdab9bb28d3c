//go:build !unix

package store

import "os"

// readMapped reads the file at path (see mapfile_unix.go).
func readMapped(path string) (_ []byte, release func(), mapped bool, _ error) {
	data, err := os.ReadFile(path)
	return data, func() {}, false, err
}

// readMappedFile is readMapped, with no file (see mapfile_unix.go).
func readMappedFile(path string) (_ []byte, release func(), _ os.FileInfo, mapped bool, _ error) {
	data, release, mapped, err := readMapped(path)
	return data, release, nil, mapped, err
}

// dropResident does nothing: nothing is mapped here.
func dropResident([]byte) {}

// fileNumbers is the device and inode of the file fi describes: none here,
// where a file is told by its size and time alone.
func fileNumbers(fi os.FileInfo) (dev, ino uint64) { return 0, 0 }
