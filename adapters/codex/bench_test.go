package codex

import (
	"bytes"
	"testing"

	"github.com/cortexmem/cortex/transcript/transcripttest"
)

// syntheticSession builds a rollout of at least size bytes: one session
// header, then the other records of the real and hand-made fixtures over and
// over, each copy with its own item, call and turn ids (so no copy reads as
// the twin of another) and its own timestamps (as in a real rollout, where no
// two lines are the same bytes). It returns the bytes and the record count.
func syntheticSession(tb testing.TB, size int) ([]byte, int) {
	tb.Helper()
	var header, base []byte
	all := transcripttest.Concat(tb, fixtureDir, "0.169.0/b_write_edit.jsonl", "0.169.0/c_bash.jsonl",
		"0.169.0/d3_resume_last.jsonl", "0.140.0-alpha.19/custom_patch_apply.jsonl", "hand-made/apply_patch_shapes.jsonl",
		"hand-made/tool_results.jsonl", "hand-made/rollback_compaction.jsonl")
	for _, l := range bytes.SplitAfter(all, []byte("\n")) {
		switch {
		case len(l) == 0:
		case bytes.Contains(l, []byte(`"type":"session_meta"`)) || bytes.Contains(l, []byte(`"type": "session_meta"`)):
			if header == nil {
				header = l
			}
		default:
			base = append(base, l...)
		}
	}
	keys := []string{`"id":"`, `"call_id":"`, `"turn_id":"`, `"id": "`, `"call_id": "`, `"turn_id": "`,
		`"timestamp":"`, `"timestamp": "`}
	return transcripttest.Synthetic(header, base, keys, size)
}

// BenchmarkParse measures reading a large rollout: go test ./adapters/codex
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
