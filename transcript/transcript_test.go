package transcript

import (
	"bytes"
	"encoding/json"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// fake is an adapter for testing the reader and Verify: each line is a user
// turn numbered by a count kept in the stream's state. Its mode breaks one
// invariant on purpose.
type fake struct {
	mode string
	n    int // state kept outside the Context (mode "outside")
}

type fakeState struct {
	Lines int `json:"lines"`
}

func (f *fake) Source() SourceKind           { return Aider }
func (f *fake) Discover(Env) Discovery       { return Discovery{Source: Aider} }
func (f *fake) Fingerprint(r Record) Variant { return Variant{Source: Aider, Schema: "fake"} }
func (f *fake) Parse(rec Record, ctx *Context) []Event {
	st := StateOf[fakeState](ctx)
	st.Lines++
	line := string(rec.Data)
	if f.mode == "panic" && strings.Contains(line, "boom") {
		panic("boom")
	}
	if f.mode == "drop" && strings.Contains(line, "drop") {
		return nil
	}
	n := st.Lines
	if f.mode == "outside" {
		f.n++
		n = f.n
	}
	e := ctx.NewEvent(rec, KindUserTurn, "")
	e.UserTurn = &UserTurn{Text: fmt.Sprintf("%d: %s", n, line)}
	switch f.mode {
	case "seq":
		e.Seq = 7
	case "dupid":
		e.EventID = "same"
	case "nopayload":
		e.UserTurn = nil
	case "badedit":
		e.Kind, e.UserTurn = KindFileEdit, nil
		e.FileEdit = &FileEdit{Path: "f", Op: OpUpdate, From: FromContent, Unified: "--- f\n+++ f\n@@ -1,2 +1,1 @@\n-a\n", Added: 0, Removed: 1}
	}
	return []Event{e}
}

const fakeData = "one\ntwo\n\nthree drop\nfour boom\nfive\n"

func TestVerifyCatchesBrokenAdapters(t *testing.T) {
	tests := []struct {
		mode string
		want []string // invariants reported
	}{
		{"ok", nil},
		{"seq", []string{InvMonotonicSeq}},
		{"dupid", []string{InvUniqueIDs}},
		{"drop", []string{InvLossless}},
		{"outside", []string{InvDeterministic, InvResumable}},
		{"panic", []string{InvNoPanic}},
		{"nopayload", []string{InvWellFormed}},
		{"badedit", []string{InvWellFormed}},
	}
	for _, tt := range tests {
		t.Run(tt.mode, func(t *testing.T) {
			rep := Verify(&fake{mode: tt.mode}, "f.txt", []byte(fakeData), VerifyOptions{})
			got := map[string]bool{}
			for _, v := range rep.Violations {
				got[v.Invariant] = true
			}
			want := map[string]bool{}
			for _, w := range tt.want {
				want[w] = true
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("invariants broken (-want +got):\n%s\n%v", diff, rep.Violations)
			}
			if rep.Records != 5 {
				t.Errorf("%d records, want 5 (the blank line is not one)", rep.Records)
			}
		})
	}
}

func TestReadPartialAndFinal(t *testing.T) {
	a := &fake{mode: "ok"}
	data := []byte("one\ntwo\nthr")
	evs, pos := ParseBytes(a, "f", data, false)
	if len(evs) != 2 || pos.Offset != 8 || pos.Line != 2 {
		t.Fatalf("tail read: %d events, stopped at %d line %d", len(evs), pos.Offset, pos.Line)
	}
	data = append(data, "ee\n"...)
	rest, pos, err := ReadAll(a, bytes.NewReader(data[pos.Offset:]), pos, false)
	if err != nil || len(rest) != 1 || rest[0].UserTurn.Text != "3: three" || rest[0].Provenance.Line != 3 || rest[0].Seq != 2 {
		t.Fatalf("resumed read: %+v, %v", rest, err)
	}
	if pos.Offset != int64(len(data)) {
		t.Fatalf("stopped at %d of %d", pos.Offset, len(data))
	}
	final, _ := ParseBytes(a, "f", []byte("one\r\ntwo"), true)
	if len(final) != 2 || final[1].UserTurn.Text != "2: two" || final[0].Provenance.Length != 4 {
		t.Fatalf("final read of an unterminated line: %+v", final)
	}
}

func TestReadLongLines(t *testing.T) {
	a := &fake{mode: "ok"}
	long := strings.Repeat("x", 600<<10) // longer than the reader's buffer
	evs, pos := ParseBytes(a, "f", []byte("a\n"+long+"\nb\n"), false)
	if len(evs) != 3 || evs[1].UserTurn.Text != "2: "+long || evs[2].Provenance.Offset != int64(len(long)+3) {
		t.Fatalf("%d events, pos %+v", len(evs), pos.Offset)
	}
	// A partial long line is left whole.
	evs, pos = ParseBytes(a, "f", []byte("a\n"+long), false)
	if len(evs) != 1 || pos.Offset != 2 {
		t.Fatalf("%d events, stopped at %d", len(evs), pos.Offset)
	}
}

func TestReadTooLarge(t *testing.T) {
	if testing.Short() {
		t.Skip("allocates over 64 MB")
	}
	a := &fake{mode: "ok"}
	huge := bytes.Repeat([]byte("y"), MaxRecordBytes+10)
	data := append(append([]byte("a\n"), huge...), "\nb\n"...)
	evs, _ := ParseBytes(a, "f", data, true)
	if len(evs) != 3 || evs[1].Unknown == nil || evs[1].Unknown.Reason != ReasonTooLarge || evs[1].Provenance.Length != len(huge) {
		t.Fatalf("%d events; second %+v", len(evs), evs[1])
	}
	if evs[2].UserTurn.Text != "2: b" || evs[2].Provenance.Offset != int64(len(huge)+3) {
		t.Fatalf("after the large line: %+v", evs[2])
	}
}

func TestContextRoundTrip(t *testing.T) {
	c := NewContext(ClaudeCode, "f.jsonl")
	c.SetSession("s1")
	c.SetProject(Project{Cwd: "/w", GitBranch: "main"})
	StateOf[fakeState](c).Lines = 3
	for _, id := range []string{"b", "a", "a"} {
		c.UniqueID(id)
	}
	b1, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	var d Context
	if err := json.Unmarshal(b1, &d); err != nil {
		t.Fatal(err)
	}
	b2, _ := json.Marshal(&d)
	if !bytes.Equal(b1, b2) {
		t.Fatalf("round trip changed the state:\n%s\n%s", b1, b2)
	}
	want := `{"source":"claude-code","file":"f.jsonl","seq":0,"session":"s1","project":{"cwd":"/w","git_branch":"main"},"ids":["a","a~2","b"],"state":{"lines":3}}`
	if string(b1) != want {
		t.Fatalf("state JSON\n%s\nwant\n%s", b1, want)
	}
	if got := StateOf[fakeState](&d).Lines; got != 3 {
		t.Fatalf("restored state %d", got)
	}
	if got := d.UniqueID("a"); got != "a~3" {
		t.Fatalf("UniqueID after restore = %q", got)
	}
}

func TestParseSource(t *testing.T) {
	tests := map[string]SourceKind{
		"claude": ClaudeCode, "claude-code": ClaudeCode, "claude_code": ClaudeCode, "Claude Code": ClaudeCode,
		"ClaudeCode": ClaudeCode, "codex": Codex, "gemini": GeminiCLI, "GEMINI_CLI": GeminiCLI,
		"copilot": CopilotCLI, "cursor": Cursor, "opencode": OpenCode, "aider": Aider, "amp": Amp,
		"cline": Cline, "roo": RooCode, "kilo": KiloCode, "windsurf": Windsurf,
		"vscode-copilot-chat": VSCodeCopilotChat, "zed": Zed, "continue": Continue, "droid": FactoryDroid,
		"otel": OTLP,
	}
	for in, want := range tests {
		if got, ok := ParseSource(in); !ok || got != want {
			t.Errorf("ParseSource(%q) = %q, %v; want %q", in, got, ok, want)
		}
	}
	for _, in := range []string{"", "vim", "claude-codex"} {
		if got, ok := ParseSource(in); ok || got != UnknownSource {
			t.Errorf("ParseSource(%q) = %q, %v", in, got, ok)
		}
	}
	// Every alias names one tool only.
	owner := map[string]SourceKind{}
	for _, k := range Sources() {
		for _, name := range append(k.Aliases(), string(k)) {
			if o, dup := owner[name]; dup {
				t.Errorf("%q names %s and %s", name, o, k)
			}
			owner[name] = k
			if got, _ := ParseSource(name); got != k {
				t.Errorf("ParseSource(%q) = %s, want %s", name, got, k)
			}
		}
		if k.Name() == string(k) && k != Zed && k != Aider {
			t.Errorf("%s has no display name", k)
		}
	}
	if len(Sources()) != 17 {
		t.Errorf("%d tools, want the 17 of SPEC §7 (Cline, Roo and Kilo apart)", len(Sources()))
	}
}

type framed struct{ fake }

// Frame splits on ";" and keeps a trailing unterminated piece for later.
func (f *framed) Frame(data []byte, atEOF bool) ([]Record, int) {
	var out []Record
	off := 0
	for i := 0; ; i++ {
		j := bytes.IndexByte(data[off:], ';')
		if j < 0 {
			if atEOF && off < len(data) {
				out = append(out, Record{Offset: int64(off), Pointer: fmt.Sprintf("/%d", i), Data: data[off:]})
				off = len(data)
			}
			return out, off
		}
		out = append(out, Record{Offset: int64(off), Pointer: fmt.Sprintf("/%d", i), Data: data[off : off+j]})
		off += j + 1
	}
}

func TestFramer(t *testing.T) {
	a := &framed{fake{mode: "ok"}}
	evs, pos := ParseBytes(a, "doc", []byte("a;b;c"), false)
	if len(evs) != 2 || pos.Offset != 4 || evs[1].Provenance.Pointer != "/1" {
		t.Fatalf("%d events, offset %d", len(evs), pos.Offset)
	}
	rest, _, _ := ReadAll(a, strings.NewReader("c;d"), pos, true)
	if len(rest) != 2 || rest[0].Provenance.Offset != 4 || rest[1].UserTurn.Text != "4: d" {
		t.Fatalf("resumed: %+v", rest)
	}
}

func TestEncoderStable(t *testing.T) {
	e := Event{SchemaVersion: 1, Source: ClaudeCode, SessionID: "s", EventID: "x", Kind: KindUnknown,
		Provenance: Provenance{File: "f", Offset: 3, Length: 2, Line: 1},
		Unknown:    &Unknown{Reason: ReasonMalformed, Text: "<a & b>"},
		Extra:      map[string]json.RawMessage{"z": json.RawMessage(`1`), "a": json.RawMessage(`{ "k" : 2 }`)}}
	b, err := Marshal([]Event{e})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"schema_version":1,"source":"claude-code","session_id":"s","seq":0,"event_id":"x","kind":"unknown","provenance":{"file":"f","offset":3,"length":2,"line":1},"unknown":{"reason":"malformed","text":"<a & b>"},"extra":{"a":{"k":2},"z":1}}` + "\n"
	if string(b) != want {
		t.Fatalf("got\n%s\nwant\n%s", b, want)
	}
	var back []Event
	if err := Decode(bytes.NewReader(b), func(e Event) error { back = append(back, e); return nil }); err != nil {
		t.Fatal(err)
	}
	b2, _ := Marshal(back)
	if !bytes.Equal(b, b2) {
		t.Fatalf("decode and encode changed the bytes:\n%s", b2)
	}
}

// TestUniqueIDMany: many copies of one id get ~2, ~3, … in order, an id
// taken directly is skipped, and a restored context answers the same as the
// one that kept going.
func TestUniqueIDMany(t *testing.T) {
	c := NewContext(ClaudeCode, "f")
	c.UniqueID("x~4") // a record whose own id looks like a suffix
	var got []string
	for range 6 {
		got = append(got, c.UniqueID("x"))
	}
	want := []string{"x", "x~2", "x~3", "x~5", "x~6", "x~7"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("got %v, want %v", got, want)
	}
	d, err := c.Clone()
	if err != nil {
		t.Fatal(err)
	}
	if a, b := c.UniqueID("x"), d.UniqueID("x"); a != "x~8" || b != a {
		t.Fatalf("after clone: %q and %q, want x~8", a, b)
	}
	// Thousands of copies stay linear (this took seconds when every call
	// tried every suffix from 2).
	for range 20000 {
		c.UniqueID("same")
	}
	if got := c.UniqueID("same"); got != "same~20001" {
		t.Fatalf("got %q", got)
	}
}

// TestHashIDOneRecord: the id of one record is the first 8 bytes of its
// SHA-256, whichever way HashID computes it.
func TestHashIDOneRecord(t *testing.T) {
	if got, want := HashID([]byte("abc")), "h-ba7816bf8f01cfea"; got != want {
		t.Errorf("HashID(abc) = %s, want %s", got, want)
	}
	if HashID([]byte("a"), []byte("bc")) == HashID([]byte("abc")) {
		t.Error("two records hash as their concatenation")
	}
}

// TestGrowKeepsIDs: Grow keeps the ids given, so a repeat still gets its
// suffix, whether it rebuilds the set or not.
func TestGrowKeepsIDs(t *testing.T) {
	for _, n := range []int{0, 1, 1000} {
		c := NewContext(ClaudeCode, "f")
		c.UniqueID("a")
		c.UniqueID("b")
		c.Grow(n)
		if got := c.UniqueID("a"); got != "a~2" {
			t.Errorf("Grow(%d): UniqueID(a) = %q, want a~2", n, got)
		}
	}
}

// TestReadReusesItsBuffer: reading many small files does not allocate a
// reader's buffer (256 KB) for each: a whole build of the transcript index
// reads thousands.
func TestReadReusesItsBuffer(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector makes sync.Pool drop what it holds at random")
	}
	a := &fake{mode: "ok"}
	data := []byte("one\ntwo\nthree\n")
	read := func() {
		evs, _, err := ReadAll(a, bytes.NewReader(data), Start(a, "f"), true)
		if err != nil || len(evs) != 3 {
			t.Fatalf("%d events, %v", len(evs), err)
		}
	}
	read()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	const n = 50
	for range n {
		read()
	}
	runtime.ReadMemStats(&after)
	if per := (after.TotalAlloc - before.TotalAlloc) / n; per > 64<<10 {
		t.Errorf("a read of %d bytes allocated %d bytes", len(data), per)
	}
}
