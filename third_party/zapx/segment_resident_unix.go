//go:build unix

package zap

import "golang.org/x/sys/unix"

// dropResident advises the kernel that the mapping's pages are not needed:
// a read-only shared file mapping's pages are read again from the page
// cache.
func dropResident(b []byte) {
	_ = unix.Madvise(b, unix.MADV_DONTNEED)
}
