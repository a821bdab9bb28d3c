package store

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/cortexmem/cortex/atomicfile"
)

// TestKeptIndexReadOnceWhileUnchanged: a resident store's word index is
// read and checked once while its file is unchanged, read again once the
// file is replaced, and never trusted when the new file is damaged; an
// index still in use when replaced stays readable until released.
func TestKeptIndexReadOnceWhileUnchanged(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "p.index")
	sets := [][]uint64{{2, 3, 9}, {3}}
	write := func(base uint64) {
		t.Helper()
		if err := atomicfile.WriteDerived(p, encodeWordIndex(base, []int{0, 1}, []uint64{1, 2}, sets, nil, []bool{true, true}, nil)); err != nil {
			t.Fatal(err)
		}
	}
	write(7)
	k := &keptIndexes{}
	a, relA, ok := k.read(p)
	if !ok || a.base != 7 {
		t.Fatalf("first read: ok %v", ok)
	}
	b, relB, ok := k.read(p)
	if !ok || b != a || k.parses != 1 {
		t.Fatalf("second read of the unchanged file: same index %v, %d parses; want the kept one, 1 parse", b == a, k.parses)
	}
	relB()
	relB() // a second call releases nothing more
	write(8)
	c, relC, ok := k.read(p)
	if !ok || c.base != 8 || k.parses != 2 {
		t.Fatalf("read of the replaced file: ok %v, %d parses; want base 8 read again", ok, k.parses)
	}
	// a is still in use: its bytes must still read.
	counts := make([]uint32, a.nSets)
	a.count([]uint64{3}, counts)
	if counts[0] != 1 || counts[1] != 1 {
		t.Fatalf("counts of the index in use after its file was replaced: %v", counts)
	}
	relA()
	relC()
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	data[len(data)-1] ^= 1
	if err := atomicfile.WriteDerived(p, data); err != nil {
		t.Fatal(err)
	}
	if _, _, ok := k.read(p); ok {
		t.Fatal("a damaged file was trusted")
	}
	if err := os.Remove(p); err != nil {
		t.Fatal(err)
	}
	if _, _, ok := k.read(p); ok || len(k.m) != 0 {
		t.Fatalf("a missing file: ok %v, %d kept", ok, len(k.m))
	}
}
