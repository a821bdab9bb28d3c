package pipeline_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cortexmem/cortex/adapters"
	"github.com/cortexmem/cortex/pipeline"
	"github.com/cortexmem/cortex/pipeline/pipelinetest"
	"github.com/cortexmem/cortex/transcript"
)

// conformanceDir holds the catalog's fixtures: <tool>/<scenario>.jsonl, and
// <tool>/<scenario>.<part>.jsonl for a session's other files (a subagent's).
var conformanceDir = filepath.Join("..", "fixtures", "conformance")

// conformanceTools are the tools whose transcripts the catalog is written in.
var conformanceTools = []transcript.SourceKind{transcript.ClaudeCode}

// TestConformance is SPEC §7's cross-tool conformance catalog: every
// scenario, written in every tool's own format, normalises to the same shape
// of nodes. Each fixture is also held to the adapter invariants
// (transcript.Verify).
func TestConformance(t *testing.T) {
	p := pipeline.New(pipeline.WithoutRedaction())
	for _, tool := range conformanceTools {
		t.Run(string(tool), func(t *testing.T) {
			a, ok := adapters.For(tool)
			if !ok {
				t.Fatalf("no adapter is registered for %s (adapters.For): its conformance fixtures cannot be read", tool)
			}
			dir := filepath.Join(conformanceDir, string(tool))
			for _, sc := range pipelinetest.Catalog() {
				t.Run(sc.Name, func(t *testing.T) {
					files := scenarioFiles(t, dir, sc.Name)
					streams := make([][]transcript.Event, 0, len(files))
					for _, path := range files {
						data, err := os.ReadFile(path)
						if err != nil {
							t.Fatal(err)
						}
						name := string(tool) + "/" + filepath.Base(path)
						rep := transcript.Verify(a, name, data, transcript.VerifyOptions{ResumePoints: 4})
						for _, v := range rep.Violations {
							t.Errorf("%s: %s", name, v)
						}
						evs, _ := transcript.ParseBytes(a, name, data, true)
						streams = append(streams, evs)
					}
					events, _ := pipeline.Merge(streams...)
					pipelinetest.Check(t, sc, p.Prepare(events))
				})
			}
		})
	}
}

// scenarioFiles returns a scenario's files in dir: <scenario>.jsonl first,
// then its other parts by name.
func scenarioFiles(t *testing.T, dir, scenario string) []string {
	t.Helper()
	main := filepath.Join(dir, scenario+".jsonl")
	if _, err := os.Stat(main); err != nil {
		t.Fatalf("no fixture for the scenario: %v", err)
	}
	parts, err := filepath.Glob(filepath.Join(dir, scenario+".*.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(parts)
	return append([]string{main}, parts...)
}

// TestConformanceFixturesNamed checks that every file under the catalog's
// folder belongs to a tool and a scenario, so none is silently left out.
func TestConformanceFixturesNamed(t *testing.T) {
	entries, err := os.ReadDir(conformanceDir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		if !slices.Contains(conformanceTools, transcript.SourceKind(e.Name())) {
			t.Errorf("%s: a folder of no tool the catalog is written for", e.Name())
			continue
		}
		files, err := os.ReadDir(filepath.Join(conformanceDir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			stem, ok := strings.CutSuffix(f.Name(), ".jsonl")
			if !ok {
				t.Errorf("%s/%s: not a .jsonl transcript", e.Name(), f.Name())
				continue
			}
			stem, _, _ = strings.Cut(stem, ".")
			if _, ok := pipelinetest.Lookup(stem); !ok {
				t.Errorf("%s/%s: belongs to no scenario of the catalog", e.Name(), f.Name())
			}
		}
	}
}
