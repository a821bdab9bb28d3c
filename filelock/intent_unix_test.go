//go:build unix

package filelock

import (
	"os"
	"path/filepath"
	"testing"
)

// TestWriterWaitingTakesNoFile: the probe a resident reader makes after
// every call opens the intent file with the system's calls, not an os.File
// (whose open of a regular file costs six system calls, and whose close two
// more): it allocates the intent's path and its bytes for the system, twice,
// where the os.File and the flock.Flock around it allocated seven times.
func TestWriterWaitingTakesNoFile(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates in the calls counted")
	}
	path := filepath.Join(t.TempDir(), "lock")
	if err := os.WriteFile(intentPath(path), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	var waiting bool
	allocs := testing.AllocsPerRun(50, func() { waiting = waiting || WriterWaiting(path) })
	if waiting {
		t.Fatal("WriterWaiting with no writer waiting")
	}
	if allocs > 2 {
		t.Errorf("WriterWaiting: %v allocations, want at most 2", allocs)
	}
}
