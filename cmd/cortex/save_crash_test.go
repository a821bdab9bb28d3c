package main

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cortexmem/cortex/vault"
)

// recallIDs runs `cortex recall --json` for query and returns the ids it
// finds, in order (not the related memories recall appends to them).
func recallIDs(t *testing.T, bin string, env []string, query string) []string {
	t.Helper()
	out, err := runCortex(t, bin, env, "recall", "--json", "--limit", "50", query)
	if err != nil {
		t.Fatal(err)
	}
	var res struct {
		Results []struct {
			ID      string `json:"id"`
			Related bool   `json:"related"`
		} `json:"results"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("recall --json: %v\n%s", err, out)
	}
	var ids []string
	for _, r := range res.Results {
		if !r.Related {
			ids = append(ids, r.ID)
		}
	}
	return ids
}

// noteIDsWith lists the ids of the notes in the vault whose body holds word,
// failing on a torn one.
func noteIDsWith(t *testing.T, root, word string) []string {
	t.Helper()
	var ids []string
	for _, f := range notes(t, root) {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		n, err := vault.ParseNote(data)
		if err != nil {
			t.Fatalf("torn note %s: %v", f, err)
		}
		// The body only: other notes link to this one by a name made of
		// its title.
		if strings.Contains(n.Memory(f, time.Time{}).Body, word) {
			ids = append(ids, n.ID())
		}
	}
	return ids
}

// TestSaveIsRecalledByTheNextProcess: a save leaves the full-text index behind
// the notes; the next process, which never saw the save, must find the note
// (read-your-writes across processes), and so must each process after a run
// of saves long enough that a save catches the index up itself.
func TestSaveIsRecalledByTheNextProcess(t *testing.T) {
	bin, env, root := cortexBin(t)
	if _, err := runCortex(t, bin, env, "save", "A first memory so that the index exists already"); err != nil {
		t.Fatal(err)
	}
	for i := range 20 {
		word := fmt.Sprintf("okapi%dzz", i)
		if _, err := runCortex(t, bin, env, "save", "--project", "ryw", fmt.Sprintf("The %s enclosure needs its gate latch oiled, visit %d", word, i)); err != nil {
			t.Fatal(err)
		}
		// Every third save is followed by a recall; the others pile up owed
		// index work, past what a save may leave.
		if i%3 != 0 {
			continue
		}
		got, want := recallIDs(t, bin, env, word), noteIDsWith(t, root, word)
		if len(want) != 1 || len(got) != 1 || got[0] != want[0] {
			t.Errorf("save %d: recall %s answers %v, the vault holds %v", i, word, got, want)
		}
	}
	for i := range 20 {
		word := fmt.Sprintf("okapi%dzz", i)
		if got, want := recallIDs(t, bin, env, word), noteIDsWith(t, root, word); len(got) != 1 || len(want) != 1 || got[0] != want[0] {
			t.Errorf("after the saves: recall %s answers %v, the vault holds %v", word, got, want)
		}
	}
	if _, err := runCortex(t, bin, env, "doctor"); err != nil {
		t.Errorf("doctor: %v", err)
	}
}

// TestKilledSaveAndCatchUpLoseNothing kills saves, and the commands that
// catch the full-text index up after them, at random moments. After each
// trial the next command must recall every note the vault holds exactly once
// (a save killed before its note was whole leaves none: then it must recall
// nothing), and at the end doctor must find the index in step with the
// vault. It runs 12 trials; CORTEX_CRASH_TRIALS=N runs N.
func TestKilledSaveAndCatchUpLoseNothing(t *testing.T) {
	trials := crashTrials(t, 12, "half a minute or more")
	bin, env, root := cortexBin(t)
	if _, err := runCortex(t, bin, env, "save", "A first memory so that the index exists already"); err != nil {
		t.Fatal(err)
	}
	timed := func(args ...string) time.Duration {
		start := time.Now()
		if _, err := runCortex(t, bin, env, args...); err != nil {
			t.Fatal(err)
		}
		return time.Since(start)
	}
	tookSave := timed("save", "--project", "crash", "The tapir pool pump is primed before the morning feed")
	tookRecall := timed("recall", "tapir")
	killAt := func(rng *rand.Rand, took time.Duration, args ...string) {
		cmd := exec.Command(bin, args...)
		cmd.Env = env
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Duration(rng.Int64N(int64(took) * 5 / 4)))
		_ = cmd.Process.Signal(syscall.SIGKILL)
		_ = cmd.Wait()
	}
	// check: what the vault holds of word, the next command recalls once.
	check := func(trial int, word string) {
		t.Helper()
		got, want := recallIDs(t, bin, env, word), noteIDsWith(t, root, word)
		if strings.Join(got, ",") != strings.Join(want, ",") {
			t.Errorf("trial %d: recall %s answers %v, the vault holds %v", trial, word, got, want)
		}
	}
	rng := rand.New(rand.NewPCG(5, 6))
	for i := range trials {
		// A save killed anywhere.
		killed := fmt.Sprintf("gnu%dkilled", i)
		killAt(rng, tookSave, "save", "--project", "crash", fmt.Sprintf("The %s paddock fence is checked after storms, round %d", killed, i))
		// A save that completes, then the command that would catch the
		// index up killed anywhere (the recall of another word).
		whole := fmt.Sprintf("ibex%dwhole", i)
		if _, err := runCortex(t, bin, env, "save", "--project", "crash", fmt.Sprintf("The %s cliff ledge gets fresh gravel each spring, round %d", whole, i)); err != nil {
			t.Fatal(err)
		}
		killAt(rng, tookRecall, "recall", "paddock")
		check(i, killed)
		check(i, whole)
		if ids := noteIDsWith(t, root, whole); len(ids) != 1 {
			t.Errorf("trial %d: a completed save left %d notes holding %s", i, len(ids), whole)
		}
	}
	if _, err := runCortex(t, bin, env, "doctor"); err != nil {
		t.Errorf("doctor after the kills: %v", err)
	}
}
