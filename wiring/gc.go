package wiring

import (
	"runtime"
	"runtime/debug"
	"sync"
)

// A long-lived server (cortex mcp) collects garbage once its heap has grown
// by at least serverHeadroom since the last collection, or by its live heap
// when that is larger (Go's default, GOGC=100).
//
// A server's live heap is small: about 5 MB over a 10,000-note vault and
// 17 MB over 100,000 (the catalog and the indexes are mapped files, not
// heap), while a recall allocates about 400 KB. With Go's default the
// collector ran every dozen recalls at 10k, and its marking took a core from
// the recalls it ran beside: 1.6–1.75 ms of CPU per recall in the handler,
// p50 1.09–1.25 ms and p99 7.7 ms, against 1.3 ms, 0.96–1.0 ms and
// 5.1–5.9 ms with four times the live heap between collections
// (BenchmarkServerRecall, alternated runs). A fixed GOGC=400 grew the
// server's resident memory at 100k from 130 to 190 MB, past its budget
// (SPEC: 150 MB); a headroom in bytes spends memory where the heap is small
// and nothing where it is large, and a memory limit would have the collector
// run without pause once a huge vault's live heap neared it.
const (
	serverHeadroom   = 32 << 20
	serverMaxPercent = 800
)

// serverGCPercent is the GOGC giving a heap of live bytes serverHeadroom to
// grow into, or its live size when that is more.
func serverGCPercent(live uint64) int {
	if live == 0 {
		return serverMaxPercent
	}
	return int(min(max(serverHeadroom*100/live, 100), serverMaxPercent))
}

// The server's memory is bounded too (SPEC: 150 MB at 100,000 notes): its
// heap is kept under serverMemoryBudget by a soft memory limit, with
// which the runtime also gives freed pages back to the system as it goes.
// Without it, what the live heap left free stayed resident: a server
// started on a real-shaped 100,000-note vault, asked to recall while it
// checked its word indexes, peaked at 158–204 MB (its live heap 50–65 MB
// then), and at 122–123 MB with a limit of 90 MB. The rest of the budget
// is what the process holds outside the heap: its binary's pages (19 MB)
// and the index files it maps, up to 60 MB in one recall there (see
// Trimmer). With 90 MB the heap's pages stayed at 80–88 MB through the
// benchmark's session of 60 recalls and 40 saves, and the session peaked
// at 163–172 MB; with 64 MB, at 140–151 MB (the heap's pages at 62–64 MB),
// the recalls and saves as fast (p50 17–25 ms either way, alternated
// runs). Once the heap after a collection holds more than the
// budget and a quarter, the limit is half again of it (serverMemoryLimit),
// so a huge vault's server collects at most twice as often as Go's
// default would. That heap is read when the tuner hears of the
// collection, with what was allocated since: at that start-up it read up
// to 100 MB while 53–63 MB were live, and a limit of half again of what it
// read let the server peak at 151–181 MB. Between the budget and a quarter
// more, a live heap above the budget has the collector run more often than
// the GOGC says (the runtime caps its share of the CPU at half); a
// 100,000-note server's live heap is 17–32 MB once started, and 40–45 MB
// while it checks its word indexes (whose making raises the limit: see
// store's boundedGC).
const serverMemoryBudget = 64 << 20

// serverMemoryLimit is the soft memory limit for a server whose heap holds
// live bytes after a collection: the budget, or half again of the heap
// once it is more than the budget and a quarter.
func serverMemoryLimit(live uint64) int64 {
	if 4*live <= 5*serverMemoryBudget {
		return serverMemoryBudget
	}
	return int64(live + live/2)
}

// ServerGC sets the collector for a long-lived server, unless the person
// tuned it (GOGC or GOMEMLIMIT in getenv): after each collection the GOGC
// is set for the live heap it left (serverGCPercent), and the memory limit
// (serverMemoryLimit) unless another was set meanwhile (the store's, while
// it makes the word indexes of a large project: see store's boundedGC).
// It returns what restores the settings before and stops following
// collections.
func ServerGC(getenv func(string) string) (restore func()) {
	return ServerGCBeside(getenv, 0)
}

// ServerGCBeside is ServerGC in a process whose heap holds held bytes
// besides the server's: the benchmark harness, which runs the server's
// code beside its own data. The memory limit is the server's and held:
// under the server's alone, a harness holding 50 MB collected without
// pause, its recalls in the handler 1.8 → 6.8 ms at the median.
func ServerGCBeside(getenv func(string) string, held uint64) (restore func()) {
	if getenv("GOGC") != "" || getenv("GOMEMLIMIT") != "" {
		return func() {}
	}
	t := &gcTuner{held: held}
	t.mu.Lock()
	l := live()
	t.before = debug.SetGCPercent(serverGCPercent(l))
	t.limit = t.limitFor(l)
	t.beforeLimit = debug.SetMemoryLimit(t.limit)
	t.mu.Unlock()
	t.arm()
	return t.stop
}

// limitFor is the memory limit for a heap of live bytes, held of them not
// the server's.
func (t *gcTuner) limitFor(live uint64) int64 {
	return serverMemoryLimit(live-min(live, t.held)) + int64(t.held)
}

// gcTuner sets the GOGC after each collection, told of it by the finalizer
// of an object only it points to (runtime.SetFinalizer runs it once a
// collection has found the object unreachable).
type gcTuner struct {
	mu      sync.Mutex
	stopped bool
	before  int
	// limit is the memory limit the tuner set last, and beforeLimit the
	// one before it.
	limit, beforeLimit int64
	// held is the heap that is not the server's (ServerGCBeside).
	held uint64
}

// sentinel is the object whose finalizer tells of a collection. It holds a
// pointer so that it is not one of the tiny allocations whose finalizers
// may wait for their neighbours.
type sentinel struct {
	t *gcTuner
	_ [8]byte
}

func (t *gcTuner) arm() {
	runtime.SetFinalizer(&sentinel{t: t}, func(s *sentinel) { s.t.collected() })
}

func (t *gcTuner) collected() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.stopped {
		return
	}
	l := live()
	debug.SetGCPercent(serverGCPercent(l))
	if debug.SetMemoryLimit(-1) == t.limit {
		t.limit = t.limitFor(l)
		debug.SetMemoryLimit(t.limit)
	}
	t.arm()
}

// live is about the live heap: the heap in use just after a collection,
// when the finalizer runs. (runtime/metrics has the exact figure, but
// linking it costs every command its initialisation; ReadMemStats stops
// the world for microseconds, once per collection.)
func live() uint64 {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

func (t *gcTuner) stop() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.stopped = true
	debug.SetGCPercent(t.before)
	if debug.SetMemoryLimit(-1) == t.limit {
		debug.SetMemoryLimit(t.beforeLimit)
	}
}
