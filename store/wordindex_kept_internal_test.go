package store

import (
	"bytes"
	"hash/crc32"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/cortexmem/cortex/dedup"
)

// TestKeptWordIndexParsedAsRead: a mapped index is checked as
// parseWordIndex checks it while its pages are dropped chunk by chunk
// (parseKeptWordIndex), and still reads the same after: the pages come
// back from the page cache. A damaged copy is refused by both.
func TestKeptWordIndexParsedAsRead(t *testing.T) {
	defer func(c int) { keptCheckChunk = c }(keptCheckChunk)
	keptCheckChunk = 64 << 10
	rng := rand.New(rand.NewPCG(5, 9))
	const n = 400
	bases, hashes := make([]int, n), make([]uint64, n)
	sets, keys, kept := make([][]uint64, n), make([]dedup.Keys, n), make([]bool, n)
	for j := range n {
		bases[j], hashes[j], kept[j] = j, rng.Uint64(), true
		for range 20 + rng.IntN(400) {
			sets[j] = append(sets[j], uint64(rng.IntN(200000)))
		}
		slices.Sort(sets[j])
		sets[j] = slices.Compact(sets[j])
	}
	data := encodeWordIndex(1, bases, hashes, sets, keys, kept, nil)
	if len(data) < 3*keptCheckChunk {
		t.Fatalf("an index of %d bytes: want several chunks", len(data))
	}
	dir := t.TempDir()
	for name, b := range map[string][]byte{"whole": data, "damaged": damaged(data, 2*keptCheckChunk+17)} {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o600); err != nil {
			t.Fatal(err)
		}
		mapped, done, ok, err := readMapped(p)
		if err != nil || !ok {
			t.Fatalf("%s: not mapped (%v)", name, err)
		}
		if got, want := checksumDropping(mapped), crc32.ChecksumIEEE(b); got != want {
			t.Errorf("%s: checksum %x while dropping, want %x", name, got, want)
		}
		ix, okKept := parseKeptWordIndex(mapped, checksumDropping)
		_, okRead := parseWordIndex(b)
		if okKept != okRead || okKept != (name == "whole") {
			t.Errorf("%s: kept parse %v, read parse %v", name, okKept, okRead)
		}
		if !bytes.Equal(mapped, b) {
			t.Errorf("%s: the mapping reads otherwise after its pages were dropped", name)
		}
		if okKept && (ix.nSets != n || ix.base != 1) {
			t.Errorf("%s: %d sets of base %d", name, ix.nSets, ix.base)
		}
		done()
	}
}

// damaged is a copy of b with the byte at i changed.
func damaged(b []byte, i int) []byte {
	c := bytes.Clone(b)
	c[i] ^= 0x40
	return c
}
