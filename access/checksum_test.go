package access

import (
	"fmt"
	"hash/crc32"
	"math/rand/v2"
	"testing"
)

// TestChecksumIsCRC32C: checksum gives hash/crc32's CRC-32C, summed byte by
// byte or by the package, on either side of smallCRC.
func TestChecksumIsCRC32C(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	data := make([]byte, smallCRC+4096)
	for i := range data {
		data[i] = byte(r.Uint32())
	}
	tab := crc32.MakeTable(crc32.Castagnoli)
	lengths := []int{0, 1, 2, 7, 8, 9, 50, 70, 1000, smallCRC - 1, smallCRC, smallCRC + 1, len(data)}
	for range 200 {
		lengths = append(lengths, r.IntN(len(data)+1))
	}
	for _, n := range lengths {
		start := r.IntN(len(data) - n + 1)
		b := data[start : start+n]
		if got, want := checksum(b), crc32.Checksum(b, tab); got != want {
			t.Fatalf("checksum of %d bytes = %#x, crc32's CRC-32C %#x", n, got, want)
		}
	}
}

func BenchmarkChecksum(b *testing.B) {
	for _, n := range []int{2 << 10, 32 << 10, smallCRC} {
		data := make([]byte, n)
		b.Run(fmt.Sprintf("%dKiB", n>>10), func(b *testing.B) {
			b.SetBytes(int64(n))
			for b.Loop() {
				checksum(data)
			}
		})
	}
}
