package security

import (
	"strings"
	"testing"
)

// benchNote builds a realistic note of about n bytes from the benign corpus:
// prose, shell snippets with curl and .env, code blocks, config.
func benchNote(b *testing.B, n int) string {
	b.Helper()
	var sb strings.Builder
	samples := readCorpus(&testing.T{}, "benign.txt")
	for i := 0; sb.Len() < n; i++ {
		s := samples[(i*37)%len(samples)]
		sb.WriteString(s)
		sb.WriteString("\n\n")
	}
	return sb.String()[:n]
}

func benchScan(b *testing.B, n int) {
	note := benchNote(b, n)
	Scan(note) // compile the table outside the timing
	b.SetBytes(int64(len(note)))
	b.ReportAllocs()
	for b.Loop() {
		Scan(note)
	}
}

func BenchmarkScan2KB(b *testing.B)  { benchScan(b, 2048) }
func BenchmarkScan10KB(b *testing.B) { benchScan(b, 10000) }

func BenchmarkRedact(b *testing.B) {
	note := benchNote(b, 10000)
	Redact(note)
	b.SetBytes(int64(len(note)))
	b.ReportAllocs()
	for b.Loop() {
		Redact(note)
	}
}
