package main

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cortexmem/cortex/inbox"
)

// TestKilledCaptureLeavesWholeEvents kills `cortex capture` at random
// moments of its few milliseconds: every event file left in the inbox must
// be whole (it parses, with the content given), no other file may be left
// beside them but the hidden temporary ones the next normalize sweeps, and
// the next capture must work. It runs 30 kills; CORTEX_CRASH_TRIALS=N runs
// N.
func TestKilledCaptureLeavesWholeEvents(t *testing.T) {
	trials := crashTrials(t, 30, "a second or two")
	bin, env, root := cortexBin(t)
	rng := rand.New(rand.NewPCG(3, 4))
	for i := range trials {
		runKilled(t, bin, env, time.Duration(rng.IntN(12000))*time.Microsecond,
			"capture", "--project", "crash", fmt.Sprintf("Capture %d: ask the DBA about the replica lag alerts.", i))
	}
	out, err := runCortex(t, bin, env, "capture", "--project", "crash", "Capture after the kills: the replica lag alerts.")
	if err != nil {
		t.Fatalf("the next capture: %v", err)
	}
	last := strings.TrimSpace(out)
	// cortexBin's state folder is beside its vault.
	whole, found := 0, false
	for name, data := range inboxState(t, filepath.Join(filepath.Dir(root), "state")) {
		file, ok := strings.CutPrefix(name, inbox.PendingDir+"/")
		if !ok {
			t.Errorf("%s: nothing but pending events expected", name)
			continue
		}
		if strings.HasPrefix(file, ".") {
			continue // a temporary file, swept by normalize once old
		}
		ev, err := inbox.Parse([]byte(data))
		if err != nil {
			t.Errorf("torn event %s (%v):\n%s", file, err, data)
			continue
		}
		if !strings.HasPrefix(ev.Body, "Capture ") || !strings.HasSuffix(strings.TrimSpace(ev.Body), "replica lag alerts.") {
			t.Errorf("event %s holds %q, not a capture's content", file, ev.Body)
		}
		whole++
		found = found || ev.ID == last
	}
	if !found {
		t.Errorf("the capture after the kills (%s) is not pending", last)
	}
	t.Logf("%d of %d killed captures left a whole event", whole-1, trials)
}
