package opencode

import (
	"bytes"
	"database/sql"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/cortexmem/cortex/transcript"
	"github.com/cortexmem/cortex/transcript/sqlitedb"
	"github.com/cortexmem/cortex/transcript/sqlitedb/sqlitedbtest"
	"github.com/cortexmem/cortex/transcript/transcripttest"
)

func TestMain(m *testing.M) {
	sqlitedbtest.RunWriterIfAsked()
	os.Exit(m.Run())
}

const fixtureDir = "../../fixtures/opencode"

// realDump is the text dump of the database OpenCode 1.18.33 wrote in the
// recorded runs.
const realDump = "1.18.33/opencode.db.txt"

// forkDump is the hand-made dump of a session and its fork.
const forkDump = "hand-made/fork.db.txt"

// buildDB builds the database of a dump in a fresh folder and returns its
// path.
func buildDB(t testing.TB, dump string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "opencode.db")
	sqlitedbtest.BuildFile(t, path, filepath.Join(fixtureDir, filepath.FromSlash(dump)), true)
	return path
}

// load reads the transcript at path whole (a fresh context).
func load(t testing.TB, path string) []byte {
	t.Helper()
	a := New()
	data, err := a.Load(path, transcript.Start(a, path).Context)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// fixtures are the rows of every OpenCode fixture as Load gives them: the
// real database (rebuilt from its dump), the real exports, the database
// git-ai built, the storage/ sessions, and the hand-made row lines.
func fixtures(t testing.TB) []transcripttest.Fixture {
	t.Helper()
	var out []transcripttest.Fixture
	add := func(name, path string) {
		out = append(out, transcripttest.Fixture{Name: name, Path: filepath.Join(fixtureDir, filepath.FromSlash(name)), Data: load(t, path)})
	}
	add(realDump, buildDB(t, realDump))
	add(forkDump, buildDB(t, forkDump))
	add("git-ai/opencode.db", filepath.Join(fixtureDir, "git-ai", "opencode.db"))
	exports, err := filepath.Glob(filepath.Join(fixtureDir, "1.18.33", "export", "*.json"))
	if err != nil || len(exports) == 0 {
		t.Fatalf("no exports: %v", err)
	}
	for _, e := range exports {
		rel, _ := filepath.Rel(fixtureDir, e)
		add(filepath.ToSlash(rel), e)
	}
	for _, s := range []string{"agent-sessions/storage/session/proj_test/s_stage0_large.json",
		"agent-sessions/storage/session/proj_test/ses_s_stage0_drift.json",
		"git-ai/storage/session/global/test-session-123.json"} {
		add(s, filepath.Join(fixtureDir, filepath.FromSlash(s)))
	}
	return append(out, transcripttest.Load(t, fixtureDir, ".jsonl")...)
}

// TestInvariants runs the shared suite on the rows of every fixture and on
// damaged copies of them.
func TestInvariants(t *testing.T) {
	transcripttest.Run(t, New(), fixtures(t))
}

// TestGolden compares the events of every fixture with the stream beside
// it (go test ./adapters/opencode -run Golden -update rewrites them).
func TestGolden(t *testing.T) {
	transcripttest.Golden(t, New(), fixtures(t))
}

// events reads the rows of the transcript at path.
func events(t testing.TB, path string) []transcript.Event {
	t.Helper()
	evs, _ := transcript.ParseBytes(New(), path, load(t, path), true)
	return evs
}

// ofSession is the events of evs in session sid.
func ofSession(evs []transcript.Event, sid string) []transcript.Event {
	var out []transcript.Event
	for _, e := range evs {
		if e.SessionID == sid {
			out = append(out, e)
		}
	}
	return out
}

// TestRealEditsReplay replays the file edits of the b_write_edit run of
// OpenCode 1.18.33 — write creates hello.txt ("hello world", "second
// line"), edit turns its first line into "hello mock world" — in order, on
// an empty file: they give the file the run produced. From the database and
// from the export alike.
func TestRealEditsReplay(t *testing.T) {
	const session = "ses_dfe8e5be3ffe3moGtyzR0xNjxO"
	const path = "/home/dev/work/demo-project/hello.txt"
	for name, file := range map[string]string{
		"database": buildDB(t, realDump),
		"export":   filepath.Join(fixtureDir, "1.18.33", "export", "b_write_edit.json"),
	} {
		t.Run(name, func(t *testing.T) {
			edits := transcripttest.OfKind(ofSession(events(t, file), session), transcript.KindFileEdit)
			if len(edits) != 2 {
				t.Fatalf("%d file edits, want 2", len(edits))
			}
			type row struct{ Tool, Op, From, Path string }
			var got []row
			content := ""
			for _, e := range edits {
				fe := e.FileEdit
				got = append(got, row{fe.Tool, fe.Op, fe.From, fe.Path})
				if !fe.OK || fe.Fragment {
					t.Errorf("%s: ok %v fragment %v", e.EventID, fe.OK, fe.Fragment)
				}
				content = transcripttest.ApplyDiff(t, content, fe.Unified)
			}
			want := []row{{"write", transcript.OpCreate, transcript.FromContent, path}, {"edit", transcript.OpUpdate, transcript.FromToolPatch, path}}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("edits (-want +got):\n%s", diff)
			}
			if want := "hello mock world\nsecond line\n"; content != want {
				t.Errorf("replayed file %q, want %q", content, want)
			}
		})
	}
}

// TestCompaction checks the f_autocompact run: the compaction part of the
// prompt OpenCode added is a compaction (auto), the summary message's text
// is one too, holding the summary, and the prompt it continues with is not
// the person's.
func TestCompaction(t *testing.T) {
	const session = "ses_dfe8e35ddffenklkQeSBRh7N4n"
	for name, file := range map[string]string{
		"database": buildDB(t, realDump),
		"export":   filepath.Join(fixtureDir, "1.18.33", "export", "f_autocompact.json"),
	} {
		t.Run(name, func(t *testing.T) {
			evs := ofSession(events(t, file), session)
			comps := transcripttest.OfKind(evs, transcript.KindCompaction)
			if len(comps) != 2 {
				t.Fatalf("%d compactions, want 2", len(comps))
			}
			if c := comps[0].Compaction; c.Trigger != "auto" || c.Summary != "" || len(c.Details) == 0 {
				t.Errorf("the compaction part: %+v", c)
			}
			if c := comps[1].Compaction; c.Trigger != "auto" || !strings.Contains(c.Summary, "MOCK-COMPACT-SUMMARY") {
				t.Errorf("the summary: %+v", c)
			}
			var typed, injected []string
			for _, e := range transcripttest.OfKind(evs, transcript.KindUserTurn) {
				if e.UserTurn.Meta == "" {
					typed = append(typed, e.UserTurn.Text)
				} else {
					injected = append(injected, e.UserTurn.Text)
				}
			}
			if diff := cmp.Diff([]string{`"Big usage inside a tool loop. [[S:bigusage]]"`}, typed); diff != "" {
				t.Errorf("typed prompts (-want +got):\n%s", diff)
			}
			if len(injected) != 1 || !strings.HasPrefix(injected[0], "Continue if you have next steps") {
				t.Errorf("injected prompts %q", injected)
			}
			// The compaction comes after the turn it compacts and before
			// the answer to the prompt after it.
			var order []transcript.Kind
			for _, e := range evs {
				if e.Kind == transcript.KindCompaction || e.Kind == transcript.KindToolCall || e.Kind == transcript.KindAssistantTurn && e.AssistantTurn.Text == "MOCK-GENERIC-REPLY" {
					order = append(order, e.Kind)
				}
			}
			want := []transcript.Kind{transcript.KindToolCall, transcript.KindCompaction, transcript.KindCompaction, transcript.KindAssistantTurn}
			if diff := cmp.Diff(want, order); diff != "" {
				t.Errorf("order (-want +got):\n%s", diff)
			}
		})
	}
}

// TestExportMatchesDatabase checks the two ways one run is read give the
// same conversation: the events of every export, but for ids of records
// with none of their own, are those of its session in the database.
func TestExportMatchesDatabase(t *testing.T) {
	dbEvents := events(t, buildDB(t, realDump))
	exports, _ := filepath.Glob(filepath.Join(fixtureDir, "1.18.33", "export", "*.json"))
	for _, path := range exports {
		t.Run(filepath.Base(path), func(t *testing.T) {
			exp := events(t, path)
			sid := exp[0].SessionID
			if diff := cmp.Diff(conversation(ofSession(dbEvents, sid)), conversation(exp)); diff != "" {
				t.Errorf("export and database differ (-database +export):\n%s", diff)
			}
		})
	}
}

// conversation is what events say, without their place in a stream or
// their time (an export's parts have none): kind, id and payload, but a
// compaction's details (an export's parts repeat their ids in them).
func conversation(evs []transcript.Event) []string {
	var out []string
	for _, e := range evs {
		if e.Kind == transcript.KindUnknown || e.Kind == transcript.KindSessionStart {
			continue
		}
		e.Seq, e.Provenance, e.Extra, e.Timestamp = 0, transcript.Provenance{}, nil, ""
		if e.Compaction != nil {
			c := *e.Compaction
			c.Details = nil
			e.Compaction = &c
		}
		b, err := transcript.Marshal([]transcript.Event{e})
		if err != nil {
			panic(err)
		}
		out = append(out, string(b))
	}
	return out
}

// TestIncrementalByTime reads the real database as it stood partway
// through the runs — the rows created by then, each with the time of update
// it had (its content is the last, which OpenCode had written by then or
// writes again unchanged) — then the whole database, resuming from the
// position the first read saved (through JSON, as another process would):
// the second Load gives exactly the rows written or changed since, and the
// two reads give the conversation one read of the whole database gives.
func TestIncrementalByTime(t *testing.T) {
	full := buildDB(t, realDump)
	half := filepath.Join(t.TempDir(), "opencode.db")
	data, err := os.ReadFile(full)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(half, data, 0o600); err != nil {
		t.Fatal(err)
	}
	const cut = "1795320557000" // after c_bash's prompt, before its answer
	var stmts []string
	for _, table := range []string{"part", "message", "session"} {
		stmts = append(stmts, "DELETE FROM "+table+" WHERE time_created > "+cut,
			"UPDATE "+table+" SET time_updated = min(time_updated, "+cut+")")
	}
	exec(t, half, stmts...)
	a := New()
	pos := transcript.Start(a, "opencode.db")
	first, err := a.Load(half, pos.Context)
	if err != nil {
		t.Fatal(err)
	}
	head, pos, err := transcript.ReadAll(a, bytes.NewReader(first), pos, true)
	if err != nil {
		t.Fatal(err)
	}
	pos = transcripttest.SavedPosition(t, pos)
	second, err := a.Load(full, pos.Context)
	if err != nil {
		t.Fatal(err)
	}
	tail, _, err := transcript.ReadAll(a, bytes.NewReader(second), transcript.Position{Context: pos.Context}, true)
	if err != nil {
		t.Fatal(err)
	}
	changed := count(t, full, "SELECT (SELECT count(*) FROM part WHERE time_updated > "+cut+
		") + (SELECT count(*) FROM message WHERE time_updated > "+cut+") + (SELECT count(*) FROM session WHERE time_updated > "+cut+")")
	if got := bytes.Count(second, []byte("\n")); got != changed {
		t.Errorf("the second read gave %d rows, want the %d written or changed after the first", got, changed)
	}
	whole := load(t, full)
	want, _ := transcript.ParseBytes(a, "opencode.db", whole, true)
	if diff := cmp.Diff(conversation(want), conversation(append(head, tail...))); diff != "" {
		t.Errorf("two reads and one differ (-one +two):\n%s", diff)
	}
}

func count(t *testing.T, path, query string) int {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int
	if err := db.QueryRow(query).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func exec(t *testing.T, path string, stmts ...string) {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, s := range stmts {
		if _, err := db.Exec(s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}

// TestReadWhileWritten reads an OpenCode database again and again, each
// read resuming from the last, while another process writes parts into it
// (WAL, no busy timeout, checkpoints every few pages): the writer never
// fails, and the reads give every part once, in order.
func TestReadWhileWritten(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a writer process")
	}
	path := buildDB(t, "hand-made/schema.db.txt")
	const n = 300
	w := sqlitedbtest.StartWriter(t, sqlitedbtest.WriterSpec{
		DB: path,
		Statement: `INSERT INTO part VALUES ('prt_w' || printf('%06d', %d), 'msg_w', 'ses_w', 1000 + %d, 1000 + %d, ` +
			`json_object('type', 'text', 'text', 'line ' || %d))`,
		N: n, Pause: 500 * time.Microsecond, AutoCheckpoint: 4,
	})
	done := make(chan error, 1)
	go func() { done <- w.Wait() }()
	a := New()
	pos := transcript.Start(a, "opencode.db")
	var texts []string
	collect := func() {
		data, err := a.Load(path, pos.Context)
		if errors.Is(err, sqlitedb.ErrBusy) {
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		evs, next, err := transcript.ReadAll(a, bytes.NewReader(data), transcript.Position{Context: pos.Context}, true)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range transcripttest.OfKind(evs, transcript.KindAssistantTurn) {
			texts = append(texts, e.AssistantTurn.Text)
		}
		pos = transcripttest.SavedPosition(t, next)
	}
	reads := 0
	for finished := false; !finished; reads++ {
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("the writer failed: %v", err)
			}
			finished = true
		default:
		}
		collect()
	}
	collect()
	if len(texts) != n {
		t.Fatalf("%d parts read in %d reads, want %d", len(texts), reads, n)
	}
	for i, s := range texts {
		if want := "line " + strconv.Itoa(i+1); s != want {
			t.Fatalf("part %d is %q, want %q", i, s, want)
		}
	}
	t.Logf("%d reads while the writer wrote", reads)
}

// TestDamagedDatabase reads copies of the real database cut short: Load
// refuses them with ErrDamaged (or reads them whole, when the cut spared
// what it reads), never panics.
func TestDamagedDatabase(t *testing.T) {
	data, err := os.ReadFile(buildDB(t, realDump))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	refused := 0
	for _, cut := range []int{50, 4096, 4096 * 3, len(data) / 2, len(data) - 1000} {
		p := filepath.Join(dir, "opencode.db")
		if err := os.WriteFile(p, data[:cut], 0o600); err != nil {
			t.Fatal(err)
		}
		a := New()
		_, err := a.Load(p, transcript.Start(a, p).Context)
		switch {
		case errors.Is(err, sqlitedb.ErrDamaged):
			refused++
		case err != nil:
			t.Errorf("cut at %d: %v, want ErrDamaged", cut, err)
		}
	}
	if refused == 0 {
		t.Error("no cut copy was refused")
	}
}

// TestUpdates reads the hand-made rows: a row read again changed gives
// only what changed; unchanged, a duplicate.
func TestUpdates(t *testing.T) {
	evs := transcripttest.ParseFile(t, New(), filepath.Join(fixtureDir, "hand-made"), "updates.rows.jsonl")
	type ev struct {
		Kind     transcript.Kind
		ID       string
		Replaces string
	}
	var got []ev
	for _, e := range evs {
		if e.Kind == transcript.KindAssistantTurn && e.AssistantTurn.Text != "" || e.Kind == transcript.KindToolCall ||
			e.Kind == transcript.KindToolResult || e.Kind == transcript.KindRewind || e.Kind == transcript.KindSessionEnd ||
			e.Kind == transcript.KindUnknown && e.Unknown.Reason == transcript.ReasonDuplicate {
			id := e.EventID
			if e.Kind == transcript.KindUnknown {
				id = "(duplicate)"
			}
			got = append(got, ev{e.Kind, id, e.Replaces})
		}
	}
	want := []ev{
		{transcript.KindAssistantTurn, "prt_2a0000001201AssistantTxt01", ""},
		{transcript.KindToolCall, "prt_2a0000001203EditFails0001", ""},
		{transcript.KindAssistantTurn, "prt_2a0000001201AssistantTxt01#v2", "prt_2a0000001201AssistantTxt01"},
		{transcript.KindToolResult, "prt_2a0000001203EditFails0001#result", ""},
		{transcript.KindUnknown, "(duplicate)", ""},
		{transcript.KindToolCall, "prt_2a0000001204EditWorks0001", ""},
		{transcript.KindToolResult, "prt_2a0000001204EditWorks0001#result", ""},
		{transcript.KindToolCall, "prt_2a0000001205WriteExists01", ""},
		{transcript.KindToolResult, "prt_2a0000001205WriteExists01#result", ""},
		{transcript.KindToolCall, "prt_2a0000001206MultiEdit0001", ""},
		{transcript.KindToolResult, "prt_2a0000001206MultiEdit0001#result", ""},
		{transcript.KindToolCall, "prt_2a0000001207ApplyPatch001", ""},
		{transcript.KindToolResult, "prt_2a0000001207ApplyPatch001#result", ""},
		{transcript.KindToolCall, "prt_2a0000002102ChildWrite001", ""},
		{transcript.KindToolResult, "prt_2a0000002102ChildWrite001#result", ""},
		{transcript.KindRewind, "", ""},
		{transcript.KindSessionEnd, "ses_2a0000000001HandMadeRoot01#end", ""},
	}
	for i := range got {
		if got[i].Kind == transcript.KindRewind {
			got[i].ID = ""
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
	rw := transcripttest.OfKind(evs, transcript.KindRewind)
	if len(rw) != 1 || rw[0].Rewind.Dropped != "msg_2a0000001002AssistantAns01" {
		t.Errorf("rewind %+v, want one dropping the reverted message", rw)
	}
	type edit struct {
		Tool, Path, Op, From string
		OK, Fragment         bool
		Added, Removed       int
	}
	var edits []edit
	for _, e := range transcripttest.OfKind(evs, transcript.KindFileEdit) {
		fe := e.FileEdit
		edits = append(edits, edit{fe.Tool, strings.TrimPrefix(fe.Path, "/home/dev/work/demo-project/"), fe.Op, fe.From, fe.OK, fe.Fragment, fe.Added, fe.Removed})
		if e.AgentID != "" && (e.SessionID != "ses_2a0000000001HandMadeRoot01" || !e.Sidechain) {
			t.Errorf("the subagent's edit is in session %q (sidechain %v), want the root session's", e.SessionID, e.Sidechain)
		}
	}
	wantEdits := []edit{
		{"edit", "store.go", transcript.OpUpdate, transcript.FromInput, false, true, 1, 1},
		{"edit", "store.go", transcript.OpUpdate, transcript.FromContent, true, false, 1, 1},
		{"write", "notes.txt", transcript.OpUpdate, transcript.FromInput, true, true, 1, 0},
		{"multiedit", "a.go", transcript.OpUpdate, transcript.FromToolPatch, true, false, 1, 1},
		{"apply_patch", "b.go", transcript.OpCreate, transcript.FromContent, true, false, 1, 0},
		{"write", "store_test.go", transcript.OpCreate, transcript.FromContent, true, false, 1, 0},
	}
	if diff := cmp.Diff(wantEdits, edits); diff != "" {
		t.Errorf("file edits (-want +got):\n%s", diff)
	}
	if i := slices.IndexFunc(evs, func(e transcript.Event) bool { return e.AgentID == "ses_2a0000000002HandMadeChild1" }); i < 0 {
		t.Error("no event of the child session carries its id as AgentID")
	}
}

func TestFingerprint(t *testing.T) {
	a := New()
	tests := []struct {
		line, want, version string
	}{
		{`{"table":"session","rowid":1,"values":{"id":"ses_1","version":"1.18.33"}}`, SchemaSQLite, "1.18.33"},
		{`{"table":"part","values":{"id":"prt_1","file":"storage/part/m/p.json","data":{}}}`, SchemaStorage, ""},
		{`{"table":"message","values":{"id":"msg_1","pointer":"/messages/0/info","data":{}}}`, SchemaExport, ""},
		{`{"table":"session","values":{"id":"ses_1","pointer":"/info","data":{"version":"1.2.0"}}}`, SchemaExport, "1.2.0"},
		{`{"table":"threads","rowid":1,"values":{"id":"t"}}`, "", ""},
		{`{"table":"part","values":{}}`, "", ""},
		{`{"type":"user","message":{}}`, "", ""},
		{`not json`, "", ""},
	}
	for _, tt := range tests {
		v := a.Fingerprint(transcript.Record{Data: []byte(tt.line)})
		if v.Schema != tt.want || v.ToolVersion != tt.version {
			t.Errorf("Fingerprint(%s) = %+v, want %q %q", tt.line, v, tt.want, tt.version)
		}
	}
}

func TestClaims(t *testing.T) {
	a := New()
	sqliteHead := []byte("SQLite format 3\x00rest")
	tests := []struct {
		path string
		head []byte
		want bool
	}{
		{"/d/opencode/opencode.db", sqliteHead, true},
		{"/d/Cursor/state.vscdb", sqliteHead, false},
		{"/x/export.json", []byte("{\n  \"info\": {\n    \"id\": \"ses_dfe8\""), true},
		{"/x/other.json", []byte(`{"sessionId":"s"}`), false},
		{"/d/storage/session/global/ses_1.json", []byte(`{}`), true},
	}
	for _, tt := range tests {
		if got := a.Claims(tt.path, tt.head); got != tt.want {
			t.Errorf("Claims(%s) = %v, want %v", tt.path, got, tt.want)
		}
	}
}

func TestLoadRefuses(t *testing.T) {
	dir := t.TempDir()
	a := New()
	for name, content := range map[string]string{"cut.json": `{"info":{"id":"ses_1"},"messages":[`, "other.json": `{"a":1}`} {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := a.Load(p, transcript.Start(a, p).Context); err == nil || !strings.Contains(err.Error(), "not an OpenCode export") {
			t.Errorf("%s: %v, want refused as not an export", name, err)
		}
	}
	other := filepath.Join(dir, "other.db")
	exec(t, other, "CREATE TABLE kv (k TEXT)")
	if _, err := a.Load(other, transcript.Start(a, other).Context); err == nil || !strings.Contains(err.Error(), "not an OpenCode database") {
		t.Errorf("a database of another shape: %v", err)
	}
	if _, err := a.Load(filepath.Join(dir, "none.db"), transcript.Start(a, "x").Context); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a missing file: %v", err)
	}
}

func FuzzParse(f *testing.F) {
	transcripttest.Seeds(f, fixtures(f))
	a := New()
	f.Fuzz(func(t *testing.T, data []byte) {
		transcripttest.Fuzz(t, a, data)
	})
}

// TestFork reads a session and its fork (hand-made/fork.db.txt): the fork's
// start says fork, its copies of the parent's messages and parts are
// duplicates — their turns and the parent's edit are the parent's, given
// once — and what the fork did after is its own. Whether the fork is read
// with its parent or in a later read, and whatever order the database
// gives the rows in (the copies are older than the fork's session row).
func TestFork(t *testing.T) {
	const parent, fork = "ses_ffe0000000aaaParentSession", "ses_ffdf000000bbbForkedSession"
	type summary struct {
		Start      string
		Turns      []string
		Edits      []string
		Duplicates int
	}
	summarize := func(evs []transcript.Event, sid string) summary {
		var s summary
		for _, e := range ofSession(evs, sid) {
			switch e.Kind {
			case transcript.KindSessionStart:
				s.Start = e.SessionStart.Trigger
			case transcript.KindUserTurn:
				s.Turns = append(s.Turns, e.UserTurn.Text)
			case transcript.KindAssistantTurn:
				s.Turns = append(s.Turns, e.AssistantTurn.Text)
			case transcript.KindFileEdit:
				s.Edits = append(s.Edits, e.FileEdit.Path)
			case transcript.KindUnknown:
				if e.Unknown.Reason == transcript.ReasonDuplicate {
					s.Duplicates++
				}
			}
		}
		return s
	}
	wantParent := summary{Turns: []string{"Let's use SQLite for the cache.", "I'll create cache.go with a SQLite store.",
		"Add an eviction policy.", "Added LRU eviction."}, Edits: []string{"/home/dev/work/demo-project/cache.go"}}
	wantFork := summary{Start: "fork", Turns: []string{"Use Redis for the cache instead.", "Switched the store to Redis."},
		Edits: []string{"/home/dev/work/demo-project/redis.go"}, Duplicates: 5}

	t.Run("read whole", func(t *testing.T) {
		evs := events(t, buildDB(t, forkDump))
		if diff := cmp.Diff(wantParent, summarize(evs, parent)); diff != "" {
			t.Errorf("parent (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff(wantFork, summarize(evs, fork)); diff != "" {
			t.Errorf("fork (-want +got):\n%s", diff)
		}
	})
	t.Run("fork read later", func(t *testing.T) {
		path := buildDB(t, forkDump)
		var keep, restore []string
		for _, table := range []string{"session", "message", "part"} {
			col := "session_id"
			if table == "session" {
				col = "id"
			}
			keep = append(keep, "CREATE TABLE keep_"+table+" AS SELECT * FROM "+table+" WHERE "+col+" = '"+fork+"'")
			restore = append(restore, "INSERT INTO "+table+" SELECT * FROM keep_"+table)
		}
		keep = append(keep, "DELETE FROM part WHERE session_id = '"+fork+"'", "DELETE FROM message WHERE session_id = '"+fork+"'",
			"DELETE FROM session WHERE id = '"+fork+"'")
		exec(t, path, keep...)
		a := New()
		pos := transcript.Start(a, "opencode.db")
		first, err := a.Load(path, pos.Context)
		if err != nil {
			t.Fatal(err)
		}
		head, pos, err := transcript.ReadAll(a, bytes.NewReader(first), pos, true)
		if err != nil {
			t.Fatal(err)
		}
		pos = transcripttest.SavedPosition(t, pos)
		exec(t, path, restore...)
		second, err := a.Load(path, pos.Context)
		if err != nil {
			t.Fatal(err)
		}
		tail, _, err := transcript.ReadAll(a, bytes.NewReader(second), transcript.Position{Context: pos.Context}, true)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(wantParent, summarize(head, parent)); diff != "" {
			t.Errorf("parent (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff(wantFork, summarize(tail, fork)); diff != "" {
			t.Errorf("fork read later (-want +got):\n%s", diff)
		}
	})
}
