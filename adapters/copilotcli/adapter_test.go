package copilotcli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cortexmem/cortex/transcript"
	"github.com/cortexmem/cortex/transcript/transcripttest"
)

const fixtureDir = "../../fixtures/copilot-cli"

func fixtures(t testing.TB) []transcripttest.Fixture {
	return transcripttest.Load(t, fixtureDir, ".jsonl")
}

// TestInvariants runs the shared suite on every Copilot CLI fixture and on
// damaged copies of each.
func TestInvariants(t *testing.T) {
	transcripttest.Run(t, New(), fixtures(t))
}

// TestGolden compares the events of every fixture with the expected stream
// beside it (go test -run Golden -update rewrites them).
func TestGolden(t *testing.T) {
	transcripttest.Golden(t, New(), fixtures(t))
}

// parse reads a fixture whole.
func parse(t *testing.T, name string) []transcript.Event {
	t.Helper()
	return transcripttest.ParseFile(t, New(), fixtureDir, name)
}

// TestEditsReplay applies the successful edits of the hand-made session in
// order to the files it started with: each diff applies, and the files end
// as the session left them. The CLI's own diffs (detailedContent) give the
// file's line numbers; create gives the whole file.
func TestEditsReplay(t *testing.T) {
	evs := parse(t, "hand-made/edits.jsonl")
	files := map[string]string{
		"/home/dev/work/demo-project/main.go":   "package main\n\nimport \"fmt\"\n\nfunc main() {\n\tfmt.Println(\"hello world\")\n}\n",
		"/home/dev/work/demo-project/README.md": "# demo\nA demo project.\n",
	}
	type row struct {
		Call, Tool, Path, Op, From string
		OK, Fragment               bool
	}
	var got []row
	for _, e := range transcripttest.OfKind(evs, transcript.KindFileEdit) {
		fe := e.FileEdit
		got = append(got, row{fe.CallID, fe.Tool, strings.TrimPrefix(fe.Path, "/home/dev/work/demo-project/"), fe.Op, fe.From, fe.OK, fe.Fragment})
		if !fe.OK || fe.Fragment {
			continue
		}
		files[fe.Path] = transcripttest.ApplyDiff(t, files[fe.Path], fe.Unified)
	}
	want := []row{
		{"toolu_01create", "create", "greet.go", "create", "content", true, false},
		{"toolu_02edit", "edit", "main.go", "update", "tool_patch", true, false},
		{"toolu_03edit", "edit", "main.go", "update", "input", false, true},
		{"toolu_04edit", "edit", "main.go", "update", "tool_patch", true, false},
		{"toolu_05insert", "str_replace_editor", "README.md", "update", "input", true, false},
		{"call_6patch", "apply_patch", "main.go", "update", "tool_patch", true, false},
		{"call_6patch", "apply_patch", "greet_test.go", "create", "tool_patch", true, false},
		{"call_7patch", "apply_patch", "main.go", "update", "input", false, true},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("edits (-want +got):\n%s", diff)
	}
	wantFiles := map[string]string{
		"/home/dev/work/demo-project/main.go":       "package main\n\nimport \"fmt\"\n\n// main prints a greeting.\nfunc main() {\n\tfmt.Println(greet(\"world\"))\n}\n",
		"/home/dev/work/demo-project/README.md":     "# demo\n\nRun `go run .` to be greeted.\nA demo project.\n",
		"/home/dev/work/demo-project/greet.go":      "package main\n\nfunc greet(name string) string {\n\treturn \"hello \" + name\n}\n",
		"/home/dev/work/demo-project/greet_test.go": "package main\n\nimport \"testing\"\n\nfunc TestGreet(t *testing.T) {\n\tif got := greet(\"go\"); got != \"hello go\" {\n\t\tt.Fatal(got)\n\t}\n}\n",
	}
	if diff := cmp.Diff(wantFiles, files); diff != "" {
		t.Errorf("files after the edits (-want +got):\n%s", diff)
	}
}

// TestIncrementalResume reads a session as it stood after its first run,
// then, from the position saved, the same file after the CLI resumed it:
// the events are those of one read, and the resume is a session start with
// the trigger resume, on the branch the resume's context names.
func TestIncrementalResume(t *testing.T) {
	evs := transcripttest.IncrementalRead(t, New(), filepath.Join(fixtureDir, "hand-made", "resume"),
		"d1_first_run.jsonl", "d2_resumed.jsonl")
	starts := transcripttest.OfKind(evs, transcript.KindSessionStart)
	if len(starts) != 2 || starts[0].SessionStart.Trigger != "" || starts[1].SessionStart.Trigger != "resume" {
		t.Fatalf("starts %+v", starts)
	}
	if starts[1].SessionStart.Model != "gpt-5.3-codex" || starts[1].Project.GitBranch != "feature/port" ||
		starts[1].SessionID != "9d8c7b6a-5f4e-4d3c-8b2a-1f0e9d8c7b6a" {
		t.Errorf("resume: model %q branch %q session %q", starts[1].SessionStart.Model, starts[1].Project.GitBranch, starts[1].SessionID)
	}
	last := evs[len(evs)-1]
	if last.AssistantTurn == nil || last.AssistantTurn.Model != "gpt-5.3-codex" {
		t.Errorf("the answer after the model change: %+v", last.AssistantTurn)
	}
}

// TestPartialLastLine: a line still being written is left for the next read.
func TestPartialLastLine(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(fixtureDir, "hand-made", "edits.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(data, []byte("\n"))
	transcripttest.PartialLastLine(t, New(), "events.jsonl", data, len(lines[len(lines)-2])/2)
}

func FuzzParse(f *testing.F) {
	transcripttest.Seeds(f, fixtures(f))
	a := New()
	f.Fuzz(func(t *testing.T, data []byte) {
		transcripttest.Fuzz(t, a, data)
	})
}

// TestSubagent: the events a subagent logs in the session's own file (the
// envelope's agentId) carry it as their agent, as a side conversation; the
// parent's call and result do not.
func TestSubagent(t *testing.T) {
	evs := parse(t, "hand-made/subagent.jsonl")
	type row struct {
		Kind, Agent string
		Side        bool
	}
	var got []row
	for _, e := range evs {
		if e.Kind == transcript.KindUnknown {
			continue
		}
		got = append(got, row{string(e.Kind), e.AgentID, e.Sidechain})
	}
	const ag = "agent-1f2e3d4c"
	want := []row{
		{"session_start", "", false}, {"user_turn", "", false}, {"assistant_turn", "", false}, {"tool_call", "", false},
		{"user_turn", ag, true}, {"assistant_turn", ag, true}, {"tool_call", ag, true}, {"tool_result", ag, true},
		{"file_edit", ag, true}, {"assistant_turn", ag, true}, {"tool_result", "", false}, {"assistant_turn", "", false},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
	for _, e := range evs {
		if e.SessionID != "8e2f4a6c-1b3d-4e5f-8a9b-0c1d2e3f4a5b" {
			t.Errorf("%s carries session %q", e.EventID, e.SessionID)
		}
	}
	// The prompt the parent wrote for the subagent is marked injected
	// (source agent-<id>): the person did not type it.
	if u := transcripttest.OfKind(evs, transcript.KindUserTurn)[1].UserTurn; u.Meta != transcript.MetaInjected {
		t.Errorf("the subagent's prompt: meta %q", u.Meta)
	}
}

// TestRewind: a log holding session.snapshot_rewind (the SDK marks it
// transient; a build that writes it still says where the conversation went
// back to) gives a rewind dropping the prompt rewound to and its turn.
func TestRewind(t *testing.T) {
	evs := parse(t, "hand-made/rewind.jsonl")
	rw := transcripttest.OfKind(evs, transcript.KindRewind)
	if len(rw) != 1 {
		t.Fatalf("%d rewinds", len(rw))
	}
	prompts := transcripttest.OfKind(evs, transcript.KindUserTurn)
	answers := transcripttest.OfKind(evs, transcript.KindAssistantTurn)
	want := transcript.Rewind{To: answers[0].EventID, Dropped: prompts[1].EventID, Turns: 1}
	if diff := cmp.Diff(want, *rw[0].Rewind); diff != "" {
		t.Errorf("rewind (-want +got):\n%s", diff)
	}
	if rw[0].ParentID != want.To {
		t.Errorf("the rewind follows %q, want %q", rw[0].ParentID, want.To)
	}
	// A rewind to an id the log does not hold says only the id.
	data := []byte(`{"type":"session.start","data":{"sessionId":"s"},"id":"a","timestamp":"t","parentId":null}
{"type":"session.snapshot_rewind","data":{"upToEventId":"zzz","eventsRemoved":3},"id":"b","timestamp":"t","parentId":"a"}
`)
	evs, _ = transcript.ParseBytes(New(), "r.jsonl", data, true)
	if got := *evs[1].Rewind; got != (transcript.Rewind{Dropped: "zzz"}) {
		t.Errorf("rewind to an unknown id: %+v", got)
	}
}

// TestRecords checks how single records read: ids and parents from the
// envelope, the session from the file's name until a start names it, the
// fields without a slot kept in Extra, chunks of one reply, results without
// success, failed results' text from their error.
func TestRecords(t *testing.T) {
	const sid = "0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d"
	data := []byte(`{"type":"user.message","data":{"content":"hi","transformedContent":"<current_datetime>x</current_datetime>\n\nhi","attachments":[{"type":"file","path":"/p/a.go","displayName":"a.go"}]},"id":"u1","timestamp":"t1","parentId":"p0","ephemeral":false}
{"type":"assistant.message","data":{"messageId":"m1","content":"part one","chunkIndex":0,"chunkCount":2,"outputTokens":7},"id":"a1","timestamp":"t2","parentId":"u1"}
{"type":"assistant.message","data":{"messageId":"m2","content":"part two","chunkIndex":1,"chunkCount":2,"outputTokens":3},"id":"a2","timestamp":"t3","parentId":"a1"}
{"type":"tool.execution_complete","data":{"toolCallId":"c9","result":{"result_type":"failure","text_result_for_llm":"boom"}},"id":"r1","timestamp":"t4","parentId":"a2"}
{"type":"tool.execution_complete","data":{"toolCallId":"c8","success":false,"error":{"message":"denied","code":"denied"}},"id":"r2","timestamp":"t5","parentId":"r1"}
{"type":"session.future_thing","data":{},"id":"f1","timestamp":"t6","parentId":"r2"}
{"type":"user.message","data":"oops","id":"x1"}
{"hello":"world"}
`)
	evs, _ := transcript.ParseBytes(New(), "session-state/"+sid+"/events.jsonl", data, true)
	if len(evs) != 8 {
		t.Fatalf("%d events", len(evs))
	}
	u := evs[0]
	if u.SessionID != sid || u.EventID != "u1" || u.ParentID != "p0" || u.Timestamp != "t1" || u.UserTurn.Text != "hi" ||
		len(u.UserTurn.Parts) != 1 || u.UserTurn.Parts[0].Type != "attachment" {
		t.Errorf("user turn %+v", u)
	}
	if _, ok := u.Extra["data.transformedContent"]; !ok {
		t.Errorf("transformedContent not kept: %v", u.Extra)
	}
	if string(u.Extra["ephemeral"]) != "false" {
		t.Errorf("the envelope's own field not kept: %v", u.Extra)
	}
	if a := evs[1].AssistantTurn; a.Continued || a.Usage == nil || a.Usage.OutputTokens != 7 {
		t.Errorf("first chunk %+v", a)
	}
	if a := evs[2].AssistantTurn; !a.Continued || a.Usage != nil {
		t.Errorf("second chunk %+v", a)
	}
	if r := evs[3].ToolResult; r.OK || r.Text != "boom" {
		t.Errorf("result without success %+v", r)
	}
	if r := evs[4].ToolResult; r.OK || r.Text != "denied" || string(r.Output) != `{"message":"denied","code":"denied"}` {
		t.Errorf("failed result %+v", r)
	}
	reasons := []string{evs[5].Unknown.Reason, evs[6].Unknown.Reason, evs[7].Unknown.Reason}
	if diff := cmp.Diff([]string{transcript.ReasonUnrecognized, transcript.ReasonMalformed, transcript.ReasonUnrecognized}, reasons); diff != "" {
		t.Errorf("unknown reasons (-want +got):\n%s", diff)
	}
}

func TestFingerprint(t *testing.T) {
	a := New()
	cp := transcript.CopilotCLI
	tests := []struct {
		line string
		want transcript.Variant
	}{
		{`{"type":"session.start","data":{"sessionId":"s","copilotVersion":"1.0.80"},"id":"e1","timestamp":"t","parentId":null}`, transcript.Variant{Source: cp, Schema: SchemaEvents, ToolVersion: "1.0.80"}},
		{`{"type":"session.start","data":{"sessionId":"s","copilotVersion":"0.37.6","vscodeVersion":"1.109.3"},"id":"e1","timestamp":"t","parentId":null}`, transcript.Variant{Source: cp, Schema: SchemaVSCodeEvents, ToolVersion: "0.37.6"}},
		{`{"type":"user.message","data":{"content":"hi"},"id":"e2","timestamp":"t","parentId":"e1"}`, transcript.Variant{Source: cp, Schema: SchemaEvents}},
		{`{"type":"abort","data":{"reason":"user_initiated"},"id":"e3"}`, transcript.Variant{Source: cp, Schema: SchemaEvents}},
		{`{"type":"user","uuid":"u","sessionId":"s","message":{"content":"hi"}}`, transcript.Variant{Source: cp}},
		{`{"timestamp":"t","type":"event_msg","payload":{"type":"x"}}`, transcript.Variant{Source: cp}},
		{`{"type":"user_input","status":"done","user_input":{"user_response":"hi"}}`, transcript.Variant{Source: cp}},
		{`{"type":"user.message","data":"x","id":"e"}`, transcript.Variant{Source: cp}},
		{`{"type":"User.Message","data":{},"id":"e"}`, transcript.Variant{Source: cp}},
		{`not json`, transcript.Variant{Source: cp}},
	}
	for _, tt := range tests {
		if got := a.Fingerprint(transcript.Record{Data: []byte(tt.line)}); got != tt.want {
			t.Errorf("Fingerprint(%s) = %+v, want %+v", tt.line, got, tt.want)
		}
	}
}

// TestFragmentEdit: an edit with no diff of the CLI's own is a fragment of
// its old and new strings, diffed as the lines they are part of.
func TestFragmentEdit(t *testing.T) {
	fe := replaceEdit("router.go", "var r = chi.NewRouter()", "var r = chi.NewRouter()\n\nvar pool = store.Pool()", nil)
	if !fe.Fragment || fe.From != transcript.FromInput || fe.Added != 2 || fe.Removed != 0 {
		t.Errorf("%+v", fe)
	}
}
