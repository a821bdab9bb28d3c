package main

import (
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
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
	bin, env, _ := cortexBin(t)
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
	state := envValue(env, "CORTEX_HOME")
	var pending string
	_ = filepath.WalkDir(state, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() && d.Name() == inbox.PendingDir && filepath.Base(filepath.Dir(p)) == "inbox" {
			pending = p
		}
		return nil
	})
	if pending == "" {
		t.Fatalf("no inbox under %s", state)
	}
	ents, err := os.ReadDir(pending)
	if err != nil {
		t.Fatal(err)
	}
	whole, found := 0, false
	for _, e := range ents {
		name := e.Name()
		if strings.HasPrefix(name, ".") {
			continue // a temporary file, swept by normalize once old
		}
		data, err := os.ReadFile(filepath.Join(pending, name))
		if err != nil {
			t.Fatal(err)
		}
		ev, err := inbox.Parse(data)
		if err != nil {
			t.Errorf("torn event %s (%v):\n%s", name, err, data)
			continue
		}
		if !strings.HasPrefix(ev.Body, "Capture ") || !strings.HasSuffix(strings.TrimSpace(ev.Body), "replica lag alerts.") {
			t.Errorf("event %s holds %q, not a capture's content", name, ev.Body)
		}
		whole++
		found = found || ev.ID == last
	}
	if !found {
		t.Errorf("the capture after the kills (%s) is not in %s", last, pending)
	}
	t.Logf("%d of %d killed captures left a whole event", whole-1, trials)
}

// envValue is the value env gives key, "" when it gives none.
func envValue(env []string, key string) string {
	for i := len(env) - 1; i >= 0; i-- {
		if v, ok := strings.CutPrefix(env[i], key+"="); ok {
			return v
		}
	}
	return ""
}
