package gemini

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/cortexmem/cortex/transcript/transcripttest"
)

// idKeys are the members whose values are ids: a copy of a record with them
// changed is a new record (not a rewrite or duplicate of the first). The
// $set records' values are changed too, as they would be in another session:
// they have no id, so their content is their id, and a stream where
// thousands of records are byte-identical is a worst case of
// transcript.Context.UniqueID (which probes ~2, ~3, … in turn), not a
// chat file.
var idKeys = []string{`"id":"`, `"sessionId":"`, `"$rewindTo":"`, `"lastUpdated":"`, `"summary":"`, `"directories":["`}

// syntheticSession builds a chat file of at least size bytes by repeating
// the records of the fixtures, each copy with its own ids and times. It
// returns the bytes and the record count.
func syntheticSession(tb testing.TB, size int) ([]byte, int) {
	tb.Helper()
	base := transcripttest.Concat(tb, fixtureDir, "0.61.0/b_write_edit.jsonl", "0.61.0/c_bash.jsonl",
		"0.61.0/d3_resume_id.1.jsonl", "0.40/tool_call.jsonl", "hand-made/lww_rewind.jsonl", "hand-made/compress_mask.jsonl")
	return transcripttest.Synthetic(nil, base, idKeys, size)
}

// BenchmarkParse measures reading a large chat file: go test
// ./adapters/gemini -run '^$' -bench Parse -cpu 1. It reports MB/s and
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

// BenchmarkParseLegacy measures reading a large legacy document (framed
// into messages): the messages of the legacy fixtures repeated with fresh
// ids, pretty-printed as the CLI wrote them.
func BenchmarkParseLegacy(b *testing.B) {
	var msgs [][]byte
	for _, name := range []string{"legacy/large.json", "legacy/tool_calls_with_results.json", "hand-made/legacy_edits.json"} {
		data, err := os.ReadFile(filepath.Join(fixtureDir, name))
		if err != nil {
			b.Fatal(err)
		}
		recs, _ := NewLegacy().Frame(data, true)
		for _, r := range recs[1:] {
			if r.Data[0] == '{' {
				msgs = append(msgs, r.Data)
			}
		}
	}
	var doc bytes.Buffer
	doc.WriteString("{\n  \"sessionId\": \"bench\",\n  \"projectHash\": \"p\",\n  \"messages\": [\n    ")
	records := 1
	for n := 0; doc.Len() < 32<<20; n++ {
		for _, m := range msgs {
			if records > 1 {
				doc.WriteString(",\n    ")
			}
			doc.Write(bytes.ReplaceAll(m, []byte(`"id": "`), []byte(fmt.Sprintf(`"id": "%d-`, n))))
			records++
		}
	}
	doc.WriteString("\n  ]\n}")
	transcripttest.BenchParse(b, NewLegacy(), doc.Bytes(), records)
}
