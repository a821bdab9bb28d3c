package index

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/cortexmem/cortex/memories"
)

var day0 = time.Date(2024, 1, 1, 9, 0, 0, 0, time.UTC)

func mem(id, title, body, project string, typ memories.Type, day int, tags ...string) *memories.Memory {
	return &memories.Memory{
		ID: id, Title: title, Body: body, Project: project, Type: typ, Tags: tags,
		Status: memories.StatusActive, Source: memories.SourceUser, Importance: 3,
		Created: day0, Updated: day0.AddDate(0, 0, day), Path: project + "/" + id + ".md",
	}
}

// corpus is a dozen memories; each test query below names the ones it finds.
func corpus() []*memories.Memory {
	old := mem("m05", "Old auth approach", "Sessions stored tokens in cookies.", "alpha", memories.TypeDecision, 5)
	old.Status, old.SupersededBy = memories.StatusSuperseded, "m01"
	action := mem("m12", "Action: rotate keys", "Rotate signing keys quarterly.", "alpha", memories.TypeAction, 12)
	action.Status = memories.StatusOpen
	return []*memories.Memory{
		mem("m01", "Refresh token rotation", "The login handler rotates the refresh token every hour.", "alpha", memories.TypeDecision, 1, "auth", "security"),
		withSourceHash(mem("m02", "Database migrations", "Run migrations with goose before deploying.", "alpha", memories.TypeConvention, 2, "db"), "h-goose"),
		withArea(mem("m03", "Kafka notes", "Consumers fall behind when partitions rebalance during a release.", "beta", memories.TypeGotcha, 3), "streaming"),
		mem("m04", "Partition rebalancing", "Kafka, kafka: rebalances after every kafka release.", "beta", memories.TypeGotcha, 4),
		old,
		mem("m06", "Code identifiers", "Call pkg.Func from snake_case helpers in src/auth/login.ts; commit 9f86d081884c7d65 fixed ERR_CODE-42.", "gamma", memories.TypeFact, 6),
		mem("m07", "Ünïcödé café notes", "日本語のテキスト and a naïve résumé.", "gamma", memories.TypeNote, 7),
		mem("m08", "Deploy checklist", "Tokens must be rotated before every deploy.", "alpha", memories.TypeConvention, 8),
		mem("m09", "Meeting with design", "Discussed colours and spacing.", "beta", memories.TypeMeeting, 8),
		mem("m10", "Lesson: retries", "Retry with exponential backoff and jitter.", "beta", memories.TypeLesson, 10, "reliability"),
		mem("m11", "Tagged only", "Nothing special in the body.", "alpha", memories.TypeNote, 11, "observability"),
		action,
	}
}

func withSourceHash(m *memories.Memory, h string) *memories.Memory {
	m.Provenance.SourceHash = h
	return m
}

func withArea(m *memories.Memory, area string) *memories.Memory {
	m.Area = area
	return m
}

func docs(ms []*memories.Memory) []Doc {
	out := make([]Doc, len(ms))
	for i, m := range ms {
		out[i] = Doc{ID: m.ID, Memory: m}
	}
	return out
}

// newTestBleve is a writer over an index of the corpus, closed when the test
// ends.
func newTestBleve(t testing.TB) *Bleve {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "bleve")
	b, err := createBleve(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = b.Close() })
	if err := b.Apply(docs(corpus())); err != nil {
		t.Fatal(err)
	}
	return b
}

// search returns the ids req finds, in order.
func search(t *testing.T, b *Bleve, req memories.SearchRequest) []string {
	t.Helper()
	if req.Size == 0 {
		req.Size = 50
	}
	ms, err := b.Search(context.Background(), req)
	if err != nil {
		t.Fatalf("Search(%+v): %v", req, err)
	}
	var ids []string
	for _, m := range ms {
		ids = append(ids, m.ID)
	}
	return ids
}

func TestSearch(t *testing.T) {
	b := newTestBleve(t)
	for _, tc := range []struct {
		name string
		req  memories.SearchRequest
		want []string
	}{
		{"every term", memories.SearchRequest{Text: "refresh token"}, []string{"m01"}},
		{"every term, none has both", memories.SearchRequest{Text: "refresh goose"}, nil},
		{"any term", memories.SearchRequest{Text: "refresh goose", AnyTerm: true}, []string{"m01", "m02"}},
		{"stemmed plural", memories.SearchRequest{Text: "tokens"}, []string{"m01", "m08"}},
		{"stemmed verb", memories.SearchRequest{Text: "rotating"}, []string{"m01", "m08", "m12"}},
		{"case", memories.SearchRequest{Text: "GOOSE"}, []string{"m02"}},
		{"tags", memories.SearchRequest{Text: "observability"}, []string{"m11"}},
		{"stop words only", memories.SearchRequest{Text: "the and of"}, nil},
		{"stop words ignored", memories.SearchRequest{Text: "the goose"}, []string{"m02"}},
		{"superseded excluded", memories.SearchRequest{Text: "cookies"}, nil},
		{"superseded included", memories.SearchRequest{Text: "cookies", IncludeSuperseded: true}, []string{"m05"}},
		{"project", memories.SearchRequest{Text: "tokens", Project: "alpha"}, []string{"m01", "m08"}},
		{"other project", memories.SearchRequest{Text: "tokens", Project: "beta"}, nil},
		{"project is exact", memories.SearchRequest{Text: "tokens", Project: "Alpha"}, nil},
		{"type", memories.SearchRequest{Text: "rotating", Type: memories.TypeConvention}, []string{"m08"}},
		{"type and project", memories.SearchRequest{Text: "kafka", Type: memories.TypeGotcha, Project: "beta"}, []string{"m03", "m04"}},
		{"size", memories.SearchRequest{Text: "rotating", Size: 1}, []string{"m12"}},
		{"unicode", memories.SearchRequest{Text: "café"}, []string{"m07"}},
		{"unicode, other case", memories.SearchRequest{Text: "ÜNÏCÖDÉ"}, []string{"m07"}},
		{"ideographs", memories.SearchRequest{Text: "日本語"}, []string{"m07"}},
		{"dotted identifier", memories.SearchRequest{Text: "pkg.Func"}, []string{"m06"}},
		{"snake case", memories.SearchRequest{Text: "snake_case"}, []string{"m06"}},
		{"path", memories.SearchRequest{Text: "src/auth/login.ts"}, []string{"m06"}},
		{"hex hash", memories.SearchRequest{Text: "9f86d081884c7d65"}, []string{"m06"}},
		{"error code", memories.SearchRequest{Text: "ERR_CODE-42"}, []string{"m06"}},
		{"projects", memories.SearchRequest{Text: "rotating kafka", AnyTerm: true, Projects: []string{"alpha", "gamma"}}, []string{"m01", "m08", "m12"}},
		{"projects, one", memories.SearchRequest{Text: "rotating kafka", AnyTerm: true, Projects: []string{"beta"}}, []string{"m03", "m04"}},
		{"rarest term kept", memories.SearchRequest{Text: "rotating goose", AnyTerm: true, Rarest: 1}, []string{"m02"}},
		{"rarest two of three", memories.SearchRequest{Text: "rotating goose observability", AnyTerm: true, Rarest: 2}, []string{"m02", "m11"}},
		{"a term in no memory is dropped", memories.SearchRequest{Text: "zyzzyva rotating", AnyTerm: true, Rarest: 1}, []string{"m01", "m08", "m12"}},
		{"rarest above the term count changes nothing", memories.SearchRequest{Text: "rotating goose", AnyTerm: true, Rarest: 5}, []string{"m01", "m02", "m08", "m12"}},
		{"no term in the index", memories.SearchRequest{Text: "zyzzyva quux", AnyTerm: true, Rarest: 1}, nil},
		{"source hashes", memories.SearchRequest{SourceHashes: []string{"h-goose", "h-none"}}, []string{"m02"}},
		{"source hashes, none known", memories.SearchRequest{SourceHashes: []string{"h-none"}}, nil},
		{"area", memories.SearchRequest{Text: "kafka", Area: "streaming"}, []string{"m03"}},
		{"area, no text", memories.SearchRequest{Area: "streaming"}, []string{"m03"}},
		{"a tag", memories.SearchRequest{Tags: []string{"auth"}}, []string{"m01"}},
		{"every tag", memories.SearchRequest{Tags: []string{"auth", "security"}}, []string{"m01"}},
		{"not every tag", memories.SearchRequest{Tags: []string{"auth", "db"}}, nil},
		{"tag is exact", memories.SearchRequest{Tags: []string{"secur"}}, nil},
		{"status", memories.SearchRequest{Status: memories.StatusOpen}, []string{"m12"}},
		{"status and text", memories.SearchRequest{Text: "rotate", Status: memories.StatusActive}, []string{"m01", "m08"}},
		{"updated since", memories.SearchRequest{UpdatedSince: day0.AddDate(0, 0, 10)}, []string{"m10", "m11", "m12"}},
		{"updated since, with text", memories.SearchRequest{Text: "rotate", UpdatedSince: day0.AddDate(0, 0, 8)}, []string{"m08", "m12"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := search(t, b, tc.req)
			if tc.req.Size == 0 {
				// Ranking is tested apart: compare the sets.
				got = sorted(got)
			}
			if diff := cmp.Diff(got, tc.want); diff != "" {
				t.Errorf("Search(%+v) (-got +want):\n%s", tc.req, diff)
			}
		})
	}
}

func sorted(s []string) []string {
	out := slices.Clone(s)
	slices.Sort(out)
	return out
}

// TestSearchSyntax feeds text that Bleve's query string syntax would read as
// operators: it must be searched literally, never fail.
func TestSearchSyntax(t *testing.T) {
	b := newTestBleve(t)
	for _, tc := range []struct {
		text string
		want []string // nil: only that it does not fail
	}{
		{`"refresh token"`, []string{"m01"}},
		{`"refresh`, []string{"m01"}},
		{`+refresh +token`, []string{"m01"}},
		{`-goose`, []string{"m02"}}, // not a negation
		{`goose*`, []string{"m02"}},
		{`(refresh)`, []string{"m01"}},
		{`{refresh}`, []string{"m01"}},
		{`[refresh TO token]`, []string{"m01"}},
		{`refresh\ token`, []string{"m01"}},
		{`refresh^5`, nil},
		{`token~2`, nil},
		{`go?se`, nil},
		{`title:refresh`, nil},
		{`project:alpha`, nil},
		{`_id:m01`, nil},
		{`refresh AND goose`, nil},
		{`refresh OR goose`, nil},
		{`NOT refresh`, nil},
		{`/rege[x]+/`, nil},
		{`*`, nil},
		{`?`, nil},
		{`:`, nil},
		{`\`, nil},
		{`\\`, nil},
		{`"`, nil},
		{`""`, nil},
		{`(`, nil},
		{`)`, nil},
		{`{`, nil},
		{`}`, nil},
		{`[`, nil},
		{`]`, nil},
		{`^`, nil},
		{`~`, nil},
		{`+`, nil},
		{`-`, nil},
		{`&&`, nil},
		{`||`, nil},
		{`!`, nil},
		{`a:b:c"d\e(f)g{h}i[j]k*l?m~n^o+p-q`, nil},
		{"tab\tnew\nline\r\x00nul", nil},
		{"\xff\xfe invalid utf-8", nil},
		{strings.Repeat("token ", 300), nil},
		{"🙂 emoji", nil},
	} {
		t.Run(tc.text, func(t *testing.T) {
			for _, any := range []bool{false, true} {
				req := memories.SearchRequest{Text: tc.text, AnyTerm: any, Size: 50}
				ms, err := b.Search(context.Background(), req)
				if err != nil {
					t.Fatalf("Search(%+v): %v", req, err)
				}
				if tc.want == nil || any {
					continue // any term: more may match
				}
				var got []string
				for _, m := range ms {
					got = append(got, m.ID)
				}
				if diff := cmp.Diff(sorted(got), tc.want); diff != "" {
					t.Errorf("Search(%+v) (-got +want):\n%s", req, diff)
				}
			}
		})
	}
}

func TestSearchRanking(t *testing.T) {
	b := newTestBleve(t)
	// m03 has "kafka" once in its title, m04 three times in its body: only the
	// title's boost puts m03 first.
	ms, err := b.Search(context.Background(), memories.SearchRequest{Text: "kafka", Size: 10})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range ms {
		got = append(got, fmt.Sprintf("%s %.3f", m.ID, m.Score))
	}
	if len(ms) != 2 || ms[0].ID != "m03" || ms[1].ID != "m04" || !(ms[0].Score > ms[1].Score) {
		t.Errorf("Search(kafka) = %q, want the title match m03 ranked above the body match m04", got)
	}

	// Scores decrease; equal scores are ordered by id.
	ms, err = b.Search(context.Background(), memories.SearchRequest{Text: "rotating tokens deploy every", AnyTerm: true, Size: 50})
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) < 3 {
		t.Fatalf("Search found %d, want at least 3", len(ms))
	}
	for i := 1; i < len(ms); i++ {
		a, b := ms[i-1], ms[i]
		if a.Score < b.Score || a.Score == b.Score && a.ID > b.ID {
			t.Errorf("hits %d and %d out of order: %+v, %+v", i-1, i, a, b)
		}
	}
}

func TestSearchEmptyText(t *testing.T) {
	b := newTestBleve(t)
	for _, tc := range []struct {
		name string
		req  memories.SearchRequest
		want []string
	}{
		// m08 and m09 were updated the same day: by id.
		{"all", memories.SearchRequest{}, []string{"m12", "m11", "m10", "m08", "m09", "m07", "m06", "m04", "m03", "m02", "m01"}},
		{"superseded", memories.SearchRequest{IncludeSuperseded: true}, []string{"m12", "m11", "m10", "m08", "m09", "m07", "m06", "m05", "m04", "m03", "m02", "m01"}},
		{"project", memories.SearchRequest{Project: "beta"}, []string{"m10", "m09", "m04", "m03"}},
		{"type", memories.SearchRequest{Type: memories.TypeDecision, IncludeSuperseded: true}, []string{"m05", "m01"}},
		{"size", memories.SearchRequest{Size: 3}, []string{"m12", "m11", "m10"}},
		{"no such project", memories.SearchRequest{Project: "nope"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ms, err := b.Search(context.Background(), func() memories.SearchRequest {
				if tc.req.Size == 0 {
					tc.req.Size = 50
				}
				return tc.req
			}())
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, m := range ms {
				got = append(got, m.ID)
				if m.Score != 0 {
					// Every memory matches alike: no relevance to speak of.
					t.Errorf("%s has score %v, want 0", m.ID, m.Score)
				}
			}
			if diff := cmp.Diff(got, tc.want); diff != "" {
				t.Errorf("Search(%+v) (-got +want):\n%s", tc.req, diff)
			}
		})
	}
}

func TestApplyUpdateAndDelete(t *testing.T) {
	b := newTestBleve(t)
	edited := mem("m01", "Key rotation", "Keys rotate monthly now.", "alpha", memories.TypeDecision, 20)
	err := b.Apply([]Doc{{ID: "m02", Deleted: true}, {ID: "m01", Memory: edited}, {ID: "nosuch", Deleted: true}})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := docCount(t, b), uint64(11); got != want {
		t.Errorf("DocCount = %d, want %d", got, want)
	}
	for _, tc := range []struct {
		text string
		want []string
	}{
		{"goose", nil},
		{"refresh", nil},
		{"monthly", []string{"m01"}},
	} {
		if diff := cmp.Diff(search(t, b, memories.SearchRequest{Text: tc.text}), tc.want); diff != "" {
			t.Errorf("Search(%q) (-got +want):\n%s", tc.text, diff)
		}
	}
	if got := search(t, b, memories.SearchRequest{Size: 1}); len(got) != 1 || got[0] != "m01" {
		t.Errorf("newest = %q, want m01 (updated last)", got)
	}
	if err := b.Apply(nil); err != nil {
		t.Errorf("Apply(nil): %v", err)
	}
}

func docCount(t *testing.T, b *Bleve) uint64 {
	t.Helper()
	n, err := b.DocCount()
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestReadOnly(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "bleve")
	b, err := createBleve(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Apply(docs(corpus())); err != nil {
		t.Fatal(err)
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	r, err := openBleve(dir, true)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if got, want := docCount(t, r), uint64(12); got != want {
		t.Errorf("DocCount = %d, want %d", got, want)
	}
	if diff := cmp.Diff(search(t, r, memories.SearchRequest{Text: "goose"}), []string{"m02"}); diff != "" {
		t.Errorf("read-only Search (-got +want):\n%s", diff)
	}
	if err := r.Apply(docs(corpus()[:1])); err == nil {
		t.Error("Apply on a read-only index succeeded")
	}
	// A second reader at the same time.
	r2, err := openBleve(dir, true)
	if err != nil {
		t.Fatalf("second reader: %v", err)
	}
	if err := r2.Close(); err != nil {
		t.Error(err)
	}
}

func TestOpenBleveCorrupt(t *testing.T) {
	for _, tc := range []struct {
		name  string
		setup func(dir string) error
	}{
		{"missing", func(string) error { return nil }},
		{"empty folder", func(dir string) error { return os.Mkdir(dir, 0o700) }},
		{"bad meta", func(dir string) error {
			if err := os.Mkdir(dir, 0o700); err != nil {
				return err
			}
			return os.WriteFile(filepath.Join(dir, "index_meta.json"), []byte("{not json"), 0o600)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "bleve")
			if err := tc.setup(dir); err != nil {
				t.Fatal(err)
			}
			for _, ro := range []bool{true, false} {
				b, err := openBleve(dir, ro)
				var ce *CorruptError
				if !errors.As(err, &ce) {
					if b != nil {
						b.Close()
					}
					t.Errorf("openBleve(readOnly=%v): %v, want a CorruptError", ro, err)
				}
			}
		})
	}
}

// segments is how many segment files the index's root snapshot holds.
func segments(t *testing.T, b *Bleve) uint64 {
	t.Helper()
	adv, err := b.idx.Advanced()
	if err != nil {
		t.Fatal(err)
	}
	s, ok := adv.(*scorch.Scorch)
	if !ok {
		t.Fatalf("index is %T, not scorch", adv)
	}
	n, ok := s.StatsMap()["TotFileSegmentsAtRoot"].(uint64)
	if !ok {
		t.Fatal("no TotFileSegmentsAtRoot statistic")
	}
	return n
}

// TestCloseMerges piles up more than mergeAbove segments, one save at a time,
// with Bleve's own merging turned off: a writer's Close must merge them.
func TestCloseMerges(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "bleve")
	b, err := createBleve(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	noMerge := map[string]any{"scorchMergePlanOptions": map[string]any{
		"FloorSegmentFileSize": 1, "MaxSegmentsPerTier": 1000, "SegmentsPerMergeTask": 1000}}
	openNoMerge := func() *Bleve {
		t.Helper()
		idx, err := bleve.OpenUsing(dir, noMerge)
		if err != nil {
			t.Fatal(err)
		}
		b, err := wrap(idx, false)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	ms := corpus()
	for _, m := range ms {
		b := openNoMerge()
		if err := b.Apply(docs([]*memories.Memory{m})); err != nil {
			t.Fatal(err)
		}
		if err := b.idx.Close(); err != nil { // not b.Close: no merge yet
			t.Fatal(err)
		}
	}
	b = openNoMerge()
	if got := segments(t, b); got <= mergeAbove {
		t.Fatalf("setup: %d segments, want more than %d", got, mergeAbove)
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}

	r, err := openBleve(dir, true)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if got := segments(t, r); got > mergeAbove {
		t.Errorf("%d segments after Close, want at most %d", got, mergeAbove)
	}
	if got, want := docCount(t, r), uint64(len(ms)); got != want {
		t.Errorf("DocCount = %d, want %d", got, want)
	}
	if got, want := len(search(t, r, memories.SearchRequest{IncludeSuperseded: true})), len(ms); got != want {
		t.Errorf("match-all found %d, want %d", got, want)
	}
	if diff := cmp.Diff(search(t, r, memories.SearchRequest{Text: "goose"}), []string{"m02"}); diff != "" {
		t.Errorf("Search after merge (-got +want):\n%s", diff)
	}
}

// TestManySaves is the writer's life in production: one batch per open, a dozen
// times. Whoever merges, the index ends up whole and with few segments.
func TestManySaves(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "bleve")
	b, err := createBleve(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	ms := corpus()
	for _, m := range ms {
		b, err := openBleve(dir, false)
		if err != nil {
			t.Fatal(err)
		}
		if err := b.Apply(docs([]*memories.Memory{m})); err != nil {
			t.Fatal(err)
		}
		if err := b.Close(); err != nil {
			t.Fatal(err)
		}
	}
	r, err := openBleve(dir, true)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if got := segments(t, r); got > mergeAbove {
		t.Errorf("%d segments, want at most %d", got, mergeAbove)
	}
	if got, want := docCount(t, r), uint64(len(ms)); got != want {
		t.Errorf("DocCount = %d, want %d", got, want)
	}
	if diff := cmp.Diff(sorted(search(t, r, memories.SearchRequest{Text: "tokens"})), []string{"m01", "m08"}); diff != "" {
		t.Errorf("Search (-got +want):\n%s", diff)
	}
}

// zapFiles lists the segment files of the index in dir.
func zapFiles(t *testing.T, dir string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "store", "*.zap"))
	if err != nil {
		t.Fatal(err)
	}
	for i, f := range files {
		files[i] = filepath.Base(f)
	}
	return files
}

// TestUpdatesLeaveBuiltSegments: the writers that follow a rebuild (saves'
// batches, catch-ups) merge the small segments they pile up, never the
// rebuild's own. Merging those rewrote most of the index in whichever
// writer first found more than mergeAbove segments, which held the write
// lock the next save waited for: about a second at 10,000 notes.
func TestUpdatesLeaveBuiltSegments(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "bleve")
	b, err := createBleve(dir)
	if err != nil {
		t.Fatal(err)
	}
	const builtBatches, perBatch = 2, 600
	for i := range builtBatches {
		var ms []*memories.Memory
		for j := range perBatch {
			id := fmt.Sprintf("b%d-%03d", i, j)
			ms = append(ms, mem(id, "Built note "+id, "A note the rebuild indexed about otters.", "alpha", memories.TypeNote, 1))
		}
		if err := b.Apply(docs(ms)); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	// The rebuild's Close merges its two batches' segments into one.
	built := zapFiles(t, dir)
	if len(built) != 1 {
		t.Fatalf("setup: %d segments built, want 1", len(built))
	}
	// One update more than it takes to pass mergeAbove segments.
	updates := mergeAbove - len(built) + 2
	for u := range updates {
		w, err := openBleve(dir, false)
		if err != nil {
			t.Fatal(err)
		}
		id := fmt.Sprintf("u%02d", u)
		if err := w.Apply(docs([]*memories.Memory{mem(id, "Saved note "+id, "A saved note about badgers.", "alpha", memories.TypeNote, 2)})); err != nil {
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
	r, err := openBleve(dir, true)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if got := segments(t, r); got > mergeAbove {
		t.Errorf("%d segments after %d updates, want at most %d: the updates' own are merged", got, updates, mergeAbove)
	}
	if got, want := docCount(t, r), uint64(builtBatches*perBatch+updates); got != want {
		t.Errorf("DocCount = %d, want %d", got, want)
	}
	if got := len(search(t, r, memories.SearchRequest{Text: "badgers", Size: 100})); got != updates {
		t.Errorf("search found %d of the %d updates' notes", got, updates)
	}
}

// TestTermsKept: a short text's terms, kept from an earlier call, are its
// analysis, and a caller changing what it was given changes no later
// answer; a long text is analysed each time.
// longUnspaced is one "word" of a script written without spaces: a
// sentence of 408 bytes, which passage scoring asks Terms for as a whole.
var longUnspaced = strings.Repeat("ファイル内での使用例を確認し、", 9) + "。"

// TestTermsKeepsUnspacedSentences: a server's recalls meet the same long
// words of notes in Japanese or Chinese recall after recall; their terms
// must be kept like a short word's, not analysed again (on the code that
// kept only texts of up to 64 bytes a call cost dozens of allocations).
func TestTermsKeepsUnspacedSentences(t *testing.T) {
	if len(longUnspaced) <= 64 {
		t.Fatalf("longUnspaced is %d bytes, no longer than a word", len(longUnspaced))
	}
	if _, err := Terms(longUnspaced); err != nil {
		t.Fatal(err)
	}
	allocs := testing.AllocsPerRun(20, func() {
		if _, err := Terms(longUnspaced); err != nil {
			t.Fatal(err)
		}
	})
	if allocs > 1 {
		t.Errorf("Terms of a kept %d-byte text: %.0f allocations a call, want the copy of its terms only", len(longUnspaced), allocs)
	}
}

// TestTermsCacheBounded: long texts fill the kept terms by bytes, not by
// count, and what is counted is what is held.
func TestTermsCacheBounded(t *testing.T) {
	// Each text costs about four times its bytes: twice as many as fill
	// the limit, checked as they go.
	n := 2 * termsCacheBytes / (4 * termsCacheText)
	for i := range n {
		text := fmt.Sprintf("%d %s", i, strings.Repeat("lorem ipsum ", termsCacheText/12-2))
		if _, err := Terms(text); err != nil {
			t.Fatal(err)
		}
		if i%50 != 0 && i != n-1 {
			continue
		}
		termsCache.Lock()
		held, counted := 0, termsCache.bytes
		for k, ts := range termsCache.m {
			held += termsCost(k, ts)
		}
		termsCache.Unlock()
		if held != counted || counted > termsCacheBytes {
			t.Fatalf("after %d texts: %d bytes counted, %d held, limit %d", i+1, counted, held, termsCacheBytes)
		}
	}
}

func TestTermsKept(t *testing.T) {
	a, err := bodyAnalyzer()
	if err != nil {
		t.Fatal(err)
	}
	analysed := func(text string) []string {
		var out []string
		for _, tok := range a.Analyze([]byte(text)) {
			out = append(out, string(tok.Term))
		}
		return out
	}
	for _, text := range []string{"Running", "the", "happy-go-lucky", "Разметка", "如果测试失败", "", strings.Repeat("words and more ", 10),
		longUnspaced, strings.Repeat("x", termsCacheText+1)} {
		for range 3 {
			got, err := Terms(text)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(analysed(text), got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("Terms(%q) (-analysed +got):\n%s", text, diff)
			}
			for i := range got {
				got[i] = "changed"
			}
		}
	}
}
