package main

import (
	"context"
	"io"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/cortexmem/cortex/bench"
)

// gcCycles is how many collections the process has run. (Not with
// runtime/metrics: this test binary runs as cortex in the start-up tests,
// which check that cortex does not link that package.)
func gcCycles() uint64 {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return uint64(ms.NumGC)
}

// TestSaveCollectsNoGarbage: a save lives for tens of milliseconds, and the
// collections it would run (three at 10,000 notes, their write barriers
// slowing the search for similar memories) free only what exit frees
// anyway. Under the most eager collector, a save in the process runs none
// unless the person tuned the collector.
func TestSaveCollectsNoGarbage(t *testing.T) {
	for _, tc := range []struct {
		name string
		env  map[string]string
		want bool // collections expected
	}{
		{"untuned", nil, false},
		{"GOGC set", map[string]string{"GOGC": "1"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			env := map[string]string{"CORTEX_VAULT": filepath.Join(dir, "vault"), "CORTEX_HOME": filepath.Join(dir, "state"), "HOME": dir}
			for k, v := range tc.env {
				env[k] = v
			}
			getenv := func(k string) string { return env[k] }
			ctx := context.Background()
			var stderr strings.Builder
			// Enough notes that a save's search and comparisons allocate
			// megabytes, as they do at scale.
			if _, err := bench.WriteVault(env["CORTEX_VAULT"], 300, 3, time.Now()); err != nil {
				t.Fatal(err)
			}
			if code := run(ctx, []string{"save", "A first note, so that the vault and its index exist."}, strings.NewReader(""), io.Discard, &stderr, getenv); code != 0 {
				t.Fatalf("setting up: exit %d: %s", code, stderr.String())
			}
			a := &app{stdin: strings.NewReader(""), stdout: io.Discard, stderr: &stderr, getenv: getenv}
			defer debug.SetGCPercent(debug.SetGCPercent(1))
			runtime.GC()
			before := gcCycles()
			if err := runSave(ctx, a, saveOptions{project: "billing"}, []string{"Webhook deliveries retry five times with exponential backoff from two seconds."}); err != nil {
				t.Fatalf("save: %v (%s)", err, stderr.String())
			}
			if got := gcCycles() - before; (got > 0) != tc.want {
				t.Errorf("a save ran %d collections, want collections %v", got, tc.want)
			}
		})
	}
}

// TestRecallCollectsNoGarbage: a recall, like a save, runs no collection
// under the most eager collector unless the person tuned it.
func TestRecallCollectsNoGarbage(t *testing.T) {
	for _, tc := range []struct {
		name string
		env  map[string]string
		want bool // collections expected
	}{
		{"untuned", nil, false},
		{"GOGC set", map[string]string{"GOGC": "1"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			env := map[string]string{"CORTEX_VAULT": filepath.Join(dir, "vault"), "CORTEX_HOME": filepath.Join(dir, "state"), "HOME": dir}
			for k, v := range tc.env {
				env[k] = v
			}
			getenv := func(k string) string { return env[k] }
			ctx := context.Background()
			var stderr strings.Builder
			if _, err := bench.WriteVault(env["CORTEX_VAULT"], 300, 3, time.Now()); err != nil {
				t.Fatal(err)
			}
			if code := run(ctx, []string{"recall", "retry"}, strings.NewReader(""), io.Discard, &stderr, getenv); code != 0 {
				t.Fatalf("setting up: exit %d: %s", code, stderr.String())
			}
			a := &app{stdin: strings.NewReader(""), stdout: io.Discard, stderr: &stderr, getenv: getenv}
			defer debug.SetGCPercent(debug.SetGCPercent(1))
			runtime.GC()
			before := gcCycles()
			if err := runRecall(ctx, a, recallOptions{limit: 10}, "timeout retry config"); err != nil {
				t.Fatalf("recall: %v (%s)", err, stderr.String())
			}
			if got := gcCycles() - before; (got > 0) != tc.want {
				t.Errorf("a recall ran %d collections, want collections %v", got, tc.want)
			}
		})
	}
}
