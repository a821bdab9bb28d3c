package index

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/google/go-cmp/cmp"
)

func TestExactTerms(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"plain words of prose, nothing else.", nil},
		{"call pkg.Func from snake_case_helper", []string{"pkg.func", "snake_case_helper"}},
		{"edit src/auth/jwt.go:42 then run it", []string{"src/auth/jwt.go:42", "src/auth/jwt.go", "jwt.go"}},
		{"error E0502 and ECONNREFUSED (errno 111).", []string{"e0502", "econnrefused"}},
		{"a well-known follow-up, not identifiers", nil},
		{"pass --dry-run to make", []string{"--dry-run"}},
		{"use getUserById, not getuser", []string{"getuserbyid"}},
		{`"quoted/path/file.txt", [ERR_CONN-42]`, []string{"quoted/path/file.txt", "file.txt", "err_conn-42"}},
		{"v1.2.3 and 3.14 and utf-8", []string{"v1.2.3", "utf-8"}},
		{"twice: foo_bar foo_bar FOO_BAR", []string{"foo_bar"}},
	} {
		if diff := cmp.Diff(tc.want, ExactTerms(tc.in)); diff != "" {
			t.Errorf("ExactTerms(%q) (-want +got):\n%s", tc.in, diff)
		}
	}
}

func FuzzExactTerms(f *testing.F) {
	for _, s := range []string{"src/a.go:1:2", "pkg.Func E0502 --x", "日本語/テスト.go", "a\x00b/c", strings.Repeat("x_", 300)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		seen := map[string]bool{}
		lower := strings.ToLower(s)
		for _, term := range ExactTerms(s) {
			switch {
			case seen[term]:
				t.Fatalf("%q twice", term)
			case len(term) < 3 || len(term) > maxExactTerm:
				t.Fatalf("%q out of bounds", term)
			case !strings.Contains(lower, term):
				t.Fatalf("%q is not in the text", term)
			case strings.ContainsAny(term, " \t\n"):
				t.Fatalf("%q holds a space", term)
			}
			seen[term] = true
		}
	})
}

var tday = time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)

func tdocs() []TranscriptDoc {
	return []TranscriptDoc{
		{ID: "f1/x0", Kind: KindExchange, Tool: "claude-code", Session: "aaaa-1111", User: "Why does the login test fail on CI?",
			Reply: "The test depends on the time zone; CI runs in UTC.", Tools: []string{"Bash"}, Paths: []string{"src/auth/login_test.go"},
			Cwd: "/home/dev/work/webapp", Projects: []string{"webapp"}, Dirs: []string{"/home/dev/work/webapp"},
			File: "/t/a.jsonl", FileKey: "f1", Offset: 0, Line: 1, EndLine: 4, Time: tday, End: tday.Add(time.Minute), Dup: "claude-code:u1"},
		{ID: "f1/x900", Kind: KindExchange, Rewound: true, Tool: "claude-code", Session: "aaaa-1111", User: "Use Redis for sessions",
			Reply: "Switched sessions to Redis.", Paths: []string{"src/session.go"}, Cwd: "/home/dev/work/webapp",
			Projects: []string{"webapp"}, Dirs: []string{"/home/dev/work/webapp"}, File: "/t/a.jsonl", FileKey: "f1", Offset: 900, Line: 5,
			Time: tday.Add(time.Hour)},
		{ID: "f2/x0", Kind: KindExchange, Tool: "codex", Session: "bbbb-2222", User: "The build prints E0502",
			Reply: "Borrow the vector mutably once; E0502 is a borrow conflict.", Tools: []string{"shell"}, Commands: []string{"cargo build"},
			Cwd: "/home/dev/work/engine", Projects: []string{"engine"}, Dirs: []string{"/home/dev/work/engine"},
			File: "/t/b.jsonl", FileKey: "f2", Line: 3, Time: tday.AddDate(0, 0, 2)},
		{ID: "f2/c500", Kind: KindCompaction, Tool: "codex", Session: "bbbb-2222", Reply: "Summary: fixed the borrow error in the engine.",
			File: "/t/b.jsonl", FileKey: "f2", Offset: 500, Line: 9, Time: tday.AddDate(0, 0, 3)},
	}
}

func openTestIndex(t *testing.T) *TranscriptIndex {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "bleve")
	idx, err := CreateTranscriptIndex(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := idx.Apply(tdocs(), nil); err != nil {
		t.Fatal(err)
	}
	if err := idx.Close(); err != nil {
		t.Fatal(err)
	}
	ro, err := OpenTranscriptIndex(dir, true)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ro.Close() })
	return ro
}

func TestTranscriptSearch(t *testing.T) {
	idx := openTestIndex(t)
	ids := func(q TranscriptQuery) []string {
		t.Helper()
		q.Size = 10
		hits, err := idx.Search(context.Background(), q)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, h := range hits {
			out = append(out, h.Doc.ID)
		}
		if q.Text == "" {
			slices.Sort(out)
		}
		return out
	}
	boosts := TranscriptBoosts{User: 1, Paths: 1, Tools: 1, Exact: 2}
	for _, tc := range []struct {
		name string
		q    TranscriptQuery
		want []string
	}{
		{"words", TranscriptQuery{Text: "login test", Boosts: boosts}, []string{"f1/x0"}},
		{"every word must match", TranscriptQuery{Text: "login redis", Boosts: boosts}, nil},
		{"any word", TranscriptQuery{Text: "login redis", AnyTerm: true, Boosts: boosts}, []string{"f1/x0", "f1/x900"}},
		{"error code, literally", TranscriptQuery{Text: "E0502", Boosts: boosts}, []string{"f2/x0"}},
		{"path", TranscriptQuery{Text: "src/auth/login_test.go", Boosts: boosts}, []string{"f1/x0"}},
		{"query syntax is text", TranscriptQuery{Text: `+login -"test" title:x*`, AnyTerm: true, Boosts: boosts}, []string{"f1/x0"}},
		{"tool", TranscriptQuery{Text: "borrow", Tool: "codex", AnyTerm: true}, []string{"f2/c500", "f2/x0"}},
		{"kind", TranscriptQuery{Text: "borrow", Kind: KindCompaction}, []string{"f2/c500"}},
		{"session prefix", TranscriptQuery{Session: "aaaa"}, []string{"f1/x0", "f1/x900"}},
		{"project name", TranscriptQuery{Projects: []string{"engine"}}, []string{"f2/x0"}},
		{"folder prefix", TranscriptQuery{Dirs: []string{"/home/dev/work"}}, []string{"f1/x0", "f1/x900", "f2/x0"}},
		{"not a folder prefix", TranscriptQuery{Dirs: []string{"/home/dev/wor"}}, nil},
		{"since", TranscriptQuery{Since: tday.AddDate(0, 0, 1)}, []string{"f2/c500", "f2/x0"}},
		{"file", TranscriptQuery{FileKey: "f2"}, []string{"f2/c500", "f2/x0"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := ids(tc.q)
			if tc.q.Text != "" && len(got) > 1 {
				slices.Sort(got)
			}
			want := slices.Clone(tc.want)
			slices.Sort(want)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("(-want +got)\n%s", diff)
			}
		})
	}
	hits, err := idx.Search(context.Background(), TranscriptQuery{Text: "login", Size: 1})
	if err != nil || len(hits) != 1 {
		t.Fatalf("%v %v", hits, err)
	}
	got := hits[0].Doc
	want := tdocs()[0]
	want.Projects, want.Dirs = nil, nil // for filters only: not stored
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("stored document (-want +got)\n%s", diff)
	}
	if _, err := idx.Search(context.Background(), TranscriptQuery{Text: "the of and"}); err != ErrEmptyQuery {
		t.Errorf("a query of stop words: %v, want ErrEmptyQuery", err)
	}
}

// TestTranscriptBoosts checks that the boosts move what they weigh: the
// same words in the person's turn outrank them in the reply, and the
// baseline ignores where they are.
func TestTranscriptBoosts(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "bleve")
	idx, err := CreateTranscriptIndex(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer idx.Close()
	docs := []TranscriptDoc{
		{ID: "in-reply", Kind: KindExchange, Tool: "codex", Session: "s1", User: "look at this", Reply: "the cache eviction policy was wrong", FileKey: "f"},
		{ID: "in-user", Kind: KindExchange, Tool: "codex", Session: "s2", User: "the cache eviction policy was wrong", Reply: "look at this", FileKey: "f"},
	}
	if err := idx.Apply(docs, nil); err != nil {
		t.Fatal(err)
	}
	search := func(q TranscriptQuery) []TranscriptHit {
		q.Size = 10
		hits, err := idx.Search(context.Background(), q)
		if err != nil || len(hits) != 2 {
			t.Fatalf("%v %v", hits, err)
		}
		return hits
	}
	if hits := search(TranscriptQuery{Text: "cache eviction", Boosts: TranscriptBoosts{User: 1}}); hits[0].Doc.ID != "in-user" || hits[0].Score <= hits[1].Score {
		t.Errorf("with a boost of the person's words: %v", hits)
	}
	if hits := search(TranscriptQuery{Text: "cache eviction", Baseline: true, Boosts: TranscriptBoosts{User: 1}}); hits[0].Score != hits[1].Score {
		t.Errorf("the baseline weighs where the words are: %v", hits)
	}
	ids, err := idx.IDsOfFile(context.Background(), "f")
	if err != nil || len(ids) != 2 {
		t.Fatalf("ids of file: %v %v", ids, err)
	}
	if err := idx.Apply(nil, ids[:1]); err != nil {
		t.Fatal(err)
	}
	if n, _ := idx.DocCount(); n != 1 {
		t.Errorf("%d documents after a delete, want 1", n)
	}
}

func TestOpenTranscriptIndexDamaged(t *testing.T) {
	if _, err := OpenTranscriptIndex(filepath.Join(t.TempDir(), "none"), true); err == nil {
		t.Fatal("opened a missing index")
	} else if _, ok := err.(*CorruptError); !ok {
		t.Errorf("%T %v, want a CorruptError", err, err)
	}
}

// FuzzExactWords: exactWords splits a text as strings.FieldsFunc does with
// isExactSeparator, invalid UTF-8 included.
func FuzzExactWords(f *testing.F) {
	for _, s := range []string{"", "  a  b ", "src/auth/jwt.go:42, (E0502) [x]\t\v\f\r\n", "caf\xe9 \xff\xfe a\u00a0b\u2003c", "x=y&z|w*v!u?t<s>r"} {
		f.Add(s)
	}
	for c := range 128 {
		f.Add(string([]byte{'a', byte(c), 'b'}))
	}
	f.Fuzz(func(t *testing.T, text string) {
		var got []string
		for w := range exactWords(text) {
			got = append(got, w)
		}
		want := strings.FieldsFunc(text, isExactSeparator)
		if len(want) == 0 {
			want = nil
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("exactWords(%q) (-FieldsFunc +got)\n%s", text, diff)
		}
	})
}

// TestTranscriptUpdatesLeaveBuiltSegments: an index updated in place merges
// the small segments updates pile up, never the segments of the build it
// started from, even when the build made them smaller than a batch of
// updates could ever be (600 documents here).
func TestTranscriptUpdatesLeaveBuiltSegments(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "idx")
	idx, err := CreateTranscriptIndex(dir)
	if err != nil {
		t.Fatal(err)
	}
	doc := func(id string) TranscriptDoc {
		return TranscriptDoc{ID: id, Kind: KindExchange, Tool: "codex", Session: "s", User: "word " + id, FileKey: "k"}
	}
	for b := range mergeAbove {
		var docs []TranscriptDoc
		for i := range 600 {
			docs = append(docs, doc(fmt.Sprintf("b%d-%d", b, i)))
		}
		if err := idx.Apply(docs, nil); err != nil {
			t.Fatal(err)
		}
	}
	if err := idx.Close(); err != nil {
		t.Fatal(err)
	}
	built := zapFiles(t, dir)
	if len(built) != mergeAbove {
		t.Fatalf("setup: %d segments built, want %d", len(built), mergeAbove)
	}
	for u := range 3 {
		w, err := OpenTranscriptIndex(dir, false)
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Apply([]TranscriptDoc{doc(fmt.Sprintf("u%d", u))}, nil); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
	}
	after := zapFiles(t, dir)
	for _, f := range built {
		if !slices.Contains(after, f) {
			t.Errorf("the built segment %s was rewritten by an update (segments now %v)", f, after)
		}
	}
	// How many of the updates' own small segments are merged by then is up to
	// Bleve's merger, which runs in the background: not checked here.
	r, err := OpenTranscriptIndex(dir, true)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if n, err := r.DocCount(); err != nil || n != uint64(mergeAbove*600+3) {
		t.Errorf("%d documents (%v), want %d", n, err, mergeAbove*600+3)
	}
}

// TestTranscriptUpdatesMergeInTiers: one-document updates after a build
// rewrite each document a few times in all, not all the updates' documents
// at every update, and leave few small segments for searches to visit.
// (Merging whenever two small segments waited wrote 27 times the bytes of
// the updates' segments here; the tiers write 6 times, much of it the fixed
// overhead of a segment file.)
func TestTranscriptUpdatesMergeInTiers(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "idx")
	idx, err := CreateTranscriptIndex(dir)
	if err != nil {
		t.Fatal(err)
	}
	doc := func(id string) TranscriptDoc {
		return TranscriptDoc{ID: id, Kind: KindExchange, Tool: "codex", Session: "s", FileKey: "k",
			User: "word " + id, Reply: strings.Repeat("a reply of some length "+id+" ", 20)}
	}
	for b := range mergeAbove {
		var docs []TranscriptDoc
		for i := range 600 {
			docs = append(docs, doc(fmt.Sprintf("b%d-%d", b, i)))
		}
		if err := idx.Apply(docs, nil); err != nil {
			t.Fatal(err)
		}
	}
	if err := idx.Close(); err != nil {
		t.Fatal(err)
	}
	zaps := func() map[string]int64 {
		t.Helper()
		files, err := filepath.Glob(filepath.Join(dir, "store", "*.zap"))
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]int64{}
		for _, f := range files {
			fi, err := os.Stat(f)
			if err != nil {
				t.Fatal(err)
			}
			out[filepath.Base(f)] = fi.Size()
		}
		return out
	}
	built := zaps()
	const updates = 48
	var merged uint64
	mostSmall := 0
	for u := range updates {
		w, err := OpenTranscriptIndex(dir, false)
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Apply([]TranscriptDoc{doc(fmt.Sprintf("u%d", u))}, nil); err != nil {
			t.Fatal(err)
		}
		// What Close does first, to read what its merges wrote.
		if err := mergeSmall(w.idx); err != nil {
			t.Fatal(err)
		}
		adv, err := w.idx.Advanced()
		if err != nil {
			t.Fatal(err)
		}
		merged += adv.(*scorch.Scorch).StatsMap()["TotFileMergeWrittenBytes"].(uint64)
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		small := len(zaps()) - len(built)
		mostSmall = max(mostSmall, small)
	}
	var updated int64
	for f, size := range zaps() {
		if _, ok := built[f]; !ok {
			updated += size
		}
	}
	t.Logf("%d updates: merges wrote %d bytes, %.1f times the %d bytes of the updates' segments; at most %d small segments", updates, merged, float64(merged)/float64(updated), updated, mostSmall)
	if merged > 10*uint64(updated) {
		t.Errorf("merges wrote %d bytes for updates whose segments are %d bytes: more than 10 times", merged, updated)
	}
	if mostSmall > 5 {
		t.Errorf("%d small segments at once, want at most 5", mostSmall)
	}
}
