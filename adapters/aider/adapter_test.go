package aider

import (
	"bytes"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cortexmem/cortex/transcript"
	"github.com/cortexmem/cortex/transcript/transcripttest"
)

const fixtureDir = "../../fixtures/aider"

func fixtures(t testing.TB) []transcripttest.Fixture {
	var out []transcripttest.Fixture
	for _, fx := range transcripttest.Load(t, fixtureDir, ".md", InputHistoryFile) {
		if fx.Name != "README.md" { // the folder's notes, not a history
			out = append(out, fx)
		}
	}
	return out
}

func adapterFor(name string) transcript.Adapter { return New().ForFile(name) }

// TestInvariants runs the shared suite on every chat and prompt history
// and on damaged copies of each.
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

// row is one event as the tests compare it.
func row(e transcript.Event) string {
	s := string(e.Kind)
	switch {
	case e.SessionStart != nil:
		s += " " + e.SessionID
	case e.UserTurn != nil:
		s += " [" + e.UserTurn.Meta + "] " + e.UserTurn.Text
	case e.AssistantTurn != nil:
		first, _, _ := strings.Cut(e.AssistantTurn.Text, "\n")
		s += " " + e.AssistantTurn.Model + ": " + first
	case e.ToolCall != nil:
		s += " " + e.ToolCall.Name + " " + string(e.ToolCall.Input)
	case e.FileEdit != nil:
		fe := e.FileEdit
		s += " " + fe.Tool + " " + fe.Path + " " + fe.Op
		if fe.Fragment {
			s += " fragment"
		}
		if !fe.OK {
			s += " failed"
		}
		s += " " + strings.ReplaceAll(fe.Unified, "\n", "|")
	case e.Unknown != nil:
		first, _, _ := strings.Cut(e.Unknown.Text, "\n")
		s += " " + e.Unknown.Reason + " " + e.Unknown.RawType + ": " + first
	}
	return s
}

// TestTraps reads the hand-made history: text before the first session,
// the model from "Main model", a heading and a quote inside a reply, a
// failed SEARCH/REPLACE and its retry, a file created empty, SEARCH/REPLACE
// markers and quote-like lines inside aider's own multi-line message and
// inside a fence, commands, an empty prompt, the whole and udiff formats, a
// dry run, and a prompt of two lines.
func TestTraps(t *testing.T) {
	var got []string
	for _, e := range parse(t, "hand-made/traps.md") {
		got = append(got, row(e))
	}
	want := []string{
		"unknown unrecognized before_session: -*- notes the person added by hand -*-",
		"session_start 2026-11-26 09:00:00",
		"unknown unmapped tool_output: > aider --model sonnet  ",
		"user_turn [] Use errors.Join to combine the close errors.",
		"assistant_turn anthropic/claude-sonnet-4-5: I'll combine them with `errors.Join`.",
		`tool_call search_replace {"path":"store.go","replace":"\treturn errors.Join(err1, err2)\n","search":"\treturn err1\n"}`,
		"unknown unmapped tool_output: > Tokens: 2.1k sent, 120 received. Cost: $0.01 message, $0.01 session.  ",
		"file_edit search_replace store.go update fragment failed --- store.go|+++ store.go|@@ -1,1 +1,1 @@|-\treturn err1|+\treturn errors.Join(err1, err2)|",
		"assistant_turn anthropic/claude-sonnet-4-5: The close errors are returned from `Close`:",
		`tool_call search_replace {"path":"store.go","replace":"\treturn errors.Join(errA, errB)\n","search":"\treturn errA\n"}`,
		`tool_call search_replace {"path":"notes.md","replace":"# Notes\n","search":""}`,
		"unknown unmapped tool_output: > Tokens: 2.5k sent, 90 received.  ",
		"file_edit search_replace store.go update fragment --- store.go|+++ store.go|@@ -1,1 +1,1 @@|-\treturn errA|+\treturn errors.Join(errA, errB)|",
		"file_edit search_replace notes.md create --- /dev/null|+++ notes.md|@@ -0,0 +1,1 @@|+# Notes|",
		"user_turn [] Show the usage in the README",
		"assistant_turn anthropic/claude-sonnet-4-5: README.md",
		`tool_call search_replace {"path":"README.md","replace":"#### Usage\n\u003e Run it with go run.  \n","search":"#### Usage  \n"}`,
		"unknown unmapped tool_output: > Applied edit to README.md  ",
		"file_edit search_replace README.md update fragment --- README.md|+++ README.md|@@ -1,1 +1,2 @@|-#### Usage  |+#### Usage|+> Run it with go run.  |",
		"user_turn [command] /run go test ./...",
		"unknown unmapped tool_output: > Add command output to the chat? (Y)es/(N)o [Yes]: y  ",
		"user_turn [shell] !ls",
		"user_turn [] ",
		"session_start 2026-11-26 10:00:00",
		"unknown unmapped tool_output: > Aider v0.86.1  ",
		"user_turn [] Rewrite hello.py to print goodbye",
		"assistant_turn gpt-4o-mini: hello.py",
		`tool_call whole {"content":"print(\"goodbye\")\n","path":"hello.py"}`,
		"unknown unmapped tool_output: > Applied edit to hello.py  ",
		"file_edit whole hello.py update ",
		"session_start 2026-11-26 11:00:00",
		"unknown unmapped tool_output: > Aider v0.86.1  ",
		"user_turn [] Print two, and add util.go\nin one change",
		"assistant_turn gpt-4-turbo: ```diff",
		`tool_call udiff {"hunks":[["-\tprintln(1)","+\tprintln(2)"]],"path":"main.go"}`,
		`tool_call udiff {"hunks":[["+package main"]],"path":"util.go"}`,
		"unknown unmapped tool_output: > Did not apply edit to main.go (--dry-run)  ",
		"file_edit udiff main.go update fragment failed --- main.go|+++ main.go|@@ -1,1 +1,1 @@|-\tprintln(1)|+\tprintln(2)|",
		"file_edit udiff util.go create --- /dev/null|+++ util.go|@@ -0,0 +1,1 @@|+package main|",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
}

// TestRealHistory reads the excerpt of aider's author's own history: every
// session header is a session, every "Applied edit to" of a reply's
// SEARCH/REPLACE block a file edit, and the model comes from the Models
// line.
func TestRealHistory(t *testing.T) {
	data := transcripttest.Concat(t, fixtureDir, "real/chat-history.md")
	evs := parse(t, "real/chat-history.md")
	if got, want := len(transcripttest.OfKind(evs, transcript.KindSessionStart)), bytes.Count(data, []byte("\n"+headerPrefix)); got != want {
		t.Errorf("%d sessions, the file has %d headers", got, want)
	}
	edits := transcripttest.OfKind(evs, transcript.KindFileEdit)
	applied := 0
	for _, e := range edits {
		if e.FileEdit.OK {
			applied++
		}
	}
	lines := bytes.Count(data, []byte("\n> Applied edit to "))
	if applied == 0 || applied < lines/2 {
		t.Errorf("%d applied edits for %d \"Applied edit to\" lines", applied, lines)
	}
	first := edits[0]
	if first.FileEdit.Path != "aider/utils.py" || first.SessionID != "2024-08-05 19:33:32" || !first.FileEdit.OK {
		t.Errorf("first edit %+v in %s", first.FileEdit, first.SessionID)
	}
	for _, e := range transcripttest.OfKind(evs, transcript.KindAssistantTurn) {
		if e.SessionID == "2024-08-05 19:33:32" && e.AssistantTurn.Model != "claude-3-5-sonnet-20240620" {
			t.Errorf("model %q", e.AssistantTurn.Model)
		}
	}
	// The multi-line message of --show-repo (no "> " after its first line)
	// is aider's output, not a reply.
	for _, e := range transcripttest.OfKind(evs, transcript.KindAssistantTurn) {
		if strings.HasPrefix(e.AssistantTurn.Text, "Do not propose changes to these files") {
			t.Errorf("a message of aider's read as a reply: %.80q", e.AssistantTurn.Text)
		}
	}
	for _, e := range transcripttest.OfKind(evs, transcript.KindUserTurn) {
		if strings.HasPrefix(e.UserTurn.Text, "# Fix any errors below") && e.UserTurn.Meta != transcript.MetaInjected {
			t.Errorf("lint prompt not marked injected: %+v", e.UserTurn)
		}
	}
}

// TestArchitectEcho: architect mode writes the architect's reply again as
// the person's lines when it hands it to the editor model; that prompt is
// marked injected, not taken for the person's words. A prompt that merely
// follows a reply is the person's.
func TestArchitectEcho(t *testing.T) {
	data := "# aider chat started at 2026-01-01 10:00:00\n\n#### Use chi for the router.  \n\n" +
		"Switch the router to chi:  \nreplace the mux.\n\n> Edit the files? (Y)es/(N)o [Yes]: y  \n\n" +
		"#### Switch the router to chi:  \n#### replace the mux.  \n\nrouter.go\n```go\n<<<<<<< SEARCH\nvar r = mux\n=======\nvar r = chi\n>>>>>>> REPLACE\n```\n\n" +
		"> Applied edit to router.go  \n\n#### Thanks.  \n"
	evs, _ := transcript.ParseBytes(New(), "h.md", []byte(data), true)
	var got []string
	for _, e := range transcripttest.OfKind(evs, transcript.KindUserTurn) {
		got = append(got, e.UserTurn.Meta+"|"+e.UserTurn.Text)
	}
	want := []string{"|Use chi for the router.", transcript.MetaInjected + "|Switch the router to chi:\nreplace the mux.", "|Thanks."}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("user turns (-want +got):\n%s", diff)
	}
}

// TestHandWritten: agentsview's hand-written history has no trailing
// spaces; a "#### " line starting a record is still the person's, one
// inside a reply the reply's heading.
func TestHandWritten(t *testing.T) {
	var got []string
	for _, e := range parse(t, "agentsview/myrepo/.aider.chat.history.md") {
		if e.UserTurn != nil || e.SessionStart != nil {
			got = append(got, row(e))
		}
	}
	want := []string{
		"session_start 2026-06-09 14:01:00", "user_turn [] add a retry to the webhook",
		"session_start 2026-06-09 15:30:00", "user_turn [] make the timeout configurable",
		"session_start 2026-06-09 16:00:00",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
}

// TestInputHistory reads the prompt history: each prompt with its time.
func TestInputHistory(t *testing.T) {
	var got []string
	for _, e := range parse(t, "hand-made/"+InputHistoryFile) {
		got = append(got, e.Timestamp+" "+row(e))
	}
	want := []string{
		"2026-11-26 09:00:05.123456 user_turn [] Use errors.Join to combine the close errors.",
		"2026-11-26 09:01:10.000001 user_turn [command] /run go test ./...",
		"2026-11-26 11:00:02.5 user_turn [] Print two, and add util.go\nin one change",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
}

// TestFrame checks the framer on pieces of a history, and that a read
// stopped before a message's last line leaves the record for later.
func TestFrame(t *testing.T) {
	type rec struct {
		Off  int64
		Data string
	}
	tests := []struct {
		name, data string
		atEOF      bool
		want       []rec
		consumed   int
	}{
		{"header and messages", "# aider chat started at x\n\n> a  \n> b\nc  \n\n", false,
			[]rec{{0, "# aider chat started at x"}, {27, "> a  \n> b\nc  "}}, 42},
		{"a message not finished", "> b\nc", false, nil, 0},
		{"a message not finished, at the end", "> b\nc", true, []rec{{0, "> b\nc"}}, 5},
		{"a reply cut off in an open fence", "#### q  \n\nx\n```\n> y  \n", false, []rec{{0, "#### q  "}, {10, "x\n```\n> y  "}}, 22},
		{"a reply's fence closed", "#### q  \n\nx\n```\n> y  \n```\n\n> z  \n", false,
			[]rec{{0, "#### q  "}, {10, "x\n```\n> y  \n```"}, {27, "> z  "}}, 33},
		{"a partial last line", "#### q  \n#### r", false, nil, 0},
		{"the person's lines end a reply", "x\n#### h\n#### q  \n", false, []rec{{0, "x\n#### h"}, {9, "#### q  "}}, 18},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			recs, consumed := New().Frame([]byte(tt.data), tt.atEOF)
			var got []rec
			for _, r := range recs {
				got = append(got, rec{r.Offset, string(r.Data)})
			}
			if diff := cmp.Diff(tt.want, got); diff != "" || consumed != tt.consumed {
				t.Errorf("records (-want +got):\n%s\nconsumed %d, want %d", diff, consumed, tt.consumed)
			}
		})
	}
}

func TestFingerprint(t *testing.T) {
	a := New()
	for _, tt := range []struct{ rec, schema, version string }{
		{"# aider chat started at 2024-08-05 19:33:02", SchemaChat, ""},
		{"> /x/aider  \n> Aider v0.47.2-dev  ", SchemaChat, "0.47.2-dev"},
		{"#### hi  ", "", ""},
		{`{"type":"user"}`, "", ""},
	} {
		got := a.Fingerprint(transcript.Record{Data: []byte(tt.rec)})
		if got.Schema != tt.schema || got.ToolVersion != tt.version {
			t.Errorf("Fingerprint(%q) = %+v", tt.rec, got)
		}
	}
	if got := NewInputHistory().Fingerprint(transcript.Record{Data: []byte("# 2024-08-05 19:33:07.5\n+hi")}); got.Schema != SchemaInput {
		t.Errorf("input history: %+v", got)
	}
}

// FuzzParse fuzzes the chat history reader: no panic, the invariants of
// transcript.Verify (lossless, unique ids, resumable at record
// boundaries).
func FuzzParse(f *testing.F) {
	transcripttest.Seeds(f, fixtures(f))
	a := New()
	f.Fuzz(func(t *testing.T, data []byte) {
		transcripttest.Fuzz(t, a, data)
		rep := transcript.Verify(a, "fuzz.md", data, transcript.VerifyOptions{ResumePoints: 4})
		for _, v := range rep.Violations {
			t.Errorf("%s", v)
		}
	})
}

// FuzzFrame fuzzes the framer: records in order and apart, each the bytes
// at its offset, everything consumed at the end, and framing restarted at a
// record boundary giving the records that follow it.
func FuzzFrame(f *testing.F) {
	transcripttest.Seeds(f, fixtures(f))
	a := New()
	f.Fuzz(func(t *testing.T, data []byte) {
		all, consumed := a.Frame(data, true)
		if consumed != len(data) {
			t.Fatalf("consumed %d of %d", consumed, len(data))
		}
		end := int64(0)
		for i, r := range all {
			if r.Offset < end || len(r.Data) == 0 || !bytes.Equal(r.Data, data[r.Offset:r.Offset+int64(len(r.Data))]) {
				t.Fatalf("record %d at %d after %d: %q", i, r.Offset, end, r.Data)
			}
			end = r.Offset + int64(len(r.Data))
			head, c := a.Frame(data[:r.Offset], false)
			if len(head) != i || c != int(r.Offset) {
				t.Fatalf("before record %d: %d records, consumed %d", i, len(head), c)
			}
			rest, _ := a.Frame(data[r.Offset:], true)
			if len(rest) != len(all)-i {
				t.Fatalf("restarted at record %d: %d records, want %d", i, len(rest), len(all)-i)
			}
		}
	})
}
