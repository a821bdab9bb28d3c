package normalize

import (
	"fmt"
	"strings"
	"testing"
)

// BenchmarkParseMeetingLarge parses a meeting note of the largest size an
// event holds (1 MiB), most of it action items: the parse stays linear.
func BenchmarkParseMeetingLarge(b *testing.B) {
	var sb strings.Builder
	sb.WriteString("# Big meeting\n\n## Action items\n\n")
	for i := 0; sb.Len() < 1<<20; i++ {
		fmt.Fprintf(&sb, "- [ ] item %d for someone, due 2026-12-%02d, see the notes\n", i, i%28+1)
	}
	notes := sb.String()
	b.SetBytes(int64(len(notes)))
	for b.Loop() {
		if mt := ParseMeeting(notes); len(mt.Actions) < 10000 {
			b.Fatalf("%d actions", len(mt.Actions))
		}
	}
}
