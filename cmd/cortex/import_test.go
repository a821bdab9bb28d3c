package main

import (
	"runtime/debug"
	"strings"
	"testing"
)

// TestProgress: the bar names each stage and counts; a new stage starts a new
// bar (redraws between are throttled, so only first draws are certain).
func TestProgress(t *testing.T) {
	var out strings.Builder
	p := progress(&out)
	p("reading", 1, 3)
	p("reading", 3, 3)
	p("saving", 1, 2)
	got := out.String()
	for _, want := range []string{"reading", "(1/3)", "saving", "(1/2)"} {
		if !strings.Contains(got, want) {
			t.Errorf("progress output %q lacks %q", got, want)
		}
	}
}

// TestImportGC: an import runs with the collector aiming under
// importMemoryLimit (its heap must not double with a large import's), a dry
// run also collecting less often (dryRunGCPercent), leaves a person's own
// GOGC or GOMEMLIMIT alone and puts the settings back.
func TestImportGC(t *testing.T) {
	for _, tc := range []struct {
		name        string
		env         map[string]string
		dryRun      bool
		wantPercent int
		wantLimit   int64
	}{
		{"untuned", nil, false, 77, importMemoryLimit},
		{"untuned dry run", nil, true, dryRunGCPercent, importMemoryLimit},
		{"GOGC set", map[string]string{"GOGC": "50"}, false, 77, 1 << 40},
		{"GOGC set, dry run", map[string]string{"GOGC": "50"}, true, 77, 1 << 40},
		{"GOMEMLIMIT set", map[string]string{"GOMEMLIMIT": "1GiB"}, false, 77, 1 << 40},
		{"GOMEMLIMIT set, dry run", map[string]string{"GOMEMLIMIT": "1GiB"}, true, 77, 1 << 40},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer debug.SetGCPercent(debug.SetGCPercent(77))
			defer debug.SetMemoryLimit(debug.SetMemoryLimit(1 << 40))
			restore := importGC(func(k string) string { return tc.env[k] }, tc.dryRun)
			gotPercent, gotLimit := debug.SetGCPercent(-1), debug.SetMemoryLimit(-1)
			debug.SetGCPercent(gotPercent)
			restore()
			if gotPercent != tc.wantPercent || gotLimit != tc.wantLimit {
				t.Errorf("during the import: GC percent %d, memory limit %d; want %d, %d", gotPercent, gotLimit, tc.wantPercent, tc.wantLimit)
			}
			if p, l := debug.SetGCPercent(77), debug.SetMemoryLimit(-1); p != 77 || l != 1<<40 {
				t.Errorf("after: GC percent %d, memory limit %d; want 77, %d", p, l, int64(1<<40))
			}
		})
	}
}
