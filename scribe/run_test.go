package scribe_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/cortexmem/cortex/adapters"
	"github.com/cortexmem/cortex/config"
	"github.com/cortexmem/cortex/memories"
	"github.com/cortexmem/cortex/pipeline"
	"github.com/cortexmem/cortex/scribe"
	"github.com/cortexmem/cortex/transcript"
)

// TestRunDetectsAdapter: a File without an adapter is read by the one that
// recognises it, as if it had been given.
func TestRunDetectsAdapter(t *testing.T) {
	r := &scribe.Runner{Pipeline: pipeline.New(pipeline.WithoutRedaction())}
	given, err := r.Run(context.Background(), []scribe.File{{Path: claudeFixture, Adapter: mustFor(t, transcript.ClaudeCode), Final: true}})
	if err != nil {
		t.Fatal(err)
	}
	detected, err := r.Run(context.Background(), []scribe.File{{Path: claudeFixture, Final: true}})
	if err != nil {
		t.Fatal(err)
	}
	if len(given.Nodes) == 0 {
		t.Fatal("no nodes")
	}
	if diff := cmp.Diff(given, detected); diff != "" {
		t.Fatalf("detected run differs (-given +detected):\n%s", diff)
	}
}

// TestRunReadsChangedSessionWhole: when one file of a session changes, the
// run reads every file that holds the session, and no other.
func TestRunReadsChangedSessionWhole(t *testing.T) {
	dir := t.TempDir()
	a := place(t, claudeFixture, dir, "a.jsonl")
	b := place(t, claudeFixture, dir, "b.jsonl") // the same session again
	c := place(t, codexFixture, dir, "c.jsonl")
	var files []scribe.File
	for _, p := range []string{c, b, a} {
		files = append(files, scribe.File{Path: p})
	}
	r := &scribe.Runner{Pipeline: pipeline.New(), State: config.State{Home: filepath.Join(dir, "state")}}
	first, err := r.Run(context.Background(), files)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{a, b, c}, first.Read); diff != "" {
		t.Fatalf("first run read (-want +got):\n%s", diff)
	}
	if first.Replayed == 0 {
		t.Error("b's repeats of a's events were not dropped")
	}
	later := time.Now().Add(time.Minute)
	if err := os.Chtimes(a, later, later); err != nil {
		t.Fatal(err)
	}
	second, err := r.Run(context.Background(), files)
	if err != nil {
		t.Fatal(err)
	}
	got := [][]string{second.Read, second.Unchanged}
	if diff := cmp.Diff([][]string{{a, b}, {c}}, got); diff != "" {
		t.Fatalf("second run read, unchanged (-want +got):\n%s", diff)
	}
	if second.Sessions != 1 || second.Events != first.Events-eventsOf(t, c) {
		t.Errorf("second run: %d sessions, %d events", second.Sessions, second.Events)
	}
}

func eventsOf(t *testing.T, path string) int {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	evs, _ := transcript.ParseBytes(adapters.Resolve(mustFor(t, transcript.Codex), path), path, data, true)
	return len(evs)
}

// recordingMiner keeps the request it was given.
type recordingMiner struct{ req memories.MineRequest }

func (m *recordingMiner) Mine(_ context.Context, req memories.MineRequest) (*memories.MineResult, error) {
	m.req = req
	return &memories.MineResult{}, nil
}

// TestMineToVault: what Prepare makes of events is rendered as notes and
// handed to the miner, with the dry run said.
func TestMineToVault(t *testing.T) {
	evs := session{id: "s1", t0: t0, steps: []string{"say: Use tabs instead of spaces in the Makefile.", "edit: Makefile"}}.events()
	p := pipeline.New()
	prep := scribe.Prepare(p, evs)
	if len(prep.Sessions) != 1 || len(prep.Nodes) == 0 {
		t.Fatalf("prepared %d sessions, %d nodes", len(prep.Sessions), len(prep.Nodes))
	}
	for _, dry := range []bool{false, true} {
		m := &recordingMiner{}
		if _, err := scribe.MineToVault(context.Background(), m, prep, dry); err != nil {
			t.Fatal(err)
		}
		want := memories.MineRequest{Notes: scribe.Render(prep.Nodes, prep.Sessions), DryRun: dry}
		if diff := cmp.Diff(want, m.req); diff != "" {
			t.Errorf("dry run %v: request (-want +got):\n%s", dry, diff)
		}
	}
}
