package main

import (
	"context"
	"io"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cortexmem/cortex/bench"
)

// TestRecallMapsTheCatalog: a recall and a briefing map the index catalog
// rather than copying it into memory (a megabyte at 10,000 notes, about a
// tenth of a recall's own time), as list and save do, and still answer.
func TestRecallMapsTheCatalog(t *testing.T) {
	dir := t.TempDir()
	env := map[string]string{"CORTEX_VAULT": filepath.Join(dir, "vault"), "CORTEX_HOME": filepath.Join(dir, "state"), "HOME": dir}
	getenv := func(k string) string { return env[k] }
	if _, err := bench.WriteVault(env["CORTEX_VAULT"], 50, 3, time.Now()); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	var stderr strings.Builder
	if code := run(ctx, []string{"reindex"}, strings.NewReader(""), io.Discard, &stderr, getenv); code != 0 {
		t.Fatalf("reindex: exit %d: %s", code, stderr.String())
	}
	mapped := 0
	defer func(f func()) { mapCatalogs = f }(mapCatalogs)
	mapCatalogs = func() { mapped++ }
	var out strings.Builder
	a := &app{stdin: strings.NewReader(""), stdout: &out, stderr: &stderr, getenv: getenv}
	if err := runRecall(ctx, a, recallOptions{limit: 10}, "retry timeout"); err != nil {
		t.Fatalf("recall: %v (%s)", err, stderr.String())
	}
	if mapped != 1 {
		t.Errorf("recall asked for mapped catalogs %d times, want once", mapped)
	}
	if !strings.Contains(out.String(), "→ ") {
		t.Errorf("recall printed no memory:\n%s", out.String())
	}
	out.Reset()
	if err := runContext(ctx, a, contextOptions{project: "billing", budget: 1500}, "retry timeout"); err != nil {
		t.Fatalf("context: %v (%s)", err, stderr.String())
	}
	if mapped != 2 {
		t.Errorf("recall and context asked for mapped catalogs %d times, want twice", mapped)
	}
	if !strings.Contains(out.String(), "# Briefing: retry timeout") || !strings.Contains(out.String(), "[") {
		t.Errorf("context printed no briefing:\n%s", out.String())
	}
}
