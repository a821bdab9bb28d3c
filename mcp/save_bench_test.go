package mcp

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/cortexmem/cortex/bench"
	"github.com/cortexmem/cortex/config"
	"github.com/cortexmem/cortex/memories"
	"github.com/cortexmem/cortex/store"
	"github.com/cortexmem/cortex/vault"
)

// saveBench is the vault BenchmarkServerSave saves into, made once per test
// process: generating and indexing 10,000 notes takes seconds, more than
// the saves timed.
var saveBench struct {
	once sync.Once
	dir  string
	srv  *server
	gen  *bench.Generator
	err  error
}

// BenchmarkServerSave times memory_save's handler as the MCP server runs
// it: a resident store over a synthetic vault of SAVE_BENCH_N notes
// (default 10,000, indexed before the timer starts), saving one new memory
// after another with no background catch-up (as the benchmark harness's
// in-handler row does). Each save's text is new; a few are refused as
// duplicates, which is a save's work but the write.
func BenchmarkServerSave(b *testing.B) {
	sb := &saveBench
	sb.once.Do(func() { sb.err = setUpSaveBench() })
	if sb.err != nil {
		b.Fatal(sb.err)
	}
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		m := sb.gen.Memory()
		b.StartTimer()
		_, _, err := sb.srv.save(ctx, SaveInput{Content: m.Body, Title: m.Title, Project: m.Project})
		var rej *memories.RejectedError
		if err != nil && !errors.As(err, &rej) {
			b.Fatal(err)
		}
	}
}

func setUpSaveBench() error {
	n := 10000
	if v := os.Getenv("SAVE_BENCH_N"); v != "" {
		if _, err := fmt.Sscan(v, &n); err != nil {
			return fmt.Errorf("SAVE_BENCH_N=%q: %w", v, err)
		}
	}
	dir, err := os.MkdirTemp("", "cortex-save-bench-")
	if err != nil {
		return err
	}
	saveBench.dir = dir
	end := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	if _, err := bench.WriteVault(filepath.Join(dir, "vault"), n, 1, end); err != nil {
		return err
	}
	v, err := vault.New(filepath.Join(dir, "vault"), "cortex")
	if err != nil {
		return err
	}
	st, err := store.Open(store.Options{Vault: v, State: config.State{Home: filepath.Join(dir, "state")},
		LockTimeout: 10 * time.Second, Freshness: config.DefaultFreshness, Resident: true})
	if err != nil {
		return err
	}
	svc := memories.NewService(st)
	saveBench.srv = &server{svc: svc, abs: v.Abs, warn: func(string) {}}
	saveBench.gen = bench.NewGenerator(2, end)
	// The first save makes every project's word sets, and the first of a
	// process opens what a resident store then keeps.
	ctx := context.Background()
	if _, err := st.Rebuild(ctx); err != nil {
		return err
	}
	for range 3 {
		m := saveBench.gen.Memory()
		if _, _, err := saveBench.srv.save(ctx, SaveInput{Content: m.Body, Title: m.Title, Project: m.Project}); err != nil {
			var rej *memories.RejectedError
			if !errors.As(err, &rej) {
				return err
			}
		}
	}
	return nil
}

func TestMain(m *testing.M) {
	code := m.Run()
	if saveBench.dir != "" {
		_ = os.RemoveAll(saveBench.dir)
	}
	os.Exit(code)
}
