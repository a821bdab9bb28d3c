package amp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/cortexmem/cortex/transcript/transcripttest"
)

// BenchmarkParse measures reading a large thread: the messages of the
// fixtures repeated (with fresh tool call ids) in one document of 32 MB,
// pretty-printed as Amp writes it. go test ./adapters/amp -run '^$' -bench
// Parse -cpu 1 reports MB/s and records/s, where a record is a message (to
// the reader the document is one record).
func BenchmarkParse(b *testing.B) {
	var msgs []json.RawMessage
	for _, name := range []string{"real/T-019ca1ce-3ae2-7686-a41e-ccc078837f8a.json", "real/T-019ca1f6-7f21-77b5-a308-65416ebbdf48.json", "hand-made/traps.json"} {
		var thread struct{ Messages []json.RawMessage }
		if err := json.Unmarshal(transcripttest.Concat(b, fixtureDir, name), &thread); err != nil {
			b.Fatal(err)
		}
		msgs = append(msgs, thread.Messages...)
	}
	var all []json.RawMessage
	size := 0
	for n := 0; size < 32<<20; n++ {
		for _, m := range msgs {
			m = bytes.ReplaceAll(m, []byte(`"toolu_`), []byte(fmt.Sprintf(`"%d-toolu_`, n)))
			all = append(all, m)
			size += len(m)
		}
	}
	doc, err := json.MarshalIndent(map[string]any{"v": 1, "id": "T-bench", "created": 1795428000000, "messages": all}, "", "  ")
	if err != nil {
		b.Fatal(err)
	}
	// Every message gives at least one event: records counts messages.
	transcripttest.BenchParse(b, New(), doc, len(all))
}
