package vault

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadDirAllocations: reading a folder of notes the index knows makes a
// few objects, not two for every note (os.File.ReadDir's), which was half
// of what listing the last save's folder again cost.
func TestReadDirAllocations(t *testing.T) {
	dir := t.TempDir()
	for i := range 800 {
		name := strings.Repeat("slug-words-", 1+i%5) + string(rune('a'+i%26)) + "-" + strings.Repeat("0", i%9) + ".md"
		if err := os.WriteFile(filepath.Join(dir, name), nil, 0o600); err != nil && !errors.Is(err, fs.ErrExist) {
			t.Fatal(err)
		}
	}
	known := func(string) int { return 0 } // every note known: none stat'ed
	var n int
	allocs := testing.AllocsPerRun(5, func() {
		out, err := readDir(dir, known, false, func(string) bool { return true })
		if err != nil {
			t.Fatal(err)
		}
		n = len(out)
	})
	if n < 100 {
		t.Fatalf("%d entries read", n)
	}
	if allocs > 100 {
		t.Errorf("%.0f allocations to read a folder of %d notes, want at most 100", allocs, n)
	}
}
