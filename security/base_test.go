package security

import "testing"

func BenchmarkScanNoRules10KB(b *testing.B) {
	note := benchNote(b, 10000)
	scan(note, func(*rule) bool { return false })
	b.SetBytes(int64(len(note)))
	for b.Loop() {
		scan(note, func(*rule) bool { return false })
	}
}
