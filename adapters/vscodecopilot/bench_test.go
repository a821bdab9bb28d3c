package vscodecopilot

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/cortexmem/cortex/transcript/rawjson"
	"github.com/cortexmem/cortex/transcript/transcripttest"
)

// idKeys are what precedes an id: each copy of the fixtures' entries gets
// its own session, requests and calls (the calls' ids are also the keys of
// toolCallResults, so they are renamed wherever they start).
var idKeys = []string{`"sessionId":"`, `"requestId":"`, `"toolCallRoundId":"`, `"id":"`, `"toolu_vrtx_`}

// syntheticLog builds a mutation log of at least size bytes by repeating
// the fixtures' logs, each copy a session of its own. It returns the bytes
// and the record count.
func syntheticLog(tb testing.TB, size int) ([]byte, int) {
	tb.Helper()
	base := transcripttest.Concat(tb, fixtureDir, "hand-made/agent_edits.jsonl", "hand-made/rewind.jsonl",
		"0.31.5/three_requests_log.jsonl")
	return transcripttest.Synthetic(nil, base, idKeys, size)
}

// BenchmarkParse measures reading a large mutation log: go test
// ./adapters/vscodecopilot -run '^$' -bench Parse -cpu 1. It reports MB/s
// and records/s.
func BenchmarkParse(b *testing.B) {
	data, records := syntheticLog(b, 64<<20)
	transcripttest.BenchParse(b, New(), data, records)
}

// BenchmarkParseEncode is BenchmarkParse with the events written as NDJSON,
// as cortex scribe parse does.
func BenchmarkParseEncode(b *testing.B) {
	data, records := syntheticLog(b, 32<<20)
	transcripttest.BenchParseEncode(b, New(), data, records)
}

// BenchmarkParseDocument measures reading a large single-document session:
// the real document's requests repeated with fresh ids. Records/s counts
// requests (the document is one record, of many requests).
func BenchmarkParseDocument(b *testing.B) {
	data, err := os.ReadFile(filepath.Join(fixtureDir, "0.31.5", "three_requests.json"))
	if err != nil {
		b.Fatal(err)
	}
	reqs := rawjson.AsArray(rawjson.AsObject(data).Get("requests"))
	var doc bytes.Buffer
	doc.WriteString("{\n  \"version\": 3,\n  \"requests\": [\n")
	n := 0
	for doc.Len() < 32<<20 {
		for _, r := range reqs {
			if n > 0 {
				doc.WriteString(",\n")
			}
			r = bytes.ReplaceAll(r, []byte(`"requestId": "`), []byte(fmt.Sprintf(`"requestId": "%d-`, n)))
			doc.Write(bytes.ReplaceAll(r, []byte(`"toolu_vrtx_`), []byte(fmt.Sprintf(`"toolu_vrtx_%d-`, n))))
			n++
		}
	}
	doc.WriteString("\n  ],\n  \"sessionId\": \"bench\"\n}\n")
	transcripttest.BenchParse(b, NewDocument(), doc.Bytes(), n)
}
