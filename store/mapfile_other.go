//go:build !unix

package store

import "os"

// readMapped reads the file at path (see mapfile_unix.go).
func readMapped(path string) ([]byte, func(), error) {
	data, err := os.ReadFile(path)
	return data, func() {}, err
}
