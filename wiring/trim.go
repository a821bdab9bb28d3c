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
// A Trimmer, asked after each call, reads the process's resident memory and,
// when it is over trimBudget with more than trimFloor of it mapped from
// files, has the mapped files' pages dropped (Store.DropResident). Under
// the budget (a server over 10,000 notes, 60–80 MB) it drops nothing, and
// costs a read of /proc/self/statm (about 10 µs) at most every
// trimInterval.
const (
	trimBudget   = 100 << 20
	trimFloor    = 32 << 20
	trimInterval = 20 * time.Millisecond
)

// Trimmer drops the pages of a server's mapped files when its resident
// memory passes the budget. The zero value drops nothing.
type Trimmer struct {
	// Drop takes the mapped files' pages out of the process's resident
	// memory.
	Drop func()
	// resident gives the process's resident bytes and those of them mapped
	// from files; ok is false where it cannot tell (not Linux).
	resident func() (rss, file int64, ok bool)
	mu       sync.Mutex
	last     time.Time
}

// NewTrimmer is a Trimmer calling drop.
func NewTrimmer(drop func()) *Trimmer {
	return &Trimmer{Drop: drop, resident: residentMemory}
}

// AfterCall checks the resident memory, unless it was checked less than
// trimInterval ago or a check is under way, and drops the mapped files'
// pages when it is over the budget. It may run beside the next call: a page
// dropped under a read is read again from the page cache.
func (t *Trimmer) AfterCall() {
	if t == nil || t.Drop == nil || t.resident == nil || !t.mu.TryLock() {
		return
	}
	defer t.mu.Unlock()
	now := time.Now()
	if now.Sub(t.last) < trimInterval {
		return
	}
	t.last = now
	rss, file, ok := t.resident()
	if !ok || rss <= trimBudget || file <= trimFloor {
		return
	}
	t.Drop()
}
