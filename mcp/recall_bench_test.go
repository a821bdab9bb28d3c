//go:build unix

package mcp

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/cortexmem/cortex/bench"
	"github.com/cortexmem/cortex/memories"
)

// BenchmarkServerRecall times memory_recall's service call as the MCP
// server runs it, over the save benchmarks' vault (a resident store of
// SAVE_BENCH_N notes): the benchmark harness's queries for that vault, one
// after another, as its in-handler row makes them. Besides the mean it
// reports the median and the 99th percentile of the calls, which are what
// the targets are about. RECALL_BENCH_EACH=1 prints each query's fastest
// call (with -benchtime of at least 30 calls); RECALL_BENCH_ONLY=<query>
// times that query alone, for a profile of it. With SAVE_BENCH_SHAPE=real
// the queries are the harness's for a real-shaped vault.
func BenchmarkServerRecall(b *testing.B) {
	sb := setUpSaveBench(b)
	var gen bench.Source = bench.NewGenerator(10001, time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC))
	if os.Getenv("SAVE_BENCH_SHAPE") == "real" {
		c, err := bench.LoadCorpus(filepath.Join("..", "fixtures"))
		if err != nil {
			b.Fatal(err)
		}
		gen = bench.NewRealGenerator(c, 10001, time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC))
	}
	qs := make([]string, 30)
	for i := range qs {
		qs[i] = gen.Query()
	}
	if q := os.Getenv("RECALL_BENCH_ONLY"); q != "" {
		qs = []string{q}
	}
	ctx := context.Background()
	svc := sb.srv.svc
	if _, err := svc.Recall(ctx, memories.RecallRequest{Query: qs[0]}); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	took := make([]time.Duration, 0, b.N)
	var cpu time.Duration
	b.ResetTimer()
	for i := range b.N {
		cpu0 := cpuTime()
		start := time.Now()
		if _, err := svc.Recall(ctx, memories.RecallRequest{Query: qs[i%len(qs)]}); err != nil {
			b.Fatal(err)
		}
		took = append(took, time.Since(start))
		cpu += cpuTime() - cpu0
	}
	b.StopTimer()
	if os.Getenv("RECALL_BENCH_EACH") != "" && b.N >= len(qs) {
		for i, q := range qs {
			best := took[i]
			for j := i; j < len(took); j += len(qs) {
				best = min(best, took[j])
			}
			fmt.Fprintf(os.Stderr, "%8.3f ms  %q\n", float64(best.Microseconds())/1000, q)
		}
	}
	slices.Sort(took)
	b.ReportMetric(float64(took[len(took)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(took[len(took)*99/100].Microseconds())/1000, "p99-ms")
	b.ReportMetric(float64(cpu.Microseconds())/1000/float64(b.N), "cpu-ms/op")
}
