package cursor

import (
	"bytes"
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cortexmem/cortex/transcript"
	"github.com/cortexmem/cortex/transcript/sqlitedb/sqlitedbtest"
	"github.com/cortexmem/cortex/transcript/transcripttest"
)

const fixtureDir = "../../fixtures/cursor"

const (
	globalDump    = "hand-made/global.state.vscdb.txt"
	workspaceDump = "hand-made/workspace.state.vscdb.txt"
)

// buildDB builds the database of a dump as Cursor lays it out (a workspace
// database with its workspace.json beside it) and returns its path.
func buildDB(t testing.TB, dump string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "User", "globalStorage")
	if strings.Contains(dump, "workspace") {
		dir = filepath.Join(t.TempDir(), "User", "workspaceStorage", "0a1b2c3d")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		ws, err := os.ReadFile(filepath.Join(fixtureDir, "hand-made", "workspace.json"))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "workspace.json"), ws, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "state.vscdb")
	sqlitedbtest.BuildFile(t, path, filepath.Join(fixtureDir, filepath.FromSlash(dump)), true)
	return path
}

func load(t testing.TB, path string, ctx *transcript.Context) []byte {
	t.Helper()
	if ctx == nil {
		ctx = transcript.Start(New(), path).Context
	}
	data, err := New().Load(path, ctx)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func fixtures(t testing.TB) []transcripttest.Fixture {
	var out []transcripttest.Fixture
	for _, dump := range []string{globalDump, workspaceDump} {
		out = append(out, transcripttest.Fixture{Name: dump, Path: filepath.Join(fixtureDir, dump), Data: load(t, buildDB(t, dump), nil)})
	}
	return out
}

func TestInvariants(t *testing.T) { transcripttest.Run(t, New(), fixtures(t)) }

func TestGolden(t *testing.T) { transcripttest.Golden(t, New(), fixtures(t)) }

// TestComposer checks the hand-made global database: the turns of the
// composer in the order Cursor wrote its bubbles, the streamed answer read
// once (its last write), the edits of each edit tool, the keys not read
// left out, the inline conversation of an older composer.
func TestComposer(t *testing.T) {
	evs, _ := transcript.ParseBytes(New(), "state.vscdb", load(t, buildDB(t, globalDump), nil), true)
	var turns []string
	for _, e := range evs {
		switch {
		case e.UserTurn != nil:
			turns = append(turns, e.SessionID[:2]+" user: "+e.UserTurn.Text)
		case e.AssistantTurn != nil && e.AssistantTurn.Text != "":
			turns = append(turns, e.SessionID[:2]+" assistant: "+e.AssistantTurn.Text)
		}
	}
	want := []string{
		"6c user: Use chi for the router.",
		"6c assistant: I'll switch the router to chi.",
		"6c assistant: Done: the router uses chi and db.go uses pgx.",
		"7d user: Fix the typo in the README.",
		"7d assistant: Fixed: README.md now says Demo.",
	}
	if diff := cmp.Diff(want, turns); diff != "" {
		t.Errorf("turns (-want +got):\n%s", diff)
	}
	type edit struct {
		Tool, Path, Op, From string
		OK, Fragment         bool
		Added, Removed       int
	}
	var edits []edit
	for _, e := range transcripttest.OfKind(evs, transcript.KindFileEdit) {
		fe := e.FileEdit
		edits = append(edits, edit{fe.Tool, fe.Path, fe.Op, fe.From, fe.OK, fe.Fragment, fe.Added, fe.Removed})
	}
	wantEdits := []edit{
		{"edit_file", "router.go", transcript.OpUpdate, transcript.FromToolPatch, true, false, 1, 1},
		{"search_replace", "db.go", transcript.OpUpdate, transcript.FromInput, false, true, 1, 1},
		{"search_replace", "db.go", transcript.OpUpdate, transcript.FromInput, true, true, 1, 1},
		{"write", "notes.md", transcript.OpUpdate, transcript.FromInput, true, true, 1, 0},
		{"delete_file", "old.go", transcript.OpDelete, transcript.FromInput, true, false, 0, 0},
	}
	if diff := cmp.Diff(wantEdits, edits); diff != "" {
		t.Errorf("file edits (-want +got):\n%s", diff)
	}
	for _, e := range evs {
		if strings.Contains(e.Provenance.Pointer, "checkpointId") || strings.Contains(e.Provenance.Pointer, "codeBlockDiff") {
			t.Errorf("a key not read gave %s", e.Kind)
		}
	}
	if calls := transcripttest.OfKind(evs, transcript.KindToolCall); len(calls) != 6 {
		t.Errorf("%d tool calls, want 6 (the running one without a result)", len(calls))
	}
}

// TestWorkspace: a workspace database's folder (workspace.json) is the
// project of its events; the older chat panel's tab is a session.
func TestWorkspace(t *testing.T) {
	evs, _ := transcript.ParseBytes(New(), "state.vscdb", load(t, buildDB(t, workspaceDump), nil), true)
	var turns []string
	for _, e := range evs {
		if e.Kind == transcript.KindUserTurn || e.Kind == transcript.KindAssistantTurn {
			if e.Project.Cwd != "/home/dev/work/demo-project" || e.SessionID != "tab-0001" {
				t.Errorf("%s: project %q session %q", e.EventID, e.Project.Cwd, e.SessionID)
			}
			turns = append(turns, string(e.Kind))
		}
	}
	if len(turns) != 2 {
		t.Errorf("turns %v", turns)
	}
}

// TestIncremental reads the global database, then — after Cursor wrote a
// bubble again with its result (a new rowid), a new bubble and the
// composer's data again, all kept in the write-ahead log — resumes from the
// saved position: the second Load gives just those rows, and they give only
// what changed.
func TestIncremental(t *testing.T) {
	path := buildDB(t, globalDump)
	a := New()
	pos := transcript.Start(a, "state.vscdb")
	_, pos, err := transcript.ReadAll(a, bytes.NewReader(load(t, path, pos.Context)), pos, true)
	if err != nil {
		t.Fatal(err)
	}
	pos = transcripttest.SavedPosition(t, pos)
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	const c1 = "6c1f0e2a-4b3d-4e5f-8a9b-0c1d2e3f4a5b"
	b8 := "b080000-0000-4000-8000-000000000008"
	for _, q := range []string{
		"PRAGMA wal_autocheckpoint=0",
		`INSERT INTO cursorDiskKV VALUES ('bubbleId:` + c1 + `:b080000-0000-4000-8000-000000000008', json_object('_v', 3, 'type', 2, 'bubbleId', '` + b8 +
			`', 'text', '', 'toolFormerData', json_object('tool', 7, 'name', 'run_terminal_cmd', 'rawArgs', '{"command":"go build ./..."}', 'status', 'completed', 'result', '{"output":"ok"}', 'toolCallId', 'toolu_c06')))`,
		`INSERT INTO cursorDiskKV VALUES ('bubbleId:` + c1 + `:b10', json_object('_v', 3, 'type', 1, 'bubbleId', 'b10', 'text', 'Thanks.'))`,
		`INSERT INTO cursorDiskKV SELECT key, value FROM cursorDiskKV WHERE key = 'composerData:` + c1 + `'`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	second := load(t, path, pos.Context)
	if n := bytes.Count(second, []byte("\n")); n != 3 {
		t.Fatalf("the second read gave %d rows, want the 3 written:\n%s", n, second)
	}
	evs, _, err := transcript.ReadAll(a, bytes.NewReader(second), transcript.Position{Context: pos.Context}, true)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range evs {
		s := string(e.Kind)
		if e.Unknown != nil {
			s += " " + e.Unknown.Reason
		}
		got = append(got, s)
	}
	want := []string{"tool_result", "user_turn", "unknown duplicate"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("events of the second read (-want +got):\n%s", diff)
	}
}

func TestFingerprintAndClaims(t *testing.T) {
	a := New()
	for line, want := range map[string]string{
		`{"table":"cursorDiskKV","rowid":3,"values":{"key":"bubbleId:c:b","value":{}}}`:     SchemaVSCDB,
		`{"table":"ItemTable","rowid":1,"values":{"key":"` + keyChatData + `","value":{}}}`: SchemaVSCDB,
		`{"table":"ItemTable","rowid":1,"values":{"key":"other","value":1}}`:                "",
		`{"table":"threads","rowid":1,"values":{"id":"t","data":{}}}`:                       "",
	} {
		if v := a.Fingerprint(transcript.Record{Data: []byte(line)}); v.Schema != want {
			t.Errorf("Fingerprint(%s) = %+v, want %q", line, v, want)
		}
	}
	head := []byte("SQLite format 3\x00")
	if !a.Claims("/h/.config/Cursor/User/globalStorage/state.vscdb", head) || a.Claims("/h/.config/Code/User/globalStorage/state.vscdb", head) {
		t.Error("Claims: Cursor's database and not VS Code's")
	}
}

func FuzzParse(f *testing.F) {
	transcripttest.Seeds(f, fixtures(f))
	a := New()
	f.Fuzz(func(t *testing.T, data []byte) {
		transcripttest.Fuzz(t, a, data)
	})
}
