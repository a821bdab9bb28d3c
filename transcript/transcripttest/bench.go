package transcripttest

import (
	"bytes"
	"io"
	"testing"

	"github.com/cortexmem/cortex/transcript"
)

// BenchParse times a reads of data, a transcript of records records (each
// giving at least one event), and reports MB/s and records/s. Every adapter's
// BenchmarkParse calls it with its own synthetic file.
func BenchParse(b *testing.B, a transcript.Adapter, data []byte, records int) {
	b.Helper()
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for b.Loop() {
		n := 0
		_, err := transcript.Read(a, bytes.NewReader(data), transcript.Start(a, "bench"), true, func(transcript.Event) error {
			n++
			return nil
		})
		if err != nil || n < records {
			b.Fatalf("%d events for %d records, err %v", n, records, err)
		}
	}
	b.ReportMetric(float64(records)*float64(b.N)/b.Elapsed().Seconds(), "records/s")
}

// BenchParseEncode is BenchParse with the events written as NDJSON, as
// cortex scribe parse does.
func BenchParseEncode(b *testing.B, a transcript.Adapter, data []byte, records int) {
	b.Helper()
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for b.Loop() {
		enc := transcript.NewEncoder(io.Discard)
		_, err := transcript.Read(a, bytes.NewReader(data), transcript.Start(a, "bench"), true, func(e transcript.Event) error {
			return enc.Encode(&e)
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(records)*float64(b.N)/b.Elapsed().Seconds(), "records/s")
}
