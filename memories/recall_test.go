package memories

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// mem is an active note of project "web", importance 3, updated an hour before
// testNow, changed by opts.
func mem(id, title, body string, opts ...func(*Memory)) *Memory {
	m := &Memory{
		ID: id, Title: title, Body: body, Type: TypeNote, Project: "web", Source: SourceUser,
		Status: StatusActive, Importance: 3,
		Created: testNow.Add(-time.Hour), Updated: testNow.Add(-time.Hour),
	}
	for _, o := range opts {
		o(m)
	}
	return m
}

func importance(n int) func(*Memory) { return func(m *Memory) { m.Importance = n } }
func project(p string) func(*Memory) { return func(m *Memory) { m.Project = p } }
func source(s Source) func(*Memory)  { return func(m *Memory) { m.Source = s } }
func status(s Status) func(*Memory)  { return func(m *Memory) { m.Status = s } }
func typ(t Type) func(*Memory)       { return func(m *Memory) { m.Type = t } }
func updated(ago time.Duration) func(*Memory) {
	return func(m *Memory) { m.Updated = testNow.Add(-ago) }
}
func created(at time.Time) func(*Memory) { return func(m *Memory) { m.Created = at } }

// numbered is the id "01j…" ending in n, so ids sort by n.
func numbered(n int) string { return fmt.Sprintf("01jn%022d", n) }

// recalledIDs lists the ids of a recall's results, in order.
func recalledIDs(res *RecallResult) []string {
	var ids []string
	for _, r := range res.Results {
		ids = append(ids, r.Memory.ID)
	}
	return ids
}

func TestRecallLimit(t *testing.T) {
	var ms []*Memory
	var all []string
	for i := 1; i <= 12; i++ {
		ms = append(ms, mem(numbered(i), fmt.Sprintf("Cache rule %d", i), "about the cache", updated(time.Duration(i)*time.Hour)))
		all = append(all, numbered(i))
	}
	tests := []struct {
		limit    int
		want     []string // ids, in order
		wantSize int      // asked of the index
	}{
		{0, all[:DefaultRecallLimit], 50},
		{1, all[:1], 50},
		{3, all[:3], 50},
		{11, all[:11], 55},
		{MaxRecallLimit, all, 250},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.limit), func(t *testing.T) {
			f := newFake(t, ms...)
			f.reverse = true
			svc, _ := newTestService(f)
			res, err := svc.Recall(context.Background(), RecallRequest{Query: "cache", Limit: tt.limit})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(recalledIDs(res), tt.want); diff != "" {
				t.Errorf("ids (-got +want):\n%s", diff)
			}
			if len(f.searches) == 0 || f.searches[0].Size != tt.wantSize {
				t.Errorf("searches %+v, want size %d", f.searches, tt.wantSize)
			}
		})
	}
}

func TestRecallInvalid(t *testing.T) {
	tests := []struct {
		name string
		req  RecallRequest
		arg  string
		msg  string
	}{
		{"limit negative", RecallRequest{Query: "cache", Limit: -1}, "limit", "from 1 to 50"},
		{"limit too big", RecallRequest{Query: "cache", Limit: MaxRecallLimit + 1}, "limit", "is 51"},
		{"query too long", RecallRequest{Query: strings.Repeat("q", MaxQueryChars+1)}, "query", "is 501 characters; the maximum is 500"},
		{"multi-byte query too long", RecallRequest{Query: strings.Repeat("é", MaxQueryChars+1)}, "query", "is 501 characters"},
		{"query not UTF-8", RecallRequest{Query: "caf\xe9"}, "query", "UTF-8"},
		{"no query, no project", RecallRequest{}, "query", "give a query, or a project"},
		{"blank query, no project", RecallRequest{Query: " \t\n"}, "query", "give a query, or a project"},
		{"bad project", RecallRequest{Query: "cache", Project: "../web"}, "project", "may hold only"},
		{"bad type", RecallRequest{Query: "cache", Type: "idea"}, "type", "is not a type"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFake(t, mem(numbered(1), "Cache rule", "about the cache"))
			svc, _ := newTestService(f)
			res, err := svc.Recall(context.Background(), tt.req)
			checkArgError(t, err, tt.arg, tt.msg)
			if res != nil {
				t.Errorf("got result %+v with the error", res)
			}
			if f.views != 0 || len(f.searches) != 0 {
				t.Errorf("an invalid recall reached the store: %d views, %d searches", f.views, len(f.searches))
			}
		})
	}
}

func TestRecallRequest(t *testing.T) {
	tests := []struct {
		name        string
		req         RecallRequest
		want        SearchRequest
		wantProject string
	}{
		{
			name: "query only",
			req:  RecallRequest{Query: "  cache  "},
			want: SearchRequest{Text: "cache", Phrases: true, Compounds: true, K1: ShortNotesK1, B: ShortNotesB, Size: 50},
		},
		{
			name: "longest query",
			req:  RecallRequest{Query: strings.Repeat("é", MaxQueryChars)},
			want: SearchRequest{Text: strings.Repeat("é", MaxQueryChars), Phrases: true, Compounds: true, K1: ShortNotesK1, B: ShortNotesB, Size: 50},
		},
		{
			name:        "project only: it and general",
			req:         RecallRequest{Project: " Web App "},
			want:        SearchRequest{Projects: []string{"web-app", "general"}, Size: 50},
			wantProject: "web-app",
		},
		{
			name:        "general",
			req:         RecallRequest{Project: "general"},
			want:        SearchRequest{Projects: []string{"general"}, Size: 50},
			wantProject: "general",
		},
		{
			name: "every filter",
			req: RecallRequest{Query: "cache", Project: "web", Type: "Gotcha", Limit: 20, IncludeSuperseded: true,
				Tags: []string{"#Redis", "perf"}, Since: "2d"},
			want: SearchRequest{Text: "cache", Phrases: true, Compounds: true, K1: ShortNotesK1, B: ShortNotesB, Projects: []string{"web", "general"}, Type: TypeGotcha, IncludeSuperseded: true,
				Tags: []string{"redis", "perf"}, UpdatedSince: testNow.Add(-48 * time.Hour), Size: 100},
			wantProject: "web",
		},
		{
			name: "scope recent",
			req:  RecallRequest{Scope: "recent"},
			want: SearchRequest{UpdatedSince: testNow.AddDate(0, 0, -DefaultRecentDays), Size: 50},
		},
		{
			name: "scope recent, since",
			req:  RecallRequest{Scope: "Recent", Since: "12h"},
			want: SearchRequest{UpdatedSince: testNow.Add(-12 * time.Hour), Size: 50},
		},
		{
			name: "scope open",
			req:  RecallRequest{Scope: "open", Query: "deploy"},
			want: SearchRequest{Text: "deploy", Phrases: true, Compounds: true, K1: ShortNotesK1, B: ShortNotesB, Status: StatusOpen, Size: 50},
		},
		{
			name: "scope meetings",
			req:  RecallRequest{Scope: "meetings"},
			want: SearchRequest{Type: TypeMeeting, Size: 50},
		},
		{
			name: "scope all",
			req:  RecallRequest{Scope: "all", Limit: 2},
			want: SearchRequest{Size: 50},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFake(t)
			svc, _ := newTestService(f)
			res, err := svc.Recall(context.Background(), tt.req)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(f.searches, []SearchRequest{tt.want}); diff != "" {
				t.Errorf("searches (-got +want):\n%s", diff)
			}
			if res.Query != tt.want.Text || res.Project != tt.wantProject {
				t.Errorf("result has query %q, project %q; want %q, %q", res.Query, res.Project, tt.want.Text, tt.wantProject)
			}
			if f.updates != 0 || f.wrote() {
				t.Errorf("recall wrote to the store")
			}
		})
	}
}

func TestRecallRelaxation(t *testing.T) {
	// both(n) is n memories matching "alpha" and "beta", then one matching
	// each alone and one matching neither.
	both := func(n int) []*Memory {
		var ms []*Memory
		for i := 1; i <= n; i++ {
			ms = append(ms, mem(numbered(i), "Alpha and beta", "both terms"))
		}
		return append(ms,
			mem(numbered(1000), "Only alpha", "one term"),
			mem(numbered(1001), "Only beta", "one term"),
			mem(numbered(1002), "Neither", "no term"))
	}
	tests := []struct {
		name       string
		ms         []*Memory
		query      string
		wantAnyArg []bool // AnyTerm of each search, in order
		wantN      int    // results
		// every word first, then any word (FeatureAnyTerm off)
		wantAnyArgOld []bool
		wantNOld      int
	}{
		{"too few with every term", both(1), "alpha beta", []bool{false, true}, 3, []bool{false, true}, 3},
		{"nine with every term", both(9), "alpha beta", []bool{false, true}, 11, []bool{false, true}, 11},
		// Ten memories with both words used to hide the two with one word;
		// they are found now, after the ten.
		{"ten with every term", both(10), "alpha beta", []bool{false, true}, 12, []bool{false}, 10},
		// A full candidate list (5 × the limit of 20) with both words: one
		// word is not searched.
		{"a full list with every term", both(100), "alpha beta", []bool{false}, 20, []bool{false}, 20},
		{"none with every term", both(0), "alpha beta", []bool{false, true}, 2, []bool{false, true}, 2},
		{"one term", both(1), "alpha", []bool{false}, 2, []bool{false}, 2},
		{"one term matching nothing", both(1), "gamma", []bool{false}, 0, []bool{false}, 0},
		{"no query", both(1), "", []bool{false}, 4, []bool{false}, 4},
	}
	for _, tt := range tests {
		for _, old := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/old=%v", tt.name, old), func(t *testing.T) {
				f := newFake(t, tt.ms...)
				r := DefaultRanking()
				r.Off = FeatureNeighbours
				wantAny, wantN := tt.wantAnyArg, tt.wantN
				if old {
					r.Off |= FeatureAnyTerm
					wantAny, wantN = tt.wantAnyArgOld, tt.wantNOld
				}
				svc, _ := newTestService(f, WithRanking(r))
				res, err := svc.Recall(context.Background(), RecallRequest{Query: tt.query, Project: "web", Limit: 20})
				if err != nil {
					t.Fatal(err)
				}
				var got []bool
				for _, s := range f.searches {
					got = append(got, s.AnyTerm)
					if s.Text != tt.query {
						t.Errorf("searched %q, want %q", s.Text, tt.query)
					}
				}
				if diff := cmp.Diff(got, wantAny); diff != "" {
					t.Errorf("AnyTerm of the searches (-got +want):\n%s", diff)
				}
				if len(res.Results) != wantN {
					t.Errorf("got %d results %v, want %d", len(res.Results), recalledIDs(res), wantN)
				}
			})
		}
	}
}

// TestRecallAnyWordOfTheRarest: recall's search for any word of a query of
// longWords distinct words or more asks the index for the anyTermRarest
// rarest of them (FeatureRarest); its search for every word, a shorter
// query's searches, and all of them with the feature off, for every word.
func TestRecallAnyWordOfTheRarest(t *testing.T) {
	long := "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu mu"
	short := "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda lambda"
	for _, c := range []struct {
		query      string
		off        bool
		wantRarest int
	}{
		{long, false, anyTermRarest},
		{long, true, 0},
		{short, false, 0}, // eleven distinct words
	} {
		f := newFake(t, mem(numbered(1), "Alpha", "alpha only"))
		f.counts = true
		r := DefaultRanking()
		if c.off {
			r.Off |= FeatureRarest
		}
		svc, _ := newTestService(f, WithRanking(r))
		if _, err := svc.Recall(context.Background(), RecallRequest{Query: c.query}); err != nil {
			t.Fatal(err)
		}
		want := []SearchRequest{{Text: c.query}, {Text: c.query, AnyTerm: true, Rarest: c.wantRarest}}
		var got []SearchRequest
		for _, s := range f.searches {
			got = append(got, SearchRequest{Text: s.Text, AnyTerm: s.AnyTerm, Rarest: s.Rarest})
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%q, FeatureRarest off %v: searches (-want +got):\n%s", c.query, c.off, diff)
		}
	}
}

// recalledSignals is the part of a Recalled the ranking decides.
type recalledSignals struct {
	ID      string
	Score   float64
	Signals Signals
}

func TestRecallRanking(t *testing.T) {
	def := DefaultRanking()
	rec := func(hours float64) float64 { return math.Pow(0.995, hours) }
	withQuery := func(s Signals) recalledSignals { return recalledSignals{Score: def.Score(s, true), Signals: s} }
	tests := []struct {
		name  string
		ms    []*Memory
		query string
		rank  *Ranking
		want  []recalledSignals // Score is filled in from Signals when zero
	}{
		{
			name:  "importance breaks a relevance tie",
			query: "cache",
			ms: []*Memory{
				mem(numbered(1), "Cache invalidation", "", importance(1)),
				mem(numbered(2), "Cache invalidation", "", importance(5)),
			},
			want: []recalledSignals{
				{ID: numbered(2), Signals: Signals{Relevance: 1, Recency: rec(1), Importance: 1}},
				{ID: numbered(1), Signals: Signals{Relevance: 1, Recency: rec(1), Importance: 0.2}},
			},
		},
		{
			name:  "recency breaks a relevance tie",
			query: "cache",
			ms: []*Memory{
				mem(numbered(1), "Cache invalidation", "", updated(100*time.Hour)),
				mem(numbered(2), "Cache invalidation", "", updated(90*time.Minute)),
			},
			want: []recalledSignals{
				{ID: numbered(2), Signals: Signals{Relevance: 1, Recency: rec(1.5), Importance: 0.6}},
				{ID: numbered(1), Signals: Signals{Relevance: 1, Recency: rec(100), Importance: 0.6}},
			},
		},
		{
			name:  "relevance is relative to the best hit",
			query: "cache redis",
			ms: []*Memory{
				mem(numbered(1), "Cache", "use redis", importance(5)),          // 2+1 of 4
				mem(numbered(2), "Cache with Redis", "", importance(1)),        // 4 of 4
				mem(numbered(3), "Other", "cache and redis", importance(3)),    // 2 of 4
				mem(numbered(4), "Unrelated", "nothing to see", importance(5)), // no match
			},
			// Relevance first: the most important hit, a quarter less
			// relevant, does not beat the most relevant one.
			want: []recalledSignals{
				{ID: numbered(2), Signals: Signals{Relevance: 1, Recency: rec(1), Importance: 0.2}},
				{ID: numbered(1), Signals: Signals{Relevance: 0.75, Recency: rec(1), Importance: 1}},
				{ID: numbered(3), Signals: Signals{Relevance: 0.5, Recency: rec(1), Importance: 0.6}},
			},
		},
		{
			name:  "importance outweighs relevance in the plain blend",
			query: "cache redis",
			ms: []*Memory{
				mem(numbered(1), "Cache", "use redis", importance(5)),
				mem(numbered(2), "Cache with Redis", "", importance(1)),
			},
			rank: &Ranking{Weights: DefaultRanking().Weights, RecencyBase: 0.995, TieBand: 1, Off: FeatureNeighbours},
			// 0.375+0.2 against 0.5+0.04, with the same recency.
			want: []recalledSignals{
				{ID: numbered(1), Score: 0.5*0.75 + 0.15*rec(1) + 0.2*1, Signals: Signals{Relevance: 0.75, Recency: rec(1), Importance: 1}},
				{ID: numbered(2), Score: 0.5*1 + 0.15*rec(1) + 0.2*0.2, Signals: Signals{Relevance: 1, Recency: rec(1), Importance: 0.2}},
			},
		},
		{
			name:  "recency does not outweigh relevance",
			query: "cache redis",
			ms: []*Memory{
				mem(numbered(1), "Cache with Redis", "", updated(1000*time.Hour)),
				mem(numbered(2), "Cache", "use redis", updated(0)),
			},
			want: []recalledSignals{
				{ID: numbered(1), Signals: Signals{Relevance: 1, Recency: rec(1000), Importance: 0.6}},
				{ID: numbered(2), Signals: Signals{Relevance: 0.75, Recency: 1, Importance: 0.6}},
			},
		},
		{
			name:  "equal scores: newest, then smallest id",
			query: "cache",
			ms: []*Memory{
				mem(numbered(3), "Cache", ""),
				mem(numbered(1), "Cache", ""),
				mem(numbered(2), "Cache", ""),
				mem(numbered(4), "Cache", "", updated(0), importance(3)),
			},
			rank: &Ranking{Weights: Weights{Relevance: 1}, RecencyBase: 0.995, Off: FeatureNeighbours},
			want: []recalledSignals{
				{ID: numbered(4), Score: 1, Signals: Signals{Relevance: 1, Recency: 1, Importance: 0.6}},
				{ID: numbered(1), Score: 1, Signals: Signals{Relevance: 1, Recency: rec(1), Importance: 0.6}},
				{ID: numbered(2), Score: 1, Signals: Signals{Relevance: 1, Recency: rec(1), Importance: 0.6}},
				{ID: numbered(3), Score: 1, Signals: Signals{Relevance: 1, Recency: rec(1), Importance: 0.6}},
			},
		},
		{
			name:  "configured weights",
			query: "cache",
			ms: []*Memory{
				mem(numbered(1), "Cache", "", importance(2)),
				mem(numbered(2), "Something", "about the cache", importance(4)),
			},
			rank: &Ranking{Weights: Weights{Relevance: 1, Importance: 3}, RecencyBase: 0.995, TieBand: 1, Off: FeatureNeighbours},
			want: []recalledSignals{
				{ID: numbered(2), Score: (0.5 + 3*0.8) / 4, Signals: Signals{Relevance: 0.5, Recency: rec(1), Importance: 0.8}},
				{ID: numbered(1), Score: (1 + 3*0.4) / 4, Signals: Signals{Relevance: 1, Recency: rec(1), Importance: 0.4}},
			},
		},
		{
			name: "no query: recency and importance only",
			ms: []*Memory{
				mem(numbered(1), "Old but important", "", importance(5), updated(48*time.Hour)),
				mem(numbered(2), "Fresh", "", importance(1), updated(0)),
				mem(numbered(3), "Other project", "", project("api")),
			},
			want: []recalledSignals{
				{ID: numbered(1), Score: (0.15*rec(48) + 0.2*1) / 0.5, Signals: Signals{Recency: rec(48), Importance: 1}},
				{ID: numbered(2), Score: (0.15*1 + 0.2*0.2) / 0.5, Signals: Signals{Recency: 1, Importance: 0.2}},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFake(t, tt.ms...)
			f.reverse = true
			var opts []Option
			if tt.rank != nil {
				opts = append(opts, WithRanking(*tt.rank))
			}
			svc, _ := newTestService(f, opts...)
			req := RecallRequest{Query: tt.query}
			if tt.query == "" {
				req.Project = "web"
			}
			res, err := svc.Recall(context.Background(), req)
			if err != nil {
				t.Fatal(err)
			}
			var got []recalledSignals
			for _, r := range res.Results {
				got = append(got, recalledSignals{ID: r.Memory.ID, Score: r.Score, Signals: r.Signals})
			}
			want := make([]recalledSignals, len(tt.want))
			for i, w := range tt.want {
				if w.Score == 0 {
					w.Score = withQuery(w.Signals).Score
				}
				want[i] = w
			}
			if diff := cmp.Diff(got, want, cmpopts.EquateApprox(0, 1e-12)); diff != "" {
				t.Errorf("ranking (-got +want):\n%s", diff)
			}
		})
	}
}

func TestRecallSuperseded(t *testing.T) {
	ms := []*Memory{
		mem(numbered(1), "Use npm", "package manager", status(StatusSuperseded), importance(5)),
		mem(numbered(2), "Use pnpm", "package manager"),
		mem(numbered(3), "Rotate keys", "package manager", status(StatusDone), typ(TypeAction)),
	}
	tests := []struct {
		name    string
		include bool
		want    []string
	}{
		{"excluded by default", false, []string{numbered(2), numbered(3)}},
		{"included when asked", true, []string{numbered(1), numbered(2), numbered(3)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFake(t, ms...)
			svc, _ := newTestService(f)
			res, err := svc.Recall(context.Background(), RecallRequest{Query: "package manager", IncludeSuperseded: tt.include})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(recalledIDs(res), tt.want); diff != "" {
				t.Errorf("ids (-got +want):\n%s", diff)
			}
			for _, s := range f.searches {
				if s.IncludeSuperseded != tt.include {
					t.Errorf("searched with IncludeSuperseded %v, want %v", s.IncludeSuperseded, tt.include)
				}
			}
		})
	}
}

func TestRecallResults(t *testing.T) {
	// Three ids share their first 11 characters; one is a copied note the index
	// knows by another id than the one in its file.
	ms := []*Memory{
		mem("01jn1234567aaaaaaaaaaaaaaa", "Cache one", "the cache body"),
		mem("01jn1234567bbbbbbbbbbbbbbb", "Cache two", "more cache", updated(2*time.Hour)),
		mem("01jn9999999999999999999999", "Cache three", "copied cache note", updated(3*time.Hour)),
	}
	f := newFake(t, ms...)
	copyPath := "memories/web/01jn9999999999999999999999.md"
	f.ids[copyPath] = "zcopy000000000000000000000"
	svc, _ := newTestService(f)

	res, err := svc.Recall(context.Background(), RecallRequest{Query: "cache"})
	if err != nil {
		t.Fatal(err)
	}
	type result struct{ ID, ShortID, Title, Body, Path string }
	var got []result
	for _, r := range res.Results {
		got = append(got, result{r.Memory.ID, r.ShortID, r.Memory.Title, r.Memory.Body, r.Memory.Path})
	}
	want := []result{
		{"01jn1234567aaaaaaaaaaaaaaa", "01jn1234567a", "Cache one", "the cache body", "memories/web/01jn1234567aaaaaaaaaaaaaaa.md"},
		{"01jn1234567bbbbbbbbbbbbbbb", "01jn1234567b", "Cache two", "more cache", "memories/web/01jn1234567bbbbbbbbbbbbbbb.md"},
		{"zcopy000000000000000000000", "zcopy000", "Cache three", "copied cache note", copyPath},
	}
	if diff := cmp.Diff(got, want); diff != "" {
		t.Errorf("results (-got +want):\n%s", diff)
	}
}

func TestRecallSkipsVanishedNotes(t *testing.T) {
	f := newFake(t,
		mem(numbered(1), "Cache one", ""),
		mem(numbered(2), "Cache two", "", updated(2*time.Hour)),
		mem(numbered(3), "Cache three", "", updated(3*time.Hour)))
	f.loadErr["memories/web/"+numbered(2)+".md"] = fmt.Errorf("open: %w", fs.ErrNotExist)
	svc, _ := newTestService(f)
	res, err := svc.Recall(context.Background(), RecallRequest{Query: "cache"})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(recalledIDs(res), []string{numbered(1), numbered(3)}); diff != "" {
		t.Errorf("ids (-got +want):\n%s", diff)
	}
}

// A vanished note does not cost a result: the next candidate takes its place.
func TestRecallFillsTheLimitPastVanishedNotes(t *testing.T) {
	f := newFake(t,
		mem(numbered(1), "Cache one", ""),
		mem(numbered(2), "Cache two", "", updated(2*time.Hour)),
		mem(numbered(3), "Cache three", "", updated(3*time.Hour)))
	f.loadErr["memories/web/"+numbered(1)+".md"] = fmt.Errorf("open: %w", fs.ErrNotExist)
	svc, _ := newTestService(f)
	res, err := svc.Recall(context.Background(), RecallRequest{Query: "cache", Limit: 2})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(recalledIDs(res), []string{numbered(2), numbered(3)}); diff != "" {
		t.Errorf("ids (-got +want):\n%s", diff)
	}
}

func TestRecallLoadError(t *testing.T) {
	boom := errors.New("permission denied")
	f := newFake(t, mem(numbered(1), "Cache one", ""))
	f.loadErr["memories/web/"+numbered(1)+".md"] = boom
	svc, _ := newTestService(f)
	res, err := svc.Recall(context.Background(), RecallRequest{Query: "cache"})
	if !errors.Is(err, boom) || res != nil {
		t.Errorf("got %v, %v; want nil and the load error", res, err)
	}
}

func TestRecallSearchError(t *testing.T) {
	boom := errors.New("index corrupt")
	f := newFake(t)
	f.searchErr = boom
	svc, _ := newTestService(f)
	_, err := svc.Recall(context.Background(), RecallRequest{Query: "cache"})
	if !errors.Is(err, boom) || !strings.HasPrefix(err.Error(), "search: ") {
		t.Errorf("got %v, want the search error, wrapped", err)
	}
}

func TestRecallEmptyMessage(t *testing.T) {
	tests := []struct {
		req  RecallRequest
		want string
	}{
		{RecallRequest{Query: "  kubernetes  "}, "No memories found for: kubernetes"},
		{RecallRequest{Query: "kubernetes", Project: "web"}, "No memories found for: kubernetes"},
		{RecallRequest{Project: "Web"}, "No memories found in project: web"},
		{RecallRequest{Tags: []string{"Redis", "perf"}}, "No memories found with tags: redis, perf"},
		{RecallRequest{Type: "gotcha"}, "No memories found for the filters given"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			svc, _ := newTestService(newFake(t))
			res, err := svc.Recall(context.Background(), tt.req)
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Results) != 0 {
				t.Fatalf("got %d results from an empty store", len(res.Results))
			}
			if got := res.EmptyMessage(); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestRecallNeighbours(t *testing.T) {
	at := testNow.Add(-48 * time.Hour)
	turn := func(n int, body string, opts ...func(*Memory)) *Memory {
		return mem(numbered(n), body, body, append([]func(*Memory){created(at), updated(48 * time.Hour)}, opts...)...)
	}
	// later is a turn of another day that matches as much as the reply: it is
	// newer, so it wins the tie unless the reply is lent something.
	later := func(n int) *Memory {
		return turn(n, "Melanie: the kids love the beach", created(at.Add(72*time.Hour)), updated(0))
	}
	tests := []struct {
		name  string
		ms    []*Memory
		query string
		want  []string
	}{
		{
			// The reply says little of the accident: the turn before it does.
			name: "a reply is lifted by the turn it answers",
			ms: []*Memory{
				turn(1, "Caroline: how did the kids take the accident"),
				turn(2, "Melanie: the kids were scared but we reassured them"),
				later(3),
			},
			query: "kids accident",
			want:  []string{numbered(1), numbered(2), numbered(3)},
		},
		{
			name: "the turn before a match is not lifted by it",
			ms: []*Memory{
				turn(1, "Melanie: the kids were scared but we reassured them"),
				turn(2, "Caroline: how did the kids take the accident"),
				later(3),
			},
			query: "kids accident",
			want:  []string{numbered(2), numbered(3), numbered(1)},
		},
		{
			name: "memories saved days apart are not neighbours",
			ms: []*Memory{
				turn(1, "Caroline: how did the kids take the accident"),
				turn(2, "Melanie: the kids were scared but we reassured them", created(at.Add(24*time.Hour))),
				later(3),
			},
			query: "kids accident",
			want:  []string{numbered(1), numbered(3), numbered(2)},
		},
		{
			name: "memories of another project are not neighbours",
			ms: []*Memory{
				turn(1, "Caroline: how did the kids take the accident"),
				turn(2, "Melanie: the kids were scared but we reassured them", project("general")),
				later(3),
			},
			query: "kids accident",
			want:  []string{numbered(1), numbered(3), numbered(2)},
		},
		{
			// Saved in one batch, the turns share their time: ids keep their
			// order.
			name: "ids order the turns of one time",
			ms: []*Memory{
				turn(3, "Melanie: the kids were scared but we reassured them"),
				turn(2, "Caroline: how did the kids take the accident"),
				turn(1, "Melanie: we went camping last week"),
				later(4),
			},
			query: "kids accident",
			want:  []string{numbered(2), numbered(3), numbered(4)},
		},
		{
			// A memory that shares no word with the query is not brought in,
			// whatever it follows.
			name: "no word, no result",
			ms: []*Memory{
				turn(1, "Caroline: how did the kids take the accident"),
				turn(2, "Melanie: they were scared but we reassured them"),
			},
			query: "kids accident",
			want:  []string{numbered(1)},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFake(t, tt.ms...)
			svc, _ := newTestService(f, WithRanking(DefaultRanking()))
			res, err := svc.Recall(context.Background(), RecallRequest{Query: tt.query, Project: "web"})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(recalledIDs(res), tt.want); diff != "" {
				t.Errorf("ids (-got +want):\n%s", diff)
			}
		})
	}
}

func TestRecallNeighbourLendsOnlyTheDifference(t *testing.T) {
	// The turn after a strong match that matches as well is lent nothing:
	// context lifts a memory towards its neighbour, never past it.
	at := testNow.Add(-48 * time.Hour)
	ms := []*Memory{
		mem(numbered(1), "Caroline: the accident", "Caroline: the accident and the kids", created(at)),
		mem(numbered(2), "Melanie: the accident", "Melanie: the accident", created(at)),
	}
	f := newFake(t, ms...)
	svc, _ := newTestService(f, WithRanking(DefaultRanking()))
	res, err := svc.Recall(context.Background(), RecallRequest{Query: "kids accident"})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(recalledIDs(res), []string{numbered(1), numbered(2)}); diff != "" {
		t.Fatalf("ids (-got +want):\n%s", diff)
	}
	// The fake scores 3 (title and body) against 2 (title): 2 + 0.35 × (3 − 2).
	if got, want := res.Results[1].Signals.Relevance, (2+neighbourShare*(3-2))/3.0; !approx(got, want) {
		t.Errorf("the second turn's relevance is %g, want %g", got, want)
	}
}
