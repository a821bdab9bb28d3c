package codex

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

var _ transcript.Adapter = (*Adapter)(nil)

const fixtureDir = "../../fixtures/codex"

func fixtures(t testing.TB) []transcripttest.Fixture {
	return transcripttest.Load(t, fixtureDir, ".jsonl")
}

// TestInvariants runs the shared suite on every Codex fixture and on damaged
// copies of each.
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

// parseLines reads records given as lines.
func parseLines(lines ...string) []transcript.Event {
	evs, _ := transcript.ParseBytes(New(), "test.jsonl", []byte(strings.Join(lines, "\n")+"\n"), true)
	return evs
}

// applyV4A applies a V4A patch's hunks for one file the way apply_patch does:
// each hunk's old side, found in the file, is replaced by its new side.
func applyV4A(t *testing.T, old string, op transcript.PatchOp) string {
	t.Helper()
	if op.Op == transcript.OpCreate {
		_, content := op.Sides()
		return content
	}
	for _, h := range op.Hunks {
		from, to := transcript.PatchOp{Hunks: [][]string{h}}.Sides()
		if !strings.Contains(old, from) {
			t.Fatalf("hunk %q does not match %q", from, old)
		}
		old = strings.Replace(old, from, to, 1)
	}
	return old
}

// TestRealEditsReplay checks the file edits of the run of the real Codex
// 0.169.0: apply_patch adds hello.txt ("hello world", "second line"), then
// turns its first line into "hello mock world". Applied in order to the file
// the run started without, the edits give the file the run ended with; and
// the patches the model wrote, applied the same way, agree with Codex's own
// record of the change.
func TestRealEditsReplay(t *testing.T) {
	evs := parse(t, "0.169.0/b_write_edit.jsonl")
	edits := transcripttest.OfKind(evs, transcript.KindFileEdit)
	if len(edits) != 2 {
		t.Fatalf("got %d file edits, want 2", len(edits))
	}
	const file = "/home/dev/work/demo-project/hello.txt"
	wantUnified := []string{
		"--- /dev/null\n+++ " + file + "\n@@ -0,0 +1,2 @@\n+hello world\n+second line\n",
		"--- " + file + "\n+++ " + file + "\n@@ -1,2 +1,2 @@\n-hello world\n+hello mock world\n second line\n",
	}
	calls := map[string]*transcript.ToolCall{}
	for _, e := range transcripttest.OfKind(evs, transcript.KindToolCall) {
		calls[e.ToolCall.CallID] = e.ToolCall
	}
	content, viaPatch := "", ""
	for i, e := range edits {
		fe := e.FileEdit
		if diff := cmp.Diff(wantUnified[i], fe.Unified); diff != "" {
			t.Errorf("edit %d diff (-want +got):\n%s", i, diff)
		}
		if !fe.OK || fe.Path != file || fe.From != transcript.FromToolPatch || fe.Tool != "apply_patch" {
			t.Errorf("edit %d: %+v", i, fe)
		}
		content = transcripttest.ApplyDiff(t, content, fe.Unified)

		c := calls[fe.CallID]
		if c == nil {
			t.Fatalf("edit %d: no call %s", i, fe.CallID)
		}
		patch, _ := callPatch(c.Name, c.Input)
		ops := transcript.ParsePatch(patch)
		if len(ops) != 1 || resolve("/home/dev/work/demo-project", ops[0].Path) != file {
			t.Fatalf("edit %d: the call's patch has %+v", i, ops)
		}
		viaPatch = applyV4A(t, viaPatch, ops[0])
		if viaPatch != content {
			t.Errorf("after edit %d the tool's diffs give %q, the model's patches %q", i, content, viaPatch)
		}
	}
	if want := "hello mock world\nsecond line\n"; content != want {
		t.Errorf("after both edits the file is %q, want %q", content, want)
	}
	if got := []string{edits[0].FileEdit.Op, edits[1].FileEdit.Op}; !cmp.Equal(got, []string{"create", "update"}) {
		t.Errorf("ops %v", got)
	}
	// Each edit comes once, with Codex's record of it, not again with the
	// call's output.
	for _, e := range transcripttest.OfKind(evs, transcript.KindToolResult) {
		if !e.ToolResult.OK || e.ToolResult.Name != "apply_patch" {
			t.Errorf("result %+v", e.ToolResult)
		}
	}
}

// TestIncrementalRealRun reads the real session as it stood after its first
// turn, then resumes from where that read stopped on the file as it stood
// after `codex exec resume` and `resume --last` (Codex appends to the same
// rollout): the events are those of one read of the final file.
func TestIncrementalRealRun(t *testing.T) {
	transcripttest.IncrementalRead(t, New(), filepath.Join(fixtureDir, "0.169.0"), "d1_turn1.jsonl", "d2_resume.jsonl", "d3_resume_last.jsonl")
}

// TestPartialLastLine: a line still being written is left for the next read.
func TestPartialLastLine(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(fixtureDir, "0.169.0", "c_bash.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	transcripttest.PartialLastLine(t, New(), "c.jsonl", data, 40) // 40 bytes into the last line
}

type turnRow struct {
	Kind transcript.Kind
	Text string
	Meta string
}

func turns(evs []transcript.Event) []turnRow {
	var out []turnRow
	for _, e := range evs {
		switch {
		case e.UserTurn != nil:
			out = append(out, turnRow{e.Kind, e.UserTurn.Text, e.UserTurn.Meta})
		case e.AssistantTurn != nil:
			out = append(out, turnRow{e.Kind, e.AssistantTurn.Text, ""})
		}
	}
	return out
}

// TestTwinsEmittedOnce: Codex writes each message twice — a response item and
// an event_msg (item_completed in paginated rollouts) — in either order; each
// message gives one turn, and the copy an unknown (duplicate).
func TestTwinsEmittedOnce(t *testing.T) {
	evs := parse(t, "0.169.0/d3_resume_last.jsonl")
	var got []turnRow
	for _, r := range turns(evs) {
		if r.Meta == "" {
			got = append(got, r)
		}
	}
	u, a := transcript.KindUserTurn, transcript.KindAssistantTurn
	want := []turnRow{
		{u, "Remember the number 42. [[S:turn1]]", ""},
		{a, "Turn one answer: remembered the number 42.", ""},
		{u, "What number did I ask you to remember? [[S:turn2]]", ""},
		{a, "Turn two answer: the number was 42.", ""},
		{u, "And once more? [[S:turn2]]", ""},
		{a, "Turn two answer: the number was 42.", ""},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("typed turns (-want +got):\n%s", diff)
	}
	dup := map[string]int{}
	for _, e := range evs {
		if e.Unknown != nil && e.Unknown.Reason == transcript.ReasonDuplicate {
			dup[e.Unknown.RawType]++
		}
	}
	if diff := cmp.Diff(map[string]int{"event_msg/item_completed/UserMessage": 3, "response_item/message/assistant": 3}, dup); diff != "" {
		t.Errorf("duplicates (-want +got):\n%s", diff)
	}

	// Legacy mode, both orders, and reasoning.
	evs = parse(t, "hand-made/apply_patch_shapes.jsonl")
	got = turns(evs)
	want = []turnRow{
		{u, "Switch the cache to SQLite instead of memory; add notes.md and retire old.txt.", ""},
		{a, "", ""},
		{a, "The cache now uses SQLite; notes.md is added, old.txt archived and tmp.log removed. README.md did not match and is unchanged.", ""},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("legacy turns (-want +got):\n%s", diff)
	}
	if th := transcripttest.OfKind(evs, a)[0].AssistantTurn.Thinking; th != "**Choosing the edits**" {
		t.Errorf("reasoning %q", th)
	}

	// In every fixture, no turn says the same thing twice.
	for _, fx := range fixtures(t) {
		evs, _ := transcript.ParseBytes(New(), fx.Name, fx.Data, true)
		seen := map[turnRow]int{}
		for i, e := range evs {
			if e.Unknown != nil && (e.Unknown.RawType == "event_msg/task_complete" || e.Unknown.RawType == "event_msg/turn_aborted") {
				clear(seen)
			}
			for _, r := range turns(evs[i : i+1]) {
				if r.Text == "" || strings.Contains(r.Text, "[trimmed for fixture]") {
					continue
				}
				if j, ok := seen[r]; ok {
					t.Errorf("%s: %s at line %d repeats line %d: %.60q", fx.Name, r.Kind, e.Provenance.Line, j, r.Text)
				}
				seen[r] = e.Provenance.Line
			}
		}
	}
}

type editRow struct {
	Call, Op, Path, Move, From string
	OK, Fragment               bool
	Added, Removed             int
}

func editRows(evs []transcript.Event) []editRow {
	var out []editRow
	for _, e := range transcripttest.OfKind(evs, transcript.KindFileEdit) {
		f := e.FileEdit
		out = append(out, editRow{f.CallID, f.Op, f.Path, f.MovePath, f.From, f.OK, f.Fragment, f.Added, f.Removed})
	}
	return out
}

// TestApplyPatchShapes: apply_patch as a function_call with {"input"} and
// with {"patch"}, as an exec_command heredoc with Codex's record of the
// changes (an update, a move, a delete), as a custom tool call that fails
// and whose end Codex wrote twice. One edit per file and call.
func TestApplyPatchShapes(t *testing.T) {
	evs := parse(t, "hand-made/apply_patch_shapes.jsonl")
	const d = "/home/dev/work/shapes/"
	c, u, m, del := transcript.OpCreate, transcript.OpUpdate, transcript.OpMove, transcript.OpDelete
	in, tp := transcript.FromInput, transcript.FromToolPatch
	want := []editRow{
		{"call_A1", c, d + "notes.md", "", in, true, false, 3, 0},
		{"call_B2", u, d + "config.ini", "", in, false, true, 1, 1},
		{"call_C3", u, d + "config.ini", "", tp, true, false, 1, 1},
		{"call_C3", m, d + "old.txt", d + "archive/old.txt", tp, true, false, 1, 1},
		{"call_C3", del, d + "tmp.log", "", tp, true, false, 0, 1},
		{"call_D4", u, d + "README.md", "", tp, false, false, 1, 1},
	}
	if diff := cmp.Diff(want, editRows(evs)); diff != "" {
		t.Fatalf("edits (-want +got):\n%s", diff)
	}
	fe := transcripttest.OfKind(evs, transcript.KindFileEdit)
	if f := fe[0].FileEdit; f.New != "# Notes\n\nCache decisions live here.\n" || transcripttest.ApplyDiff(t, "", f.Unified) != f.New {
		t.Errorf("added file %+v", f)
	}
	if f := fe[1].FileEdit; f.Old != "backend = memory\n" || f.New != "backend = redis\n" {
		t.Errorf("failed update old %q new %q", f.Old, f.New)
	}
	if got := transcripttest.ApplyDiff(t, "[cache]\nbackend = memory\nsize = 64\n", fe[2].FileEdit.Unified); got != "[cache]\nbackend = sqlite\nsize = 64\n" {
		t.Errorf("config.ini after the heredoc patch: %q", got)
	}
	if got := transcripttest.ApplyDiff(t, "debug\n", fe[4].FileEdit.Unified); got != "" || fe[4].FileEdit.Old != "debug\n" {
		t.Errorf("deleted file gives %q", got)
	}
	var dups []string
	for _, e := range evs {
		if e.Unknown != nil && e.Unknown.Reason == transcript.ReasonDuplicate {
			dups = append(dups, e.Unknown.RawType)
		}
	}
	wantDups := []string{"event_msg/user_message", "response_item/reasoning", "event_msg/item_completed/FileChange", "response_item/message/assistant"}
	if diff := cmp.Diff(wantDups, dups); diff != "" {
		t.Errorf("duplicates (-want +got):\n%s", diff)
	}

	// No fixture emits an edit twice.
	for _, fx := range fixtures(t) {
		evs, _ := transcript.ParseBytes(New(), fx.Name, fx.Data, true)
		seen := map[[2]string]bool{}
		for _, r := range editRows(evs) {
			k := [2]string{r.Call, r.Path}
			if r.Call != "" && seen[k] {
				t.Errorf("%s: %s edited %s twice", fx.Name, r.Call, r.Path)
			}
			seen[k] = true
		}
	}
}

// TestPatchEditsOnlyAtOutputOrEnd: a patch whose call has no output and no
// end record yet gives no edit (it may still fail); the git-ai fixture is
// such a session.
func TestPatchEditsOnlyAtOutputOrEnd(t *testing.T) {
	evs := parse(t, "0.99.0-alpha.24/patch_function_call.jsonl")
	if n := len(transcripttest.OfKind(evs, transcript.KindFileEdit)); n != 0 {
		t.Errorf("%d edits without an output", n)
	}
	out := `{"timestamp":"2026-02-11T05:53:33.470Z","type":"response_item","payload":{"type":"function_call_output","call_id":"call_abc123","output":"Exit code: 0\nWall time: 0 seconds\nOutput:\nSuccess. Updated the following files:\nM src/main.rs\n"}}`
	data, _ := os.ReadFile(filepath.Join(fixtureDir, "0.99.0-alpha.24/patch_function_call.jsonl"))
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	evs = parseLines(append(lines[:4:4], out)...)
	want := []editRow{{"call_abc123", transcript.OpUpdate, "/Users/test/projects/git-ai/src/main.rs", "", transcript.FromInput, true, true, 2, 1}}
	if diff := cmp.Diff(want, editRows(evs)); diff != "" {
		t.Errorf("edits once the output came (-want +got):\n%s", diff)
	}
}

// TestToolResults: Codex's outputs carry no success flag; ok comes from the
// exit code the output states (three formats), a success field, Codex's
// message for a call that did not run, or an end event before the output.
func TestToolResults(t *testing.T) {
	type row struct {
		Call, Name string
		OK         bool
	}
	var got []row
	for _, e := range transcripttest.OfKind(parse(t, "hand-made/tool_results.jsonl"), transcript.KindToolResult) {
		got = append(got, row{e.ToolResult.CallID, e.ToolResult.Name, e.ToolResult.OK})
	}
	want := []row{
		{"call_vet", "shell", false},
		{"call_lint", "exec_command", false},
		{"call_fmt", "shell_script", true},
		{"call_test", "shell", false},
		{"call_mcp", "mcp__issues__search", false},
		{"call_rm", "local_shell", false},
		{"call_img", "view_image", true},
		{"call_plan", "update_plan", true},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("results (-want +got):\n%s", diff)
	}
	for _, tt := range []struct {
		out       string
		ok, known bool
	}{
		{"Exit code: 0\nWall time: 0 seconds\nOutput:\n", true, true},
		{"Exit code: 1\nWall time: 0 seconds\nOutput:\nboom", false, true},
		{"Chunk ID: a\nWall time: 0.1 seconds\nProcess exited with code 2\nOriginal token count: 1\nOutput:\nx", false, true},
		{"Chunk ID: a\nWall time: 0.1 seconds\nProcess running with session ID 7\nOutput:\nExit code: 1\n", true, false},
		{"plain output", true, false},
		{"exec command rejected by user", false, true},
		{"apply_patch verification failed: no such file", false, true},
	} {
		raw, _ := jsonString(tt.out)
		if _, ok, known := outcome(raw); ok != tt.ok || known != tt.known {
			t.Errorf("outcome(%q) = %v %v, want %v %v", tt.out, ok, known, tt.ok, tt.known)
		}
	}
	raw := []byte(`"{\"output\":\"ok\\n\",\"metadata\":{\"exit_code\":0,\"duration_seconds\":0.1}}"`)
	if text, ok, known := outcome(raw); text != "ok\n" || !ok || !known {
		t.Errorf("legacy shell output: %q %v %v", text, ok, known)
	}
}

func jsonString(s string) ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"', '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case '\n':
			b.WriteString(`\n`)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.Bytes(), nil
}

// TestRewindAndCompaction: thread_rolled_back is a rewind of N user turns;
// compacted, context_compacted and a compaction item are compactions; the
// note Codex adds after an interrupted turn is no typed prompt.
func TestRewindAndCompaction(t *testing.T) {
	evs := parse(t, "hand-made/rollback_compaction.jsonl")
	rw := transcripttest.OfKind(evs, transcript.KindRewind)
	if len(rw) != 1 || rw[0].Rewind.Turns != 1 || rw[0].Provenance.Line != 16 {
		t.Fatalf("rewinds %+v", rw)
	}
	cs := transcripttest.OfKind(evs, transcript.KindCompaction)
	if len(cs) != 3 || !strings.HasPrefix(cs[0].Compaction.Summary, "The user chose SQLite") || cs[1].Compaction.Summary != "" {
		t.Fatalf("compactions %+v", cs)
	}
	if cs[0].Extra["replacement_history"] == nil || string(cs[0].Extra["window_number"]) != "2" {
		t.Errorf("compacted extra %v", cs[0].Extra)
	}
	var metas []string
	for _, e := range transcripttest.OfKind(evs, transcript.KindUserTurn) {
		metas = append(metas, e.UserTurn.Meta)
	}
	if diff := cmp.Diff([]string{"", "", "", transcript.MetaInterrupt, ""}, metas); diff != "" {
		t.Errorf("user turn metas (-want +got):\n%s", diff)
	}
	var models []string
	for _, e := range transcripttest.OfKind(evs, transcript.KindAssistantTurn) {
		models = append(models, e.AssistantTurn.Model)
	}
	if diff := cmp.Diff([]string{"gpt-5.1-codex", "gpt-5.1-codex", "gpt-5.2-codex"}, models); diff != "" {
		t.Errorf("models from turn_context (-want +got):\n%s", diff)
	}
}

// TestForkReplay: a fork's rollout copies its parent's header and turns
// before its own; the copy gives unknown (duplicate) events only.
func TestForkReplay(t *testing.T) {
	evs := parse(t, "hand-made/fork_replay.jsonl")
	const fork = "019b3f00-0000-7aaa-8bbb-cccccccccccc"
	if s := evs[0].SessionStart; s == nil || s.Trigger != "fork" || evs[0].Project.GitBranch != "fork-of-main" {
		t.Fatalf("first event %+v", evs[0])
	}
	for _, e := range evs {
		if e.SessionID != fork {
			t.Errorf("line %d: session %q", e.Provenance.Line, e.SessionID)
		}
		replay := e.Provenance.Line >= 2 && e.Provenance.Line <= 12
		isDup := e.Unknown != nil && e.Unknown.Reason == transcript.ReasonDuplicate
		if replay != isDup && !(e.Provenance.Line == 16 && isDup) { // line 16 is the fork's own twin
			t.Errorf("line %d: %s (duplicate %v)", e.Provenance.Line, e.Kind, isDup)
		}
	}
	if diff := cmp.Diff([]turnRow{{transcript.KindUserTurn, "Now add an index migration.", ""}, {transcript.KindAssistantTurn, "Added db/migrations/001_index.sql.", ""}}, turns(evs)); diff != "" {
		t.Errorf("turns (-want +got):\n%s", diff)
	}
	if r := editRows(evs); len(r) != 1 || r[0].Call != "call_fork" {
		t.Errorf("edits %+v", r)
	}

	// The gate fails open: a turn id that is not a UUIDv7 ends the replay,
	// and a fork whose time nothing says has no gate.
	meta := `{"timestamp":"t","type":"session_meta","payload":{"id":"fork-1","forked_from_id":"p","timestamp":"2026-01-05T12:00:00Z"}}`
	user := `{"timestamp":"t","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"hi"}]}}`
	tc := func(id string) string {
		return `{"timestamp":"t","type":"turn_context","payload":{"turn_id":"` + id + `","model":"m"}}`
	}
	for _, tt := range []struct {
		name  string
		lines []string
		users int
	}{
		{"no turn id yet", []string{meta, user}, 0},
		{"a turn before the fork", []string{meta, tc("019b0000-1200-7000-8000-000000000001"), user}, 0},
		{"a turn after the fork", []string{meta, tc("019b9999-1200-7000-8000-000000000001"), user}, 1},
		{"a turn id not a UUIDv7", []string{meta, tc("turn-1"), user}, 1},
		{"no time for the fork", []string{strings.Replace(meta, `"timestamp":"2026-01-05T12:00:00Z"`, `"x":1`, 1), user}, 1},
	} {
		if got := len(transcripttest.OfKind(parseLines(tt.lines...), transcript.KindUserTurn)); got != tt.users {
			t.Errorf("%s: %d user turns, want %d", tt.name, got, tt.users)
		}
	}
}

func TestSubagent(t *testing.T) {
	evs := parse(t, "hand-made/subagent.jsonl")
	for _, e := range evs {
		if e.AgentID != "019b4a01-0000-7111-8222-333333333333" || !e.Sidechain || e.SessionID != "019b4a00-aaaa-7bbb-8ccc-dddddddddddd" {
			t.Errorf("%s %s: session %q agent %q sidechain %v", e.Kind, e.EventID, e.SessionID, e.AgentID, e.Sidechain)
		}
	}
	if evs[0].Kind != transcript.KindSessionStart || evs[0].Extra["agent_nickname"] == nil {
		t.Errorf("the subagent's stream starts with %+v", evs[0])
	}
}

// TestLegacyBare reads a rollout of the early Rust CLI: no envelope, the
// cwd only in the environment context, the patch in a shell heredoc, exit
// codes in the legacy shell output's metadata.
func TestLegacyBare(t *testing.T) {
	evs := parse(t, "hand-made/legacy_bare.jsonl")
	start := evs[0]
	if start.Kind != transcript.KindSessionStart || start.SessionID != "5973b6c0-94b8-487b-a530-2aeb6098ae0e" ||
		start.Project.GitBranch != "main" || start.Project.Repository != "git@github.com:example/legacy.git" || start.Timestamp != "2025-08-18T01:16:13.522Z" {
		t.Fatalf("start %+v", start)
	}
	last := evs[len(evs)-1]
	if last.Project.Cwd != "/home/dev/work/legacy" || last.SessionID != start.SessionID {
		t.Errorf("later events: project %+v session %q", last.Project, last.SessionID)
	}
	want := []editRow{{"call_Q2a9kZ1", transcript.OpUpdate, "/home/dev/work/legacy/greet.py", "", transcript.FromInput, true, true, 1, 1}}
	if diff := cmp.Diff(want, editRows(evs)); diff != "" {
		t.Errorf("edits (-want +got):\n%s", diff)
	}
	var oks []bool
	for _, e := range transcripttest.OfKind(evs, transcript.KindToolResult) {
		oks = append(oks, e.ToolResult.OK)
	}
	if diff := cmp.Diff([]bool{true, false}, oks); diff != "" {
		t.Errorf("results (-want +got):\n%s", diff)
	}
	n := 0
	for _, e := range evs {
		if e.Unknown != nil && e.Unknown.RawType == "record_type/state" && e.Unknown.Reason == transcript.ReasonUnmapped {
			n++
		}
	}
	if n != 4 {
		t.Errorf("%d state markers, want 4", n)
	}
}

// TestUserTurnMeta: what the person typed has no Meta; the context Codex
// injects as user messages has; developer messages are no user turns.
func TestUserTurnMeta(t *testing.T) {
	evs := parse(t, "0.169.0/a2_qa_jsonhooks.jsonl")
	var got []turnRow
	for _, r := range turns(evs) {
		if r.Kind == transcript.KindUserTurn {
			r.Text, _, _ = strings.Cut(r.Text, "\n")
			got = append(got, r)
		}
	}
	want := []turnRow{
		{transcript.KindUserTurn, "<environment_context>", transcript.MetaInjected},
		{transcript.KindUserTurn, "What is the capital of France, again? [[S:qa]]", ""},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("user turns (-want +got):\n%s", diff)
	}
	dev := 0
	for _, e := range evs {
		if e.Unknown != nil && e.Unknown.RawType == "response_item/message/developer" {
			dev++
		}
	}
	if dev != 3 {
		t.Errorf("%d developer messages, want 3 (instructions and two hook contexts)", dev)
	}
	for _, tt := range []struct{ text, meta string }{
		{"<user_instructions>\nbe brief\n</user_instructions>", transcript.MetaInjected},
		{"# AGENTS.md instructions for /w\n\n…", transcript.MetaInjected},
		{"<user_shell_command>\nls\n</user_shell_command>", transcript.MetaShell},
		{"<subagent_notification>{}</subagent_notification>", transcript.MetaTaskNotification},
		{"  Use Go.", ""},
	} {
		if got := classify(tt.text); got != tt.meta {
			t.Errorf("classify(%q) = %q, want %q", tt.text, got, tt.meta)
		}
	}
	// The IDE extensions' preamble does not hide a message's copy.
	ide := `{"timestamp":"t","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"# Context from my IDE setup:\n\n## Open tabs:\n- a.go\n\n## My request for Codex:\nUse Go."}]}}`
	ev := `{"timestamp":"t","type":"event_msg","payload":{"type":"user_message","message":"Use Go.","images":[]}}`
	if n := len(transcripttest.OfKind(parseLines(ide, ev), transcript.KindUserTurn)); n != 1 {
		t.Errorf("%d user turns from a message and its copy", n)
	}
}

// TestPatchEdit: a patch cut out of a heredoc gives its operations, and an
// update is an edit with its paths resolved against the folder the command
// ran in and its hunks as written.
func TestPatchEdit(t *testing.T) {
	patch := "cd x && apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: a.txt\n+one\n+\n*** Update File: b.txt\n*** Move to: c.txt\n-gone\n+new\n context\n@@ second\n" +
		" *** End Patch\n-x\n\n+y\n*** End of File\n*** Delete File: d.txt\n*** End Patch\nEOF\n"
	got := transcript.ParsePatch(patchText(patch))
	if len(got) != 3 {
		t.Fatalf("ParsePatch: %+v", got)
	}
	fe := patchEdit("/w", got[1])
	if fe.Path != "/w/b.txt" || fe.MovePath != "/w/c.txt" || !fe.Fragment || fe.Added != 2 || fe.Removed != 2 || fe.Old != "" {
		t.Errorf("move edit %+v", fe)
	}
	if _, _, _, err := transcript.ParseUnified(fe.Unified); err != nil {
		t.Errorf("%q: %v", fe.Unified, err)
	}
	one := patchEdit("/w", transcript.ParsePatch("*** Begin Patch\n*** Update File: /abs/e.go\n@@\n-a\n+b\n keep\n*** End Patch")[0])
	if one.Path != "/abs/e.go" || one.Old != "a\nkeep\n" || one.New != "b\nkeep\n" {
		t.Errorf("one-hunk edit %+v", one)
	}
	for _, tt := range []struct{ name, args, patch string }{
		{"apply_patch", `"{\"input\":\"*** Begin Patch\\n*** End Patch\"}"`, "*** Begin Patch\n*** End Patch\n"},
		{"apply_patch", `"*** Begin Patch\n*** Delete File: x\n*** End Patch\n"`, "*** Begin Patch\n*** Delete File: x\n*** End Patch\n"},
		{"shell", `"{\"command\":[\"apply_patch\",\"*** Begin Patch\\n*** End Patch\\n\"]}"`, "*** Begin Patch\n*** End Patch\n"},
		{"shell", `"{\"command\":[\"bash\",\"-lc\",\"cat x\"]}"`, ""},
		{"write_file", `"{\"content\":\"apply_patch *** Begin Patch\"}"`, ""},
	} {
		if got, _ := callPatch(tt.name, []byte(tt.args)); got != tt.patch {
			t.Errorf("callPatch(%s, %s) = %q, want %q", tt.name, tt.args, got, tt.patch)
		}
	}
}

func TestFingerprint(t *testing.T) {
	a := New()
	env := transcript.Variant{Source: transcript.Codex, Schema: SchemaEnvelope}
	bare := transcript.Variant{Source: transcript.Codex, Schema: SchemaBare}
	none := transcript.Variant{Source: transcript.Codex}
	tests := []struct {
		line string
		want transcript.Variant
	}{
		{`{"timestamp":"t","type":"session_meta","payload":{"id":"x","cli_version":"0.169.0"}}`, transcript.Variant{Source: transcript.Codex, Schema: SchemaEnvelope + "/v0.169", ToolVersion: "0.169.0"}},
		{`{"timestamp":"t","ordinal":3,"type":"response_item","payload":{"type":"message"}}`, env},
		{`{"timestamp":"t","type":"brand_new_kind","payload":{}}`, env},
		{`{"id":"5973b6c0","timestamp":"2025-08-18T01:16:13.522Z","instructions":null}`, bare},
		{`{"record_type":"state"}`, bare},
		{`{"type":"message","id":null,"role":"user","content":[]}`, bare},
		{`{"type":"function_call","name":"shell","arguments":"{}","call_id":"c"}`, bare},
		// Claude Code and Gemini CLI records.
		{`{"type":"user","uuid":"u","sessionId":"s","version":"2.1.197","message":{"role":"user","content":"hi"}}`, none},
		{`{"type":"summary","summary":"t","leafUuid":"u"}`, none},
		{`{"id":"m","timestamp":"t","type":"user","content":"hi"}`, none},
		{`{"id":"84eecfcb","timestamp":"2026-11-22T04:07:53.689Z","type":"gemini","content":"ok","model":"gemini-3"}`, none},
		{`{"sessionId":"524bc342","projectHash":"0fd3","startTime":"2026-11-22T04:07:53.463Z","lastUpdated":"t","kind":"main"}`, none},
		{`{"$set":{"messages":[]}}`, none},
		{`{"timestamp":"t","type":"session_meta"}`, none},
		{`not json`, none},
		{`[1,2]`, none},
	}
	for _, tt := range tests {
		if got := a.Fingerprint(transcript.Record{Data: []byte(tt.line)}); got != tt.want {
			t.Errorf("Fingerprint(%s) = %+v, want %+v", tt.line, got, tt.want)
		}
	}

	// No record of another tool's fixtures is taken for Codex's; every
	// record of the real Codex runs is.
	claimed := func(dir string) (n, total int) {
		for _, fx := range transcripttest.Load(t, dir, ".jsonl", ".json") {
			for _, l := range bytes.Split(fx.Data, []byte("\n")) {
				if len(bytes.TrimSpace(l)) == 0 {
					continue
				}
				total++
				if a.Fingerprint(transcript.Record{Data: l}).Schema != "" {
					n++
				}
			}
		}
		return n, total
	}
	if n, total := claimed("../../fixtures/claude-code"); n != 0 || total < 100 {
		t.Errorf("%d of %d Claude Code records taken for Codex's", n, total)
	}
	if _, err := os.Stat("../../fixtures/gemini-cli"); err == nil {
		if n, total := claimed("../../fixtures/gemini-cli"); n != 0 {
			t.Errorf("%d of %d Gemini CLI records taken for Codex's", n, total)
		}
	}
	if n, total := claimed(filepath.Join(fixtureDir, "0.169.0")); n != total {
		t.Errorf("%d of %d records of the real runs recognised", n, total)
	}
}

func FuzzParse(f *testing.F) {
	transcripttest.Seeds(f, fixtures(f))
	a := New()
	f.Fuzz(func(t *testing.T, data []byte) {
		transcripttest.Fuzz(t, a, data)
	})
}
