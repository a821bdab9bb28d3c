//go:build unix

package zap

import "syscall"

// dropResident advises the kernel that the mapping's pages are not needed:
// a read-only shared file mapping's pages are read again from the page
// cache.
func dropResident(b []byte) {
	_ = syscall.Madvise(b, syscall.MADV_DONTNEED)
}
