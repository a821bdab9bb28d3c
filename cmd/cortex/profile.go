package main

import (
	"os"
	"runtime"
	"runtime/pprof"
	"sync"
	"time"
)

// Profiling of a whole command, for the benchmark harness and for anyone
// chasing a slow command on their own vault: with CORTEX_CPUPROFILE set, the
// process writes a CPU profile there; with CORTEX_MEMPROFILE, a heap profile
// taken when the heap was largest (sampled every 20 ms), so that it shows what
// made the peak, not what was left at exit. Read them with `go tool pprof`.
const (
	envCPUProfile = "CORTEX_CPUPROFILE"
	envMemProfile = "CORTEX_MEMPROFILE"
)

// startProfiles starts what the environment asks for and returns the function
// that finishes it. Profiling is a diagnosis: a file that cannot be written is
// skipped without a word, and the command runs as ever.
func startProfiles(getenv func(string) string) (stop func()) {
	var stops []func()
	if p := getenv(envCPUProfile); p != "" {
		if f, err := os.Create(p); err == nil {
			if pprof.StartCPUProfile(f) == nil {
				stops = append(stops, func() { pprof.StopCPUProfile(); _ = f.Close() })
			} else {
				_ = f.Close()
			}
		}
	}
	if p := getenv(envMemProfile); p != "" {
		stops = append(stops, watchHeap(p))
	}
	return func() {
		for _, s := range stops {
			s()
		}
	}
}

// watchHeap writes a heap profile to path whenever the heap grows past its
// largest size so far by a tenth, and once at the end when it never did. It
// reads the heap's size with runtime.ReadMemStats rather than runtime/metrics:
// that package builds its tables at start-up (about 0.15 ms of every command),
// and only a profiled run reads the size.
func watchHeap(path string) func() {
	var ms runtime.MemStats
	var mu sync.Mutex
	var peak uint64
	written := false
	write := func() {
		if f, err := os.Create(path); err == nil {
			_ = pprof.Lookup("heap").WriteTo(f, 0)
			_ = f.Close()
			written = true
		}
	}
	check := func() {
		runtime.ReadMemStats(&ms)
		if v := ms.HeapAlloc; v > peak+peak/10 {
			mu.Lock()
			peak = v
			write()
			mu.Unlock()
		}
	}
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		t := time.NewTicker(20 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				check()
			}
		}
	}()
	return func() {
		close(done)
		<-finished
		mu.Lock()
		defer mu.Unlock()
		if !written {
			runtime.GC()
			write()
		}
	}
}
