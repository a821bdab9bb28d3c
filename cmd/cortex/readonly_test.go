package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// chmodReadOnly takes write permission from dir and everything in it until
// the test ends.
func chmodReadOnly(t *testing.T, dir string) {
	t.Helper()
	var modes []func()
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		mode := fi.Mode().Perm()
		modes = append(modes, func() { _ = os.Chmod(p, mode) })
		return os.Chmod(p, mode&^0o222)
	})
	t.Cleanup(func() {
		for i := len(modes) - 1; i >= 0; i-- {
			modes[i]()
		}
	})
	if err != nil {
		t.Fatal(err)
	}
}
