package droid

import (
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cortexmem/cortex/transcript"
	"github.com/cortexmem/cortex/transcript/transcripttest"
)

const fixtureDir = "../../fixtures/factory-droid"

func fixtures(t testing.TB) []transcripttest.Fixture {
	return transcripttest.Load(t, fixtureDir, ".jsonl")
}

// TestInvariants runs the shared suite on every Droid fixture and on
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

// TestRealEdit: the real session's ApplyPatch turns the first comment of
// index.ts from DROID2 into DROID3; the patch's hunk, applied to the file
// the Read before it returned, gives the file the Read after it returned.
func TestRealEdit(t *testing.T) {
	evs := parse(t, "real/droid-session.jsonl")
	edits := transcripttest.OfKind(evs, transcript.KindFileEdit)
	if len(edits) != 1 {
		t.Fatalf("%d file edits, want 1", len(edits))
	}
	fe := edits[0].FileEdit
	want := &transcript.FileEdit{
		CallID: "call_M13Lh2U4N1T8yEvrk9bP4rTk", Tool: "ApplyPatch", Path: "/Users/testuser/projects/testing-git/index.ts",
		Op: transcript.OpUpdate, OK: true, From: transcript.FromInput, Fragment: true, Added: 1, Removed: 1,
		Unified: "--- /Users/testuser/projects/testing-git/index.ts\n+++ /Users/testuser/projects/testing-git/index.ts\n@@ -1,2 +1,2 @@\n-// DROID2\n+// DROID3\n console.log('Hello');\n",
	}
	if diff := cmp.Diff(want, fe); diff != "" {
		t.Errorf("edit (-want +got):\n%s", diff)
	}
	got := transcripttest.ApplyDiff(t, "// DROID2\nconsole.log('Hello');\n", fe.Unified)
	if got != "// DROID3\nconsole.log('Hello');\n" {
		t.Errorf("replayed %q", got)
	}
	starts := transcripttest.OfKind(evs, transcript.KindSessionStart)
	if len(starts) != 1 || starts[0].SessionID != "052cb8d0-4616-488a-99fe-bfbbbe9429b3" || starts[0].Project.Cwd != "/Users/testuser/projects/testing-git" {
		t.Errorf("session start %+v", starts)
	}
	for _, e := range evs {
		if e.SessionID != starts[0].SessionID {
			t.Errorf("event %s in session %q", e.EventID, e.SessionID)
		}
	}
}

// TestEdits checks every edit tool and a failed call on the hand-made
// session.
func TestEdits(t *testing.T) {
	type edit struct {
		Tool, Path, Op, From string
		OK, Fragment         bool
		Added, Removed       int
	}
	var got []edit
	for _, name := range []string{"hand-made/traps.jsonl", "hand-made/nested_start_patch.jsonl"} {
		for _, e := range transcripttest.OfKind(parse(t, name), transcript.KindFileEdit) {
			fe := e.FileEdit
			got = append(got, edit{fe.Tool, fe.Path, fe.Op, fe.From, fe.OK, fe.Fragment, fe.Added, fe.Removed})
		}
	}
	const d = "/home/dev/work/demo-project/"
	want := []edit{
		{"Create", d + "backoff.go", transcript.OpCreate, transcript.FromInput, true, false, 3, 0},
		{"Edit", d + "fetch.go", transcript.OpUpdate, transcript.FromToolPatch, true, true, 1, 1},
		{"Edit", d + "fetch.go", transcript.OpUpdate, transcript.FromInput, false, true, 1, 1},
		{"MultiEdit", d + "backoff.go", transcript.OpUpdate, transcript.FromInput, true, true, 1, 1},
		{"MultiEdit", d + "backoff.go", transcript.OpUpdate, transcript.FromInput, true, true, 2, 0},
		{"ApplyPatch", "notes.txt", transcript.OpCreate, transcript.FromInput, true, false, 2, 0},
		{"ApplyPatch", "main.go", transcript.OpUpdate, transcript.FromInput, true, true, 1, 1},
		{"ApplyPatch", "old.go", transcript.OpDelete, transcript.FromInput, true, false, 0, 0},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("edits (-want +got):\n%s", diff)
	}
}

// TestUserTurns: what the person typed is one turn; the file Droid read for
// an @-mention and its system reminder are another, marked.
func TestUserTurns(t *testing.T) {
	var got [][2]string
	for _, e := range transcripttest.OfKind(parse(t, "hand-made/traps.jsonl"), transcript.KindUserTurn) {
		got = append(got, [2]string{e.UserTurn.Meta, e.UserTurn.Text})
	}
	want := [][2]string{
		{"", "Use exponential backoff in @fetch.go"},
		{transcript.MetaInjected, "Contents of /home/dev/work/demo-project/fetch.go (lines 1-3 of 3):\npackage fetch\n\nfunc Get() {}\n\n\n<system-reminder>Autonomy level: auto-low</system-reminder>"},
		{"", "Thanks, that's all."},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("user turns (-want +got):\n%s", diff)
	}
}

// TestCompactionAndUnknown: compaction_state is a compaction with its
// summary; todo_state is metadata; a type Droid never wrote is kept as
// unrecognized.
func TestCompactionAndUnknown(t *testing.T) {
	evs := parse(t, "hand-made/traps.jsonl")
	c := transcripttest.OfKind(evs, transcript.KindCompaction)
	if len(c) != 1 || c[0].Compaction.Summary != "Added backoff.go with maxTries 7 and wired retry into fetch.go." {
		t.Errorf("compactions %+v", c)
	}
	var unknown []string
	for _, e := range transcripttest.OfKind(evs, transcript.KindUnknown) {
		unknown = append(unknown, e.Unknown.Reason+":"+e.Unknown.RawType)
	}
	if diff := cmp.Diff([]string{"unmapped:todo_state", "unrecognized:session_end_marker"}, unknown); diff != "" {
		t.Errorf("unknown (-want +got):\n%s", diff)
	}
}

func TestPartialLastLine(t *testing.T) {
	data, err := os.ReadFile(fixtureDir + "/real/droid-session.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	transcripttest.PartialLastLine(t, New(), "droid-session.jsonl", data, 40)
}

func TestFingerprint(t *testing.T) {
	a := New()
	tests := []struct {
		line string
		want string
	}{
		{`{"type":"session_start","id":"s","cwd":"/x"}`, Schema},
		{`{"type":"session_start","session":{"id":"s"}}`, Schema},
		{`{"type":"message","id":"m","timestamp":"t","message":{"role":"user","content":"hi"}}`, Schema},
		{`{"type":"todo_state","todos":[]}`, Schema},
		{`{"type":"compaction_state","summary":{"body":"x"}}`, Schema},
		{`{"type":"user","uuid":"u","message":{"role":"user","content":"hi"}}`, ""},
		{`{"timestamp":"t","type":"session_meta","payload":{"id":"x"}}`, ""},
		{`{"type":"message","message":{"role":"user","content":"x"}}`, ""},
		{`not json`, ""},
	}
	for _, tt := range tests {
		if got := a.Fingerprint(transcript.Record{Data: []byte(tt.line)}); got.Schema != tt.want {
			t.Errorf("Fingerprint(%s) = %+v, want schema %q", tt.line, got, tt.want)
		}
	}
}

// FuzzParse fuzzes the session reader: no panic, the invariants of
// transcript.Verify (lossless, unique ids, the same events when a read
// stopped at a record boundary resumes with the state it saved).
func FuzzParse(f *testing.F) {
	transcripttest.Seeds(f, fixtures(f))
	a := New()
	f.Fuzz(func(t *testing.T, data []byte) {
		transcripttest.Fuzz(t, a, data)
		rep := transcript.Verify(a, "fuzz.jsonl", data, transcript.VerifyOptions{ResumePoints: 4})
		for _, v := range rep.Violations {
			t.Errorf("%s", v)
		}
	})
}
