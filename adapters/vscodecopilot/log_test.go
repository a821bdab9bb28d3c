package vscodecopilot

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cortexmem/cortex/transcript"
	"github.com/cortexmem/cortex/transcript/transcripttest"
)

const demo = "/home/dev/work/demo-project/"

// TestAgentEdits checks the file edits of the hand-made agent session:
// which call made each, where its diff came from, and that the exact ones
// (the file's line numbers) applied to the files the session started with
// give the files it left.
func TestAgentEdits(t *testing.T) {
	evs := parse(t, "hand-made/agent_edits.jsonl")
	type row struct {
		Tool, Path, Op, From string
		OK, Fragment         bool
		Added, Removed       int
		Agent                string
	}
	var got []row
	files := map[string]string{
		demo + "main.go":   "package main\n\nimport \"fmt\"\n\nfunc main() {\n\tfmt.Println(\"hello world\")\n}\n",
		demo + "README.md": "# demo\nA demo project.\n",
	}
	for _, e := range transcripttest.OfKind(evs, transcript.KindFileEdit) {
		fe := e.FileEdit
		got = append(got, row{fe.Tool, strings.TrimPrefix(fe.Path, demo), fe.Op, fe.From, fe.OK, fe.Fragment, fe.Added, fe.Removed, e.AgentID})
		if fe.OK && !fe.Fragment {
			files[fe.Path] = transcripttest.ApplyDiff(t, files[fe.Path], fe.Unified)
		}
	}
	want := []row{
		{"create_file", "greet.go", "create", "content", true, false, 5, 0, ""},
		{"replace_string_in_file", "main.go", "update", "tool_patch", true, false, 1, 1, ""},
		{"replace_string_in_file", "main.go", "update", "input", false, true, 1, 1, ""},
		{"insert_edit_into_file", "README.md", "update", "tool_patch", true, false, 2, 0, ""},
		{"multi_replace_string_in_file", "greet.go", "update", "input", true, true, 1, 1, ""},
		{"multi_replace_string_in_file", "greet.go", "update", "input", true, true, 1, 1, ""},
		{"copilot_createFile", "greet_test.go", "create", "content", true, false, 9, 0, "inv-sub"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("edits (-want +got):\n%s", diff)
	}
	wantFiles := map[string]string{
		demo + "main.go":       "package main\n\nimport \"fmt\"\n\nfunc main() {\n\tfmt.Println(greet(\"world\"))\n}\n",
		demo + "README.md":     "# demo\n\nRun `go run .` to be greeted.\nA demo project.\n",
		demo + "greet.go":      "package main\n\nfunc greet(name string) string {\n\treturn \"hello \" + name\n}\n",
		demo + "greet_test.go": "package main\n\nimport \"testing\"\n\nfunc TestGreet(t *testing.T) {\n\tif got := greet(\"go\"); got != \"hello go\" {\n\t\tt.Fatal(got)\n\t}\n}\n",
	}
	if diff := cmp.Diff(wantFiles, files); diff != "" {
		t.Errorf("files after the exact edits (-want +got):\n%s", diff)
	}
	// The failed call's result says so, from the extension's error text.
	for _, e := range transcripttest.OfKind(evs, transcript.KindToolResult) {
		if wantOK := !strings.HasPrefix(e.ToolResult.Text, "ERROR"); e.ToolResult.OK != wantOK {
			t.Errorf("%s: ok %v for %q", e.EventID, e.ToolResult.OK, e.ToolResult.Text)
		}
	}
}

// TestRequests checks how the log's requests read: a prompt as soon as the
// request appears, the response once final (not while it streams), a
// cancelled response, /compact as a command whose summary is a compaction,
// the subagent's events marked, and the entries between as unknown
// (unmapped).
func TestRequests(t *testing.T) {
	evs := parse(t, "hand-made/agent_edits.jsonl")
	type row struct{ Kind, Text, Meta, Stop string }
	var got []row
	for _, e := range evs {
		switch {
		case e.UserTurn != nil:
			got = append(got, row{"user", e.UserTurn.Text, e.UserTurn.Meta, ""})
		case e.AssistantTurn != nil:
			got = append(got, row{"assistant", e.AssistantTurn.Text, "", e.AssistantTurn.StopReason})
		case e.Compaction != nil:
			got = append(got, row{"compaction", e.Compaction.Trigger, "", ""})
		}
	}
	want := []row{
		{"user", "Add a greeting helper in greet.go and call it from main.go.", "", ""},
		{"assistant", "I'll create greet.go.", "", ""},
		{"assistant", "Now main.go calls it.", "", ""},
		{"assistant", "The call was already there; documenting it.", "", ""},
		{"assistant", "greet.go holds the helper; main.go calls it and the README says how to run it.", "", ""},
		{"user", "Rename greet to hello everywhere.", "", ""},
		{"assistant", "Renaming greet", "", "cancelled"},
		{"user", "/compact", transcript.MetaCommand, ""},
		{"assistant", "Compacted conversation.", "", ""},
		{"compaction", "manual", "", ""},
		{"user", "Add a test for greet with a subagent.", "", ""},
		{"assistant", "I'll have a subagent write it.", "", ""},
		{"assistant", "The subagent added greet_test.go.", "", ""},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("turns (-want +got):\n%s", diff)
	}
	// The first request's response comes at the line that made it final
	// (its modelState), not while it streamed.
	first := transcripttest.OfKind(evs, transcript.KindAssistantTurn)[0]
	if first.Provenance.Line != 20 || first.Provenance.Pointer != "/requests/0" {
		t.Errorf("the first response comes from line %d, %q", first.Provenance.Line, first.Provenance.Pointer)
	}
	if first.Project.Cwd != "/home/dev/work/demo-project" {
		t.Errorf("cwd %q", first.Project.Cwd)
	}
	for _, e := range evs {
		if e.Kind == transcript.KindUnknown && (e.Unknown.Reason != transcript.ReasonUnmapped || !strings.Contains(e.Unknown.RawType, "/")) {
			t.Errorf("line %d: unknown %+v", e.Provenance.Line, e.Unknown)
		}
		if (e.AgentID != "") != strings.Contains(e.EventID, "#subagent:") || e.Sidechain != (e.AgentID != "") {
			t.Errorf("%s: agent %q sidechain %v", e.EventID, e.AgentID, e.Sidechain)
		}
	}
}

// TestRewind: requests cut off by a push from an earlier index (the person
// edited and resent a prompt) give a rewind naming the first event of the
// dropped request and the last kept; the resent prompt follows.
func TestRewind(t *testing.T) {
	evs := parse(t, "hand-made/rewind.jsonl")
	rw := transcripttest.OfKind(evs, transcript.KindRewind)
	if len(rw) != 1 {
		t.Fatalf("%d rewinds", len(rw))
	}
	users := transcripttest.OfKind(evs, transcript.KindUserTurn)
	answers := transcripttest.OfKind(evs, transcript.KindAssistantTurn)
	want := transcript.Rewind{To: answers[0].EventID, Dropped: users[1].EventID, Turns: 1}
	if diff := cmp.Diff(want, *rw[0].Rewind); diff != "" {
		t.Errorf("rewind (-want +got):\n%s", diff)
	}
	if len(users) != 3 || users[2].UserTurn.Text != "Make greet polite." || users[2].Provenance.Line != rw[0].Provenance.Line {
		t.Errorf("after the rewind: %+v", users[len(users)-1].UserTurn)
	}
}

// TestIncrementalStreaming reads the log as it stood while the first
// request's response streamed, then, from the position saved, the log
// after it: the request in progress is carried in the saved state, and the
// events are those of one read.
func TestIncrementalStreaming(t *testing.T) {
	evs := transcripttest.IncrementalRead(t, New(), filepath.Join(fixtureDir, "hand-made", "resume"),
		"d1_streaming.jsonl", "d2_done.jsonl")
	if n := len(transcripttest.OfKind(evs, transcript.KindFileEdit)); n != 7 {
		t.Errorf("%d file edits", n)
	}
}

// TestDocument reads the real single-document session: the session id
// written after the requests is known to every event (one document is one
// record), and the replace call's edit is a fragment (its text edit ends
// inside a line).
func TestDocument(t *testing.T) {
	evs := parse(t, "0.31.5/three_requests.json")
	for _, e := range evs {
		if e.SessionID != "331fed7f-cfd6-409c-8502-06a56322b636" {
			t.Errorf("%s: session %q", e.EventID, e.SessionID)
		}
	}
	edits := transcripttest.OfKind(evs, transcript.KindFileEdit)
	if len(edits) != 1 || !edits[0].FileEdit.Fragment || edits[0].FileEdit.Path != "/Users/svarlamov/projects/testing-git/index.ts" ||
		edits[0].FileEdit.Added != 1 || edits[0].FileEdit.Removed != 1 {
		t.Fatalf("edits %+v", edits)
	}
	// The log form of the same session gives the same events but for their
	// provenance.
	logEvs := parse(t, "0.31.5/three_requests_log.jsonl")
	strip := func(evs []transcript.Event) []transcript.Event {
		out := make([]transcript.Event, len(evs))
		for i, e := range evs {
			e.Provenance = transcript.Provenance{Pointer: e.Provenance.Pointer}
			out[i] = e
		}
		return out
	}
	a, err := transcript.Marshal(strip(evs))
	if err != nil {
		t.Fatal(err)
	}
	b, err := transcript.Marshal(strip(logEvs))
	if err != nil {
		t.Fatal(err)
	}
	// (Marshal writes the verbatim parts compactly: the document is
	// pretty-printed, the log not.)
	if diff := cmp.Diff(string(a), string(b)); diff != "" {
		t.Errorf("the document and its log differ (-document +log):\n%s", diff)
	}
}

// TestFrame: a document is one record; a document still being written is
// left for later; an array of sessions is one record; text is a record up
// to its line's end.
func TestFrame(t *testing.T) {
	d := NewDocument()
	doc := []byte("{\n  \"version\": 3,\n  \"requests\": [],\n  \"sessionId\": \"s\"\n}\n")
	recs, n := d.Frame(doc, false)
	if len(recs) != 1 || n != len(doc) || !bytes.Equal(recs[0].Data, bytes.TrimSpace(doc)) {
		t.Errorf("whole: %d records, consumed %d", len(recs), n)
	}
	recs, n = d.Frame(doc[:20], false)
	if len(recs) != 0 || n != 0 {
		t.Errorf("cut: %d records, consumed %d", len(recs), n)
	}
	recs, n = d.Frame(doc[:20], true)
	if len(recs) != 1 || n != 20 {
		t.Errorf("cut at the end: %d records, consumed %d", len(recs), n)
	}
	recs, _ = d.Frame([]byte("oops\n[{\"version\":3,\"requests\":[]}]"), true)
	if len(recs) != 2 || string(recs[0].Data) != "oops" || recs[1].Offset != 5 {
		t.Errorf("text then an array: %+v", recs)
	}
}

func TestFingerprint(t *testing.T) {
	vs := transcript.VSCodeCopilotChat
	tests := []struct {
		line string
		want transcript.Variant
	}{
		{`{"kind":0,"v":{"version":3,"sessionId":"s","requests":[{"requestId":"r","message":{"text":"hi"},"agent":{"extensionVersion":"0.37.6"}}]}}`, transcript.Variant{Source: vs, Schema: SchemaLog, ToolVersion: "0.37.6"}},
		{`{"kind":2,"k":["requests",0,"response"],"v":[{"value":"x"}]}`, transcript.Variant{Source: vs, Schema: SchemaLog}},
		{`{"kind":1,"k":["customTitle"],"v":"t"}`, transcript.Variant{Source: vs, Schema: SchemaLog}},
		{`{"version":3,"sessionId":"s","requests":[]}`, transcript.Variant{Source: vs, Schema: SchemaDocument}},
		{`{"kind":0,"v":{"x":1}}`, transcript.Variant{Source: vs}},
		{`{"kind":7,"k":[]}`, transcript.Variant{Source: vs}},
		{`{"kind":"a","k":[]}`, transcript.Variant{Source: vs}},
		{`{"type":"session.start","data":{},"id":"e"}`, transcript.Variant{Source: vs}},
		{`not json`, transcript.Variant{Source: vs}},
	}
	for _, tt := range tests {
		if got := New().Fingerprint(transcript.Record{Data: []byte(tt.line)}); got != tt.want {
			t.Errorf("Fingerprint(%s) = %+v, want %+v", tt.line, got, tt.want)
		}
	}
	// Detection reads the start of a file: a first entry or a document cut
	// short is still recognised.
	cut := []string{
		`{"kind":0,"v":{"version":3,"requesterUsername":"dev","requests":[{"requestId":"r","mess`,
		"{\n  \"version\": 3,\n  \"requests\": [\n    {\n      \"requestId\": \"r",
		`[ {"version":3,"requests":[{"requestId`,
	}
	for i, c := range cut {
		want := SchemaDocument
		if i == 0 {
			want = SchemaLog
		}
		if got := NewDocument().Fingerprint(transcript.Record{Data: []byte(c)}); got.Schema != want {
			t.Errorf("cut %d: %+v, want %s", i, got, want)
		}
	}
	for _, c := range []string{`{"requests":[`, `{"kind":0,"v":{"foo":1,"requests":[`, `{"version":3,"requests":7`} {
		if got := New().Fingerprint(transcript.Record{Data: []byte(c)}); got.Schema != "" {
			t.Errorf("%s read as %+v", c, got)
		}
	}
	arr := transcript.Record{Data: []byte(`[{"version":3,"sessionId":"s","requests":[]}]`)}
	if got := NewDocument().Fingerprint(arr); got.Schema != SchemaDocument {
		t.Errorf("an array of sessions: %+v", got)
	}
}

// TestLongPath: an entry whose path is far deeper than VS Code's schema is
// malformed, not followed.
func TestLongPath(t *testing.T) {
	path := strings.Repeat(`0,`, 40) + `0`
	data := []byte(`{"kind":0,"v":{"version":3,"requests":[{"requestId":"r","message":{"text":"hi"},"response":[]}]}}` + "\n" +
		`{"kind":1,"k":["requests",` + path + `],"v":1}` + "\n")
	evs, _ := transcript.ParseBytes(New(), "s.jsonl", data, true)
	last := evs[len(evs)-1]
	if last.Unknown == nil || last.Unknown.Reason != transcript.ReasonMalformed {
		t.Errorf("last event %+v", last)
	}
}
