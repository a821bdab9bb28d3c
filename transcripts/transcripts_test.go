package transcripts

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/cortexmem/cortex/adapters"
	"github.com/cortexmem/cortex/index"
	"github.com/cortexmem/cortex/memories"
	"github.com/cortexmem/cortex/pipeline"
	"github.com/cortexmem/cortex/scribe"
	"github.com/cortexmem/cortex/transcript"
)

// settled is a clock an hour ahead: every file is complete (its last line
// counts without a newline), as transcripts nobody writes any more are.
func settled() time.Time { return time.Now().Add(time.Hour) }

// newService is a transcript index, in its own folder, of what discovery
// finds in home.
func newService(t *testing.T, home string, now func() time.Time) *Service {
	t.Helper()
	return New(Options{
		Dir:         filepath.Join(t.TempDir(), "index"),
		Selection:   scribe.Selection{All: true, Env: transcript.Env{Home: home, Getenv: func(string) string { return "" }}},
		LockTimeout: 10 * time.Second,
		Now:         now,
	})
}

func syncNow(t *testing.T, s *Service) *SyncReport {
	t.Helper()
	rep, err := s.Sync(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// allDocs is every document of the index, by id.
func allDocs(t *testing.T, s *Service) map[string]index.TranscriptDoc {
	t.Helper()
	out := map[string]index.TranscriptDoc{}
	err := s.readIndex(context.Background(), func(idx *index.TranscriptIndex) error {
		hits, err := idx.Search(context.Background(), index.TranscriptQuery{Size: 1 << 20})
		for _, h := range hits {
			out[h.Doc.ID] = h.Doc
		}
		n, cerr := idx.DocCount()
		if err == nil && cerr == nil && int(n) != len(hits) {
			err = fmt.Errorf("the index counts %d documents, a search of all finds %d", n, len(hits))
		}
		return errors.Join(err, cerr)
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// placeAll lays every fixture transcript out in home, each where its tool's
// discovery finds it, and returns where each went.
func placeAll(t *testing.T, home string) map[string]string {
	t.Helper()
	out := map[string]string{}
	seen := map[string]string{}
	for _, rel := range fixtureFiles(t) {
		dst := fixturePlace(home, rel)
		if other, dup := seen[dst]; dup {
			t.Fatalf("%s and %s would both be %s", rel, other, dst)
		}
		seen[dst] = rel
		out[rel] = placeFixture(t, home, rel)
	}
	return out
}

// parsed is a fixture's events as the adapter reads the file whole.
func parsed(t *testing.T, path string) []transcript.Event {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var ad transcript.Adapter
	for _, d := range scribe.Discover(transcript.Env{Home: homeOf(path), Getenv: func(string) string { return "" }}).Sources {
		for _, f := range d.Files {
			if f.Path == path {
				a, _ := adapters.For(d.Source)
				ad = adapters.Resolve(a, path)
			}
		}
	}
	if ad == nil {
		t.Fatalf("%s: no tool's discovery finds it", path)
	}
	evs, _ := transcript.ParseBytes(ad, path, data, true)
	return evs
}

// homeOf is the home folder placeFixture put path in.
func homeOf(path string) string {
	for _, tool := range []string{"/.claude/", "/.codex/", "/.gemini/"} {
		if i := strings.Index(path, tool); i >= 0 {
			return path[:i]
		}
	}
	return ""
}

// phrase is words of text to search for it by: its first dozen.
func phrase(text string) string {
	w := strings.Fields(text)
	return strings.Join(w[:min(12, len(w))], " ")
}

// TestFixturesFindable indexes every adapter fixture and finds each exchange
// by a phrase of its own: the person's words (or, for a compaction summary,
// its first words), within its session. Every typed turn of every file makes
// one exchange, and every compaction summary one document.
func TestFixturesFindable(t *testing.T) {
	home := t.TempDir()
	placed := placeAll(t, home)
	s := newService(t, home, settled)
	rep := syncNow(t, s)
	if len(rep.Unreadable) > 0 {
		t.Errorf("unreadable: %v", rep.Unreadable)
	}
	if rep.Files != len(placed) {
		t.Errorf("indexed %d transcripts, want %d", rep.Files, len(placed))
	}
	docs := allDocs(t, s)
	byFile := map[string][]index.TranscriptDoc{}
	for _, d := range docs {
		byFile[d.File] = append(byFile[d.File], d)
	}
	found, tried := 0, 0
	for rel, path := range placed {
		var wantX, wantC int
		for _, e := range parsed(t, path) {
			switch {
			case e.Kind == transcript.KindUserTurn && e.UserTurn.Meta == "" && e.Replaces == "":
				wantX++
			case e.Kind == transcript.KindCompaction && strings.TrimSpace(e.Compaction.Summary) != "":
				wantC++
			}
		}
		var gotX, gotC int
		for _, d := range byFile[path] {
			if d.Kind == index.KindCompaction {
				gotC++
			} else {
				gotX++
			}
		}
		if gotX != wantX || gotC != wantC {
			t.Errorf("%s: %d exchanges and %d summaries indexed, want %d and %d", rel, gotX, gotC, wantX, wantC)
		}
		for _, d := range byFile[path] {
			text := d.User
			if text == "" || strings.Contains(text, "[trimmed for fixture]") {
				text = d.Reply
			}
			q := phrase(text)
			if q == "" {
				continue
			}
			tried++
			res, err := s.Search(context.Background(), Request{Query: q, Session: d.Session, AllExchanges: true, Limit: MaxLimit, NoSync: true})
			if errors.Is(err, memories.ErrInvalid) {
				// Only common words (“And once more?”): the reply's words.
				res, err = s.Search(context.Background(), Request{Query: phrase(d.Reply), Session: d.Session, AllExchanges: true, Limit: MaxLimit, NoSync: true})
			}
			if err != nil {
				t.Errorf("%s: search %q: %v", rel, q, err)
				continue
			}
			ok := false
			for _, h := range res.Hits {
				if h.ID == d.ID || d.Dup != "" && dupOf(docs, h.ID) == d.Dup {
					ok = true
				}
			}
			if !ok {
				t.Errorf("%s line %d: %q does not find its exchange (%d results)", rel, d.Line, q, res.Count)
				continue
			}
			found++
		}
	}
	if tried < 80 {
		t.Errorf("searched %d exchanges; the fixtures hold more", tried)
	}
	t.Logf("%d transcripts, %d documents, %d of %d found by a phrase of their own", len(placed), len(docs), found, tried)
}

func dupOf(docs map[string]index.TranscriptDoc, id string) string { return docs[id].Dup }

// filterHome is a home with the same question asked in Claude Code, Codex
// and Gemini CLI, and two sessions that went back on what they did.
func filterHome(t *testing.T) string {
	t.Helper()
	home := t.TempDir()
	for _, rel := range []string{
		"claude-code/2.1.197/a_qa.jsonl", "codex/0.169.0/a_qa.jsonl", "gemini-cli/0.61.0/a_qa.jsonl",
		"claude-code/hand-made/rewind_fork.jsonl", "gemini-cli/hand-made/lww_rewind.jsonl",
	} {
		placeFixture(t, home, rel)
	}
	return home
}

func TestFilters(t *testing.T) {
	home := filterHome(t)
	s := newService(t, home, settled)
	syncNow(t, s)
	type want struct {
		Tools    []string // of the hits, in order
		Sessions []string // prefixes, in order; nil: not checked
	}
	for _, tc := range []struct {
		name string
		req  Request
		want want
	}{
		{"every tool", Request{Query: "capital of France"}, want{Tools: []string{"claude-code", "codex", "gemini-cli"}}},
		{"tool", Request{Query: "capital of France", Tool: "codex"}, want{Tools: []string{"codex"}}},
		{"tool alias", Request{Query: "capital of France", Tool: "Claude"}, want{Tools: []string{"claude-code"}}},
		{"project name", Request{Query: "capital of France", Project: "demo-project"}, want{Tools: []string{"claude-code", "codex", "gemini-cli"}}},
		{"project name, any case", Request{Query: "capital of France", Project: "Demo-Project"}, want{Tools: []string{"claude-code", "codex", "gemini-cli"}}},
		{"other project", Request{Query: "capital of France", Project: "webapp"}, want{}},
		{"folder above", Request{Query: "capital of France", Project: "/home/dev/work"}, want{Tools: []string{"claude-code", "codex", "gemini-cli"}}},
		{"folder itself", Request{Query: "capital of France", Project: "/home/dev/work/demo-project/"}, want{Tools: []string{"claude-code", "codex", "gemini-cli"}}},
		{"not a folder prefix", Request{Query: "capital of France", Project: "/home/dev/wor"}, want{}},
		{"since", Request{Query: "cache", Since: "2026-11-23T00:00:00Z"}, want{Tools: []string{"gemini-cli"}, Sessions: []string{"7d1f0c2e"}}},
		{"since, every session", Request{Query: "cache", Since: "2026-11-22T00:00:00Z"}, want{Tools: []string{"claude-code", "gemini-cli"}}},
		{"session prefix", Request{Query: "cache", Session: "5c1e0a4e"}, want{Tools: []string{"claude-code"}, Sessions: []string{"5c1e0a4e"}}},
		{"session, every exchange", Request{Query: "index on the key column", Session: "5c1e", AllExchanges: true},
			want{Tools: []string{"claude-code", "claude-code"}, Sessions: []string{"5c1e0a4e", "5c1e0a4e"}}},
		{"one per session", Request{Query: "index on the key column", Session: "5c1e"}, want{Tools: []string{"claude-code"}}},
		{"limit", Request{Query: "capital of France", Limit: 2}, want{Tools: []string{"claude-code", "codex"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.req.NoSync = true
			res, err := s.Search(context.Background(), tc.req)
			if err != nil {
				t.Fatal(err)
			}
			var tools, sessions []string
			for _, h := range res.Hits {
				tools = append(tools, h.Tool)
				sessions = append(sessions, h.Session[:8])
			}
			if tc.want.Sessions == nil {
				sessions = nil
			}
			// Results tied on relevance come newest first; the tools here
			// are compared as a set when more than one is expected.
			if len(tc.want.Tools) > 1 && tc.name != "limit" && tc.want.Tools[0] != tc.want.Tools[1] {
				slices.Sort(tools)
			}
			if tc.name == "limit" {
				if len(tools) != 2 {
					t.Fatalf("got %v, want 2 results", tools)
				}
				return
			}
			if diff := cmp.Diff(want{tc.want.Tools, tc.want.Sessions}, want{tools, sessions}); diff != "" {
				t.Errorf("(-want +got)\n%s", diff)
			}
			if msg := EmptyMessage + " for: " + res.Query; len(tc.want.Tools) == 0 && res.Message != msg {
				t.Errorf("message %q, want %q", res.Message, msg)
			}
		})
	}
}

func TestBadRequests(t *testing.T) {
	s := newService(t, t.TempDir(), settled)
	for _, tc := range []struct {
		req Request
		arg string
	}{
		{Request{Query: "  "}, "query"},
		{Request{Query: strings.Repeat("x", MaxQueryChars+1)}, "query"},
		{Request{Query: "the and of"}, "query"},
		{Request{Query: "ok", Limit: MaxLimit + 1}, "limit"},
		{Request{Query: "ok", Limit: -1}, "limit"},
		{Request{Query: "ok", Tool: "vim"}, "tool"},
		{Request{Query: "ok", Tool: "emacs"}, "tool"},
		{Request{Query: "ok", Project: "  "}, "project"},
		{Request{Query: "ok", Session: " "}, "session"},
		{Request{Query: "ok", Since: "yesterday"}, "since"},
	} {
		_, err := s.Search(context.Background(), tc.req)
		var ae *memories.ArgError
		if !errors.As(err, &ae) || ae.Arg != tc.arg {
			t.Errorf("%+v: got %v, want an error about %s", tc.req, err, tc.arg)
		}
	}
	if _, err := s.Show(context.Background(), ShowRequest{Session: "nope"}); !errors.Is(err, memories.ErrNotFound) {
		t.Errorf("show of an unknown session: %v, want not found", err)
	}
}

// TestPointers checks that every document points at the record of its
// turn: the byte offset starts the line named, which holds the person's
// words (or the summary); a record of a document a tool rewrites whole is
// found by its pointer. Show --around that line focuses on the exchange.
func TestPointers(t *testing.T) {
	home := t.TempDir()
	placeAll(t, home)
	s := newService(t, home, settled)
	syncNow(t, s)
	files := map[string][]byte{}
	checked := 0
	for _, d := range allDocs(t, s) {
		data, ok := files[d.File]
		if !ok {
			var err error
			if data, err = os.ReadFile(d.File); err != nil {
				t.Fatal(err)
			}
			files[d.File] = data
		}
		want := d.User
		if d.Kind == index.KindCompaction || want == "" {
			want = d.Reply
		}
		want = strings.TrimSuffix(want, "…")
		want = want[:min(len(want), 24)]
		var record []byte
		switch {
		case d.Line > 0:
			lines := strings.SplitAfter(string(data), "\n")
			if d.Line > len(lines) {
				t.Errorf("%s: line %d of %d", d.ID, d.Line, len(lines))
				continue
			}
			line := lines[d.Line-1]
			if !strings.HasPrefix(string(data[d.Offset:]), line) {
				t.Errorf("%s: offset %d does not start line %d", d.ID, d.Offset, d.Line)
			}
			record = []byte(line)
		case d.Pointer != "":
			record = resolvePointer(t, data, d.Pointer)
		default:
			t.Errorf("%s: neither a line nor a pointer", d.ID)
			continue
		}
		if !strings.Contains(stringsOf(record), want) {
			t.Errorf("%s (%s line %d): the record does not hold %q", d.ID, filepath.Base(d.File), d.Line, want)
			continue
		}
		checked++
		if d.Line > 0 && d.Session != "" {
			v, err := s.Show(context.Background(), ShowRequest{Session: d.Session, Around: d.Line, NoSync: true})
			if err != nil {
				t.Errorf("show %s --around %d: %v", d.Session, d.Line, err)
				continue
			}
			if v.Exchanges[v.Focus].File == d.File && v.Exchanges[v.Focus].ID != d.ID {
				t.Errorf("show %s --around %d focuses on %s, want %s", d.Session, d.Line, v.Exchanges[v.Focus].ID, d.ID)
			}
		}
	}
	if checked < 90 {
		t.Errorf("checked %d pointers; the fixtures hold more", checked)
	}
}

// stringsOf is every string of a JSON record, joined: the text as written,
// escapes undone.
func stringsOf(record []byte) string {
	var v any
	if json.Unmarshal(record, &v) != nil {
		return string(record)
	}
	var b strings.Builder
	var walk func(any)
	walk = func(v any) {
		switch x := v.(type) {
		case string:
			b.WriteString(x)
			b.WriteByte('\n')
		case []any:
			for _, e := range x {
				walk(e)
			}
		case map[string]any:
			for _, k := range slices.Sorted(func(yield func(string) bool) {
				for k := range x {
					if !yield(k) {
						return
					}
				}
			}) {
				walk(x[k])
			}
		}
	}
	walk(v)
	return b.String()
}

// resolvePointer returns the JSON value a JSON pointer names in doc.
func resolvePointer(t *testing.T, doc []byte, ptr string) []byte {
	t.Helper()
	var v any
	if err := json.Unmarshal(doc, &v); err != nil {
		t.Fatalf("pointer %s: the document is not JSON: %v", ptr, err)
	}
	for _, tok := range strings.Split(strings.TrimPrefix(ptr, "/"), "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch x := v.(type) {
		case map[string]any:
			v = x[tok]
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(x) {
				t.Fatalf("pointer %s: no element %s", ptr, tok)
			}
			v = x[i]
		default:
			t.Fatalf("pointer %s: %s is inside a scalar", ptr, tok)
		}
	}
	out, _ := json.Marshal(v)
	return out
}

// TestRewindAndCompactionMarked checks the marks against the pipeline's own
// reading of the same events: a person's turn the pipeline finds superseded
// by a rewind is an exchange marked rewound, and no other is; a compaction
// summary is a document of its own kind.
func TestRewindAndCompactionMarked(t *testing.T) {
	home := t.TempDir()
	placed := placeAll(t, home)
	s := newService(t, home, settled)
	syncNow(t, s)
	docs := allDocs(t, s)
	byOffset := map[string]index.TranscriptDoc{}
	for _, d := range docs {
		byOffset[d.File+"@"+strconv.FormatInt(d.Offset, 10)+d.Kind] = d
	}
	rewound, summaries := 0, 0
	for rel, path := range placed {
		evs := parsed(t, path)
		seg := pipeline.Segment(evs, pipeline.DefaultGate())
		for i, e := range evs {
			key := path + "@" + strconv.FormatInt(e.Provenance.Offset, 10)
			switch {
			case e.Kind == transcript.KindUserTurn && e.UserTurn.Meta == "" && e.Replaces == "":
				d, ok := byOffset[key+index.KindExchange]
				if !ok {
					t.Errorf("%s line %d: no exchange", rel, e.Provenance.Line)
					continue
				}
				want := seg.Superseded[i] == pipeline.SupersededRewind
				if d.Rewound != want {
					t.Errorf("%s line %d (%q): rewound %v, the pipeline says %v", rel, e.Provenance.Line, d.User, d.Rewound, want)
				}
				if want {
					rewound++
				}
			case e.Kind == transcript.KindCompaction && strings.TrimSpace(e.Compaction.Summary) != "":
				if _, ok := byOffset[key+index.KindCompaction]; !ok {
					t.Errorf("%s line %d: the compaction summary is not a document", rel, e.Provenance.Line)
				}
				summaries++
			}
		}
	}
	if rewound < 5 || summaries < 3 {
		t.Errorf("the fixtures gave %d rewound turns and %d summaries; they hold more", rewound, summaries)
	}
	// A search says which is which.
	res, err := s.Search(context.Background(), Request{Query: "use Redis instead of SQLite for the cache", Session: "5c1e0a4e", AllExchanges: true, NoSync: true})
	if err != nil || res.Count == 0 || !res.Hits[0].Rewound {
		t.Errorf("the rewound branch is not marked in results: %+v %v", res, err)
	}
	res, err = s.Search(context.Background(), Request{Query: "SQLite cache Redis proposed withdrawn", Tool: "codex", AllExchanges: true, NoSync: true})
	if err != nil || res.Count == 0 || res.Hits[0].Kind != index.KindCompaction {
		t.Errorf("the compaction summary is not marked in results: %+v %v", res, err)
	}
}

func TestCollapse(t *testing.T) {
	d := func(id, session string, rewound bool, dup string) index.TranscriptHit {
		return index.TranscriptHit{Doc: index.TranscriptDoc{ID: id, Tool: "claude-code", Session: session, Rewound: rewound, Dup: dup}}
	}
	ids := func(hs []index.TranscriptHit) []string {
		var out []string
		for _, h := range hs {
			out = append(out, h.Doc.ID)
		}
		return out
	}
	for _, tc := range []struct {
		name  string
		hits  []index.TranscriptHit
		limit int
		all   bool
		want  []string
	}{
		{"best of each session", []index.TranscriptHit{d("a1", "a", false, ""), d("b1", "b", false, ""), d("a2", "a", false, "")}, 5, false, []string{"a1", "b1"}},
		{"every exchange", []index.TranscriptHit{d("a1", "a", false, ""), d("b1", "b", false, ""), d("a2", "a", false, "")}, 5, true, []string{"a1", "b1", "a2"}},
		{"a rewound branch gives way to what stands", []index.TranscriptHit{d("a1", "a", true, ""), d("b1", "b", false, ""), d("a2", "a", false, "")}, 5, false, []string{"b1", "a2"}},
		{"a rewound branch alone stands for its session", []index.TranscriptHit{d("a1", "a", true, ""), d("a2", "a", true, "")}, 5, false, []string{"a1"}},
		{"copies of an exchange in another file", []index.TranscriptHit{d("a1", "a", false, "u1"), d("c1", "c", false, "u1"), d("c2", "c", false, "")}, 5, false, []string{"a1", "c2"}},
		{"limit", []index.TranscriptHit{d("a1", "a", false, ""), d("b1", "b", false, ""), d("c1", "c", false, "")}, 2, false, []string{"a1", "b1"}},
	} {
		if diff := cmp.Diff(tc.want, ids(collapse(tc.hits, docOfHit, tc.limit, tc.all))); diff != "" {
			t.Errorf("%s (-want +got)\n%s", tc.name, diff)
		}
	}
}

// TestSearchCountsDocuments checks a result says how many documents the
// index searched holds: none when no transcript was read, every exchange
// otherwise, whatever the search found.
func TestSearchCountsDocuments(t *testing.T) {
	for _, tc := range []struct {
		name  string
		home  func(t *testing.T) string
		query string
		some  bool // documents are expected
	}{
		{"no transcripts", func(t *testing.T) string { return t.TempDir() }, "capital of France", false},
		{"transcripts, a hit", filterHome, "capital of France", true},
		{"transcripts, no hit", filterHome, "zebra crossing", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newService(t, tc.home(t), settled)
			res, err := s.Search(context.Background(), Request{Query: tc.query})
			if err != nil {
				t.Fatal(err)
			}
			if want := uint64(len(allDocs(t, s))); res.Documents != want {
				t.Errorf("the result says the index holds %d documents, want %d", res.Documents, want)
			}
			if (res.Documents > 0) != tc.some {
				t.Errorf("the index holds %d documents, want some: %t", res.Documents, tc.some)
			}
		})
	}
}
