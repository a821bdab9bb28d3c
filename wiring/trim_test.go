package wiring

import (
	"runtime"
	"testing"
)

// TestTrimmerDropsOverTheBudget: a trimmer drops the mapped files' pages
// only when the resident memory is over the budget with more than the
// floor of it mapped from files, and reads the memory at most once an
// interval.
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
			tr.resident = func() (int64, int64, bool) { reads++; return tt.rss, tt.file, tt.ok }
			tr.AfterCall()
			if drops != tt.drops || reads != 1 {
				t.Errorf("first call: %d drops, %d reads; want %d, 1", drops, reads, tt.drops)
			}
			tr.AfterCall() // within the interval: not read again
			if drops != tt.drops || reads != 1 {
				t.Errorf("second call at once: %d drops, %d reads; want %d, 1", drops, reads, tt.drops)
			}
			tr.last = tr.last.Add(-trimInterval)
			tr.AfterCall()
			if drops != 2*tt.drops || reads != 2 {
				t.Errorf("a call an interval later: %d drops, %d reads; want %d, 2", drops, reads, 2*tt.drops)
			}
		})
	}
	var none *Trimmer
	none.AfterCall() // a nil trimmer does nothing
	(&Trimmer{}).AfterCall()
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
