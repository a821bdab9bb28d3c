//go:build unix

package wiring_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/cortexmem/cortex/bench"
	"github.com/cortexmem/cortex/config"
	"github.com/cortexmem/cortex/memories"
	"github.com/cortexmem/cortex/wiring"
)

// BenchmarkImportScanDedup times what an import does before it writes:
// walking and parsing a folder of real-shaped documentation notes (many
// languages, sections of real length), the safety scan and dedup of every
// candidate against the earlier ones — a dry run, which is the whole of an
// import but the notes and the index it writes. It reports candidates per
// second of wall time and of processor time (the machine may be shared).
// The folder holds IMPORT_BENCH_N candidates (default 5,000).
func BenchmarkImportScanDedup(b *testing.B) {
	n := 5000
	if v := os.Getenv("IMPORT_BENCH_N"); v != "" {
		if _, err := fmt.Sscan(v, &n); err != nil {
			b.Fatalf("IMPORT_BENCH_N=%q: %v", v, err)
		}
	}
	corpus, err := bench.LoadCorpus(filepath.Join("..", "fixtures"))
	if err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	notes := filepath.Join(dir, "notes")
	if err := bench.NewRealGenerator(corpus, 7, time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)).WriteNotes(notes, n); err != nil {
		b.Fatal(err)
	}
	vaultDir := filepath.Join(dir, "vault")
	if err := os.Mkdir(vaultDir, 0o700); err != nil {
		b.Fatal(err)
	}
	s, err := config.Resolve(config.Flags{Vault: vaultDir, Home: filepath.Join(dir, "state")}, func(string) string { return "" }, dir)
	if err != nil {
		b.Fatal(err)
	}
	c, err := wiring.Open(s, wiring.Options{UserHome: dir})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	cands := 0
	cpu0 := cpuTime()
	b.ResetTimer()
	for range b.N {
		res, err := c.Service.Import(ctx, memories.ImportRequest{Path: notes, DryRun: true})
		if err != nil {
			b.Fatal(err)
		}
		cands += res.Candidates
	}
	b.StopTimer()
	cpu := cpuTime() - cpu0
	b.ReportMetric(float64(cands)/b.Elapsed().Seconds(), "notes/s")
	if cpu > 0 {
		b.ReportMetric(float64(cands)/cpu.Seconds(), "notes/cpu-s")
	}
}

// cpuTime is the processor time this process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
