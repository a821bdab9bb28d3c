package wiring

import (
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

func TestServerGCPercent(t *testing.T) {
	for _, tc := range []struct {
		live uint64
		want int
	}{
		{0, serverMaxPercent},
		{1 << 20, serverMaxPercent},            // 32 MB of headroom would be 3,200%
		{serverHeadroom / 8, serverMaxPercent}, // exactly the cap
		{5 << 20, 640},                         // a 10k server: 32 MB more
		{17 << 20, 188},                        // a 100k server
		{serverHeadroom, 100},                  // the headroom is the live heap
		{200 << 20, 100},                       // a huge heap: Go's default
		{serverHeadroom*100/101 + 1, 100},      // rounding down never goes below 100
		{serverHeadroom / 4, 400},              // exact quarter
		{serverHeadroom/4 + 1, 399},            // just over it
	} {
		if got := serverGCPercent(tc.live); got != tc.want {
			t.Errorf("serverGCPercent(%d) = %d, want %d", tc.live, got, tc.want)
		}
	}
}

func TestServerMemoryLimit(t *testing.T) {
	for _, tc := range []struct {
		live uint64
		want int64
	}{
		{0, serverMemoryBudget},
		{17 << 20, serverMemoryBudget},                   // a 100k server: the budget
		{72 << 20, serverMemoryBudget},                   // read at start-up, over the budget
		{serverMemoryBudget * 5 / 4, serverMemoryBudget}, // the most that has the budget
		{serverMemoryBudget*5/4 + 2, serverMemoryBudget*15/8 + 3},
		{200 << 20, 300 << 20}, // a huge heap: half again of it
	} {
		if got := serverMemoryLimit(tc.live); got != tc.want {
			t.Errorf("serverMemoryLimit(%d) = %d, want %d", tc.live, got, tc.want)
		}
	}
}

// TestServerLimitBesideHeldHeap: the limit of a server beside a heap held
// by its process (the harness) is the server's limit for the rest of the
// heap, plus what is held.
func TestServerLimitBesideHeldHeap(t *testing.T) {
	for _, tc := range []struct {
		held, live uint64
		want       int64
	}{
		{0, 17 << 20, serverMemoryBudget},
		{50 << 20, 67 << 20, serverMemoryBudget + 50<<20},                    // a server of 17 MB beside 50 MB
		{50 << 20, 40 << 20, serverMemoryBudget + 50<<20},                    // less live than held: the budget
		{50 << 20, 250 << 20, 300<<20 + 50<<20},                              // a huge server: half again of its own
		{serverMemoryBudget, 2 * serverMemoryBudget, 2 * serverMemoryBudget}, // exactly the budget's worth of its own
	} {
		tu := &gcTuner{held: tc.held}
		if got := tu.limitFor(tc.live); got != tc.want {
			t.Errorf("held %d, live %d: limit %d, want %d", tc.held, tc.live, got, tc.want)
		}
	}
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(3 << 30))
	restore := ServerGCBeside(func(string) string { return "" }, 1<<30)
	defer restore()
	if l := debug.SetMemoryLimit(-1); l < 1<<30+serverMemoryBudget {
		t.Errorf("beside 1 GiB held: memory limit %d, want at least 1 GiB and the budget", l)
	}
}

// TestServerGCFollowsCollections: the server's collector sets its GOGC and
// its memory limit after every collection; a limit set by another (the
// store's while it makes word indexes) is left alone, and the tuner takes
// the limit up again once it is put back; restore puts back the settings
// from before.
func TestServerGCFollowsCollections(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(77))
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(3 << 30))
	restore := ServerGC(func(string) string { return "" })
	if l := debug.SetMemoryLimit(-1); l < serverMemoryBudget || l >= 3<<30 {
		t.Errorf("serving: memory limit %d, want serverMemoryLimit's (at least %d)", l, serverMemoryBudget)
	}
	collect := func() {
		for range 3 {
			runtime.GC()
			time.Sleep(time.Millisecond) // the finalizer runs on its own goroutine
		}
	}
	// Another's limit lasts past collections; once put back, the tuner's
	// follows them again.
	other := debug.SetMemoryLimit(448 << 20)
	collect()
	if l := debug.SetMemoryLimit(-1); l != 448<<20 {
		t.Errorf("after collections the memory limit another set is %d, want %d (left alone)", l, 448<<20)
	}
	debug.SetMemoryLimit(other)
	collect()
	if l := debug.SetMemoryLimit(-1); l < serverMemoryBudget || l >= 3<<30 {
		t.Errorf("after the other limit was put back and collections: memory limit %d, want serverMemoryLimit's", l)
	}
	// Every collection sets the percent again; one set by hand must not
	// last past the next collection.
	debug.SetGCPercent(55)
	deadline := time.Now().Add(10 * time.Second)
	var got int
	for time.Now().Before(deadline) {
		runtime.GC()
		time.Sleep(time.Millisecond) // the finalizer runs on its own goroutine
		got = debug.SetGCPercent(-1)
		debug.SetGCPercent(got)
		if got != 55 {
			break
		}
	}
	restore()
	if got == 55 || got < 100 || got > serverMaxPercent {
		t.Errorf("after collections the GC percent is %d, want one set by serverGCPercent", got)
	}
	if p := debug.SetGCPercent(77); p != 77 {
		t.Errorf("after restore: GC percent %d, want 77", p)
	}
	if l := debug.SetMemoryLimit(-1); l != 3<<30 {
		t.Errorf("after restore: memory limit %d, want %d", l, 3<<30)
	}
	// Stopped: collections leave the percent alone.
	debug.SetGCPercent(66)
	for range 3 {
		runtime.GC()
		time.Sleep(time.Millisecond)
	}
	if p := debug.SetGCPercent(77); p != 66 {
		t.Errorf("after restore and collections: GC percent %d, want 66", p)
	}
}

func TestServerGCLeavesThePersonsTuning(t *testing.T) {
	for _, env := range []map[string]string{{"GOGC": "50"}, {"GOMEMLIMIT": "1GiB"}} {
		func() {
			defer debug.SetGCPercent(debug.SetGCPercent(77))
			defer debug.SetMemoryLimit(debug.SetMemoryLimit(3 << 30))
			restore := ServerGC(func(k string) string { return env[k] })
			runtime.GC()
			time.Sleep(time.Millisecond)
			p, l := debug.SetGCPercent(77), debug.SetMemoryLimit(-1)
			restore()
			if p != 77 || l != 3<<30 {
				t.Errorf("with %v: GC percent %d and memory limit %d while serving, want 77 and %d (untouched)", env, p, l, 3<<30)
			}
		}()
	}
}
