package cursor

import (
	"testing"

	"github.com/cortexmem/cortex/transcript/transcripttest"
)

// BenchmarkParse measures reading the rows of a large state.vscdb: the
// hand-made global database's rows repeated with fresh composer and bubble
// ids. go test ./adapters/cursor -run '^$' -bench Parse -cpu 1.
func BenchmarkParse(b *testing.B) {
	base := fixtures(b)[0].Data
	data, records := transcripttest.Synthetic(nil, base, []string{`"key":"bubbleId:`, `"key":"composerData:`, `:b0`, `"bubbleId":"`, `"composerId":"`}, 32<<20)
	transcripttest.BenchParse(b, New(), data, records)
}
