package security

import (
	"path/filepath"
	"strings"
	"syscall"
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
	cpu := cpuTime()
	for b.Loop() {
		Scan(note)
	}
	// The machine is shared: CPU time per scan says what the code costs
	// where wall time says how busy the machine was.
	b.ReportMetric(float64(cpuTime()-cpu)/float64(b.N), "cpu-ns/op")
}

// cpuTime returns the process's user and system CPU time in nanoseconds
// (garbage collection included).
func cpuTime() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}

func BenchmarkScan2KB(b *testing.B)  { benchScan(b, 2048) }
func BenchmarkScan10KB(b *testing.B) { benchScan(b, 10000) }

// BenchmarkScanMultilingual10KB scans 10 KB of the multilingual corpus:
// Persian, Khmer, Sinhala and emoji put a zero-width character every few
// words, and each is judged by the characters around it.
func BenchmarkScanMultilingual10KB(b *testing.B) {
	files, err := filepath.Glob(filepath.Join(multilingualDir, "*.txt"))
	if err != nil || len(files) == 0 {
		b.Fatalf("no multilingual corpus: %v", err)
	}
	var sb strings.Builder
	for sb.Len() < 10000 {
		for _, f := range files {
			if filepath.Base(f) == "attacks.txt" {
				continue
			}
			for _, s := range readSamples(&testing.T{}, f) {
				// A byte order mark is allowed only at the very start.
				sb.WriteString(strings.TrimPrefix(s, "\ufeff"))
				sb.WriteString("\n\n")
			}
		}
	}
	note := sb.String()[:alignEnd(sb.String(), 10000)]
	if fs := Scan(note); len(fs) > 0 {
		b.Fatalf("the multilingual note is refused: %v", fs[0])
	}
	b.SetBytes(int64(len(note)))
	b.ReportAllocs()
	for b.Loop() {
		Scan(note)
	}
}

func BenchmarkRedact(b *testing.B) {
	note := benchNote(b, 10000)
	Redact(note)
	b.SetBytes(int64(len(note)))
	b.ReportAllocs()
	for b.Loop() {
		Redact(note)
	}
}
