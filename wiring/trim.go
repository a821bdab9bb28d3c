package wiring

import (
	"sync"
	"time"
)

// A server keeps its index files mapped, and each call maps the parts it
// reads, a large page of the file at a time (up to 2 MB on Linux): over a
// real-shaped 100,000-note vault, the MCP session the benchmark runs (60
// recalls, then 40 saves) held 56 MB of index segments and, before the word
// indexes bounded their own walks, 80 MB of one word index, beside its
// heap. Those pages are the page cache's: dropping them from the process
// costs the next call a fault per large page it reads again, and frees
// nothing the kernel could not reclaim, but they count in the resident
// memory people watch and SPEC §8 bounds (150 MB at 100,000 notes).
//
// A Trimmer reads the process's resident memory while calls are under way,
// every trimTick, and once more as each ends (at most every trimInterval),
// and when it is over trimBudget with more than trimFloor of it mapped from
// files, has the mapped files' pages dropped (Store.DropResident). One
// recall over the real-shaped 100,000-note vault maps up to 60 MB of index
// segments: dropped only between calls, they added up within one. Under
// the budget (a server over 10,000 notes, 80–90 MB) it drops nothing, and
// costs a read of /proc/self/statm (about 10 µs) a tick while a call runs.
const (
	trimBudget   = 100 << 20
	trimFloor    = 32 << 20
	trimInterval = 20 * time.Millisecond
	trimTick     = 4 * time.Millisecond
)

// Trimmer drops the pages of a server's mapped files when its resident
// memory passes the budget. The zero value drops nothing.
type Trimmer struct {
	// Drop takes the mapped files' pages out of the process's resident
	// memory. It may run beside a call.
	Drop func()
	// resident gives the process's resident bytes and those of them mapped
	// from files; ok is false where it cannot tell (not Linux).
	resident func() (rss, file int64, ok bool)
	// tick is how often the memory is read while calls are under way.
	tick time.Duration
	// mu is held by a check; last is when the last check after a call read
	// the memory.
	mu   sync.Mutex
	last time.Time
	// calls are the calls under way; watching says a watch runs.
	state    sync.Mutex
	calls    int
	watching bool
}

// NewTrimmer is a Trimmer calling drop.
func NewTrimmer(drop func()) *Trimmer {
	return &Trimmer{Drop: drop, resident: residentMemory, tick: trimTick}
}

// Begin tells the trimmer a call has begun: until it ends, the memory is
// read every tick. It returns what tells it the call has ended, which
// checks the memory once more unless that was done less than trimInterval
// ago.
func (t *Trimmer) Begin() (end func()) {
	if t == nil || t.Drop == nil || t.resident == nil {
		return func() {}
	}
	t.state.Lock()
	t.calls++
	if !t.watching && t.tick > 0 {
		t.watching = true
		go t.watch()
	}
	t.state.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			t.state.Lock()
			t.calls--
			t.state.Unlock()
			t.check(false)
		})
	}
}

// watch checks the memory every tick while calls are under way.
func (t *Trimmer) watch() {
	tk := time.NewTicker(t.tick)
	defer tk.Stop()
	for range tk.C {
		t.state.Lock()
		if t.calls == 0 {
			t.watching = false
			t.state.Unlock()
			return
		}
		t.state.Unlock()
		t.check(true)
	}
}

// check reads the resident memory, unless a check is under way or, after a
// call (not always), one read it less than trimInterval ago, and drops the
// mapped files' pages when it is over the budget.
func (t *Trimmer) check(always bool) {
	if !t.mu.TryLock() {
		return
	}
	defer t.mu.Unlock()
	if !always {
		now := time.Now()
		if now.Sub(t.last) < trimInterval {
			return
		}
		t.last = now
	}
	rss, file, ok := t.resident()
	if !ok || rss <= trimBudget || file <= trimFloor {
		return
	}
	t.Drop()
}
