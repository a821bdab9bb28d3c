package claudecode

import (
	"testing"

	"github.com/cortexmem/cortex/transcript/transcripttest"
)

// syntheticSession builds a transcript of at least size bytes by repeating
// the records of the real fixtures, each copy with its own ids (so no record
// reads as a replay of another). It returns the bytes and the record count.
func syntheticSession(tb testing.TB, size int) ([]byte, int) {
	tb.Helper()
	base := transcripttest.Concat(tb, fixtureDir, "2.1.197/b_write_edit.jsonl", "2.1.197/c_bash.jsonl",
		"2.1.197/e2_after_compact.jsonl", "1.0.111/split_messages_edits.jsonl", "2.0.69/thinking_edit.jsonl")
	keys := []string{`"uuid":"`, `"parentUuid":"`, `"tool_use_id":"`, `"id":"`, `"leafUuid":"`, `"logicalParentUuid":"`}
	return transcripttest.Synthetic(nil, base, keys, size)
}

// BenchmarkParse measures reading a large session: go test ./adapters/claudecode
// -run '^$' -bench Parse. It reports MB/s and records/s.
func BenchmarkParse(b *testing.B) {
	data, records := syntheticSession(b, 64<<20)
	transcripttest.BenchParse(b, New(), data, records)
}

// BenchmarkParseEncode is BenchmarkParse with the events written as NDJSON,
// as cortex scribe parse does.
func BenchmarkParseEncode(b *testing.B) {
	data, records := syntheticSession(b, 32<<20)
	transcripttest.BenchParseEncode(b, New(), data, records)
}
