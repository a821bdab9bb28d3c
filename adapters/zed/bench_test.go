package zed

import (
	"testing"

	"github.com/cortexmem/cortex/transcript/transcripttest"
)

// BenchmarkParse measures reading the rows of a large threads database:
// the hand-made rows (zstd-compressed threads, as Zed writes them) repeated
// with fresh thread ids. go test ./adapters/zed -run '^$' -bench Parse -cpu 1
// reports MB/s (of row lines) and records/s (rows: whole threads).
func BenchmarkParse(b *testing.B) {
	base := rowFixtures(b)[0].Data
	data, records := transcripttest.Synthetic(nil, base, []string{`"id":"`}, 32<<20)
	transcripttest.BenchParse(b, New(), data, records)
}
