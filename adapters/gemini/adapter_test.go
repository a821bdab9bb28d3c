package gemini

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cortexmem/cortex/transcript"
	"github.com/cortexmem/cortex/transcript/rawjson"
	"github.com/cortexmem/cortex/transcript/transcripttest"
)

const fixtureDir = "../../fixtures/gemini-cli"

// fixtures are the JSONL chat files (0.39 and later, and files shaped like
// them); legacyFixtures the single-document files of 0.38 and before.
func fixtures(t testing.TB) []transcripttest.Fixture {
	return transcripttest.Load(t, fixtureDir, ".jsonl")
}

func legacyFixtures(t testing.TB) []transcripttest.Fixture {
	return transcripttest.Load(t, fixtureDir, ".json")
}

// TestInvariants runs the shared suite on every JSONL fixture and on damaged
// copies of each.
func TestInvariants(t *testing.T) {
	transcripttest.Run(t, New(), fixtures(t))
}

// TestLegacyInvariants checks the invariants on every legacy document, at
// every record boundary, and on damaged copies of each. (transcripttest.Run
// frames records as lines, which a Framer's are not; Verify reads through
// the Framer.)
func TestLegacyInvariants(t *testing.T) {
	a := NewLegacy()
	for _, fx := range legacyFixtures(t) {
		t.Run(fx.Name, func(t *testing.T) {
			t.Parallel()
			rep := transcript.Verify(a, fx.Name, fx.Data, transcript.VerifyOptions{})
			for _, v := range rep.Violations {
				t.Errorf("%s", v)
			}
			if rep.Records < 2 && strings.Contains(string(fx.Data), `"messages"`) {
				t.Errorf("%d records: the messages were not framed apart", rep.Records)
			}
			for i, g := range transcripttest.Garbled(fx.Data) {
				rep := transcript.Verify(a, fx.Name, g, transcript.VerifyOptions{ResumePoints: 3})
				for _, v := range rep.Violations {
					t.Errorf("damaged copy %d: %s", i, v)
				}
				if _, _, err := transcript.ReadAll(a, bytes.NewReader(g), transcript.Start(a, fx.Name), true); err != nil {
					t.Errorf("damaged copy %d: %v", i, err)
				}
			}
		})
	}
}

// TestGolden compares the events of every fixture with the expected stream
// beside it (go test -run Golden -update rewrites them).
func TestGolden(t *testing.T) {
	t.Run("jsonl", func(t *testing.T) { transcripttest.Golden(t, New(), fixtures(t)) })
	t.Run("legacy", func(t *testing.T) { transcripttest.Golden(t, NewLegacy(), legacyFixtures(t)) })
}

// parse reads a fixture whole, with the adapter its name calls for.
func parse(t *testing.T, name string) []transcript.Event {
	t.Helper()
	return transcripttest.ParseFile(t, New().ForFile(name), fixtureDir, name)
}

func byID(evs []transcript.Event, id string) *transcript.Event {
	for i := range evs {
		if evs[i].EventID == id {
			return &evs[i]
		}
	}
	return nil
}

// TestRealEditsReplay checks the file edits of the run of the real Gemini
// CLI 0.61.0: applied in order to the file the run started without, they
// give the file the run ended with — hello.txt written as "hello world" and
// "second line", then its first line edited to "hello mock world".
func TestRealEditsReplay(t *testing.T) {
	edits := transcripttest.OfKind(parse(t, "0.61.0/b_write_edit.jsonl"), transcript.KindFileEdit)
	if len(edits) != 2 {
		t.Fatalf("got %d file edits, want 2", len(edits))
	}
	const path = "/home/dev/work/demo-project/hello.txt"
	wantUnified := []string{
		"--- /dev/null\n+++ " + path + "\n@@ -0,0 +1,2 @@\n+hello world\n+second line\n",
		"--- " + path + "\n+++ " + path + "\n@@ -1,2 +1,2 @@\n-hello world\n+hello mock world\n second line\n",
	}
	file := ""
	for i, e := range edits {
		fe := e.FileEdit
		if diff := cmp.Diff(wantUnified[i], fe.Unified); diff != "" {
			t.Errorf("edit %d diff (-want +got):\n%s", i, diff)
		}
		if !fe.OK || fe.Path != path || fe.Fragment {
			t.Errorf("edit %d: ok %v path %q fragment %v", i, fe.OK, fe.Path, fe.Fragment)
		}
		file = transcripttest.ApplyDiff(t, file, fe.Unified)
		if i == 0 && file != fe.New {
			t.Errorf("after write_file the file is %q, the tool wrote %q", file, fe.New)
		}
	}
	if want := "hello mock world\nsecond line\n"; file != want {
		t.Errorf("after both edits the file is %q, want %q", file, want)
	}
	type row struct{ Tool, Op, From, Old, New string }
	var got []row
	for _, e := range edits {
		got = append(got, row{e.FileEdit.Tool, e.FileEdit.Op, e.FileEdit.From, e.FileEdit.Old, e.FileEdit.New})
	}
	want := []row{
		{"write_file", "create", "content", "", "hello world\nsecond line\n"},
		{"replace", "update", "content", "hello world", "hello mock world"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("edits (-want +got):\n%s", diff)
	}
}

// TestEditsMatchDisplays checks every edit made from a tool's FileDiff
// against the FileDiff itself: the diff applied to originalContent gives
// newContent, and it agrees with the CLI's own patch (fileDiff).
func TestEditsMatchDisplays(t *testing.T) {
	n := 0
	for _, fx := range append(fixtures(t), legacyFixtures(t)...) {
		evs, _ := transcript.ParseBytes(New().ForFile(fx.Name), fx.Name, fx.Data, true)
		results := map[string]*transcript.ToolResult{}
		for _, e := range evs {
			if e.ToolResult != nil {
				results[e.ToolResult.CallID] = e.ToolResult
			}
			if e.FileEdit == nil || !e.FileEdit.OK || e.FileEdit.Fragment {
				continue
			}
			d := rawjson.AsObject(results[e.FileEdit.CallID].Structured)
			_, _, patch, err := transcript.ParseUnified(rawjson.AsString(d.Get("fileDiff")))
			if err != nil {
				t.Errorf("%s %s: the CLI's fileDiff: %v", fx.Name, e.EventID, err)
				continue
			}
			before, after := rawjson.AsString(d.Get("originalContent")), rawjson.AsString(d.Get("newContent"))
			if _, ok := rawjson.String(d.Get("newContent")); !ok {
				after = transcripttest.ApplyDiff(t, before, transcript.FormatUnified("a", "b", patch))
			}
			if got := transcripttest.ApplyDiff(t, before, e.FileEdit.Unified); got != after {
				t.Errorf("%s %s: the diff applied to the original gives\n%q\nwant\n%q", fx.Name, e.EventID, got, after)
			}
			if got := transcripttest.ApplyDiff(t, before, transcript.FormatUnified("a", "b", patch)); got != after {
				t.Errorf("%s %s: the CLI's own patch gives %q, want %q", fx.Name, e.EventID, got, after)
			}
			n++
		}
	}
	if n < 5 {
		t.Fatalf("checked %d edits against their FileDiff, want at least 5", n)
	}
}

// TestIncrementalRealRun reads the real session as it stood after its first
// turn, then resumes from where that read stopped on the file as it stood
// after the CLI resumed it twice: the events are those of one read of the
// final file.
func TestIncrementalRealRun(t *testing.T) {
	want := transcripttest.IncrementalRead(t, New(), filepath.Join(fixtureDir, "0.61.0"),
		"d1_turn1.jsonl", "d2_resume_latest.jsonl", "d3_resume_id.1.jsonl")
	var triggers []string
	for _, e := range transcripttest.OfKind(want, transcript.KindSessionStart) {
		triggers = append(triggers, e.SessionStart.Trigger)
	}
	// d2's resume wrote a header and then {"$set":{"sessionId":…}}: one
	// start; d3's wrote only the $set.
	if diff := cmp.Diff([]string{"", "resume", "resume"}, triggers); diff != "" {
		t.Errorf("session starts (-want +got):\n%s", diff)
	}
	// The resumes' checkpoints repeat the earlier answers (rewritten as
	// parts, with new timestamps): no second assistant turn for them.
	var answers []string
	for _, e := range transcripttest.OfKind(want, transcript.KindAssistantTurn) {
		answers = append(answers, e.AssistantTurn.Text)
	}
	wantAnswers := []string{"Turn one answer: remembered the number 42.", "Turn two answer: the number was 42.", "Turn two answer: the number was 42."}
	if diff := cmp.Diff(wantAnswers, answers); diff != "" {
		t.Errorf("assistant turns (-want +got):\n%s", diff)
	}
}

// TestPartialLastLine: a line still being written is left for the next read.
func TestPartialLastLine(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(fixtureDir, "0.61.0", "b_write_edit.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(data, []byte("\n"))
	transcripttest.PartialLastLine(t, New(), "b.jsonl", data, len(lines[len(lines)-2])/2)
}

// TestToolResultsInModelRecords: Gemini CLI keeps a call's result inside the
// model's message (toolCalls[].result), not in a record of its own; the
// model's message is written again when the calls are added. Each call
// gives a tool_call and a tool_result paired by call id, once; the user
// message that sends the responses back to the model gives nothing new.
func TestToolResultsInModelRecords(t *testing.T) {
	evs := parse(t, "0.61.0/c_bash.jsonl")
	calls, results := transcripttest.OfKind(evs, transcript.KindToolCall), transcripttest.OfKind(evs, transcript.KindToolResult)
	if len(calls) != 1 || len(results) != 1 {
		t.Fatalf("%d calls, %d results, want 1 and 1", len(calls), len(results))
	}
	c, r := calls[0], results[0]
	const id = "run_shell_command__fc_a3d634c1d24a4b60a4f9ba2d"
	if c.ToolCall.CallID != id || c.ToolCall.Name != "run_shell_command" || !strings.Contains(string(c.ToolCall.Input), "echo bash-from-mock") {
		t.Errorf("call %+v", c.ToolCall)
	}
	if r.ToolResult.CallID != id || !r.ToolResult.OK || r.ToolResult.Name != "run_shell_command" ||
		!strings.Contains(r.ToolResult.Text, "Output: bash-from-mock") || r.ParentID != c.EventID {
		t.Errorf("result %+v (parent %s)", r.ToolResult, r.ParentID)
	}
	if c.EventID != "5a779c6f-f621-4ea5-a2a1-9acb88517a09#tool_call:"+id || c.Replaces != "" {
		t.Errorf("call id %s replaces %q", c.EventID, c.Replaces)
	}
	// The record that added the call gave no second assistant turn.
	if n := len(transcripttest.OfKind(evs, transcript.KindAssistantTurn)); n != 2 {
		t.Errorf("%d assistant turns, want 2", n)
	}
	var echo *transcript.Event
	for i := range evs {
		if evs[i].EventID == "cc23f309-0557-4e00-9150-c2f329cab431" {
			echo = &evs[i]
		}
	}
	if echo == nil || echo.Unknown == nil || echo.Unknown.RawType != "user/functionResponse" || echo.Unknown.Reason != transcript.ReasonUnmapped {
		t.Errorf("the responses sent back to the model: %+v", echo)
	}
}

// TestLastWriteWins: a message written again with something new gives a
// new version of the event that changed, with Replaces naming the old one;
// what did not change gives nothing; byte-identical copies are duplicates.
func TestLastWriteWins(t *testing.T) {
	evs := parse(t, "hand-made/lww_rewind.jsonl")
	const g1 = "9c0e1f52-3d4b-4a8e-b6f1-0c2d3e4f5a61"
	type row struct {
		ID, Kind, Replaces string
	}
	var got []row
	for _, e := range evs {
		if strings.HasPrefix(e.EventID, g1) {
			got = append(got, row{e.EventID, string(e.Kind), e.Replaces})
		}
	}
	const call = "replace__fc_1a2b3c4d5e"
	want := []row{
		{g1, "assistant_turn", ""},                       // written without tokens
		{g1 + "#v2", "assistant_turn", g1},               // tokens attached
		{g1 + "#tool_call:" + call, "tool_call", ""},     // the call, awaiting approval
		{g1 + "#tool_result:" + call, "tool_result", ""}, // approved and run
		{g1 + "#edit:" + call, "file_edit", ""},          // the edit it made
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("events of %s (-want +got):\n%s", g1, diff)
	}
	if u := byID(evs, g1+"#v2").AssistantTurn.Usage; u == nil || u.InputTokens != 120 || u.OutputTokens != 30 {
		t.Errorf("the second version's usage: %+v", u)
	}
	if u := byID(evs, g1).AssistantTurn.Usage; u != nil {
		t.Errorf("the first version has usage %+v", u)
	}
	// The call's record before approval gave the call alone; the one after,
	// the result and the edit (not the call again).
	if e := byID(evs, g1+"#tool_call:"+call); e.Provenance.Line != 8 {
		t.Errorf("the call comes from line %d, want 8", e.Provenance.Line)
	}
	if e := byID(evs, g1+"#tool_result:"+call); e.Provenance.Line != 9 || !e.ToolResult.OK {
		t.Errorf("the result comes from line %d (ok %v), want 9", e.Provenance.Line, e.ToolResult.OK)
	}
	dups := transcripttest.WithReason(evs, transcript.ReasonDuplicate)
	if len(dups) != 1 || dups[0].EventID != "2b7c8d9e-0f1a-4b2c-8d3e-4f5a6b7c8d92#duplicate" {
		t.Errorf("%d duplicates, want 1: 2b7c8d9e-0f1a-4b2c-8d3e-4f5a6b7c8d92#duplicate", len(dups))
	}
}

// TestToolFailures: failed and cancelled calls give results with ok false,
// and an edit tool's failed call a file_edit from its arguments, with ok
// false.
func TestToolFailures(t *testing.T) {
	type row struct {
		Call, Name string
		OK         bool
	}
	check := func(name string, wantResults, wantEdits []row) {
		t.Helper()
		var results, edits []row
		for _, e := range parse(t, name) {
			switch {
			case e.ToolResult != nil:
				results = append(results, row{e.ToolResult.CallID, e.ToolResult.Name, e.ToolResult.OK})
			case e.FileEdit != nil:
				edits = append(edits, row{e.FileEdit.CallID, e.FileEdit.Tool, e.FileEdit.OK})
			}
		}
		if diff := cmp.Diff(wantResults, results); diff != "" {
			t.Errorf("%s: results (-want +got):\n%s", name, diff)
		}
		if diff := cmp.Diff(wantEdits, edits); diff != "" {
			t.Errorf("%s: edits (-want +got):\n%s", name, diff)
		}
	}
	check("hand-made/lww_rewind.jsonl",
		[]row{{"replace__fc_1a2b3c4d5e", "replace", true}, {"read_file__fc_0b1c2d3e4f", "read_file", false},
			{"replace__fc_2b3c4d5e6f", "replace", false}, {"write_file__fc_3c4d5e6f7a", "write_file", true},
			{"replace__fc_4d5e6f7a8b", "replace", true}},
		[]row{{"replace__fc_1a2b3c4d5e", "replace", true}, {"replace__fc_2b3c4d5e6f", "replace", false},
			{"write_file__fc_3c4d5e6f7a", "write_file", true}, {"replace__fc_4d5e6f7a8b", "replace", true}})
	check("hand-made/legacy_edits.json",
		[]row{{"write_file-1", "write_file", true}, {"replace-2", "replace", false}},
		[]row{{"write_file-1", "write_file", true}, {"replace-2", "replace", false}})

	evs := parse(t, "hand-made/lww_rewind.jsonl")
	cancelled := byID(evs, "9d0e1f2a-3b4c-4d5e-e6f7-a8b9c0d1e205#edit:replace__fc_2b3c4d5e6f").FileEdit
	if cancelled.From != transcript.FromInput || !cancelled.Fragment || cancelled.Old != "\n[memory]\nlimit = 128\n" {
		t.Errorf("cancelled edit %+v", cancelled)
	}
	if r := byID(evs, "2b7c8d9e-0f1a-4b2c-8d3e-4f5a6b7c8d92#tool_result:read_file__fc_0b1c2d3e4f").ToolResult; !strings.HasPrefix(r.Text, "File not found") {
		t.Errorf("failed read's text %q", r.Text)
	}
	// The legacy write_file's FileDiff has only the patch: the edit is the
	// CLI's own patch.
	evs = parse(t, "hand-made/legacy_edits.json")
	w := transcripttest.OfKind(evs, transcript.KindFileEdit)[0].FileEdit
	if w.From != transcript.FromToolPatch || w.Op != transcript.OpCreate || transcripttest.ApplyDiff(t, "", w.Unified) != "# Notes\n\nUse make.\n" {
		t.Errorf("write_file from its patch: %+v", w)
	}
}

// TestRewind: {"$rewindTo": id} drops the message and everything after it;
// the rewind event names the last event kept and the first dropped.
func TestRewind(t *testing.T) {
	evs := parse(t, "hand-made/lww_rewind.jsonl")
	rw := transcripttest.OfKind(evs, transcript.KindRewind)
	if len(rw) != 1 {
		t.Fatalf("%d rewinds, want 1", len(rw))
	}
	want := transcript.Rewind{
		To:      "7b8c9d0e-1f2a-4b3c-c4d5-e6f7a8b9c003", // the failed read's response sent back
		Dropped: "8c9d0e1f-2a3b-4c4d-d5e6-f7a8b9c0d104",
		Turns:   1,
	}
	if diff := cmp.Diff(want, *rw[0].Rewind); diff != "" {
		t.Errorf("rewind (-want +got):\n%s", diff)
	}
	if rw[0].ParentID != want.To || byID(evs, want.To) == nil || byID(evs, want.Dropped) == nil {
		t.Errorf("the rewind's ids do not name events (parent %q)", rw[0].ParentID)
	}
	// The prompt after it is a new turn.
	i := slicesIndex(evs, rw[0].EventID)
	if next := evs[i+1]; next.UserTurn == nil || !strings.HasPrefix(next.UserTurn.Text, "Remove the memory section") {
		t.Errorf("after the rewind: %s", next.Kind)
	}

	// An id the conversation does not hold clears it (as the CLI's loader
	// does), and says only the id.
	data := []byte(`{"sessionId":"s","projectHash":"p","startTime":"t"}
{"id":"a","timestamp":"t1","type":"user","content":"first"}
{"id":"b","timestamp":"t2","type":"gemini","content":"reply"}
{"$rewindTo":"zzz"}
{"id":"c","timestamp":"t3","type":"user","content":"again"}
{"$rewindTo":"c"}
`)
	evs, _ = transcript.ParseBytes(New(), "r.jsonl", data, true)
	rw = transcripttest.OfKind(evs, transcript.KindRewind)
	got := []transcript.Rewind{*rw[0].Rewind, *rw[1].Rewind}
	if diff := cmp.Diff([]transcript.Rewind{{Dropped: "zzz", Turns: 1}, {Dropped: "c", Turns: 1}}, got); diff != "" {
		t.Errorf("rewinds (-want +got):\n%s", diff)
	}
}

func slicesIndex(evs []transcript.Event, id string) int {
	for i, e := range evs {
		if e.EventID == id {
			return i
		}
	}
	return -1
}

// TestSet: {"$set": …} records update the session (its id, its folders)
// and are kept as unknown (unmapped); a checkpoint ($set.messages) gives
// events for the messages it holds that were never read, none for those
// it rewrote (masked tool outputs, rewritten parts), and a compaction for
// the summary that replaced old turns.
func TestSet(t *testing.T) {
	evs := parse(t, "hand-made/lww_rewind.jsonl")
	last := evs[len(evs)-1]
	if last.Project.Cwd != "/home/dev/work/demo-project" {
		t.Errorf("cwd after $set.directories: %q", last.Project.Cwd)
	}
	var sets []string
	for _, e := range evs {
		if e.Unknown != nil && e.Unknown.RawType == "$set" {
			sets = append(sets, string(e.Unknown.Raw))
		}
	}
	if len(sets) != 6 || !strings.Contains(sets[4], `"summary"`) {
		t.Errorf("$set records kept: %q", sets)
	}
	// The first checkpoint is the CLI's session context: an injected turn.
	first := transcripttest.OfKind(evs, transcript.KindUserTurn)[0]
	if first.UserTurn.Meta != transcript.MetaInjected || first.Provenance.Pointer != "/$set/messages/0" || first.Provenance.Line != 2 {
		t.Errorf("session context: meta %q pointer %q line %d", first.UserTurn.Meta, first.Provenance.Pointer, first.Provenance.Line)
	}

	evs = parse(t, "hand-made/compress_mask.jsonl")
	var fromCheckpoints []string
	for _, e := range evs {
		if e.Provenance.Pointer != "" {
			fromCheckpoints = append(fromCheckpoints, string(e.Kind)+" "+e.Provenance.Pointer)
		}
	}
	want := []string{"compaction /$set/messages/0", "assistant_turn /$set/messages/1"}
	if diff := cmp.Diff(want, fromCheckpoints); diff != "" {
		t.Errorf("events from checkpoints (-want +got):\n%s", diff)
	}
	c := transcripttest.OfKind(evs, transcript.KindCompaction)[0].Compaction
	if !strings.Contains(c.Summary, "bazel must never be added") {
		t.Errorf("compaction summary %q", c.Summary)
	}
	for _, e := range transcripttest.OfKind(evs, transcript.KindToolResult) {
		if strings.Contains(e.ToolResult.Text, "tool_output_masked") || e.Replaces != "" {
			t.Errorf("the masked output made a new result: %s", e.EventID)
		}
	}
	if n := len(transcripttest.OfKind(evs, transcript.KindToolResult)); n != 1 {
		t.Errorf("%d tool results, want 1", n)
	}
}

// TestUserTurns: what the person typed is told from what the CLI added:
// the session context, hook output around the prompt, the responses sent
// back to the model.
func TestUserTurns(t *testing.T) {
	type row struct{ Text, Meta string }
	var got []row
	for _, e := range transcripttest.OfKind(parse(t, "0.61.0/d3_resume_id.1.jsonl"), transcript.KindUserTurn) {
		text, _, _ := strings.Cut(e.UserTurn.Text, "\n")
		got = append(got, row{text, e.UserTurn.Meta})
	}
	want := []row{
		{"<session_context>", "injected"},
		{"Remember the number 42. [[S:turn1]]", ""},
		{"What number did I ask you to remember? [[S:turn2]]", ""},
		{"And once more? [[S:turn2]]", ""},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("user turns (-want +got):\n%s", diff)
	}
	evs := parse(t, "0.61.0/b_write_edit.jsonl")
	prompt := byID(evs, "84eecfcb-479b-46b1-8651-27c8c39d3863")
	if prompt.UserTurn.Text != "Create hello.txt then edit it. [[S:write_edit]]" {
		t.Errorf("prompt text %q", prompt.UserTurn.Text)
	}
	if _, ok := prompt.Extra["displayContent"]; !ok || prompt.Extra["content"] == nil {
		t.Errorf("the hook context is not kept: extra %v", prompt.Extra)
	}
	if prompt.Project.Cwd != "/home/dev/work/demo-project" {
		t.Errorf("cwd from the session context: %q", prompt.Project.Cwd)
	}
}

// TestSubagent: a subagent's chat file (kind "subagent", in
// chats/<parent session>/) gives events of the parent's session, marked
// with the subagent's own session id as agent id — the shape Claude Code's
// subagents have, so the pipeline joins them to the session that started
// them.
func TestSubagent(t *testing.T) {
	const parent = "5a6b7c8d-9e0f-4a1b-8c2d-3e4f5a6b7c8d"
	evs := parse(t, "hand-made/subagent/"+parent+"/investigator-5b6c7d8e.jsonl")
	for _, e := range evs {
		if e.SessionID != parent || e.AgentID != "investigator-5b6c7d8e" || !e.Sidechain || e.Project.Cwd != "/home/dev/work/demo-project" {
			t.Errorf("%s %s: session %q agent %q sidechain %v cwd %q", e.Kind, e.EventID, e.SessionID, e.AgentID, e.Sidechain, e.Project.Cwd)
		}
	}
	if evs[0].EventID != "investigator-5b6c7d8e#start" {
		t.Errorf("the start's id is %s", evs[0].EventID)
	}
	// Away from a folder that names a session, the subagent's own id is all
	// there is.
	data, _ := os.ReadFile(filepath.Join(fixtureDir, "hand-made", "subagent", parent, "investigator-5b6c7d8e.jsonl"))
	evs, _ = transcript.ParseBytes(New(), "/tmp/investigator-5b6c7d8e.jsonl", data, true)
	if e := evs[len(evs)-1]; e.SessionID != "investigator-5b6c7d8e" || e.AgentID != "investigator-5b6c7d8e" {
		t.Errorf("elsewhere: session %q agent %q", e.SessionID, e.AgentID)
	}
	for _, tt := range []struct{ file, want string }{
		{`C:\Users\dev\.gemini\tmp\p\chats\` + parent + `\x.jsonl`, parent},
		{"chats/" + strings.ToUpper(parent) + "/x.jsonl", strings.ToUpper(parent)},
		{"chats/session-2026-01-01T00-00-5a6b7c8d.jsonl", ""},
		{"x.jsonl", ""},
		{"chats/5a6b7c8d-9e0f-4a1b-8c2d-3e4f5a6b7c8/x.jsonl", ""},
	} {
		if got := parentSession(tt.file); got != tt.want {
			t.Errorf("parentSession(%q) = %q, want %q", tt.file, got, tt.want)
		}
	}
	if th := transcripttest.OfKind(evs, transcript.KindAssistantTurn)[0].AssistantTurn.Thinking; th != "Searching\n\nLooking for the backend setting." {
		t.Errorf("thinking %q", th)
	}
}

// TestLegacy: a legacy document is framed into its head, one record per
// message and its last members; the events are those of the same messages
// in a JSONL file, pointing at /messages/<i>.
func TestLegacy(t *testing.T) {
	evs := parse(t, "legacy/tool_calls_with_results.json")
	type row struct{ Kind, Pointer, Session string }
	var got []row
	for _, e := range evs {
		got = append(got, row{string(e.Kind), e.Provenance.Pointer, e.SessionID})
	}
	want := []row{
		{"unknown", "", ""}, // the head names no session: this file puts sessionId after the messages
		{"user_turn", "/messages/0", ""},
		{"assistant_turn", "/messages/1", ""},
		{"tool_call", "/messages/1", ""},
		{"tool_result", "/messages/1", ""},
		{"tool_call", "/messages/1", ""},
		{"tool_result", "/messages/1", ""},
		{"session_start", "", "sess-uuid-tool-results"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}

	evs = parse(t, "legacy/small.json")
	if evs[0].Kind != transcript.KindSessionStart || evs[0].SessionID != "session-2026-01-16T18-34-3739ef95" ||
		evs[0].Provenance.Offset != 0 || evs[0].Provenance.Line != 0 {
		t.Errorf("small.json starts with %+v", evs[0])
	}
	data, _ := os.ReadFile(filepath.Join(fixtureDir, "legacy", "small.json"))
	for _, e := range evs[1:] {
		p := e.Provenance
		if got := string(data[p.Offset : p.Offset+int64(p.Length)]); !strings.HasPrefix(got, "{") || !strings.HasSuffix(got, "}") {
			t.Errorf("%s points at %q", e.EventID, got)
		}
	}

	// The same document on one line (the CLI's loader accepts that too)
	// gives the same events, offsets aside.
	compact := bytes.Join(bytes.Fields(data), []byte(" "))
	evs2, _ := transcript.ParseBytes(NewLegacy(), "legacy/small.json", compact, true)
	strip := func(evs []transcript.Event) []transcript.Event {
		out := make([]transcript.Event, len(evs))
		for i, e := range evs {
			e.Provenance.Offset, e.Provenance.Length = 0, 0
			e.Extra = nil
			if e.Unknown != nil {
				u := *e.Unknown
				u.Raw, u.Text = nil, ""
				e.Unknown = &u
			}
			out[i] = e
		}
		return out
	}
	a, _ := transcript.Marshal(strip(evs))
	b, _ := transcript.Marshal(strip(evs2))
	if diff := cmp.Diff(string(a), string(b)); diff != "" {
		t.Errorf("one line vs pretty-printed (-pretty +one line):\n%s", diff)
	}

	// Read as a JSON line by the JSONL adapter, the one-line document is a
	// header holding a checkpoint: the same conversation.
	evs3, _ := transcript.ParseBytes(New(), "legacy/small.json", compact, true)
	var kinds []string
	for _, e := range evs3 {
		kinds = append(kinds, string(e.Kind)+" "+e.Provenance.Pointer)
	}
	if diff := cmp.Diff([]string{"session_start ", "user_turn /messages/0", "assistant_turn /messages/1"}, kinds); diff != "" {
		t.Errorf("one-line document as JSONL (-want +got):\n%s", diff)
	}

	// A document that is not a ConversationRecord is one unknown record.
	evs = parse(t, "legacy/schema_drift.json")
	if len(evs) != 1 || evs[0].Unknown == nil || evs[0].Unknown.Reason != transcript.ReasonUnrecognized {
		t.Errorf("schema_drift.json: %d events, first %+v", len(evs), evs[0])
	}
	// The summary after the messages is kept.
	evs = parse(t, "hand-made/legacy_edits.json")
	if e := evs[len(evs)-1]; e.Unknown == nil || !strings.Contains(e.Unknown.Text, `"summary": "Write the notes file"`) {
		t.Errorf("the document's last members: %+v", e)
	}
}

// TestLegacyResume reads a legacy document stopped at each of its record
// boundaries and resumed from a saved position: the events of one read.
func TestLegacyResume(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(fixtureDir, "legacy", "large.json"))
	if err != nil {
		t.Fatal(err)
	}
	a := NewLegacy()
	full, _ := transcript.ParseBytes(a, "large.json", data, true)
	want, _ := transcript.Marshal(full)
	for _, e := range full {
		at := e.Provenance.Offset
		head, pos := transcript.ParseBytes(a, "large.json", data[:at], false)
		if pos.Offset != at {
			t.Fatalf("a read of %d bytes stopped at %d", at, pos.Offset)
		}
		pos = transcripttest.SavedPosition(t, pos)
		tail, _, err := transcript.ReadAll(a, bytes.NewReader(data[at:]), pos, true)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := transcript.Marshal(append(head, tail...))
		if !bytes.Equal(got, want) {
			t.Fatalf("resumed at %d:\n%s", at, cmp.Diff(string(want), string(got)))
		}
	}
}

func TestFingerprint(t *testing.T) {
	a, l := New(), NewLegacy()
	gem := func(s string) transcript.Variant { return transcript.Variant{Source: transcript.GeminiCLI, Schema: s} }
	none := transcript.Variant{Source: transcript.GeminiCLI}
	tests := []struct {
		line       string
		jsonl, leg transcript.Variant
	}{
		{`{"sessionId":"s","projectHash":"p","startTime":"t","lastUpdated":"t","kind":"main"}`, gem(SchemaJSONL), gem(SchemaJSON)},
		{`{"id":"m","timestamp":"t","type":"user","content":"hi"}`, gem(SchemaJSONL), gem(SchemaJSON)},
		{`{"id":"m","timestamp":"t","type":"gemini","content":"","toolCalls":[]}`, gem(SchemaJSONL), gem(SchemaJSON)},
		{`{"$set":{"lastUpdated":"t"}}`, gem(SchemaJSONL), gem(SchemaJSON)},
		{`{"$rewindTo":"m"}`, gem(SchemaJSONL), gem(SchemaJSON)},
		{`{"sessionId":"s","projectHash":"p","messages":[]}`, gem(SchemaJSON), gem(SchemaJSON)},
		{"{\n  \"sessionId\": \"s\",\n  \"projectHash\": \"p\",\n  \"messages\": [", none, gem(SchemaJSON)},
		{"],\n  \"summary\": \"x\"\n}", none, gem(SchemaJSON)},
		// Codex records.
		{`{"timestamp":"2026-08-01T10:00:00.000Z","type":"session_meta","payload":{"id":"0199","cwd":"/w","originator":"codex_cli_rs","cli_version":"0.149.0"}}`, none, none},
		{`{"timestamp":"t","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"hi"}]}}`, none, none},
		// Claude Code records.
		{`{"type":"user","uuid":"u","sessionId":"s","version":"2.1.197","message":{"role":"user","content":"hi"}}`, none, none},
		{`{"type":"summary","summary":"t","leafUuid":"u"}`, none, none},
		// Other shapes.
		{`{"id":"m","type":"user.message","data":{}}`, none, none},
		{`{"type":"gemini"}`, none, none},
		{`not json`, none, none},
		{`[1,2]`, none, none},
	}
	for _, tt := range tests {
		rec := transcript.Record{Data: []byte(tt.line)}
		if got := a.Fingerprint(rec); got != tt.jsonl {
			t.Errorf("Adapter.Fingerprint(%s) = %+v, want %+v", tt.line, got, tt.jsonl)
		}
		if got := l.Fingerprint(rec); got != tt.leg {
			t.Errorf("Legacy.Fingerprint(%s) = %+v, want %+v", tt.line, got, tt.leg)
		}
	}
}

// TestNotClaimingOthers: no record of the Claude Code fixtures is taken for
// Gemini CLI's.
func TestNotClaimingOthers(t *testing.T) {
	a := New()
	n := 0
	for _, fx := range transcripttest.Load(t, "../../fixtures/claude-code", ".jsonl") {
		for i, l := range bytes.Split(fx.Data, []byte("\n")) {
			if len(bytes.TrimSpace(l)) == 0 {
				continue
			}
			n++
			if v := a.Fingerprint(transcript.Record{Data: l}); v.Schema != "" {
				t.Errorf("%s line %d taken for %s", fx.Name, i+1, v.Schema)
			}
		}
	}
	if n < 100 {
		t.Fatalf("only %d Claude Code records read", n)
	}
	// And every record of the real Gemini CLI files is recognised.
	for _, fx := range fixtures(t) {
		if !strings.HasPrefix(fx.Name, "0.61.0/") {
			continue
		}
		for i, l := range bytes.Split(bytes.TrimSpace(fx.Data), []byte("\n")) {
			if v := a.Fingerprint(transcript.Record{Data: l}); v.Schema != SchemaJSONL {
				t.Errorf("%s line %d: %+v", fx.Name, i+1, v)
			}
		}
	}
}

func TestForFile(t *testing.T) {
	a := New()
	if _, ok := a.ForFile("/x/chats/session-2026-01-01T10-00-abcd1234.json").(*Legacy); !ok {
		t.Error("a .json file is not read by Legacy")
	}
	if got := a.ForFile("/x/chats/session-2026-01-01T10-00-abcd1234.jsonl"); got != transcript.Adapter(a) {
		t.Error("a .jsonl file is not read by the JSONL adapter")
	}
}

func FuzzParse(f *testing.F) {
	transcripttest.Seeds(f, fixtures(f))
	a := New()
	f.Fuzz(func(t *testing.T, data []byte) {
		transcripttest.Fuzz(t, a, data)
	})
}
