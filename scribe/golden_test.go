package scribe_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cortexmem/cortex/memories"
	"github.com/cortexmem/cortex/pipeline"
	"github.com/cortexmem/cortex/scribe"
	"github.com/cortexmem/cortex/transcript"
)

// goldenFolder lays out a fixtures folder: a Claude Code transcript with its
// events and nodes golden, as the tests write them, and a note that is no
// transcript.
func goldenFolder(t *testing.T) (dir, transcriptPath string) {
	t.Helper()
	dir = t.TempDir()
	p := place(t, claudeFixture, dir, "claude-code/1.0/one.jsonl")
	place(t, "../fixtures/claude-code/README.md", dir, "claude-code/README.md")
	place(t, claudeFixture, dir, "claude-code/1.0/one.meta.json")
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	evs, _ := transcript.ParseBytes(mustFor(t, transcript.ClaudeCode), "1.0/one.jsonl", data, true)
	events, err := transcript.Marshal(evs)
	if err != nil {
		t.Fatal(err)
	}
	nodeEvs, _ := transcript.ParseBytes(mustFor(t, transcript.ClaudeCode), "claude-code/1.0/one.jsonl", data, true)
	nodes, err := pipeline.Marshal(pipeline.New(pipeline.WithoutRedaction()).Prepare(nodeEvs))
	if err != nil {
		t.Fatal(err)
	}
	stem := strings.TrimSuffix(p, ".jsonl")
	for ext, data := range map[string][]byte{scribe.EventsGolden: events, scribe.NodesGolden: nodes} {
		if err := os.WriteFile(stem+ext, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir, p
}

// TestCheckGoldens: goldens that match are ok; one edited is reported with
// the line where it leaves what cortex makes today; a folder without
// goldens is ErrInvalid.
func TestCheckGoldens(t *testing.T) {
	dir, p := goldenFolder(t)
	stem := strings.TrimSuffix(p, ".jsonl")

	rep, err := scribe.CheckGoldens(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	want := &scribe.GoldenReport{OK: 2, Goldens: []scribe.Golden{
		{File: p, Golden: stem + scribe.EventsGolden, OK: true},
		{File: p, Golden: stem + scribe.NodesGolden, OK: true},
	}}
	if diff := cmp.Diff(want, rep); diff != "" {
		t.Fatalf("report (-want +got):\n%s", diff)
	}

	// The third event of the golden no longer says what the adapter does.
	golden := stem + scribe.EventsGolden
	data, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(data), "\n")
	lines[2] = strings.Replace(lines[2], `"seq":2`, `"seq":9`, 1)
	if err := os.WriteFile(golden, []byte(strings.Join(lines, "")), 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err = scribe.CheckGoldens(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	want = &scribe.GoldenReport{OK: 1, Failed: 1, Goldens: []scribe.Golden{
		{File: p, Golden: golden, Error: "line 3 is not what it was"},
		{File: p, Golden: stem + scribe.NodesGolden, OK: true},
	}}
	if diff := cmp.Diff(want, rep); diff != "" {
		t.Fatalf("report (-want +got):\n%s", diff)
	}

	// A golden missing its last event: the line after its end differs.
	short := strings.SplitAfter(string(data), "\n")
	short = short[:len(short)-2]
	if err := os.WriteFile(golden, []byte(strings.Join(short, "")), 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err = scribe.CheckGoldens(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := rep.Goldens[0].Error, fmt.Sprintf("line %d is not what it was", len(short)+1); got != want || rep.Failed != 1 {
		t.Errorf("error %q, %d failed; want %q, 1 failed", got, rep.Failed, want)
	}
}

// TestCheckGoldensNone: a folder holding no golden (no tool folder, or
// transcripts without goldens) is the person's mistake.
func TestCheckGoldensNone(t *testing.T) {
	empty := t.TempDir()
	bare := t.TempDir()
	place(t, claudeFixture, bare, "claude-code/one.jsonl")
	for _, dir := range []string{empty, bare} {
		_, err := scribe.CheckGoldens(context.Background(), dir)
		if !errors.Is(err, memories.ErrInvalid) || !strings.Contains(err.Error(), "--capture: "+dir+" holds no golden fixtures") {
			t.Errorf("%s: err %v, want ErrInvalid: holds no golden fixtures", dir, err)
		}
	}
}

// TestCheckGoldensFixtures: the repository's own goldens are what cortex
// makes today.
func TestCheckGoldensFixtures(t *testing.T) {
	rep, err := scribe.CheckGoldens(context.Background(), filepath.Join("..", "fixtures"))
	if err != nil {
		t.Fatal(err)
	}
	if rep.Failed != 0 || rep.OK == 0 {
		for _, g := range rep.Goldens {
			if !g.OK {
				t.Errorf("%s: %s", g.Golden, g.Error)
			}
		}
		t.Fatalf("%d ok, %d failed", rep.OK, rep.Failed)
	}
}
