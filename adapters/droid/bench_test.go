package droid

import (
	"testing"

	"github.com/cortexmem/cortex/transcript/transcripttest"
)

// syntheticSession builds a session file of at least size bytes by
// repeating the records of the fixtures, each copy with its own ids. It
// returns the bytes and the record count.
func syntheticSession(tb testing.TB, size int) ([]byte, int) {
	tb.Helper()
	base := transcripttest.Concat(tb, fixtureDir, "real/droid-session.jsonl", "hand-made/traps.jsonl")
	keys := []string{`"id":"`, `"parentId":"`, `"tool_use_id":"`}
	return transcripttest.Synthetic(nil, base, keys, size)
}

// BenchmarkParse measures reading a large session: go test ./adapters/droid
// -run '^$' -bench Parse -cpu 1. It reports MB/s and records/s.
func BenchmarkParse(b *testing.B) {
	data, records := syntheticSession(b, 64<<20)
	transcripttest.BenchParse(b, New(), data, records)
}
