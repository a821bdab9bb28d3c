//go:build unix

package mcp

import (
	"bufio"
	"context"
	"fmt"
	"math"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/cortexmem/cortex/config"
	"github.com/cortexmem/cortex/memories"
	"github.com/cortexmem/cortex/store"
	"github.com/cortexmem/cortex/vault"
)

// BenchmarkRecallDump writes, for the benchmark harness's first
// RECALL_DUMP_N queries (default 600) of SAVE_BENCH_SHAPE's kind, every
// result recall gives over the indexed vault SAVE_BENCH_VAULT (state
// SAVE_BENCH_HOME) to the file RECALL_BENCH_DUMP: its rank, id, score and
// relevance (their bits), and whether it is related, and through which
// result. Two trees' dumps over copies of one vault are then compared line
// by line: a change that must not move recall's answers is checked over
// hundreds of queries, not a handful. The clock is fixed and nothing is
// recorded, so the dumps depend on the vault and the code alone. It runs
// once whatever b.N, and only when RECALL_BENCH_DUMP names a file.
func BenchmarkRecallDump(b *testing.B) {
	out := os.Getenv("RECALL_BENCH_DUMP")
	if out == "" {
		b.Skip("RECALL_BENCH_DUMP names no file to write")
	}
	vd, home := os.Getenv("SAVE_BENCH_VAULT"), os.Getenv("SAVE_BENCH_HOME")
	if vd == "" || home == "" {
		b.Fatal("SAVE_BENCH_VAULT and SAVE_BENCH_HOME must name an indexed vault and its state folder")
	}
	n := 600
	if v := os.Getenv("RECALL_DUMP_N"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil || n < 1 {
			b.Fatalf("RECALL_DUMP_N=%q: want a count of at least 1", v)
		}
	}
	v, err := vault.New(vd, "cortex")
	if err != nil {
		b.Fatal(err)
	}
	st, err := store.Open(store.Options{Vault: v, State: config.State{Home: home},
		LockTimeout: 10 * time.Second, Freshness: config.DefaultFreshness, Resident: true})
	if err != nil {
		b.Fatal(err)
	}
	at := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	svc := memories.NewService(st, memories.WithClock(func() time.Time { return at }))
	gen := recallBenchSource(b)
	f, err := os.Create(out)
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriter(f)
	results := 0
	ctx := context.Background()
	// Each query twice: the second answer must be the first's (what a
	// recall keeps between calls must not change the next).
	for i := range n {
		q := gen.Query()
		for pass := range 2 {
			res, err := svc.Recall(ctx, memories.RecallRequest{Query: q, NoAccess: true})
			if err != nil {
				fmt.Fprintf(w, "%d %d %q error %v\n", i, pass, q, err)
				continue
			}
			fmt.Fprintf(w, "%d %d %q %d results\n", i, pass, q, len(res.Results))
			for k, r := range res.Results {
				fmt.Fprintf(w, "%d %d %d %s %016x %016x %t %s\n", i, pass, k, r.Memory.ID,
					math.Float64bits(r.Score), math.Float64bits(r.Signals.Relevance), r.Related, r.Via)
				results++
			}
		}
	}
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
	fmt.Fprintf(os.Stderr, "%d queries, %d results\n", n, results)
}
