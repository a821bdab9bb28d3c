package cline

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/cortexmem/cortex/transcript/transcripttest"
)

// BenchmarkParse measures reading a large task: the messages of the
// fixtures repeated (with fresh tool call ids) in one array of 32 MB, on
// one line as Cline writes it. go test ./adapters/cline -run '^$' -bench
// Parse -cpu 1 reports MB/s and records/s, where a record is a message (to
// the reader the array is one record).
func BenchmarkParse(b *testing.B) {
	var msgs []json.RawMessage
	for _, name := range []string{clineXML, clineNative, roo, kilo} {
		var m []json.RawMessage
		if err := json.Unmarshal(transcripttest.Concat(b, fixtureDir, name), &m); err != nil {
			b.Fatal(err)
		}
		msgs = append(msgs, m...)
	}
	var all []json.RawMessage
	size := 0
	for n := 0; size < 32<<20; n++ {
		for _, m := range msgs {
			for _, p := range []string{`"toolu_`, `"call_`} {
				m = bytes.ReplaceAll(m, []byte(p), []byte(fmt.Sprintf(`"%d-%s`, n, p[1:])))
			}
			all = append(all, m)
			size += len(m)
		}
	}
	doc, err := json.Marshal(all)
	if err != nil {
		b.Fatal(err)
	}
	transcripttest.BenchParse(b, New(), doc, len(all))
}
