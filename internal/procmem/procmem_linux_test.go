package procmem

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestMappedKB: a file's mapping is counted once its pages are read, and
// not once they are dropped; files of another name are not.
func TestMappedKB(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "a.seg")
	if err := os.WriteFile(p, make([]byte, 1<<20), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	data, err := syscall.Mmap(int(f.Fd()), 0, 1<<20, syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Munmap(data)
	sum := 0
	for i := 0; i < len(data); i += 4096 {
		sum += int(data[i])
	}
	if kb, err := MappedKB(dir, ".seg"); err != nil || kb < 1024 {
		t.Errorf("MappedKB after reading 1 MB = %d kB, %v", kb, err)
	}
	if kb, err := MappedKB(dir, ".zap"); err != nil || kb != 0 {
		t.Errorf("MappedKB of another suffix = %d kB, %v", kb, err)
	}
	if err := syscall.Madvise(data, syscall.MADV_DONTNEED); err != nil {
		t.Fatal(err)
	}
	if kb, err := MappedKB(dir, ".seg"); err != nil || kb != 0 {
		t.Errorf("MappedKB after dropping = %d kB, %v", kb, err)
	}
	if sum != 0 {
		t.Fatalf("a file of zeros summed to %d", sum)
	}
}
