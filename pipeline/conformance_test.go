package pipeline_test

import (
	"io/fs"
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

// conformanceDir holds the catalog's fixtures: <tool>/<scenario>.jsonl, the
// session's transcript, and under <tool>/<scenario>/ the session's other
// files (a subagent's) at the paths the tool gives them relative to the
// session file's folder.
var conformanceDir = filepath.Join("..", "fixtures", "conformance")

// conformanceTools are the tools whose transcripts the catalog is written in.
var conformanceTools = []transcript.SourceKind{transcript.ClaudeCode, transcript.Codex, transcript.GeminiCLI, transcript.CopilotCLI,
	transcript.Windsurf, transcript.VSCodeCopilotChat, transcript.OpenCode, transcript.Zed, transcript.Cursor, transcript.Aider,
	transcript.Amp, transcript.Cline, transcript.Continue, transcript.FactoryDroid}

// cannot says why tool's format cannot hold sc, "" when it can: the
// catalog's word (Scenario.Cannot) or inexpressible's.
func cannot(tool transcript.SourceKind, sc pipelinetest.Scenario) string {
	if why := sc.Cannot[tool]; why != "" {
		return why
	}
	return inexpressible[tool][sc.Name]
}

// inexpressible are the scenarios a tool's format cannot say, and why: the
// tool has no fixture of them (and must have none; fixtures/conformance/
// README.md says the same).
var inexpressible = map[transcript.SourceKind]map[string]string{
	transcript.Zed: {
		pipelinetest.RewindCompaction: "Zed's agent threads are never compacted: a thread too long for the model is summarized into a new thread, not this one",
		pipelinetest.SubagentThread: "Zed keeps no time per message, only a thread's last save: the subagent's thread, saved before its parent, " +
			"carries a time earlier than the parent's decision, so its edit cannot be bound to it",
	},
	transcript.Cursor: {
		pipelinetest.HappyPath: "Cursor's edit records as documented (edit_file's diff chunks, write's contents) do not say whether the file existed: " +
			"a file made is read as a file changed",
		pipelinetest.SeveralEdits: "a file made, as in happy_path",
		pipelinetest.RewindCompaction: "no public sample or document shows how Cursor's databases record a checkpoint restored or a " +
			"conversation summarized",
		pipelinetest.SubagentThread: "no public sample or document shows how Cursor's databases record a subagent's work",
	},
	transcript.Aider: {
		pipelinetest.RewindCompaction: "aider records no rewind (/undo reverts a commit) and no compaction (it summarises old messages silently)",
		pipelinetest.SubagentThread:   "aider has no subagents",
	},
	transcript.Amp: {
		pipelinetest.RewindCompaction: "editing an earlier message truncates the thread in place, and a handoff starts a new thread: neither leaves a record",
		pipelinetest.SubagentThread:   "a Task subagent's messages and edits are not stored, only its result",
	},
	transcript.Cline: {
		pipelinetest.RewindCompaction: "restoring a checkpoint truncates the task's files in place: the abandoned branch is gone",
		pipelinetest.SubagentThread:   "new_task starts a task of its own, and subagents' messages are not in the task's conversation",
	},
	transcript.Continue: {
		pipelinetest.HappyPath:           "Continue writes no time on its messages: no edit can be bound to a decision",
		pipelinetest.RejectedAlternative: "Continue writes no time on its messages: no edit can be bound to a decision",
		pipelinetest.Ban:                 "Continue writes no time on its messages: no edit can be bound to a decision",
		pipelinetest.InterleavedArcs:     "Continue writes no time on its messages: no edit can be bound to a decision",
		pipelinetest.SeveralEdits:        "Continue writes no time on its messages: no edit can be bound to a decision",
		pipelinetest.FailedToolCall:      "Continue writes no time on its messages: no edit can be bound to a decision",
		pipelinetest.RewindCompaction:    "Continue writes no time, and editing an earlier message truncates the history in place",
		pipelinetest.SubagentThread:      "Continue keeps no subagent transcript",
	},
	transcript.FactoryDroid: {
		pipelinetest.RewindCompaction: "no rewind record of Droid's is known",
		pipelinetest.SubagentThread:   "the layout of Droid's subagent transcripts is not known",
	},
}

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
				if cannot(tool, sc) != "" {
					continue // the tool's format cannot hold it (TestConformanceFixtures holds the folder to that)
				}
				t.Run(sc.Name, func(t *testing.T) {
					files := scenarioFiles(t, dir, sc.Name)
					streams := make([][]transcript.Event, 0, len(files))
					for _, name := range files {
						data, err := os.ReadFile(filepath.Join(conformanceDir, filepath.FromSlash(name)))
						if err != nil {
							t.Fatal(err)
						}
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

// scenarioFiles returns the names of a scenario's files in dir, relative to
// conformanceDir with "/" (the names the adapter reads them under, so the
// folders a tool's layout gives keep their meaning): <scenario>.<ext> first
// (.jsonl, or the tool's own: .json, .md), then the files of that extension
// under <scenario>/, sorted.
func scenarioFiles(t *testing.T, dir, scenario string) []string {
	t.Helper()
	rel := func(path string) string {
		r, err := filepath.Rel(conformanceDir, path)
		if err != nil {
			t.Fatal(err)
		}
		return filepath.ToSlash(r)
	}
	mains, _ := filepath.Glob(filepath.Join(dir, scenario+".*"))
	if len(mains) != 1 {
		t.Fatalf("%d fixtures for the scenario %s in %s, want 1", len(mains), scenario, dir)
	}
	main, ext := mains[0], filepath.Ext(mains[0])
	var parts []string
	if fi, err := os.Stat(filepath.Join(dir, scenario)); err == nil && fi.IsDir() {
		err := filepath.WalkDir(filepath.Join(dir, scenario), func(path string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(path, ext) {
				parts = append(parts, rel(path))
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	slices.Sort(parts)
	return append([]string{rel(main)}, parts...)
}

// TestConformanceFixtures checks the catalog's folder: a folder per tool,
// every scenario's transcript in each, and no file that belongs to no
// scenario (it would be silently left out).
func TestConformanceFixtures(t *testing.T) {
	entries, err := os.ReadDir(conformanceDir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		if k, ok := transcript.ParseSource(e.Name()); !ok || string(k) != e.Name() {
			t.Errorf("%s: not the slug of a tool", e.Name())
			continue
		}
		files, err := os.ReadDir(filepath.Join(conformanceDir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		have := map[string]bool{}
		for _, f := range files {
			stem, _, ok := strings.Cut(f.Name(), ".")
			if f.IsDir() {
				stem, ok = f.Name(), true
			}
			if _, known := pipelinetest.Lookup(stem); !ok || !known {
				t.Errorf("%s/%s: belongs to no scenario of the catalog", e.Name(), f.Name())
			}
			if !f.IsDir() {
				have[stem] = true
			}
		}
		k, _ := transcript.ParseSource(e.Name())
		for _, sc := range pipelinetest.Catalog() {
			why := cannot(k, sc)
			switch {
			case why != "" && have[sc.Name]:
				t.Errorf("%s: a fixture of %s, a scenario the tool cannot express (%s)", e.Name(), sc.Name, why)
			case why == "" && !have[sc.Name]:
				t.Errorf("%s: no fixture of %s", e.Name(), sc.Name)
			}
		}
	}
}
