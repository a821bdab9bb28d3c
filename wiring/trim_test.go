package wiring

import (
	"runtime"
	"sync"
	"testing"
	"time"
)

// TestTrimmerDropsOverTheBudget: a trimmer drops the mapped files' pages
// only when the resident memory is over the budget with more than the
// floor of it mapped from files, and after a call reads the memory at most
// once an interval.
func TestTrimmerDropsOverTheBudget(t *testing.T) {
	tests := []struct {
		name      string
		rss, file int64
		ok        bool
		drops     int
	}{
		{"under the budget", trimBudget, trimBudget / 2, true, 0},
		{"over it, little mapped", trimBudget + 1, trimFloor, true, 0},
		{"over it, much mapped", trimBudget + 1, trimFloor + 1, true, 1},
		{"cannot tell", 10 * trimBudget, 10 * trimBudget, false, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			drops, reads := 0, 0
			tr := NewTrimmer(func() { drops++ })
			tr.tick = 0 // no watch: the ends' checks alone
			tr.resident = func() (int64, int64, bool) { reads++; return tt.rss, tt.file, tt.ok }
			tr.Begin()()
			if drops != tt.drops || reads != 1 {
				t.Errorf("first call: %d drops, %d reads; want %d, 1", drops, reads, tt.drops)
			}
			end := tr.Begin()
			end()
			end() // ends once
			if drops != tt.drops || reads != 1 {
				t.Errorf("second call at once: %d drops, %d reads; want %d, 1", drops, reads, tt.drops)
			}
			tr.last = tr.last.Add(-trimInterval)
			tr.Begin()()
			if drops != 2*tt.drops || reads != 2 {
				t.Errorf("a call an interval later: %d drops, %d reads; want %d, 2", drops, reads, 2*tt.drops)
			}
		})
	}
	var none *Trimmer
	none.Begin()() // a nil trimmer does nothing
	(&Trimmer{}).Begin()()
}

// TestTrimmerWatchesWhileCallsRun: while a call runs, the trimmer reads the
// memory every tick and drops the pages over the budget, with no check
// after a call to wait for; once the calls have ended it stops reading.
func TestTrimmerWatchesWhileCallsRun(t *testing.T) {
	var mu sync.Mutex
	drops, reads := 0, 0
	dropped := make(chan struct{}, 100)
	tr := NewTrimmer(func() {
		mu.Lock()
		drops++
		mu.Unlock()
		dropped <- struct{}{}
	})
	tr.tick = time.Millisecond
	tr.resident = func() (int64, int64, bool) {
		mu.Lock()
		defer mu.Unlock()
		reads++
		return trimBudget + 1, trimFloor + 1, true
	}
	end1 := tr.Begin()
	end2 := tr.Begin() // a second call beside it: one watch
	for i := range 3 {
		select {
		case <-dropped:
		case <-time.After(10 * time.Second):
			t.Fatalf("drop %d: none while the calls ran", i+1)
		}
	}
	end1()
	for i := range 2 { // the other call still runs
		select {
		case <-dropped:
		case <-time.After(10 * time.Second):
			t.Fatalf("drop %d after one call ended: none while the other ran", i+1)
		}
	}
	end2()
	tr.state.Lock()
	for tr.watching {
		tr.state.Unlock()
		time.Sleep(time.Millisecond)
		tr.state.Lock()
	}
	tr.state.Unlock()
	mu.Lock()
	before := reads
	mu.Unlock()
	time.Sleep(20 * tr.tick)
	mu.Lock()
	defer mu.Unlock()
	if reads != before {
		t.Errorf("%d reads of the memory once every call had ended and the watch stopped", reads-before)
	}
	if drops < 5 {
		t.Errorf("%d drops, want at least 5", drops)
	}
}

// TestResidentMemory: the process's resident memory as /proc/self/statm
// says, where there is one.
func TestResidentMemory(t *testing.T) {
	rss, file, ok := residentMemory()
	if runtime.GOOS != "linux" {
		if ok {
			t.Errorf("residentMemory() = %d, %d, true on %s", rss, file, runtime.GOOS)
		}
		return
	}
	if !ok || rss <= 0 || file <= 0 || file > rss {
		t.Fatalf("residentMemory() = %d, %d, %v", rss, file, ok)
	}
}
