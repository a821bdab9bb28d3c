//go:build unix

package mcp

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime/pprof"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/cortexmem/cortex/bench"
	"github.com/cortexmem/cortex/config"
	"github.com/cortexmem/cortex/memories"
	"github.com/cortexmem/cortex/store"
	"github.com/cortexmem/cortex/vault"
	"github.com/cortexmem/cortex/view"
	"github.com/cortexmem/cortex/watch"
)

// saveBenchEnv is the vault the save benchmarks save into, made once per
// test process: generating and indexing 10,000 notes takes seconds, more
// than the saves timed.
type saveBenchEnv struct {
	once sync.Once
	dir  string
	srv  *server
	// oneShot saves into the same vault through a store that keeps
	// nothing between calls, as `cortex save` does.
	oneShot *memories.Service
	gen     bench.Source
	err     error
}

var saveBench saveBenchEnv

// BenchmarkServerSave times memory_save's handler as the MCP server runs
// it: a resident store over a synthetic vault of SAVE_BENCH_N notes
// (default 10,000, indexed before the timer starts) followed by the
// watcher the server runs (followBench), saving one new memory after
// another, as the benchmark harness's in-handler row does. Each save's text is new; a few are refused as
// duplicates, which is a save's work but the write.
//
// SAVE_BENCH_LOG names a file that gets, save by save, the refusal or the
// saved note's related links: two runs of the same saves into copies of one
// vault can then be compared decision by decision.
func BenchmarkServerSave(b *testing.B) {
	sb := setUpSaveBench(b)
	var log *os.File
	if p := os.Getenv("SAVE_BENCH_LOG"); p != "" {
		var err error
		if log, err = os.Create(p); err != nil {
			b.Fatal(err)
		}
		defer log.Close()
	}
	benchSaves(b, func(ctx context.Context, in SaveInput) error {
		out, _, err := sb.srv.save(ctx, in)
		if log != nil {
			b.StopTimer()
			logSave(b, log, out, err)
			b.StartTimer()
		}
		return err
	})
}

// logSave writes a save's outcome for SAVE_BENCH_LOG: the refusal, or the
// new note's id, file name and related links.
func logSave(b *testing.B, log *os.File, out view.Save, err error) {
	if err != nil {
		fmt.Fprintf(log, "refused %s\n", strings.ReplaceAll(err.Error(), "\n", " "))
		return
	}
	data, rerr := os.ReadFile(out.Path)
	if rerr != nil {
		b.Fatal(rerr)
	}
	var related []string
	in := false
	for _, l := range strings.Split(string(data), "\n") {
		switch {
		case strings.HasPrefix(l, "related:"):
			in = true
			related = append(related, strings.TrimSpace(strings.TrimPrefix(l, "related:")))
		case in && strings.HasPrefix(l, "  - "):
			related = append(related, strings.TrimSpace(l))
		default:
			in = false
		}
	}
	fmt.Fprintf(log, "saved %s %s related %s\n", out.ID, filepath.Base(out.Path), strings.Join(related, " "))
}

// BenchmarkOneShotSave is BenchmarkServerSave through a store that keeps
// nothing between saves, as `cortex save` does: a save's work after its
// process has started, but for what a new process does once (the safety
// scan's tables, the first use of everything).
func BenchmarkOneShotSave(b *testing.B) {
	sb := setUpSaveBench(b)
	benchSaves(b, func(ctx context.Context, in SaveInput) error {
		_, err := sb.oneShot.Save(ctx, memories.SaveRequest{Content: in.Content, Title: in.Title, Project: in.Project})
		return err
	})
}

var saveLabel = pprof.Labels("bench", "save")

func benchSaves(b *testing.B, save func(context.Context, SaveInput) error) {
	ctx := context.Background()
	b.ReportAllocs()
	var cpu time.Duration
	walls := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		m := saveBench.gen.Memory()
		cpu0 := cpuTime()
		b.StartTimer()
		start := time.Now()
		var err error
		// Labelled, so that a profile (-cpuprofile, then pprof's
		// -tagfocus=bench=save) shows the saves' work alone, not the
		// vault's generation and indexing before them.
		pprof.Do(ctx, saveLabel, func(ctx context.Context) {
			err = save(ctx, SaveInput{Content: m.Body, Title: m.Title, Project: m.Project})
		})
		b.StopTimer()
		walls = append(walls, time.Since(start))
		cpu += cpuTime() - cpu0
		b.StartTimer()
		var rej *memories.RejectedError
		if err != nil && !errors.As(err, &rej) {
			b.Fatal(err)
		}
	}
	// The machine may be shared: the processor time a save took (on every
	// goroutine of the process) says more than the wall time then.
	b.ReportMetric(float64(cpu.Microseconds())/1000/float64(b.N), "cpu-ms/op")
	// The targets are about the median save: every 17th does the owed
	// index work in line.
	slices.Sort(walls)
	b.ReportMetric(float64(walls[len(walls)/2].Microseconds())/1000, "p50-ms")
}

// cpuTime is the processor time this process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func setUpSaveBench(b *testing.B) *saveBenchEnv {
	b.Helper()
	sb := &saveBench
	sb.once.Do(func() { sb.err = makeSaveBench() })
	if sb.err != nil {
		b.Fatal(sb.err)
	}
	return sb
}

// SAVE_BENCH_VAULT and SAVE_BENCH_HOME name a vault and a state folder
// already indexed to save into instead of a generated vault (the saves
// change them: give a copy); SAVE_BENCH_SHAPE=real saves real-shaped
// memories (the repository's fixtures) instead of synthetic ones.
func makeSaveBench() error {
	end := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	if vd := os.Getenv("SAVE_BENCH_VAULT"); vd != "" {
		return openSaveBench(vd, os.Getenv("SAVE_BENCH_HOME"), end)
	}
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
	one, err := store.Open(store.Options{Vault: v, State: config.State{Home: filepath.Join(dir, "state")},
		LockTimeout: 10 * time.Second, Freshness: config.DefaultFreshness})
	if err != nil {
		return err
	}
	saveBench.oneShot = memories.NewService(one)
	saveBench.srv = &server{svc: svc, abs: v.Abs, warn: func(string) {}}
	saveBench.gen = bench.NewGenerator(2, end)
	return warmSaveBench(st, v.Dir, true)
}

// openSaveBench opens a vault and state folder indexed beforehand, as the
// MCP server does.
func openSaveBench(vd, home string, end time.Time) error {
	if home == "" {
		return errors.New("SAVE_BENCH_HOME: must name the state folder beside SAVE_BENCH_VAULT")
	}
	v, err := vault.New(vd, "cortex")
	if err != nil {
		return err
	}
	st, err := store.Open(store.Options{Vault: v, State: config.State{Home: home},
		LockTimeout: 10 * time.Second, Freshness: config.DefaultFreshness, Resident: true})
	if err != nil {
		return err
	}
	saveBench.srv = &server{svc: memories.NewService(st), abs: v.Abs, warn: func(string) {}}
	one, err := store.Open(store.Options{Vault: v, State: config.State{Home: home},
		LockTimeout: 10 * time.Second, Freshness: config.DefaultFreshness})
	if err != nil {
		return err
	}
	saveBench.oneShot = memories.NewService(one)
	saveBench.gen = bench.NewGenerator(2, end)
	if os.Getenv("SAVE_BENCH_SHAPE") == "real" {
		c, err := bench.LoadCorpus(filepath.Join("..", "fixtures"))
		if err != nil {
			return err
		}
		saveBench.gen = bench.NewRealGenerator(c, 2, end)
	}
	return warmSaveBench(st, v.Dir, false)
}

func warmSaveBench(st *store.Store, dir string, rebuild bool) error {
	// The first save makes every project's word sets, and the first of a
	// process opens what a resident store then keeps.
	ctx := context.Background()
	if rebuild {
		if _, err := st.Rebuild(ctx); err != nil {
			return err
		}
	}
	if err := followBench(st, dir); err != nil {
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

// followBench follows the vault's notes (its cortex folder, dir) with the
// watcher cortex mcp runs beside its calls (wiring.FollowVault, which this
// package cannot import), and returns once the store is followed: the
// benchmarks' calls then skip the stat of every note that a call without it
// makes once a freshness window, as the server's calls do.
func followBench(st *store.Store, dir string) error {
	w := watch.New(watch.Options{Jobs: []watch.Job{{Name: "index", Dirs: []string{dir},
		Run: func(ctx context.Context) error {
			_, err := st.Sync(ctx)
			return err
		},
		Settled: st.Followed}}})
	go func() { _ = w.Run(context.Background()) }()
	for deadline := time.Now().Add(time.Minute); !st.IsFollowed(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			return errors.New("the watcher did not follow the vault within a minute")
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
