//go:build linux

package main

import (
	"os"
	"syscall"
	"testing"
)

// makeReadOnly makes the folder dir read-only for the rest of the test. A
// user other than root loses write permission on it; root ignores
// permissions, so for root it becomes a read-only bind mount of itself.
func makeReadOnly(t *testing.T, dir string) {
	t.Helper()
	if os.Geteuid() != 0 {
		chmodReadOnly(t, dir)
		return
	}
	if err := syscall.Mount(dir, dir, "", syscall.MS_BIND, ""); err != nil {
		t.Skipf("cannot bind-mount %s read-only: %v", dir, err)
	}
	t.Cleanup(func() { _ = syscall.Unmount(dir, syscall.MNT_DETACH) })
	if err := syscall.Mount("", dir, "", syscall.MS_REMOUNT|syscall.MS_BIND|syscall.MS_RDONLY, ""); err != nil {
		t.Skipf("cannot remount %s read-only: %v", dir, err)
	}
}
