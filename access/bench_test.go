package access

import (
	"context"
	"testing"

	"github.com/cortexmem/cortex/config"
	"github.com/cortexmem/cortex/memories"
)

// BenchmarkStats reads the activation of 60 candidates from a log of 20,000
// accesses of 10,000 memories, as a recall at 10k memories does, in a
// short-lived process and in a resident one (the MCP server).
func BenchmarkStats(b *testing.B) {
	b.Run("short-lived", func(b *testing.B) { benchmarkStats(b, false) })
	b.Run("resident", func(b *testing.B) { benchmarkStats(b, true) })
}

func benchmarkStats(b *testing.B, resident bool) {
	l := Open(Options{State: config.State{Home: b.TempDir()}, Resident: resident})
	var as []memories.Access
	for i := 0; i < 20000; i++ {
		as = append(as, acc((i*7919)%10000, memories.AccessRecall, i%500))
	}
	if err := l.Record(context.Background(), as); err != nil {
		b.Fatal(err)
	}
	if _, err := l.Stats(context.Background(), nil); err != nil { // writes the cache
		b.Fatal(err)
	}
	ids := make([]string, 60)
	for i := range ids {
		ids[i] = id(i * 131)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := l.Stats(context.Background(), ids); err != nil {
			b.Fatal(err)
		}
	}
}
