package opencode

import (
	"testing"

	"github.com/cortexmem/cortex/transcript/transcripttest"
)

// idKeys are the members whose values are ids: each copy of the rows gets
// its own, so no copy reads as a version of another.
var idKeys = []string{`"id":"`, `"session_id":"`, `"message_id":"`, `"parentID":"`, `"callID":"`}

// BenchmarkParse measures reading the rows of a large database: the rows
// of the real one (as Load gives them) repeated with fresh ids. go test
// ./adapters/opencode -run '^$' -bench Parse -cpu 1. It reports MB/s and
// records/s.
func BenchmarkParse(b *testing.B) {
	base := load(b, buildDB(b, realDump))
	data, records := transcripttest.Synthetic(nil, base, idKeys, 64<<20)
	transcripttest.BenchParse(b, New(), data, records)
}

// BenchmarkLoad measures Load itself on the real database: the copy, the
// queries and the row lines (per byte of row lines made).
func BenchmarkLoad(b *testing.B) {
	path := buildDB(b, realDump)
	n := len(load(b, path))
	b.SetBytes(int64(n))
	b.ResetTimer()
	for b.Loop() {
		load(b, path)
	}
}
