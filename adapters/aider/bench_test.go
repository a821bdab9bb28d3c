package aider

import (
	"bytes"
	"testing"

	"github.com/cortexmem/cortex/transcript/transcripttest"
)

// syntheticHistory builds a chat history of at least size bytes from the
// real excerpt and the hand-made file (each copy's sessions start at a later
// header time, as sessions appended over days would), and returns it with
// its record count.
func syntheticHistory(tb testing.TB, size int) ([]byte, int) {
	tb.Helper()
	base := transcripttest.Concat(tb, fixtureDir, "real/chat-history.md", "hand-made/traps.md")
	var out bytes.Buffer
	for n := 0; out.Len() < size; n++ {
		out.Write(bytes.ReplaceAll(base, []byte(headerPrefix+"20"), []byte(headerPrefix+string(rune('a'+n%26))+"20")))
	}
	recs, _ := New().Frame(out.Bytes(), true)
	return out.Bytes(), len(recs)
}

// BenchmarkParse measures reading a large chat history: go test
// ./adapters/aider -run '^$' -bench Parse -cpu 1. It reports MB/s and
// records/s.
func BenchmarkParse(b *testing.B) {
	data, records := syntheticHistory(b, 32<<20)
	transcripttest.BenchParse(b, New(), data, records)
}
