package continuedev

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/cortexmem/cortex/transcript/transcripttest"
)

// BenchmarkParse measures reading a large session: the history items of
// the fixtures repeated (with fresh tool call ids) in one document of 32
// MB, pretty-printed as Continue writes it. go test ./adapters/continuedev
// -run '^$' -bench Parse -cpu 1 reports MB/s and records/s, where a record
// is a history item (to the reader the document is one record).
func BenchmarkParse(b *testing.B) {
	var items []json.RawMessage
	for _, name := range []string{"real/continue-cli-session-simple.json", "hand-made/traps.json"} {
		var s struct{ History []json.RawMessage }
		if err := json.Unmarshal(transcripttest.Concat(b, fixtureDir, name), &s); err != nil {
			b.Fatal(err)
		}
		items = append(items, s.History...)
	}
	var all []json.RawMessage
	size := 0
	for n := 0; size < 32<<20; n++ {
		for _, it := range items {
			it = bytes.ReplaceAll(it, []byte(`"call_`), []byte(fmt.Sprintf(`"%d-call_`, n)))
			it = bytes.ReplaceAll(it, []byte(`"toolu_`), []byte(fmt.Sprintf(`"%d-toolu_`, n)))
			all = append(all, it)
			size += len(it)
		}
	}
	doc, err := json.MarshalIndent(map[string]any{"sessionId": "bench", "title": "bench", "workspaceDirectory": "/w", "history": all}, "", "  ")
	if err != nil {
		b.Fatal(err)
	}
	transcripttest.BenchParse(b, New(), doc, len(all))
}
