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

func TestServerGCFollowsCollections(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(77))
	restore := ServerGC(func(string) string { return "" })
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
			restore := ServerGC(func(k string) string { return env[k] })
			runtime.GC()
			time.Sleep(time.Millisecond)
			p := debug.SetGCPercent(77)
			restore()
			if p != 77 {
				t.Errorf("with %v: GC percent %d while serving, want 77 (untouched)", env, p)
			}
		}()
	}
}
