package amp

import (
	"bytes"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cortexmem/cortex/transcript"
	"github.com/cortexmem/cortex/transcript/transcripttest"
)

const fixtureDir = "../../fixtures/amp"

func fixtures(t testing.TB) []transcripttest.Fixture {
	return transcripttest.Load(t, fixtureDir, ".json")
}

// TestInvariants runs the shared suite on every thread (one record a
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

// TestRealEdit: the real thread's edit_file appends joke 14 to jokes.csv;
// its diff is Amp's own, with the file's line numbers, and applies to the
// lines the Read before it returned.
func TestRealEdit(t *testing.T) {
	evs := parse(t, "real/T-019ca1f6-7f21-77b5-a308-65416ebbdf48.json")
	edits := transcripttest.OfKind(evs, transcript.KindFileEdit)
	if len(edits) != 1 {
		t.Fatalf("%d edits, want 1", len(edits))
	}
	fe := edits[0].FileEdit
	if fe.Path != "/Users/svarlamov/projects/testing-git-amp/jokes.csv" || fe.From != transcript.FromToolPatch || fe.Fragment ||
		!fe.OK || fe.Added != 1 || fe.Removed != 0 || fe.Op != transcript.OpUpdate {
		t.Errorf("edit %+v", fe)
	}
	if edits[0].Provenance.Pointer != "/messages/4" {
		t.Errorf("pointer %q", edits[0].Provenance.Pointer)
	}
	// The result message has no time of its own: the edit has its call's.
	if edits[0].Timestamp != "2026-02-28T01:56:58.208Z" {
		t.Errorf("edit time %q", edits[0].Timestamp)
	}
	_, _, hs, err := transcript.ParseUnified(fe.Unified)
	if err != nil || len(hs) != 1 || hs[0].OldStart != 11 || hs[0].NewLines != 5 {
		t.Fatalf("hunks %+v, %v", hs, err)
	}
	start := transcripttest.OfKind(evs, transcript.KindSessionStart)[0]
	want := transcript.Project{Cwd: "/Users/svarlamov/projects/testing-git-amp", RepoRoot: "/Users/svarlamov/projects/testing-git-amp",
		Repository: "https://github.com/svarlamov/testing-git", GitBranch: "master", GitSHA: "6be354d80ba6ad3af3e22c2e1a0d8e93da1577fa"}
	if diff := cmp.Diff(want, start.Project); diff != "" {
		t.Errorf("project (-want +got):\n%s", diff)
	}
	if start.SessionID != "T-019ca1f6-7f21-77b5-a308-65416ebbdf48" || start.Timestamp != "2026-02-28T01:56:52.131Z" ||
		start.SessionStart.Model != "claude-opus-4-6" || start.SessionStart.ToolVersion != "0.0.1772237000-g924883" {
		t.Errorf("start %+v %+v", start, start.SessionStart)
	}
	user := transcripttest.OfKind(evs, transcript.KindUserTurn)
	if len(user) != 1 || user[0].Timestamp != "2026-02-28T01:56:52.139Z" || user[0].UserTurn.Text != "Read jokes.csv and append one new joke row" {
		t.Errorf("user turns %+v", user)
	}
}

// TestEdits checks create_file, a failed edit_file, a successful one with
// Amp's diff, and an undo the person rejected (no diff: no edit).
func TestEdits(t *testing.T) {
	type edit struct {
		Tool, Op, From string
		OK, Fragment   bool
		Added, Removed int
	}
	var got []edit
	for _, e := range transcripttest.OfKind(parse(t, "hand-made/traps.json"), transcript.KindFileEdit) {
		fe := e.FileEdit
		got = append(got, edit{fe.Tool, fe.Op, fe.From, fe.OK, fe.Fragment, fe.Added, fe.Removed})
	}
	want := []edit{
		{"create_file", transcript.OpCreate, transcript.FromInput, true, false, 3, 0},
		{"edit_file", transcript.OpUpdate, transcript.FromInput, false, true, 1, 1},
		{"edit_file", transcript.OpUpdate, transcript.FromToolPatch, true, false, 2, 1},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("edits (-want +got):\n%s", diff)
	}
}

// TestThread checks the rest of the hand-made thread: the project from a
// percent-encoded URI, results' status and text, the image kept as a part,
// a role Amp's threads do not have kept as unknown.
func TestThread(t *testing.T) {
	evs := parse(t, "hand-made/traps.json")
	if cwd := evs[0].Project.Cwd; cwd != "/home/dev/work/demo project" {
		t.Errorf("cwd %q", cwd)
	}
	type result struct {
		Name, Text string
		OK         bool
	}
	var got []result
	for _, e := range transcripttest.OfKind(evs, transcript.KindToolResult) {
		got = append(got, result{e.ToolResult.Name, e.ToolResult.Text, e.ToolResult.OK})
	}
	want := []result{
		{"create_file", "Successfully created file /home/dev/work/demo project/parse_test.go", true},
		{"edit_file", "Could not find exact match for old_str in /home/dev/work/demo project/parse.go", false},
		{"edit_file", "```diff\nIndex: /home/dev/work/demo project/parse.go\n===================================================================\n--- /home/dev/work/demo project/parse.go\toriginal\n+++ /home/dev/work/demo project/parse.go\tmodified\n@@ -1,4 +1,5 @@\n package parse\n \n-func Parse() {\n+func Parse() error {\n+\treturn nil\n }\n```", true},
		{"Bash", "ok  \tdemo/parse\t0.01s\n", true},
		{"undo_edit", "rejected-by-user", false},
		{"Task", "parse.go\nparse_test.go", true},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("results (-want +got):\n%s", diff)
	}
	users := transcripttest.OfKind(evs, transcript.KindUserTurn)
	if len(users) != 1 || len(users[0].UserTurn.Parts) != 1 || users[0].UserTurn.Parts[0].Type != "image" {
		t.Errorf("user turns %+v", users)
	}
	unknown := transcripttest.OfKind(evs, transcript.KindUnknown)
	if len(unknown) != 1 || unknown[0].Unknown.RawType != "message/info" || unknown[0].Provenance.Pointer != "/messages/9" {
		t.Errorf("unknown %+v", unknown)
	}
}

// TestNotAThread: text and JSON of other shapes are kept, not read as a
// thread.
func TestNotAThread(t *testing.T) {
	var got []string
	for _, e := range parse(t, "hand-made/not_a_thread.json") {
		got = append(got, string(e.Kind)+":"+e.Unknown.Reason)
	}
	if diff := cmp.Diff([]string{"unknown:malformed", "unknown:unrecognized"}, got); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
}

// TestRewrittenWhole: a thread still being written (its closing brace not
// there yet) is left for later; once complete it is read whole.
func TestRewrittenWhole(t *testing.T) {
	data := transcripttest.Concat(t, fixtureDir, "hand-made/traps.json")
	cut := bytes.LastIndexByte(data, '}')
	evs, pos := transcript.ParseBytes(New(), "t.json", data[:cut], false)
	if len(evs) != 0 || pos.Offset != 0 {
		t.Fatalf("an incomplete thread gave %d events, stopped at %d", len(evs), pos.Offset)
	}
	evs, pos = transcript.ParseBytes(New(), "t.json", data, false)
	if len(evs) < 10 || pos.Offset != int64(len(data)) {
		t.Fatalf("the whole thread gave %d events, stopped at %d of %d", len(evs), pos.Offset, len(data))
	}
}

func TestFingerprint(t *testing.T) {
	a := New()
	tests := []struct {
		doc, want string
	}{
		{`{"v":1,"id":"T-1","created":1,"messages":[]}`, Schema},
		{`{"id":"T-1","v":3,"messages":[{"role":"user"}]}`, Schema},
		{`{"sessionId":"s","history":[]}`, ""},
		{`{"id":"x","messages":[]}`, ""},
		{`[{"role":"user"}]`, ""},
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
