package dedup

import "testing"

// Sinks keep the compiler from dropping the work of a benchmark.
var (
	fpSink    *Fingerprint
	scoreSink float64
	termsSink []string
)

func benchmarkNew(b *testing.B, size int) {
	text := longText(1, size)[:size]
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		fpSink = New(text)
	}
}

// New runs once for the memory being saved and once per candidate the index
// proposes (20), so a save spends about 21 × BenchmarkNew on dedup.
func BenchmarkNew2KB(b *testing.B)  { benchmarkNew(b, 2000) }
func BenchmarkNew10KB(b *testing.B) { benchmarkNew(b, 10000) }

// BenchmarkNewDocs fingerprints the sections of the pair set: markdown
// documentation with code blocks, tables and flags (about 500 bytes each).
func BenchmarkNewDocs(b *testing.B) {
	var texts []string
	size := 0
	for _, name := range fixtureFiles {
		for _, p := range loadPairs(b, name) {
			texts = append(texts, p.Old.text())
			size += len(p.Old.text())
		}
	}
	b.SetBytes(int64(size / len(texts)))
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		fpSink = New(texts[i%len(texts)])
		i++
	}
}

func BenchmarkScore(b *testing.B) {
	x, y := New(longText(1, 2000)), New(longText(2, 2000))
	b.ReportAllocs()
	for b.Loop() {
		scoreSink = Score(x, y)
	}
}

func BenchmarkQueryTerms10KB(b *testing.B) {
	text := longText(1, 10000)
	b.ReportAllocs()
	for b.Loop() {
		termsSink = QueryTerms("Service api7 handles billing requests", text, 32)
	}
}

// BenchmarkPoolNear looks texts up in a pool of 5,000 like an import's
// (an import looks up each candidate once).
func BenchmarkPoolNear(b *testing.B) {
	p := NewPool()
	for i := range 5000 {
		p.Add(New(longText(i, 600)), int32(i%2))
	}
	var qs []*Fingerprint
	for i := range 100 {
		qs = append(qs, New(longText(10000+i, 600)))
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		p.Near(qs[i%len(qs)], []int32{0, 1}, DefaultThresholds(), 4)
		i++
	}
}

var wordsSink []uint64

// BenchmarkWords10KB is BenchmarkNew10KB for the word set alone (Words).
func BenchmarkWords10KB(b *testing.B) {
	text := longText(1, 10000)[:10000]
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		wordsSink = Words(text)
	}
}
