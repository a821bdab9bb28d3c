package reflection_test

import (
	"context"
	"encoding/json"

	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/cortexmem/cortex/internal/golden"
	"github.com/cortexmem/cortex/reflection"
	"github.com/cortexmem/cortex/scribe"
	"github.com/cortexmem/cortex/transcript"
)

// TestReflectGoldens: the roll-up of every transcript fixture of Claude Code,
// Codex and Gemini CLI (most as their CLIs wrote them) is its golden
// file, byte for byte, and a second roll-up gives the same bytes.
func TestReflectGoldens(t *testing.T) {
	var files []string
	for _, tool := range []string{"claude-code", "codex", "gemini-cli"} {
		fs, err := filepath.Glob("../fixtures/" + tool + "/*/*.events.ndjson")
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, fs...)
	}
	if len(files) < 20 {
		t.Fatalf("found %d event fixtures; the fixtures folder moved?", len(files))
	}
	for _, f := range files {
		rel, _ := filepath.Rel("../fixtures", f)
		t.Run(rel, func(t *testing.T) {
			evs, err := scribe.ReadEvents(context.Background(), f, nil)
			if err != nil {
				t.Fatal(err)
			}
			in := reflection.Input{Scope: "fixture " + filepath.ToSlash(rel), Events: evs, Style: reflection.StyleFull}
			got := reflection.Reflect(in).Markdown
			if again := reflection.Reflect(in).Markdown; again != got {
				t.Fatal("two roll-ups of the same events differ")
			}
			golden.Check(t, filepath.Join("testdata", "golden", strings.TrimSuffix(rel, ".events.ndjson")+".md"), []byte(got))
		})
	}
}

// ev builds an event; payload is set by kind.
func ev(seq int, kind transcript.Kind, at string, set func(*transcript.Event)) transcript.Event {
	e := transcript.Event{SchemaVersion: 1, Source: transcript.ClaudeCode, SessionID: "sess-0001-abcd", Seq: uint64(seq),
		Kind: kind, Timestamp: "2026-11-20T10:" + at + ":00Z", Provenance: transcript.Provenance{File: "/t/sess-0001-abcd.jsonl", Line: seq + 1},
		Project: transcript.Project{Cwd: "/home/dev/web"}}
	set(&e)
	return e
}

func user(text, meta string) func(*transcript.Event) {
	return func(e *transcript.Event) { e.UserTurn = &transcript.UserTurn{Text: text, Meta: meta} }
}

func reply(text string) func(*transcript.Event) {
	return func(e *transcript.Event) { e.AssistantTurn = &transcript.AssistantTurn{Text: text} }
}

func call(id, name string, args map[string]any) func(*transcript.Event) {
	raw, _ := json.Marshal(args)
	return func(e *transcript.Event) { e.ToolCall = &transcript.ToolCall{CallID: id, Name: name, Input: raw} }
}

func result(id string, ok bool, text string) func(*transcript.Event) {
	return func(e *transcript.Event) { e.ToolResult = &transcript.ToolResult{CallID: id, OK: ok, Text: text} }
}

func edit(path string, ok bool, added, removed int) func(*transcript.Event) {
	return func(e *transcript.Event) {
		e.FileEdit = &transcript.FileEdit{Path: path, OK: ok, Op: transcript.OpUpdate, Added: added, Removed: removed}
	}
}

// session is a session with one of everything a roll-up looks for.
func session() []transcript.Event {
	return []transcript.Event{
		ev(0, transcript.KindUserTurn, "00", user("<env>injected</env>", transcript.MetaInjected)),
		ev(1, transcript.KindUserTurn, "01", user("Fix the flaky login test. Why does it time out on CI? Use the fake clock.", "")),
		ev(2, transcript.KindAssistantTurn, "02", reply("Looking at it.")),
		ev(3, transcript.KindToolCall, "03", call("c1", "Bash", map[string]any{"command": "go test ./auth"})),
		ev(4, transcript.KindToolResult, "04", result("c1", false, "FAIL: TestLogin (timeout)\nmore")),
		ev(5, transcript.KindToolCall, "05", call("c2", "Bash", map[string]any{"command": "go test ./auth"})),
		ev(6, transcript.KindToolResult, "06", result("c2", true, "ok")),
		ev(7, transcript.KindToolCall, "07", call("c3", "Bash", map[string]any{"command": "go  test ./auth"})),
		ev(8, transcript.KindToolCall, "08", call("c4", "Edit", map[string]any{"file_path": "auth/login_test.go"})),
		ev(9, transcript.KindFileEdit, "09", edit("auth/login_test.go", true, 3, 1)),
		ev(10, transcript.KindToolCall, "10", call("c5", "Edit", map[string]any{"file_path": "auth/login_test.go"})),
		ev(11, transcript.KindFileEdit, "11", edit("auth/login_test.go", true, 2, 2)),
		ev(12, transcript.KindToolCall, "12", call("c6", "Read", map[string]any{"file_path": "auth/login_test.go"})),
		ev(13, transcript.KindFileEdit, "13", edit("auth/clock.go", false, 9, 0)),
		ev(14, transcript.KindUserTurn, "14", user("[Request interrupted by user]", transcript.MetaInterrupt)),
		ev(15, transcript.KindRewind, "15", func(e *transcript.Event) { e.Rewind = &transcript.Rewind{Turns: 2} }),
		ev(16, transcript.KindCompaction, "16", func(e *transcript.Event) { e.Compaction = &transcript.Compaction{Trigger: "manual"} }),
		ev(17, transcript.KindUserTurn, "17", user("Should we also retry the fixture load?", "")),
	}
}

// TestReflectSections holds each section to what the session holds: typed
// turns only, failed edits left out, friction in order, patterns from three
// repeats, the last question unanswered, notes linked.
func TestReflectSections(t *testing.T) {
	day := time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)
	in := reflection.Input{Scope: "session sess-0001", Events: session(), Style: reflection.StyleFull,
		Decisions: []reflection.Note{
			{ID: "02", ShortID: "02aaaaaa", Title: "Use the fake clock in auth tests", Link: "use-the-fake-clock-02aaaaaa", Created: day.Add(time.Minute)},
			{ID: "01", ShortID: "01aaaaaa", Title: "Never sleep in tests", Link: "never-sleep-01aaaaaa", Created: day},
		},
		Actions: []reflection.Note{{ID: "03", ShortID: "03aaaaaa", Title: "Retry fixture load", Link: "retry-03aaaaaa"}},
	}
	got := reflection.Reflect(in)
	want := map[string][]reflection.Line{
		reflection.SectionIntent:    {{Text: "Fix the flaky login test. Why does it time out on CI? Use the fake clock."}},
		reflection.SectionQuestions: {{Text: "Why does it time out on CI?"}, {Text: "Should we also retry the fixture load?"}},
		reflection.SectionDecisions: {
			{Text: "[01aaaaaa] Never sleep in tests", Link: "never-sleep-01aaaaaa"},
			{Text: "[02aaaaaa] Use the fake clock in auth tests", Link: "use-the-fake-clock-02aaaaaa"},
		},
		reflection.SectionFiles: {{Text: "`auth/login_test.go` (+5 −3)", Count: 2}},
		reflection.SectionFriction: {
			{Text: "failed tool call Bash `go test ./auth`: FAIL: TestLogin (timeout) (2026-11-20 10:04)"},
			{Text: "interrupted by the person (2026-11-20 10:14)"},
			{Text: "rewound 2 turns (2026-11-20 10:15)"},
			{Text: "context compacted (manual) (2026-11-20 10:16)"},
		},
		reflection.SectionPatterns: {{Text: "command `go test ./auth`", Count: 3}, {Text: "file `auth/login_test.go`", Count: 3}},
		reflection.SectionOpen: {
			{Text: "[03aaaaaa] Retry fixture load", Link: "retry-03aaaaaa"},
			{Text: "unanswered: Should we also retry the fixture load?"},
		},
	}
	gotLines := map[string][]reflection.Line{}
	var names []string
	for _, s := range got.Sections {
		names = append(names, s.Name)
		if len(s.Lines) > 0 {
			gotLines[s.Name] = s.Lines
		}
	}
	if diff := cmp.Diff(want, gotLines); diff != "" {
		t.Errorf("sections (-want +got):\n%s", diff)
	}
	order := []string{"intent", "questions", "decisions", "files", "friction", "patterns", "open"}
	if diff := cmp.Diff(order, names); diff != "" {
		t.Errorf("section order (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"sess-0001-abcd"}, got.Sessions); diff != "" {
		t.Errorf("sessions (-want +got):\n%s", diff)
	}
	golden.Check(t, "testdata/session.md", []byte(got.Markdown))
}

// TestReflectBrief keeps five lines a section and counts the rest.
func TestReflectBrief(t *testing.T) {
	var evs []transcript.Event
	for i := range 8 {
		evs = append(evs, ev(i, transcript.KindUserTurn, "0"+string(rune('0'+i)), user("Question number "+string(rune('a'+i))+"?", "")))
	}
	r := reflection.Reflect(reflection.Input{Scope: "s", Events: evs})
	if r.Style != reflection.StyleBrief {
		t.Errorf("style %q, want brief by default", r.Style)
	}
	q := r.Sections[1]
	if len(q.Lines) != 5 || q.More != 3 {
		t.Errorf("questions: %d lines, %d more; want 5 and 3", len(q.Lines), q.More)
	}
	if !strings.Contains(r.Markdown, "- … and 3 more\n") {
		t.Errorf("markdown does not say what was left out:\n%s", r.Markdown)
	}
}

// TestReflectEmpty says so when nobody typed anything, and gives every
// section.
func TestReflectEmpty(t *testing.T) {
	r := reflection.Reflect(reflection.Input{Scope: "nothing"})
	if len(r.Sections) != 7 || r.Sections[0].Lines[0].Text != "no message typed by the person" {
		t.Errorf("empty roll-up: %+v", r.Sections)
	}
	if strings.Count(r.Markdown, "- none\n") != 6 {
		t.Errorf("markdown:\n%s", r.Markdown)
	}
}
