package main

import (
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// writeImportNotes writes n markdown notes into dir, note i holding the
// word tag+i and nothing another note says.
func writeImportNotes(t *testing.T, dir, tag string, n int) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	animals := []string{"okapi", "tapir", "ibex", "gnu", "lynx", "marten", "vole", "stoat"}
	for i := range n {
		word := fmt.Sprintf("%s%dzz", tag, i)
		body := fmt.Sprintf("# %s\n\nThe %s %s enclosure %d gets a keeper visit at %d:%02d, with feed batch %d and water check %d.\n",
			word, animals[i%len(animals)], word, i*7, 6+i%12, i%60, i*13, i*17)
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("note-%04d.md", i)), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

// TestKilledImportTearsNothing kills imports at random moments. After each
// kill every note in the vault parses (none is torn), and the same import
// run again to the end leaves each of the source's notes imported exactly
// once: what the killed run wrote counts as imported, and the rest is
// added. Recall then finds each note's word in one memory. It runs 4 trials;
// CORTEX_CRASH_TRIALS=N runs N.
func TestKilledImportTearsNothing(t *testing.T) {
	trials := crashTrials(t, 4, "a minute or more")
	bin, env, root := cortexBin(t)
	home := t.TempDir()
	env = append(env, "HOME="+home) // the source must be inside the home folder
	// One batch of an import: the kills fall before, while and after its
	// notes are written and indexed (a test of many batches takes minutes).
	const n = 240
	timed := func(args ...string) time.Duration {
		start := time.Now()
		if _, err := runCortex(t, bin, env, args...); err != nil {
			t.Fatal(err)
		}
		return time.Since(start)
	}
	first := filepath.Join(home, "first")
	writeImportNotes(t, first, "first", n)
	took := timed("import", first)
	rng := rand.New(rand.NewPCG(7, 8))
	for trial := range trials {
		tag := fmt.Sprintf("kill%dx", trial)
		src := filepath.Join(home, tag)
		writeImportNotes(t, src, tag, n)
		cmd := exec.Command(bin, "import", src)
		cmd.Env = env
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Duration(rng.Int64N(int64(took) * 5 / 4)))
		_ = cmd.Process.Signal(syscall.SIGKILL)
		_ = cmd.Wait()
		before := len(noteIDsWith(t, root, tag)) // fails on a torn note
		t.Logf("trial %d: the killed import left %d of %d notes", trial, before, n)
		out, err := runCortex(t, bin, env, "import", src)
		if err != nil {
			t.Fatal(err)
		}
		if want := fmt.Sprintf("Imported %d memories from %d candidates (rejected %d duplicates,", n-before, n, before); !strings.HasPrefix(out, want) {
			t.Errorf("trial %d: after a kill that left %d notes, the import again says %q, want %q…", trial, before, firstLine(out), want)
		}
		for _, i := range []int{0, n / 2, n - 1} {
			word := fmt.Sprintf("%s%dzz", tag, i)
			got, want := recallIDs(t, bin, env, word), noteIDsWith(t, root, word)
			if len(want) != 1 || strings.Join(got, ",") != strings.Join(want, ",") {
				t.Errorf("trial %d: recall %s answers %v, the vault holds %v (want one)", trial, word, got, want)
			}
		}
	}
	if _, err := runCortex(t, bin, env, "doctor"); err != nil {
		t.Errorf("doctor after the kills: %v", err)
	}
}
