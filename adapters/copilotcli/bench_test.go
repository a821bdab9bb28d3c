package copilotcli

import (
	"testing"

	"github.com/cortexmem/cortex/transcript/transcripttest"
)

// idKeys are the members whose values are ids: each copy of the fixtures'
// records gets its own (so no copy reads as a second result of a call
// already finished, or as a resumed session's repeat).
var idKeys = []string{`"id":"`, `"parentId":"`, `"toolCallId":"`, `"sessionId":"`, `"messageId":"`, `"upToEventId":"`}

// syntheticSession builds an event log of at least size bytes by repeating
// the records of the fixtures, each copy with its own ids. It returns the
// bytes and the record count.
func syntheticSession(tb testing.TB, size int) ([]byte, int) {
	tb.Helper()
	base := transcripttest.Concat(tb, fixtureDir, "hand-made/edits.jsonl", "hand-made/subagent.jsonl",
		"hand-made/rewind.jsonl", "hand-made/resume/d2_resumed.jsonl", "1.0.45/create_file.jsonl",
		"vscode-0.37.6/replace_string.jsonl", "0.0.420/schema_drift.jsonl")
	return transcripttest.Synthetic(nil, base, idKeys, size)
}

// BenchmarkParse measures reading a large event log: go test
// ./adapters/copilotcli -run '^$' -bench Parse -cpu 1. It reports MB/s and
// records/s.
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
