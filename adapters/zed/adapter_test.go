package zed

import (
	"bytes"
	"database/sql"
	"encoding/base64"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cortexmem/cortex/transcript"
	"github.com/cortexmem/cortex/transcript/rawjson"
	"github.com/cortexmem/cortex/transcript/sqlitedb"
	"github.com/cortexmem/cortex/transcript/sqlitedb/sqlitedbtest"
	"github.com/cortexmem/cortex/transcript/transcripttest"
)

const fixtureDir = "../../fixtures/zed"

const threadsDump = "hand-made/threads.db.txt"

// The hand-made threads.
const (
	threadA = "a0f1c2d3-5e6f-4a7b-8c9d-0e1f2a3b4c5d" // chi router, an edit from the file before and after
	threadB = "b2c3d4e5-f6a7-4b8c-9d0e-f1a2b3c4d5e6" // a failed edit, a retry, Resume, delete, move
	threadC = "c1d2e3f4-a5b6-4c7d-8e9f-a0b1c2d3e4f5" // a subagent's thread of A's
	threadD = "d3e4f5a6-b7c8-4d9e-8f0a-b1c2d3e4f5a6" // the legacy format
)

// buildDB builds the threads database of the dump (in WAL mode, as Zed
// keeps it) and returns its path.
func buildDB(t testing.TB) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "threads.db")
	sqlitedbtest.BuildFile(t, path, filepath.Join(fixtureDir, filepath.FromSlash(threadsDump)), true)
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

// rowFixtures are the rows of the hand-made database, as Load gives them.
func rowFixtures(t testing.TB) []transcripttest.Fixture {
	return []transcripttest.Fixture{{Name: threadsDump, Path: filepath.Join(fixtureDir, threadsDump), Data: load(t, buildDB(t), nil)}}
}

func conversationFixtures(t testing.TB) []transcripttest.Fixture {
	return transcripttest.Load(t, fixtureDir, ".zed.json")
}

func TestInvariants(t *testing.T) {
	transcripttest.Run(t, New(), rowFixtures(t))
}

// TestConversationInvariants checks the invariants on the conversation
// documents (read through the Framer, which transcripttest.Run does not)
// and damaged copies of them.
func TestConversationInvariants(t *testing.T) {
	a := NewConversations()
	for _, fx := range conversationFixtures(t) {
		t.Run(fx.Name, func(t *testing.T) {
			for i, data := range append([][]byte{fx.Data}, transcripttest.Garbled(fx.Data)...) {
				rep := transcript.Verify(a, fx.Name, data, transcript.VerifyOptions{})
				for _, v := range rep.Violations {
					t.Errorf("copy %d: %s", i, v)
				}
			}
		})
	}
}

func TestGolden(t *testing.T) {
	t.Run("threads", func(t *testing.T) { transcripttest.Golden(t, New(), rowFixtures(t)) })
	t.Run("conversations", func(t *testing.T) { transcripttest.Golden(t, NewConversations(), conversationFixtures(t)) })
}

func parseDB(t testing.TB, path string) []transcript.Event {
	t.Helper()
	evs, _ := transcript.ParseBytes(New(), "threads.db", load(t, path, nil), true)
	return evs
}

// TestThreads checks what the hand-made threads give: the subagent's
// events in its parent's session, the usage of a prompt on its answer's
// first text, the edits of every edit tool.
func TestThreads(t *testing.T) {
	evs := parseDB(t, buildDB(t))
	for _, e := range evs {
		if strings.HasPrefix(e.EventID, threadC) || e.AgentID == threadC {
			if e.SessionID != threadA || e.AgentID != threadC || !e.Sidechain {
				t.Errorf("%s: session %q agent %q sidechain %v, want the subagent's in %s", e.EventID, e.SessionID, e.AgentID, e.Sidechain, threadA)
			}
		}
	}
	var usage *transcript.Usage
	for _, e := range transcripttest.OfKind(evs, transcript.KindAssistantTurn) {
		if e.AssistantTurn.Text == "I'll switch the router to chi." {
			usage = e.AssistantTurn.Usage
		}
	}
	if usage == nil || usage.InputTokens != 1200 || usage.CacheReadTokens != 300 {
		t.Errorf("usage of the chi prompt's answer: %+v", usage)
	}
	type edit struct {
		Tool, Path, Move, Op, From string
		OK, Fragment               bool
		Added, Removed             int
	}
	var got []edit
	for _, e := range transcripttest.OfKind(evs, transcript.KindFileEdit) {
		fe := e.FileEdit
		got = append(got, edit{fe.Tool, fe.Path, fe.MovePath, fe.Op, fe.From, fe.OK, fe.Fragment, fe.Added, fe.Removed})
	}
	want := []edit{
		{"edit_file", "demo-project/README.md", "", transcript.OpUpdate, transcript.FromContent, true, false, 1, 1},
		{"edit_file", "demo-project/router.go", "", transcript.OpUpdate, transcript.FromContent, true, false, 2, 2},
		{"edit_file", "demo-project/router_test.go", "", transcript.OpCreate, transcript.FromContent, true, false, 5, 0},
		{"streaming_edit_file", "demo-project/store.go", "", transcript.OpUpdate, transcript.FromInput, false, true, 1, 1},
		{"streaming_edit_file", "demo-project/store.go", "", transcript.OpUpdate, transcript.FromContent, true, false, 1, 1},
		{"delete_path", "demo-project/old.go", "", transcript.OpDelete, transcript.FromInput, true, false, 0, 0},
		{"move_path", "demo-project/util.go", "demo-project/internal/util.go", transcript.OpMove, transcript.FromInput, true, false, 0, 0},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("file edits (-want +got):\n%s", diff)
	}
	// The edit of router.go replays to the file the tool wrote.
	for _, e := range transcripttest.OfKind(evs, transcript.KindFileEdit) {
		if e.FileEdit.Path == "demo-project/router.go" {
			out := transcripttest.ApplyDiff(t, routerOld, e.FileEdit.Unified)
			if !strings.Contains(out, "chi.NewRouter()") {
				t.Errorf("router.go after the edit:\n%s", out)
			}
		}
	}
	unknown := map[string]int{}
	for _, e := range transcripttest.OfKind(evs, transcript.KindUnknown) {
		unknown[e.Unknown.Reason+":"+e.Unknown.RawType]++
	}
	wantUnknown := map[string]int{"malformed:threads/zstd": 1, "unrecognized:threads/gzip": 1, "unmapped:message/system": 1}
	if diff := cmp.Diff(wantUnknown, unknown); diff != "" {
		t.Errorf("unknown events (-want +got):\n%s", diff)
	}
}

const routerOld = "package main\n\nimport \"net/http\"\n\nfunc routes() http.Handler {\n\tmux := http.NewServeMux()\n\treturn mux\n}\n"

// exec runs statements on the database at path through a connection that
// keeps what it writes in the write-ahead log (no checkpoint), as a running
// Zed does; it stays open until the test ends (the last connection to
// close would checkpoint the log).
func exec(t *testing.T, path string, stmts ...string) {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	db.SetMaxOpenConns(1)
	for _, s := range append([]string{"PRAGMA wal_autocheckpoint=0"}, stmts...) {
		if _, err := db.Exec(s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}

// setThread rewrites a thread's row as Zed does (the whole thread, a new
// updated_at), its data edited by edit.
func setThread(t *testing.T, path, id, updated string, edit func(map[string]any)) string {
	t.Helper()
	db, err := sqlitedb.Open(t.Context(), path, sqlitedb.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var dataType string
	var data []byte
	err = db.Query(t.Context(), "threads", "SELECT data_type, data FROM threads WHERE id = ?", []any{id}, func(r sqlitedb.Row) error {
		dataType = r.Values[0].(string)
		switch v := r.Values[1].(type) {
		case string:
			data = []byte(v)
		case []byte:
			data = v
		}
		return nil
	})
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	raw, err := decodeThread(dataType, []byte(`{"$blob":"`+base64.StdEncoding.EncodeToString(data)+`"}`))
	if err != nil {
		t.Fatal(err)
	}
	var thread map[string]any
	if err := json.Unmarshal(raw, &thread); err != nil {
		t.Fatal(err)
	}
	edit(thread)
	out, err := json.Marshal(thread)
	if err != nil {
		t.Fatal(err)
	}
	return "UPDATE threads SET data_type = 'zstd', updated_at = '" + updated + "', data = X'" +
		strings.ToUpper(hexOf(sqlitedbtest.Zstd(out))) + "' WHERE id = '" + id + "'"
}

func hexOf(b []byte) string {
	const digits = "0123456789abcdef"
	out := make([]byte, 0, 2*len(b))
	for _, c := range b {
		out = append(out, digits[c>>4], digits[c&0xf])
	}
	return string(out)
}

// TestIncremental reads the database, then, after Zed rewrote two threads
// (A grew: its last answer got a new item and a new prompt and answer
// followed; B was cut back to its first prompt, edited and resent) and
// started one, reads it again from the saved position: the second Load
// gives just those three rows — from the write-ahead log, no checkpoint
// having run — and they give only what changed: A's new events, a rewind
// of B then its new prompt, the new thread.
func TestIncremental(t *testing.T) {
	path := buildDB(t)
	a := New()
	pos := transcript.Start(a, "threads.db")
	if _, pos, _ = transcript.ReadAll(a, bytes.NewReader(load(t, path, pos.Context)), pos, true); pos.Context == nil {
		t.Fatal("no position")
	}
	pos = transcripttest.SavedPosition(t, pos)
	growA := setThread(t, path, threadA, "2026-11-22T06:00:00+00:00", func(th map[string]any) {
		msgs := th["messages"].([]any)
		last := msgs[len(msgs)-1].(map[string]any)["Agent"].(map[string]any)
		last["content"] = append(last["content"].([]any), map[string]any{"Text": "Anything else?"})
		th["messages"] = append(msgs,
			map[string]any{"User": map[string]any{"id": "u-next", "content": []any{map[string]any{"Text": "Add a health route."}}}},
			map[string]any{"Agent": map[string]any{"content": []any{map[string]any{"Text": "Added /healthz."}}, "tool_results": map[string]any{}}})
	})
	cutB := setThread(t, path, threadB, "2026-11-22T06:01:00+00:00", func(th map[string]any) {
		th["messages"] = []any{map[string]any{"User": map[string]any{"id": "u-edited", "content": []any{map[string]any{"Text": "Use errors.Join, and keep the first error's message."}}}}}
	})
	exec(t, path, growA, cutB,
		`INSERT INTO threads (id, summary, updated_at, data_type, data, created_at) VALUES ('new-thread', 'New', '2026-11-22T06:02:00+00:00', 'json', '{"title":"New","messages":[{"User":{"id":"u-new","content":[{"Text":"Hello."}]}}],"version":"0.3.0"}', '2026-11-22T06:02:00+00:00')`)
	if fi, err := os.Stat(path + "-wal"); err != nil || fi.Size() == 0 {
		t.Fatalf("the changes are not in the write-ahead log: %v", err)
	}
	second := load(t, path, pos.Context)
	if n := bytes.Count(second, []byte("\n")); n != 3 {
		t.Fatalf("the second read gave %d rows, want the 3 changed", n)
	}
	evs, _, err := transcript.ReadAll(a, bytes.NewReader(second), transcript.Position{Context: pos.Context}, true)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range evs {
		s := string(e.Kind)
		switch {
		case e.UserTurn != nil:
			s += " " + e.UserTurn.Text
		case e.AssistantTurn != nil:
			s += " " + e.AssistantTurn.Text
		case e.Rewind != nil:
			s += " " + e.Rewind.Dropped
		}
		got = append(got, e.SessionID[:1]+" "+s)
	}
	want := []string{
		"a assistant_turn Anything else?",
		"a user_turn Add a health route.",
		"a assistant_turn Added /healthz.",
		"b rewind 9b5a3e4c-3333-4e7f-9a01-2c3d4e5f6071",
		"b user_turn Use errors.Join, and keep the first error's message.",
		"n session_start",
		"n user_turn Hello.",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("events of the second read (-want +got):\n%s", diff)
	}
	// Read again with nothing new: no rows.
	if _, pos2, _ := transcript.ReadAll(a, bytes.NewReader(second), transcript.Position{Context: pos.Context}, true); pos2.Context != nil {
		if third := load(t, path, pos2.Context); len(third) != 0 {
			t.Errorf("a read with nothing new gave %q", third)
		}
	}
}

// TestDecodeBounded: a zstd frame that says it holds more than a thread
// may is refused, not decoded into memory; a frame cut short, junk and an
// unknown data_type are errors, never a panic.
func TestDecodeBounded(t *testing.T) {
	huge := sqlitedbtest.Zstd(bytes.Repeat([]byte(" "), maxThread+1024))
	blob := func(b []byte) []byte { return []byte(`{"$blob":"` + base64.StdEncoding.EncodeToString(b) + `"}`) }
	ok := sqlitedbtest.Zstd([]byte(`{"messages":[]}`))
	tests := []struct {
		name, dataType string
		data           []byte
		want           error
	}{
		{"too large", "zstd", blob(huge), errDecode},
		{"cut", "zstd", blob(ok[:len(ok)-3]), errDecode},
		{"junk", "zstd", blob([]byte("not zstd")), errDecode},
		{"not JSON inside", "zstd", blob(sqlitedbtest.Zstd([]byte("{oops"))), errDecode},
		{"unknown type", "gzip", blob(ok), errDataType},
		{"json as text", "json", []byte(`"{\"messages\":[]}"`), nil},
		{"zstd", "zstd", blob(ok), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := decodeThread(tt.dataType, tt.data)
			if tt.want == nil && err != nil || tt.want != nil && !errors.Is(err, tt.want) {
				t.Errorf("err %v, want %v", err, tt.want)
			}
		})
	}
}

func TestConversations(t *testing.T) {
	evs := transcripttest.ParseFile(t, NewConversations(), filepath.Join(fixtureDir, "hand-made", "conversations"), "SQLite for the cache - 1.zed.json")
	var got []string
	for _, e := range evs {
		switch {
		case e.UserTurn != nil:
			got = append(got, "user "+e.UserTurn.Meta+": "+e.UserTurn.Text)
		case e.AssistantTurn != nil:
			got = append(got, "assistant: "+e.AssistantTurn.Text)
		}
	}
	want := []string{"user : Let's use SQLite for the cache — it's one file.", "assistant: SQLite it is: cache.go will keep entries in one table.", "user : Thanks."}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestFingerprintAndClaims(t *testing.T) {
	a := New()
	if v := a.Fingerprint(transcript.Record{Data: []byte(`{"table":"threads","rowid":1,"values":{"id":"t","data":{"$blob":""}}}`)}); v.Schema != SchemaThreads {
		t.Errorf("a threads row: %+v", v)
	}
	if v := a.Fingerprint(transcript.Record{Data: []byte(`{"table":"part","values":{"id":"p","data":{}}}`)}); v.Schema != "" {
		t.Errorf("OpenCode's row claimed: %+v", v)
	}
	c := NewConversations()
	if v := c.Fingerprint(transcript.Record{Data: []byte(`{"zed":"context","text":"x"}`)}); v.Schema != SchemaConversation {
		t.Errorf("a conversation: %+v", v)
	}
	head := []byte("SQLite format 3\x00")
	for path, want := range map[string]bool{"/z/threads/threads.db": true, "/o/opencode.db": false, "/c/x.zed.json": false} {
		h := head
		if strings.HasSuffix(path, ".json") {
			h = []byte(`{"zed":"context"}`)
			want = true
		}
		if got := a.Claims(path, h); got != want {
			t.Errorf("Claims(%s) = %v", path, got)
		}
	}
	if _, ok := a.ForFile("/c/x.zed.json").(*Conversations); !ok {
		t.Error("ForFile of a conversation")
	}
}

func FuzzParse(f *testing.F) {
	transcripttest.Seeds(f, rowFixtures(f))
	a := New()
	f.Fuzz(func(t *testing.T, data []byte) {
		transcripttest.Fuzz(t, a, data)
	})
}

// FuzzDecode feeds blobs to the thread decoder and the parser of what it
// gives: never a panic, and what decodes is JSON.
func FuzzDecode(f *testing.F) {
	f.Add("zstd", sqlitedbtest.Zstd([]byte(`{"messages":[{"User":{"id":"u","content":[{"Text":"hi"}]}}],"version":"0.3.0"}`)))
	f.Add("json", []byte(`{"messages":["Resume",{"Agent":{"content":[{"ToolUse":{"id":"x","name":"edit_file","input":{}}}],"tool_results":{"x":{"is_error":true}}}}]}`))
	f.Add("zstd", []byte{0x28, 0xb5, 0x2f, 0xfd, 0, 0})
	a := New()
	f.Fuzz(func(t *testing.T, dataType string, data []byte) {
		blob := []byte(`{"$blob":"` + base64.StdEncoding.EncodeToString(data) + `"}`)
		if out, err := decodeThread(dataType, blob); err == nil && !rawjson.Valid(out) {
			t.Fatalf("decoded to something not JSON: %q", out)
		}
		row := sqlitedb.Row{Table: tableThreads, RowID: 1, Columns: []string{"id", "updated_at", "data_type", "data"},
			Values: []any{"t", "2026-01-01T00:00:00Z", dataType, data}}
		transcripttest.Fuzz(t, a, row.AppendJSON(nil))
	})
}
