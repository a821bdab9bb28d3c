//go:build unix

package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime/metrics"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

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
	qs := recallBenchQueries(b)
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

// recallBenchQueries is the benchmark harness's queries for the save
// benchmarks' vault (the real shape's with SAVE_BENCH_SHAPE=real).
func recallBenchQueries(b *testing.B) []string {
	b.Helper()
	gen := recallBenchSource(b)
	qs := make([]string, 30)
	for i := range qs {
		qs[i] = gen.Query()
	}
	return qs
}

// recallBenchSource is the benchmark harness's source of queries for the
// save benchmarks' vault (the real shape's with SAVE_BENCH_SHAPE=real).
func recallBenchSource(b *testing.B) bench.Source {
	b.Helper()
	var gen bench.Source = bench.NewGenerator(10001, time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC))
	if os.Getenv("SAVE_BENCH_SHAPE") == "real" {
		c, err := bench.LoadCorpus(filepath.Join("..", "fixtures"))
		if err != nil {
			b.Fatal(err)
		}
		gen = bench.NewRealGenerator(c, 10001, time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC))
	}
	return gen
}

// BenchmarkServerRecallPaced is BenchmarkServerRecall as an agent's calls
// come: each operation waits RECALL_BENCH_PACE (default 20ms, the harness's
// paced row) with the timer stopped, then times two recalls back to back,
// the first after the wait and the second warm, so that both meet the same
// machine. Besides their medians and their CPU time it reports, per call,
// what the process did that a call after a wait pays more for: minor page
// faults, voluntary context switches (a thread put to sleep) and goroutines
// started (each may wake another thread).
func BenchmarkServerRecallPaced(b *testing.B) {
	sb := setUpSaveBench(b)
	pace := 20 * time.Millisecond
	if v := os.Getenv("RECALL_BENCH_PACE"); v != "" {
		var err error
		if pace, err = time.ParseDuration(v); err != nil || pace < 0 {
			b.Fatalf("RECALL_BENCH_PACE=%q: want a duration of at least 0", v)
		}
	}
	qs := recallBenchQueries(b)
	ctx := context.Background()
	svc := sb.srv.svc
	for _, q := range qs { // every query once, as the harness warms up
		if _, err := svc.Recall(ctx, memories.RecallRequest{Query: q}); err != nil {
			b.Fatal(err)
		}
	}
	var took [2][]time.Duration
	var cpu [2]time.Duration
	var faults, switches, started int64
	created := []metrics.Sample{{Name: "/sched/goroutines-created:goroutines"}}
	b.ResetTimer()
	for i := range b.N {
		b.StopTimer()
		time.Sleep(pace)
		b.StartTimer()
		for k := range 2 {
			metrics.Read(created)
			g0 := created[0].Value.Uint64()
			u0 := usage()
			start := time.Now()
			if _, err := svc.Recall(ctx, memories.RecallRequest{Query: qs[(i+k)%len(qs)]}); err != nil {
				b.Fatal(err)
			}
			took[k] = append(took[k], time.Since(start))
			u1 := usage()
			metrics.Read(created)
			started += int64(created[0].Value.Uint64() - g0)
			cpu[k] += u1.cpu - u0.cpu
			faults += u1.faults - u0.faults
			switches += u1.switches - u0.switches
		}
	}
	b.StopTimer()
	calls := float64(2 * b.N)
	for k, name := range [2]string{"first", "warm"} {
		slices.Sort(took[k])
		b.ReportMetric(float64(took[k][len(took[k])/2].Microseconds())/1000, "p50-"+name+"-ms")
		b.ReportMetric(float64(cpu[k].Microseconds())/1000/float64(b.N), "cpu-"+name+"-ms")
	}
	b.ReportMetric(float64(faults)/calls, "minflt/call")
	b.ReportMetric(float64(switches)/calls, "vcsw/call")
	b.ReportMetric(float64(started)/calls, "goroutines/call")
}

// rusage is what getrusage says of the whole process.
type rusage struct {
	cpu              time.Duration
	faults, switches int64
}

func usage() rusage {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return rusage{}
	}
	return rusage{cpu: time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), faults: ru.Minflt, switches: ru.Nvcsw}
}

// BenchmarkToolRecall calls memory_recall as an agent does, through the
// SDK's client over the in-memory transport, with the harness's queries:
// what the MCP layer adds to the service's call (the result encoded as the
// tool's text and structured content, the JSON-RPC response, the client's
// decoding of it). A CPU profile tells the server's part from the client's.
func BenchmarkToolRecall(b *testing.B) {
	sb := setUpSaveBench(b)
	qs := recallBenchQueries(b)
	ctx := context.Background()
	srv := New(sb.srv.svc, Options{})
	ct, st := mcp.NewInMemoryTransports()
	if _, err := srv.Connect(ctx, st, nil); err != nil {
		b.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer cs.Close()
	call := func(q string) *mcp.CallToolResult {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "memory_recall", Arguments: map[string]any{"query": q}})
		if err != nil {
			b.Fatal(err)
		}
		if res.IsError {
			b.Fatalf("memory_recall %q: %v", q, res.Content)
		}
		return res
	}
	size := 0
	for _, q := range qs {
		res := call(q)
		data, err := json.Marshal(res)
		if err != nil {
			b.Fatal(err)
		}
		size += len(data)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		call(qs[i%len(qs)])
	}
	b.ReportMetric(float64(size)/float64(len(qs))/1024, "KB/result")
}
