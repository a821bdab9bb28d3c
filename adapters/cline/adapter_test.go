package cline

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cortexmem/cortex/transcript"
	"github.com/cortexmem/cortex/transcript/transcripttest"
)

const fixtureDir = "../../fixtures/cline"

func fixtures(t testing.TB) []transcripttest.Fixture {
	return transcripttest.Load(t, fixtureDir, HistoryFile)
}

// adapterFor is the adapter of the tool whose extension folder a fixture is
// in.
func adapterFor(name string) transcript.Adapter { return New().ForFile(name) }

// TestInvariants runs the shared suite on every task (one record a
// document) and on damaged copies of each.
func TestInvariants(t *testing.T) {
	for _, fx := range fixtures(t) {
		transcripttest.Run(t, adapterFor(fx.Name), []transcripttest.Fixture{fx})
	}
}

// TestGolden compares the events of every fixture with the expected stream
// beside it (go test -run Golden -update rewrites them).
func TestGolden(t *testing.T) {
	for _, fx := range fixtures(t) {
		transcripttest.Golden(t, adapterFor(fx.Name), []transcripttest.Fixture{fx})
	}
}

func parse(t *testing.T, name string) []transcript.Event {
	t.Helper()
	return transcripttest.ParseFile(t, adapterFor(name), fixtureDir, name)
}

const (
	clineXML    = "hand-made/saoudrizwan.claude-dev/tasks/1795597200000/" + HistoryFile
	clineNative = "hand-made/saoudrizwan.claude-dev/tasks/1795600000000/" + HistoryFile
	roo         = "hand-made/rooveterinaryinc.roo-cline/tasks/4c1d2e3f-5a6b-4c7d-8e9f-0a1b2c3d4e5f/" + HistoryFile
	kilo        = "hand-made/kilocode.kilo-code/tasks/9a8b7c6d-1e2f-4a3b-8c4d-5e6f7a8b9c0d/" + HistoryFile
)

// summary is one line per event: kind, and what matters of it.
func summary(evs []transcript.Event) []string {
	var out []string
	for _, e := range evs {
		s := string(e.Kind)
		switch {
		case e.SessionStart != nil:
			s += " " + e.SessionID + " " + e.Project.Cwd + " " + e.Timestamp
		case e.UserTurn != nil:
			s += " [" + e.UserTurn.Meta + "] " + firstLine(e.UserTurn.Text)
		case e.AssistantTurn != nil:
			s += " " + e.AssistantTurn.Text + " |thinking: " + firstLine(e.AssistantTurn.Thinking)
		case e.ToolCall != nil:
			s += " " + e.ToolCall.Name + " " + e.ToolCall.CallID
		case e.ToolResult != nil:
			s += " " + e.ToolResult.Name + " " + e.ToolResult.CallID
			if !e.ToolResult.OK {
				s += " failed"
			}
		case e.FileEdit != nil:
			fe := e.FileEdit
			s += " " + fe.Tool + " " + fe.Path + " " + fe.Op + " " + fe.From
			if fe.Fragment {
				s += " fragment"
			}
			if !fe.OK {
				s += " failed"
			}
		case e.Compaction != nil:
			s += " " + e.Compaction.Trigger + " " + firstLine(e.Compaction.Summary)
		case e.Unknown != nil:
			s += " " + e.Unknown.Reason + " " + e.Unknown.RawType
		}
		out = append(out, s)
	}
	return out
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}

// TestXMLToolCalling reads a Cline task of XML tool calls: the task and the
// feedback as what the person typed, environment details as injected, the
// write and the two replace_in_file calls paired with their results by
// position, the summary tool as a compaction.
func TestXMLToolCalling(t *testing.T) {
	want := []string{
		"session_start 1795597200000 /home/dev/work/demo-project 2026-11-25T09:00:00.000Z",
		"user_turn [] Let's use SQLite for the cache.",
		"user_turn [injected] <environment_details>",
		"assistant_turn I'll add a SQLite-backed cache. |thinking: The project has no cache yet; create cache.go.",
		"tool_call write_to_file 1795597200000/1:0",
		"tool_result write_to_file 1795597200000/1:0",
		"file_edit write_to_file cache.go create input",
		"user_turn [injected] <environment_details>",
		"assistant_turn Now open the database. |thinking: ",
		"tool_call replace_in_file 1795597200000/3:0",
		"tool_result replace_in_file 1795597200000/3:0",
		"file_edit replace_in_file cache.go update content",
		"user_turn [injected] <environment_details>",
		"tool_call replace_in_file 1795597200000/5:0",
		"tool_result replace_in_file 1795597200000/5:0 failed",
		"file_edit replace_in_file cache.go update input fragment failed",
		"user_turn [injected] <environment_details>",
		"tool_call execute_command 1795597200000/7:0",
		"tool_result execute_command 1795597200000/7:0",
		"user_turn [injected] <environment_details>",
		"assistant_turn Added cache.go with the SQLite driver. |thinking: ",
		"tool_result attempt_completion 1795597200000/9:0",
		"user_turn [] Also never use cgo in this project.",
		"user_turn [injected] <environment_details>",
		"compaction summarize_task 1. Primary Request: a SQLite cache without cgo.",
		"tool_result summarize_task 1795597200000/11:0",
		"assistant_turn modernc.org/sqlite is pure Go: no cgo. |thinking: ",
	}
	evs := parse(t, clineXML)
	if diff := cmp.Diff(want, summary(evs)); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
	// The replace_in_file edit is the file before and after: the block
	// undone on the content Cline quoted.
	edits := transcripttest.OfKind(evs, transcript.KindFileEdit)
	before := "package cache\n\nimport _ \"modernc.org/sqlite\"\n"
	after := transcripttest.ApplyDiff(t, transcripttest.ApplyDiff(t, "", edits[0].FileEdit.Unified), edits[1].FileEdit.Unified)
	if want := "package cache\n\nimport (\n\t\"database/sql\"\n\n\t_ \"modernc.org/sqlite\"\n)\n"; after != want || transcripttest.ApplyDiff(t, "", edits[0].FileEdit.Unified) != before {
		t.Errorf("replayed %q", after)
	}
}

// TestNativeToolCalling reads a Cline task of tool_use and tool_result
// blocks, without ts (the time is the task id's), with a denied call whose
// feedback is what the person typed.
func TestNativeToolCalling(t *testing.T) {
	want := []string{
		"session_start 1795600000000 /home/dev/work/demo-project 2026-11-25T09:46:40.000Z",
		"user_turn [] Fix the typo in the README.",
		"user_turn [injected] <environment_details>",
		"assistant_turn Fixing it. |thinking: Find the typo.",
		"tool_call replace_in_file toolu_01",
		"tool_result replace_in_file toolu_01",
		"file_edit replace_in_file README.md update content",
		"user_turn [injected] <environment_details>",
		"tool_call write_to_file toolu_02",
		"tool_result write_to_file toolu_02 failed",
		"file_edit write_to_file NOTES.md create input failed",
		"user_turn [] No notes file, please.",
		"assistant_turn Fixed the typo in README.md. |thinking: ",
	}
	if diff := cmp.Diff(want, summary(parse(t, clineNative))); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
}

// TestRooCode reads a Roo Code task: <user_message>, JSON write results
// (created: a diff; modified: none), a failed insert, the summary message
// of a non-destructive condense, a reasoning item.
func TestRooCode(t *testing.T) {
	evs := parse(t, roo)
	want := []string{
		"session_start 4c1d2e3f-5a6b-4c7d-8e9f-0a1b2c3d4e5f /home/dev/work/demo-project 2026-11-25T10:46:40.000Z",
		"user_turn [] Use chi for the router.",
		"user_turn [injected] <environment_details>",
		"assistant_turn Switching the router to chi. |thinking: ",
		"tool_call apply_diff call_a1",
		"tool_result apply_diff call_a1",
		"file_edit apply_diff router.go update input fragment",
		"unknown unmapped reasoning",
		"tool_call write_to_file call_w1",
		"tool_call insert_content call_i1",
		"tool_result write_to_file call_w1",
		"file_edit write_to_file router_test.go create input",
		"tool_result insert_content call_i1 failed",
		"file_edit insert_content router.go update input failed",
		"compaction  Summary of the conversation so far: the router moved to chi (router.go), router_test.go created.",
		"assistant_turn The router uses chi now. |thinking: ",
		"tool_result attempt_completion call_c1",
		"user_turn [] Thanks.",
	}
	if diff := cmp.Diff(want, summary(evs)); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
	for _, e := range evs {
		if e.Source != transcript.RooCode {
			t.Fatalf("event %s of %s", e.EventID, e.Source)
		}
	}
	if got := string(evs[1].Extra["condenseParent"]); got != `"c1"` {
		t.Errorf("condenseParent kept as %q", got)
	}
}

// TestKiloCode: a Kilo Code task (XML calls, the result in the next block,
// content as a string) is read as Kilo Code's.
func TestKiloCode(t *testing.T) {
	evs := parse(t, kilo)
	want := []string{
		"session_start 9a8b7c6d-1e2f-4a3b-8c4d-5e6f7a8b9c0d /home/dev/work/demo-project 2026-11-25T10:48:20.000Z",
		"user_turn [] Rename Foo to Bar in util.go.",
		"user_turn [injected] <environment_details>",
		"tool_call search_and_replace 9a8b7c6d-1e2f-4a3b-8c4d-5e6f7a8b9c0d/1:0",
		"tool_result search_and_replace 9a8b7c6d-1e2f-4a3b-8c4d-5e6f7a8b9c0d/1:0",
		"file_edit search_and_replace util.go update input fragment",
		"assistant_turn Renamed. |thinking: ",
	}
	if diff := cmp.Diff(want, summary(evs)); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
	if evs[0].Source != transcript.KiloCode {
		t.Errorf("source %s", evs[0].Source)
	}
}

// TestUnansweredXMLCall: an XML call the person interrupted gets no
// result; the result of a later call of the same tool is that later call's.
func TestUnansweredXMLCall(t *testing.T) {
	doc := `[{"role":"user","content":[{"type":"text","text":"<task>Read a.go then b.go.</task>"}]},
{"role":"assistant","content":[{"type":"text","text":"<read_file>\n<path>a.go</path>\n</read_file>"}]},
{"role":"user","content":[{"type":"text","text":"[TASK RESUMPTION] This task was interrupted."}]},
{"role":"assistant","content":[{"type":"text","text":"<read_file>\n<path>b.go</path>\n</read_file>"}]},
{"role":"user","content":[{"type":"text","text":"[read_file for 'b.go'] Result:\npackage b"}]}]`
	evs := transcripttest.ParseStrict(New(), "tasks/t1/"+HistoryFile, []byte(doc))
	want := []string{
		"session_start t1  ",
		"user_turn [] Read a.go then b.go.",
		"tool_call read_file t1/1:0",
		"user_turn [injected] [TASK RESUMPTION] This task was interrupted.",
		"tool_call read_file t1/3:0",
		"tool_result read_file t1/3:0",
	}
	if diff := cmp.Diff(want, summary(evs)); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
}

func TestParseXML(t *testing.T) {
	said, thinking, calls := parseXML("<thinking>plan</thinking>\nText.\n<write_to_file>\n<path>a.go</path>\n<content>\nx := \"</content>\"\n</content>\n</write_to_file>\n<read_file>\n<path>b.go</path>\n</read_file>")
	if said != "Text." || thinking != "plan" || len(calls) != 2 {
		t.Fatalf("said %q thinking %q calls %+v", said, thinking, calls)
	}
	if diff := cmp.Diff(map[string]string{"path": "a.go", "content": "x := \"</content>\""}, calls[0].params); diff != "" {
		t.Errorf("params (-want +got):\n%s", diff)
	}
	if calls[1].name != "read_file" || calls[1].params["path"] != "b.go" {
		t.Errorf("second call %+v", calls[1])
	}
}

func TestTaskID(t *testing.T) {
	for _, tt := range [][2]string{
		{"/x/tasks/1795597200000/api_conversation_history.json", "1795597200000"},
		{`C:\x\tasks\abc\api_conversation_history.json`, "abc"},
		{"api_conversation_history.json", "api_conversation_history"},
		{"other.json", "other"},
	} {
		if got := taskID(tt[0]); got != tt[1] {
			t.Errorf("taskID(%q) = %q, want %q", tt[0], got, tt[1])
		}
	}
}

func TestForFile(t *testing.T) {
	for path, want := range map[string]transcript.SourceKind{
		filepath.Join("/h/.config/Code/User/globalStorage/rooveterinaryinc.roo-cline/tasks/x", HistoryFile): transcript.RooCode,
		filepath.Join("/h/.config/Cursor/User/globalStorage/kilocode.kilo-code/tasks/x", HistoryFile):       transcript.KiloCode,
		filepath.Join("/h/.cline/data/tasks/x", HistoryFile):                                                transcript.Cline,
	} {
		if got := New().ForFile(path).Source(); got != want {
			t.Errorf("ForFile(%s) = %s, want %s", path, got, want)
		}
	}
	if NewRoo().ForFile("/h/.config/Code/User/globalStorage/saoudrizwan.claude-dev/tasks/x/a.json").Source() != transcript.Cline {
		t.Error("the Roo Code adapter kept a Cline task")
	}
}

func TestFingerprint(t *testing.T) {
	a := New()
	tests := []struct{ doc, want string }{
		{`[{"role":"user","content":[{"type":"text","text":"<task>x</task>"}]}]`, Schema},
		{`[{"role":"assistant","content":"x"}]`, Schema},
		{`[]`, ""},
		{`[{"ts":1,"type":"say","say":"task","text":"x"}]`, ""},
		{`{"sessionId":"s","history":[]}`, ""},
	}
	for _, tt := range tests {
		if got := a.Fingerprint(transcript.Record{Data: []byte(tt.doc)}); got.Schema != tt.want {
			t.Errorf("Fingerprint(%s) = %+v, want %q", tt.doc, got, tt.want)
		}
	}
}

func FuzzParse(f *testing.F) {
	transcripttest.Seeds(f, fixtures(f))
	f.Add([]byte(`[{"role":"assistant","content":"<replace_in_file><path>a</path><diff>------- SEARCH\nx\n=======\ny\n+++++++ REPLACE</diff></replace_in_file>"},{"role":"user","content":"[replace_in_file for 'a'] Result:\n<final_file_content path=\"a\">\ny\n</final_file_content>"}]`))
	a := New()
	f.Fuzz(func(t *testing.T, data []byte) {
		transcripttest.Fuzz(t, a, data)
		rep := transcript.Verify(a, "fuzz.json", data, transcript.VerifyOptions{ResumePoints: 4})
		for _, v := range rep.Violations {
			t.Errorf("%s", v)
		}
	})
}
