package windsurf

import (
	"testing"

	"github.com/cortexmem/cortex/transcript/transcripttest"
)

// varyKeys precede a value in every kind of step and payload: each copy of
// the fixtures' records gets its own (Windsurf's records have no id, so
// their content is their id, and thousands of byte-identical records are a
// worst case of transcript.Context.UniqueID, not a transcript).
var varyKeys = []string{`"user_response":"`, `"response":"`, `"path":"`, `"command":"`, `"query":"`, `"pattern":"`,
	`"server_name":"`, `"trajectory_id":"`, `"user_prompt":"`, `"file_path":"`, `"command_line":"`, `"transcript_path":"`,
	`"worktree_path":"`}

// syntheticTranscript builds a transcript of at least size bytes by
// repeating the fixtures' records, each copy with its own values. It
// returns the bytes and the record count.
func syntheticTranscript(tb testing.TB, size int) ([]byte, int) {
	tb.Helper()
	base := transcripttest.Concat(tb, fixtureDir, "transcripts/windsurf-session-simple.jsonl",
		"hand-made/transcripts/3f9a1c2e-7b4d-4e8f-9a0b-1c2d3e4f5a6b.jsonl", "hand-made/hooks/payloads.jsonl")
	return transcripttest.Synthetic(nil, base, varyKeys, size)
}

// BenchmarkParse measures reading a large transcript: go test
// ./adapters/windsurf -run '^$' -bench Parse -cpu 1. It reports MB/s and
// records/s.
func BenchmarkParse(b *testing.B) {
	data, records := syntheticTranscript(b, 64<<20)
	transcripttest.BenchParse(b, New(), data, records)
}

// BenchmarkParseEncode is BenchmarkParse with the events written as NDJSON,
// as cortex scribe parse does.
func BenchmarkParseEncode(b *testing.B) {
	data, records := syntheticTranscript(b, 32<<20)
	transcripttest.BenchParseEncode(b, New(), data, records)
}
