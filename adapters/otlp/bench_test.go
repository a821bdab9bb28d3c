package otlp

import (
	"testing"

	"github.com/cortexmem/cortex/transcript/transcripttest"
)

// varyKeys precede a value in every record: each copy of the fixtures'
// records gets its own (kept records have no id, so their content is their
// id, and thousands of byte-identical records are a worst case of
// transcript.Context.UniqueID, not a session).
var varyKeys = []string{`"event.name":"`, `"prompt":"`}

// syntheticSession builds a session of at least size bytes by repeating
// the fixtures' records, each copy with its own values. It returns the
// bytes and the record count.
func syntheticSession(tb testing.TB, size int) ([]byte, int) {
	tb.Helper()
	base := transcripttest.Concat(tb, fixtureDir, "hand-made/sessions/claude-code.jsonl", "hand-made/sessions/codex.jsonl",
		"hand-made/sessions/gemini-cli.jsonl")
	return transcripttest.Synthetic(nil, base, varyKeys, size)
}

// BenchmarkParse measures reading a large session: go test ./adapters/otlp
// -run '^$' -bench Parse -cpu 1. It reports MB/s and records/s.
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
