package pipeline

import (
	"math/rand/v2"
	"testing"
)

// BenchmarkPrepare measures the whole default pipeline (redaction on) over a
// large generated stream: go test ./pipeline -run '^$' -bench Prepare. It
// reports events/s.
func BenchmarkPrepare(b *testing.B) {
	for _, tc := range []struct {
		name string
		p    *Pipeline
	}{{"redacted", New()}, {"verbatim", New(WithoutRedaction())}} {
		b.Run(tc.name, func(b *testing.B) {
			r := rand.New(rand.NewPCG(7, 7))
			data := make([]byte, 400_000)
			for i := range data {
				data[i] = byte(r.IntN(256))
			}
			events := genStream(&byteSource{data: data}, 100_000)
			b.ResetTimer()
			for b.Loop() {
				if nodes := tc.p.Prepare(events); len(nodes) == 0 {
					b.Fatal("no nodes")
				}
			}
			b.ReportMetric(float64(len(events))*float64(b.N)/b.Elapsed().Seconds(), "events/s")
		})
	}
}
