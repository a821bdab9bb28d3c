package claudecode

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

var _ transcript.Adapter = (*Adapter)(nil)

const fixtureDir = "../../fixtures/claude-code"

func fixtures(t testing.TB) []transcripttest.Fixture {
	return transcripttest.Load(t, fixtureDir, ".jsonl")
}

// TestInvariants runs the shared suite on every Claude Code fixture and on
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

// TestRealEditsReplay checks the file edits of the run of the real Claude Code
// 2.1.197: applied in order to the file the run started without, they give
// the file the run ended with — hello.txt written as "hello world" and
// "second line", then its first line edited to "hello mock world".
func TestRealEditsReplay(t *testing.T) {
	edits := transcripttest.OfKind(parse(t, "2.1.197/b_write_edit.jsonl"), transcript.KindFileEdit)
	if len(edits) != 2 {
		t.Fatalf("got %d file edits, want 2", len(edits))
	}
	wantUnified := []string{
		"--- /dev/null\n+++ /home/dev/work/demo-project/hello.txt\n@@ -0,0 +1,2 @@\n+hello world\n+second line\n",
		"--- /home/dev/work/demo-project/hello.txt\n+++ /home/dev/work/demo-project/hello.txt\n@@ -1,2 +1,2 @@\n-hello world\n+hello mock world\n second line\n",
	}
	file := ""
	for i, e := range edits {
		fe := e.FileEdit
		if diff := cmp.Diff(wantUnified[i], fe.Unified); diff != "" {
			t.Errorf("edit %d diff (-want +got):\n%s", i, diff)
		}
		if !fe.OK || fe.Path != "/home/dev/work/demo-project/hello.txt" {
			t.Errorf("edit %d: ok %v path %q", i, fe.OK, fe.Path)
		}
		file = transcripttest.ApplyDiff(t, file, fe.Unified)
		if i == 0 && file != fe.New {
			t.Errorf("after the Write the file is %q, the tool wrote %q", file, fe.New)
		}
	}
	if want := "hello mock world\nsecond line\n"; file != want {
		t.Errorf("after both edits the file is %q, want %q", file, want)
	}
	if got := []string{edits[0].FileEdit.Op, edits[1].FileEdit.Op}; !cmp.Equal(got, []string{"create", "update"}) {
		t.Errorf("ops %v", got)
	}
	if got := []string{edits[0].FileEdit.From, edits[1].FileEdit.From}; !cmp.Equal(got, []string{"content", "tool_patch"}) {
		t.Errorf("from %v", got)
	}
}

// TestEditsMatchOriginals checks every edit that came with the file's
// content before it: the diff applied to that content gives what the tool's
// old_string/new_string (or edits) make of it.
func TestEditsMatchOriginals(t *testing.T) {
	n := 0
	for _, fx := range fixtures(t) {
		evs, _ := transcript.ParseBytes(New(), fx.Name, fx.Data, true)
		results := map[string]*transcript.ToolResult{}
		for _, e := range evs {
			if e.ToolResult != nil {
				results[e.ToolResult.CallID] = e.ToolResult
			}
			if e.FileEdit == nil || !e.FileEdit.OK || e.FileEdit.Fragment {
				continue
			}
			res := rawjson.AsObject(results[e.FileEdit.CallID].Structured)
			original, ok := rawjson.String(res.Get("originalFile"))
			if e.FileEdit.Tool == "MultiEdit" {
				original, ok = rawjson.String(res.Get("originalFileContents"))
			}
			if !ok {
				continue
			}
			want := original
			switch e.FileEdit.Tool {
			case "Edit":
				want = replace(original, rawjson.AsString(res.Get("oldString")), rawjson.AsString(res.Get("newString")), rawjson.Bool(res.Get("replaceAll")))
			case "MultiEdit":
				for _, raw := range rawjson.AsArray(res.Get("edits")) {
					m := rawjson.AsObject(raw)
					want = replace(want, rawjson.AsString(m.Get("old_string")), rawjson.AsString(m.Get("new_string")), rawjson.Bool(m.Get("replace_all")))
				}
			case "Write":
				want = rawjson.AsString(res.Get("content"))
			}
			if got := transcripttest.ApplyDiff(t, original, e.FileEdit.Unified); got != want {
				t.Errorf("%s %s: the diff applied to the original gives\n%q\nwant\n%q", fx.Name, e.EventID, got, want)
			}
			n++
		}
	}
	if n < 5 {
		t.Fatalf("checked %d edits against their originals, want at least 5", n)
	}
}

// TestIncrementalRealRun reads the real session as it stood after its first
// turn, then resumes from where that read stopped on the file as it stood at
// the end (resumed, continued, compacted): the events are those of one read
// of the final file.
func TestIncrementalRealRun(t *testing.T) {
	transcripttest.IncrementalRead(t, New(), filepath.Join(fixtureDir, "2.1.197"),
		"d1_turn1.jsonl", "d2_resume.jsonl", "d3_continue.jsonl", "e_compact.jsonl", "e2_after_compact.jsonl")
}

// TestPartialLastLine: a line still being written is left for the next read.
func TestPartialLastLine(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(fixtureDir, "2.1.197", "c_bash.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	transcripttest.PartialLastLine(t, New(), "c.jsonl", data, 40) // 40 bytes into the last line
}

func TestSplitAssistantMessages(t *testing.T) {
	evs := parse(t, "2.0.69/thinking_edit.jsonl")
	turns := transcripttest.OfKind(evs, transcript.KindAssistantTurn)
	type row struct {
		ID        string
		Continued bool
		Usage     bool
	}
	var got []row
	for _, e := range turns {
		got = append(got, row{e.AssistantTurn.MessageID, e.AssistantTurn.Continued, e.AssistantTurn.Usage != nil})
	}
	want := []row{
		{"msg_01HZjNL8G7uFnVTmY94Us89M", false, true},
		{"msg_01HZjNL8G7uFnVTmY94Us89M", true, false},
		{"msg_015DjLVTAzkG7wo8z1VW4D24", false, true},
		{"msg_015DjLVTAzkG7wo8z1VW4D24", true, false},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("assistant turns (-want +got):\n%s", diff)
	}
	if turns[0].AssistantTurn.Thinking == "" || turns[0].AssistantTurn.Text != "" {
		t.Errorf("first fragment: thinking %q text %q", turns[0].AssistantTurn.Thinking, turns[0].AssistantTurn.Text)
	}
}

func TestRewind(t *testing.T) {
	evs := parse(t, "hand-made/rewind_fork.jsonl")
	rw := transcripttest.OfKind(evs, transcript.KindRewind)
	got := []transcript.Rewind{}
	for _, e := range rw {
		got = append(got, *e.Rewind)
	}
	u := func(n string) string { return "00000000-0000-4000-8000-00000000000" + n }
	want := []transcript.Rewind{{To: u("2"), Dropped: u("3")}, {To: u("2"), Dropped: u("6")}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("rewinds (-want +got):\n%s", diff)
	}
	// Each rewind comes right before the prompt that made the fork.
	for i, e := range evs {
		if e.Kind == transcript.KindRewind && (i+1 >= len(evs) || evs[i+1].Kind != transcript.KindUserTurn || evs[i+1].EventID+"#rewind" != e.EventID) {
			t.Errorf("rewind %s is not followed by its user turn", e.EventID)
		}
	}
}

func TestCompaction(t *testing.T) {
	evs := parse(t, "2.1.197/e_compact.jsonl")
	cs := transcripttest.OfKind(evs, transcript.KindCompaction)
	if len(cs) != 2 {
		t.Fatalf("got %d compaction events, want the boundary and the summary", len(cs))
	}
	b, s := cs[0].Compaction, cs[1].Compaction
	if b.Trigger != "manual" || b.PreTokens != 120 || b.Continues != "04050ba4-fb23-416f-8bc2-bb4296ccf676" || b.Summary != "" {
		t.Errorf("boundary %+v", b)
	}
	if !strings.Contains(s.Summary, "MOCK-COMPACT-SUMMARY") || cs[1].ParentID != cs[0].EventID {
		t.Errorf("summary %+v parent %s", s, cs[1].ParentID)
	}
	for _, e := range transcripttest.OfKind(evs, transcript.KindUserTurn) {
		if strings.Contains(e.UserTurn.Text, "MOCK-COMPACT-SUMMARY") {
			t.Errorf("the compaction summary is also a user turn: %s", e.EventID)
		}
	}
	starts := transcripttest.OfKind(evs, transcript.KindSessionStart)
	var triggers []string
	for _, e := range starts {
		triggers = append(triggers, e.SessionStart.Trigger)
	}
	if diff := cmp.Diff([]string{"startup", "resume", "compact"}, triggers); diff != "" {
		t.Errorf("session starts (-want +got):\n%s", diff)
	}
}

func TestUserTurnMeta(t *testing.T) {
	type row struct{ Text, Meta string }
	var got []row
	for _, e := range transcripttest.OfKind(parse(t, "2.1.197/e2_after_compact.jsonl"), transcript.KindUserTurn) {
		got = append(got, row{strings.SplitN(e.UserTurn.Text, ">", 2)[0], e.UserTurn.Meta})
	}
	want := []row{
		{"Remember the number 42. [[S:turn1]]", ""},
		{"What number did I ask you to remember? [[S:turn2]]", ""},
		{"And once more? [[S:turn2]]", ""},
		{"<local-command-caveat", "caveat"},
		{"<command-name", "command"},
		{"<local-command-stdout", "command_output"},
		{"Continue from where you left off.", "injected"},
		{"After compaction question. [[S:qa]]", ""},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("user turns (-want +got):\n%s", diff)
	}
	last := transcripttest.OfKind(parse(t, "1.0.111/split_messages_edits.jsonl"), transcript.KindUserTurn)
	if m := last[len(last)-1].UserTurn.Meta; m != transcript.MetaInterrupt {
		t.Errorf("the interruption's meta is %q", m)
	}
}

func TestToolFailures(t *testing.T) {
	evs := parse(t, "hand-made/failed_edit.jsonl")
	type row struct {
		Call string
		OK   bool
	}
	var results, edits []row
	for _, e := range evs {
		switch {
		case e.ToolResult != nil:
			results = append(results, row{e.ToolResult.CallID, e.ToolResult.OK})
		case e.FileEdit != nil:
			edits = append(edits, row{e.FileEdit.CallID, e.FileEdit.OK})
		}
	}
	want := []row{{"toolu_fe01", false}, {"toolu_fe02", true}, {"toolu_fe03", true}, {"toolu_fe04", false}}
	if diff := cmp.Diff(want, results); diff != "" {
		t.Errorf("tool results (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(want, edits); diff != "" {
		t.Errorf("file edits (-want +got):\n%s", diff)
	}
	fe := transcripttest.OfKind(evs, transcript.KindFileEdit)
	if f := fe[0].FileEdit; f.From != transcript.FromInput || !f.Fragment || f.Old != "teh cache" {
		t.Errorf("failed edit %+v", f)
	}
	wantNoEOL := "--- /home/dev/work/demo-project/config.ini\n+++ /home/dev/work/demo-project/config.ini\n@@ -1,3 +1,3 @@\n [cache]\n-backend = memory\n-size = 64\n+backend = sqlite\n+size = 64\n\\ No newline at end of file\n"
	if diff := cmp.Diff(wantNoEOL, fe[2].FileEdit.Unified); diff != "" {
		t.Errorf("Write without a final newline (-want +got):\n%s", diff)
	}
}

func TestReplaysAndParallelCalls(t *testing.T) {
	evs := parse(t, "hand-made/replayed_records.jsonl")
	if dup := len(transcripttest.WithReason(evs, transcript.ReasonDuplicate)); dup != 2 {
		t.Errorf("%d replayed records, want 2", dup)
	}
	names := map[string]bool{}
	for _, e := range transcripttest.OfKind(evs, transcript.KindToolResult) {
		names[e.ToolResult.Name+"/"+map[bool]string{true: "ok", false: "failed"}[e.ToolResult.OK]] = true
	}
	if !names["Bash/failed"] || !names["Read/ok"] {
		t.Errorf("results paired as %v", names)
	}
	reused := 0
	for _, e := range transcripttest.OfKind(evs, transcript.KindUserTurn) {
		if strings.HasPrefix(e.EventID, "00000000-0000-4000-8000-000000000023") {
			reused++
			if e.EventID != "00000000-0000-4000-8000-000000000023~2" {
				t.Errorf("a record reusing a uuid got id %s", e.EventID)
			}
		}
	}
	if reused != 1 {
		t.Errorf("%d user turns from the reused uuid, want 1", reused)
	}
}

// TestNullIsAbsent: a value the tool wrote as null (a call's input, a
// result's content and structured result, a compaction's metadata) is left
// out of the event, as Codex's and Gemini CLI's adapters leave it: null and
// absent give the same NDJSON.
func TestNullIsAbsent(t *testing.T) {
	const env = `"sessionId":"s1","timestamp":"2026-11-22T10:00:00.000Z","cwd":"/w","version":"2.1.197"`
	lines := []string{
		`{"type":"assistant","uuid":"a1",` + env + `,"message":{"id":"m1","role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Bash","input":null}],"usage":null}}`,
		`{"type":"user","uuid":"u1","parentUuid":"a1",` + env + `,"message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":null}]},"toolUseResult":null}`,
		`{"type":"system","subtype":"compact_boundary","uuid":"c1",` + env + `,"compactMetadata":null}`,
	}
	evs, _ := transcript.ParseBytes(New(), "test.jsonl", []byte(strings.Join(lines, "\n")+"\n"), true)
	var kinds []transcript.Kind
	for _, e := range evs {
		kinds = append(kinds, e.Kind)
		if e.Kind == transcript.KindSessionStart {
			continue
		}
		line, err := transcript.Marshal([]transcript.Event{e})
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(line, []byte(":null")) {
			t.Errorf("%s event keeps a null: %s", e.Kind, line)
		}
	}
	want := []transcript.Kind{transcript.KindSessionStart, transcript.KindToolCall, transcript.KindToolResult,
		transcript.KindCompaction}
	if diff := cmp.Diff(want, kinds); diff != "" {
		t.Errorf("kinds (-want +got):\n%s", diff)
	}
}

func TestSubagent(t *testing.T) {
	evs := parse(t, "2.1.207/subagent/0a1b2c3d-4e5f-4061-8071-2a3b4c5d6e7f/subagents/agent-a0ad4f44468bdf20d.jsonl")
	for _, e := range evs {
		if e.AgentID != "a0ad4f44468bdf20d" || !e.Sidechain {
			t.Errorf("%s %s: agent %q sidechain %v", e.Kind, e.EventID, e.AgentID, e.Sidechain)
		}
	}
	if evs[0].Kind != transcript.KindSessionStart || !evs[0].SessionStart.Synthesized {
		t.Errorf("the subagent's stream starts with %s", evs[0].Kind)
	}
}

func TestFingerprint(t *testing.T) {
	a := New()
	tests := []struct {
		line string
		want transcript.Variant
	}{
		{`{"type":"user","uuid":"u","sessionId":"s","version":"2.1.197"}`, transcript.Variant{Source: transcript.ClaudeCode, Schema: "claude-code/jsonl/v2.1", ToolVersion: "2.1.197"}},
		{`{"type":"summary","summary":"t","leafUuid":"u"}`, transcript.Variant{Source: transcript.ClaudeCode, Schema: "claude-code/jsonl"}},
		{`{"type":"mode","mode":"normal","sessionId":"s"}`, transcript.Variant{Source: transcript.ClaudeCode, Schema: "claude-code/jsonl"}},
		{`{"timestamp":"t","type":"session_meta","payload":{"id":"x"}}`, transcript.Variant{Source: transcript.ClaudeCode}},
		{`{"id":"m","timestamp":"t","type":"user","content":"hi"}`, transcript.Variant{Source: transcript.ClaudeCode}},
		{`not json`, transcript.Variant{Source: transcript.ClaudeCode}},
		{`{"uuid":"u"}`, transcript.Variant{Source: transcript.ClaudeCode}},
	}
	for _, tt := range tests {
		if got := a.Fingerprint(transcript.Record{Data: []byte(tt.line)}); got != tt.want {
			t.Errorf("Fingerprint(%s) = %+v, want %+v", tt.line, got, tt.want)
		}
	}
}

func FuzzParse(f *testing.F) {
	transcripttest.Seeds(f, fixtures(f))
	a := New()
	f.Fuzz(func(t *testing.T, data []byte) {
		transcripttest.Fuzz(t, a, data)
	})
}

// TestParseAllocations: the keys a record maps are listed without a map of
// their own for each record, and a record with no unmapped key makes no map
// for them (a plain user turn: 20 allocations before, 16 now).
func TestParseAllocations(t *testing.T) {
	line := []byte(`{"type":"user","uuid":"u1","parentUuid":null,"sessionId":"s1","timestamp":"2026-01-02T03:04:05Z","cwd":"/w","gitBranch":"main","version":"2.1.0","isSidechain":false,"message":{"role":"user","content":"why does the build fail"}}`)
	a := New()
	ctx := transcript.Start(a, "f.jsonl").Context
	n := 0
	allocs := testing.AllocsPerRun(50, func() {
		n++
		rec := transcript.Record{File: "f.jsonl", Offset: int64(n * 300), Line: n,
			Data: bytes.Replace(line, []byte(`"u1"`), []byte(`"u`+strings.Repeat("x", n%7)+`"`), 1)}
		if evs := a.Parse(rec, ctx); len(evs) == 0 {
			t.Fatal("no events")
		}
	})
	t.Logf("%.1f allocations a record", allocs)
	if allocs > 17 {
		t.Errorf("%.1f allocations to parse a user record, want at most 17", allocs)
	}
}
