package windsurf

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

const fixtureDir = "../../fixtures/windsurf"

func fixtures(t testing.TB) []transcripttest.Fixture {
	return transcripttest.Load(t, fixtureDir, ".jsonl")
}

// TestInvariants runs the shared suite on every Windsurf fixture and on
// damaged copies of each.
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

// TestRealTrajectory reads the real transcript: the session is the
// trajectory its file names, started by a synthesized session_start; the
// two code actions are the file's whole content before and after, so
// applying the second diff to what the first made gives the file the
// second wrote.
func TestRealTrajectory(t *testing.T) {
	evs := parse(t, "transcripts/windsurf-session-simple.jsonl")
	if s := evs[0]; s.Kind != transcript.KindSessionStart || !s.SessionStart.Synthesized || s.SessionID != "windsurf-session-simple" {
		t.Fatalf("first event %+v", s)
	}
	counts := map[transcript.Kind]int{}
	for _, e := range evs {
		counts[e.Kind]++
	}
	want := map[transcript.Kind]int{transcript.KindSessionStart: 1, transcript.KindUserTurn: 4, transcript.KindAssistantTurn: 5,
		transcript.KindToolCall: 18, transcript.KindToolResult: 18, transcript.KindFileEdit: 2}
	if diff := cmp.Diff(want, counts); diff != "" {
		t.Errorf("kinds (-want +got):\n%s", diff)
	}
	edits := transcripttest.OfKind(evs, transcript.KindFileEdit)
	const path = "/Users/aidancunniffe/Desktop/testing-gitflows-git-ai/xyz.md"
	file := "# XYZ\n"
	for i, e := range edits {
		fe := e.FileEdit
		if fe.Path != path || fe.Op != transcript.OpUpdate || fe.From != transcript.FromContent || !fe.OK || fe.Old != file {
			t.Fatalf("edit %d: %+v", i, fe)
		}
		file = transcripttest.ApplyDiff(t, file, fe.Unified)
		if file != fe.New {
			t.Errorf("edit %d: the diff gives %q, the action wrote %q", i, file, fe.New)
		}
	}
	// The failed MCP call (status error) is a failed result; the cwd comes
	// from the commands.
	for _, e := range transcripttest.OfKind(evs, transcript.KindToolResult) {
		if e.ToolResult.Name == "list_resources" && e.ToolResult.OK {
			t.Error("list_resources with status error reads as ok")
		}
	}
	if cwd := evs[len(evs)-1].Project.Cwd; cwd != "/Users/aidancunniffe/Desktop/testing-gitflows-git-ai" {
		t.Errorf("cwd %q", cwd)
	}
}

// TestSteps checks the steps no real file shows: a new file, a change the
// person rejected, a command that failed and one they refused, a failed
// action, a step not run yet, a cancelled one, a file:// URI with an
// escaped space.
func TestSteps(t *testing.T) {
	evs := parse(t, "hand-made/transcripts/3f9a1c2e-7b4d-4e8f-9a0b-1c2d3e4f5a6b.jsonl")
	type row struct {
		Name string
		OK   bool
	}
	var results []row
	for _, e := range transcripttest.OfKind(evs, transcript.KindToolResult) {
		results = append(results, row{e.ToolResult.Name, e.ToolResult.OK})
	}
	wantResults := []row{{"code_action", true}, {"code_action", false}, {"run_command", false}, {"run_command", false},
		{"code_action", false}, {"view_file", false}}
	if diff := cmp.Diff(wantResults, results); diff != "" {
		t.Errorf("results (-want +got):\n%s", diff)
	}
	calls := transcripttest.OfKind(evs, transcript.KindToolCall)
	if len(calls) != 7 || calls[5].ToolCall.Name != "mcp_tool" {
		t.Errorf("%d calls", len(calls))
	}
	if strings.Contains(string(calls[6].ToolCall.Input), "content") {
		t.Errorf("the view's output is in its input: %s", calls[6].ToolCall.Input)
	}
	edits := transcripttest.OfKind(evs, transcript.KindFileEdit)
	type erow struct {
		Path, Op string
		OK       bool
	}
	var got []erow
	for _, e := range edits {
		got = append(got, erow{strings.TrimPrefix(e.FileEdit.Path, "/home/dev/work/demo-project/"), e.FileEdit.Op, e.FileEdit.OK})
		if e.FileEdit.CallID == "" || e.ParentID == "" {
			t.Errorf("edit %s names no call", e.EventID)
		}
	}
	wantEdits := []erow{{"greet.go", "create", true}, {"greet.go", "update", false}, {"missing.go", "update", false}}
	if diff := cmp.Diff(wantEdits, got); diff != "" {
		t.Errorf("edits (-want +got):\n%s", diff)
	}
	if got := uriPath("file:///home/dev/My%20Notes.md"); got != "/home/dev/My Notes.md" {
		t.Errorf("uriPath = %q", got)
	}
	if got := uriPath("file:///c%3A/Users/dev/a.go"); got != "c:/Users/dev/a.go" {
		t.Errorf("uriPath (Windows) = %q", got)
	}
}

// TestHooks reads a log of hook payloads: the session is the trajectory
// they name, times are theirs, a prompt and a response are turns, post
// hooks are calls with results (a write's edits fragments of its old and
// new strings), pre hooks and the transcript and worktree hooks unknown
// (unmapped).
func TestHooks(t *testing.T) {
	evs := parse(t, "hand-made/hooks/payloads.jsonl")
	var kinds []string
	for _, e := range evs {
		k := string(e.Kind)
		if e.Unknown != nil {
			k += ":" + e.Unknown.RawType
		}
		kinds = append(kinds, k)
		if e.SessionID != "b7e2c4a1-9d3f-4c6e-8a1b-2f3e4d5c6b7a" || e.Timestamp == "" {
			t.Errorf("%s: session %q time %q", e.EventID, e.SessionID, e.Timestamp)
		}
	}
	want := []string{"session_start", "user_turn", "unknown:pre_read_code", "tool_call", "tool_result", "unknown:pre_write_code",
		"tool_call", "tool_result", "file_edit", "file_edit", "unknown:pre_run_command", "tool_call", "tool_result",
		"unknown:pre_mcp_tool_use", "tool_call", "tool_result", "assistant_turn", "unknown:post_cascade_response_with_transcript",
		"unknown:post_setup_worktree"}
	if diff := cmp.Diff(want, kinds); diff != "" {
		t.Errorf("kinds (-want +got):\n%s", diff)
	}
	edits := transcripttest.OfKind(evs, transcript.KindFileEdit)
	if fe := edits[0].FileEdit; !fe.Fragment || fe.Old != `import "github.com/sirupsen/logrus"` || fe.Added != 1 || fe.Removed != 1 {
		t.Errorf("first edit %+v", fe)
	}
	mcp := transcripttest.OfKind(evs, transcript.KindToolResult)[3].ToolResult
	if mcp.Name != "list_commits" || mcp.Text != `[{"sha":"3f2a9c1"}]` {
		t.Errorf("mcp result %+v", mcp)
	}
	if a := transcripttest.OfKind(evs, transcript.KindAssistantTurn)[0].AssistantTurn; a.Model != "SWE-1.5" {
		t.Errorf("model %q", a.Model)
	}
}

func TestDiscover(t *testing.T) {
	home := t.TempDir()
	write := func(rel, content string) { t.Helper(); transcripttest.WriteFile(t, home, rel, content) }
	write(".windsurf/transcripts/traj-1.jsonl", `{"status":"done","type":"user_input","user_input":{"user_response":"hi"}}`+"\n")
	write(".windsurf/transcripts/traj-2.jsonl", "")
	write(".windsurf/transcripts/notes.txt", "x")
	write(".codeium/windsurf/cascade/0a1b.pb", "\x0a\x02hi")
	write(".codeium/windsurf/memories/global_rules.md", "x")
	d := New().Discover(transcripttest.Env(home, nil))
	files, skipped := transcripttest.Listed(d, home)
	if diff := cmp.Diff([]string{".windsurf/transcripts/traj-1.jsonl session traj-1"}, files); diff != "" {
		t.Errorf("files (-want +got):\n%s", diff)
	}
	wantSkipped := []string{
		".codeium/windsurf/cascade: Cascade's own conversations (*.pb): opaque protobuf, not read; Windsurf writes a readable transcript to ~/.windsurf/transcripts when a post_cascade_response_with_transcript hook is configured",
		".windsurf/transcripts/notes.txt: not a trajectory transcript",
		".windsurf/transcripts/traj-2.jsonl: empty",
	}
	if diff := cmp.Diff(wantSkipped, skipped); diff != "" {
		t.Errorf("skipped (-want +got):\n%s", diff)
	}
	if d.Source != transcript.Windsurf || len(d.Roots) != 1 || !d.Roots[0].Exists {
		t.Errorf("source %s roots %+v", d.Source, d.Roots)
	}
	d = New().Discover(transcripttest.Env(t.TempDir(), nil))
	if len(d.Files) != 0 || len(d.Skipped) != 1 || d.Skipped[0].Reason != "no such folder" {
		t.Errorf("nothing installed: %+v", d)
	}
	if d = New().Discover(transcript.Env{}); len(d.Skipped) != 1 {
		t.Errorf("no home: %+v", d)
	}
}

func TestFingerprint(t *testing.T) {
	ws := transcript.Windsurf
	tests := []struct {
		line string
		want transcript.Variant
	}{
		{`{"status":"done","type":"user_input","user_input":{"user_response":"hi"}}`, transcript.Variant{Source: ws, Schema: SchemaTrajectory}},
		{`{"agent_action_name":"pre_user_prompt","trajectory_id":"t","tool_info":{"user_prompt":"hi"}}`, transcript.Variant{Source: ws, Schema: SchemaHook}},
		{`{"type":"user_input","user_input":{"user_response":"hi"}}`, transcript.Variant{Source: ws}},
		{`{"type":"session.start","data":{},"id":"e"}`, transcript.Variant{Source: ws}},
		{`{"type":"user","uuid":"u","sessionId":"s"}`, transcript.Variant{Source: ws}},
		{`[]`, transcript.Variant{Source: ws}},
	}
	for _, tt := range tests {
		if got := New().Fingerprint(transcript.Record{Data: []byte(tt.line)}); got != tt.want {
			t.Errorf("Fingerprint(%s) = %+v, want %+v", tt.line, got, tt.want)
		}
	}
}

// TestPartialLastLine: a line still being written is left for the next read.
func TestPartialLastLine(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(fixtureDir, "transcripts", "windsurf-session-simple.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(data, []byte("\n"))
	transcripttest.PartialLastLine(t, New(), "traj.jsonl", data, len(lines[len(lines)-2])/2)
}

func FuzzParse(f *testing.F) {
	transcripttest.Seeds(f, fixtures(f))
	a := New()
	f.Fuzz(func(t *testing.T, data []byte) {
		transcripttest.Fuzz(t, a, data)
	})
}
