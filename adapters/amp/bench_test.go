package amp

import (
	"bytes"
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
	var msgs [][]byte
	for _, name := range []string{"real/T-019ca1ce-3ae2-7686-a41e-ccc078837f8a.json", "real/T-019ca1f6-7f21-77b5-a308-65416ebbdf48.json", "hand-made/traps.json"} {
		data := transcripttest.Concat(b, fixtureDir, name)
		start := bytes.Index(data, []byte(`"messages": [`)) + len(`"messages": [`)
		end := bytes.Index(data, []byte("\n  ],\n"))
		for _, m := range bytes.Split(data[start:end], []byte("\n    },\n    {")) {
			msgs = append(msgs, bytes.Trim(bytes.TrimSpace(m), "{}"))
		}
	}
	var doc bytes.Buffer
	doc.WriteString("{\n  \"v\": 1,\n  \"id\": \"T-bench\",\n  \"created\": 1795428000000,\n  \"messages\": [\n")
	n := 0
	for copyN := 0; doc.Len() < 32<<20; copyN++ {
		for _, m := range msgs {
			if n > 0 {
				doc.WriteString(",\n")
			}
			m = bytes.ReplaceAll(m, []byte(`"toolu_`), []byte(fmt.Sprintf(`"%d-toolu_`, copyN)))
			doc.WriteString("    {\n      " + string(bytes.TrimSpace(m)) + "\n    }")
			n++
		}
	}
	doc.WriteString("\n  ]\n}\n")
	// Every message gives at least one event: records counts messages.
	transcripttest.BenchParse(b, New(), doc.Bytes(), n)
}
