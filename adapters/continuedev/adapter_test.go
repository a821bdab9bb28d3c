package continuedev

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cortexmem/cortex/transcript"
	"github.com/cortexmem/cortex/transcript/transcripttest"
)

const fixtureDir = "../../fixtures/continue"

func fixtures(t testing.TB) []transcripttest.Fixture {
	return transcripttest.Load(t, fixtureDir, ".json")
}

// TestInvariants runs the shared suite on every session (one record a
// document) and on damaged copies of each.
func TestInvariants(t *testing.T) {
	transcripttest.Run(t, New(), fixtures(t))
}

// TestGolden compares the events of every fixture with the expected stream
// beside it (go test -run Golden -update rewrites them).
func TestGolden(t *testing.T) {
	transcripttest.Golden(t, New(), fixtures(t))
}

func parse(t *testing.T, name string) []transcript.Event {
	t.Helper()
	return transcripttest.ParseFile(t, New(), fixtureDir, name)
}

// TestRealEdit: the real CLI session's MultiEdit adds a fifth "hello world"
// line to index.ts; the edit is the diff the tool printed, with the file's
// line numbers, and it applies to the file the Read before it returned.
func TestRealEdit(t *testing.T) {
	evs := parse(t, "real/continue-cli-session-simple.json")
	edits := transcripttest.OfKind(evs, transcript.KindFileEdit)
	if len(edits) != 1 {
		t.Fatalf("%d edits, want 1", len(edits))
	}
	fe := edits[0].FileEdit
	if fe.From != transcript.FromToolPatch || fe.Fragment || !fe.OK || fe.Added != 1 || fe.Removed != 0 || fe.Tool != "MultiEdit" {
		t.Errorf("edit %+v", fe)
	}
	var read string
	for _, e := range transcripttest.OfKind(evs, transcript.KindToolResult) {
		if e.ToolResult.Name == "Read" {
			read = e.ToolResult.Text
		}
	}
	const prefix = "Content of /Users/svarlamov/projects/testing-git/index.ts:\n"
	if len(read) < len(prefix) {
		t.Fatalf("read result %q", read)
	}
	after := transcripttest.ApplyDiff(t, read[len(prefix):], fe.Unified)
	if want := read[len(prefix):] + "console.log('hello world');\n"; after != want {
		t.Errorf("replayed:\n%s\nwant:\n%s", after, want)
	}
	start := evs[0]
	if start.Kind != transcript.KindSessionStart || start.SessionID != "2dbfd673-096d-4773-b5f3-9023894a7355" || start.Project.Cwd != "/Users/svarlamov/projects/testing-git" {
		t.Errorf("start %+v", start)
	}
}

// TestSession checks the hand-made extension session: the project from a
// file:// URI, a thinking item timestamped from its reasoning span, every
// edit tool, results' status, the compaction, and what is kept as
// unknown.
func TestSession(t *testing.T) {
	evs := parse(t, "hand-made/traps.json")
	if cwd := evs[0].Project.Cwd; cwd != "/home/dev/work/demo project" || evs[0].SessionStart.Model != "Claude Sonnet 4.5" {
		t.Errorf("start %+v", evs[0])
	}
	type row struct{ Kind, ID, Pointer, TS, What string }
	var got []row
	for _, e := range evs[1:] {
		r := row{Kind: string(e.Kind), ID: e.EventID, Pointer: e.Provenance.Pointer, TS: e.Timestamp}
		switch {
		case e.UserTurn != nil:
			r.What = e.UserTurn.Text
		case e.AssistantTurn != nil:
			r.What = e.AssistantTurn.Text + "|" + e.AssistantTurn.Thinking
		case e.ToolCall != nil:
			r.What = e.ToolCall.Name
		case e.ToolResult != nil:
			r.What = e.ToolResult.Name + "|" + e.ToolResult.Text
			if !e.ToolResult.OK {
				r.What += "|failed"
			}
		case e.FileEdit != nil:
			fe := e.FileEdit
			r.What = fe.Tool + "|" + fe.Path + "|" + fe.Op + "|" + fe.From
			if !fe.OK {
				r.What += "|failed"
			}
		case e.Compaction != nil:
			r.What = e.Compaction.Summary
		case e.Unknown != nil:
			r.What = e.Unknown.Reason + "|" + e.Unknown.RawType
		}
		got = append(got, r)
	}
	const s = "c0ffee00-1111-4222-8333-444455556666/"
	want := []row{
		{"unknown", s + "0", "/history/0", "", "unmapped|message/system"},
		{"user_turn", s + "1", "/history/1", "", "Go with table-driven tests for the parser."},
		{"assistant_turn", s + "2", "/history/2", "2026-11-24T06:00:00.000Z", "|Create the test file first."},
		{"assistant_turn", s + "3", "/history/3", "", "I'll add parser_test.go.|"},
		{"tool_call", s + "3#tool_call:call_c1", "/history/3", "", "create_new_file"},
		{"tool_result", s + "3#tool_result:call_c1", "/history/3", "", "create_new_file|Created parser_test.go"},
		{"file_edit", s + "3#edit:call_c1", "/history/3", "", "create_new_file|parser_test.go|create|input"},
		{"tool_call", s + "4", "/history/4", "", "single_find_and_replace"},
		{"tool_result", s + "4#tool_result:call_f1", "/history/4", "", "single_find_and_replace|Successfully edited the file"},
		{"file_edit", s + "4#edit:call_f1", "/history/4", "", "single_find_and_replace|parser.go|update|input"},
		{"tool_call", s + "5", "/history/5", "", "multi_edit"},
		{"tool_result", s + "5#tool_result:call_m1", "/history/5", "", "multi_edit|Error: old_string \"nope\" not found in parser.go|failed"},
		{"file_edit", s + "5#edit:call_m1", "/history/5", "", "multi_edit|parser.go|update|input|failed"},
		{"tool_call", s + "6", "/history/6", "", "edit_existing_file"},
		{"tool_call", s + "6#tool_call:call_r1", "/history/6", "", "run_terminal_command"},
		{"tool_result", s + "6#tool_result:call_x1", "/history/6", "", "edit_existing_file|"},
		{"file_edit", s + "6#edit:call_x1", "/history/6", "", "edit_existing_file|parser.go|update|input"},
		{"tool_result", s + "6#tool_result:call_r1", "/history/6", "", "run_terminal_command|Cancelled by the user|failed"},
		{"unknown", s + "7", "/history/7", "", "duplicate|message/tool"},
		{"tool_result", s + "8", "/history/8", "", "|ok demo/parser"},
		{"assistant_turn", s + "9", "/history/9", "", "Done: parser_test.go is in place.|"},
		{"compaction", s + "9#compaction", "/history/9", "", "The person asked for table-driven tests; parser_test.go was created and Parse returns an error."},
		{"unknown", s + "10", "/history/10", "", "unrecognized|message/critic"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
}

func TestFingerprint(t *testing.T) {
	a := New()
	tests := []struct{ doc, want string }{
		{`{"sessionId":"s","title":"t","workspaceDirectory":"/w","history":[]}`, Schema},
		{`{"sessionId":"s","history":[{"message":{"role":"user","content":"x"}}]}`, Schema},
		{`{"v":1,"id":"T-1","created":1,"messages":[]}`, ""},
		{`{"sessionId":"s","projectHash":"p","messages":[]}`, ""},
		{`[{"sessionId":"s","title":"t","dateCreated":"1"}]`, ""},
	}
	for _, tt := range tests {
		if got := a.Fingerprint(transcript.Record{Data: []byte(tt.doc)}); got.Schema != tt.want {
			t.Errorf("Fingerprint(%s) = %+v, want %q", tt.doc, got, tt.want)
		}
	}
}

func FuzzParse(f *testing.F) {
	transcripttest.Seeds(f, fixtures(f))
	a := New()
	f.Fuzz(func(t *testing.T, data []byte) {
		transcripttest.Fuzz(t, a, data)
		rep := transcript.Verify(a, "fuzz.json", data, transcript.VerifyOptions{ResumePoints: 4})
		for _, v := range rep.Violations {
			t.Errorf("%s", v)
		}
	})
}
