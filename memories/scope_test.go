package memories

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func area(a string) func(*Memory)     { return func(m *Memory) { m.Area = a } }
func tags(ts ...string) func(*Memory) { return func(m *Memory) { m.Tags = ts } }
func related(names ...string) func(*Memory) {
	return func(m *Memory) { m.Related = names }
}
func derivedFrom(id string) func(*Memory) {
	return func(m *Memory) { m.Provenance.DerivedFrom = id }
}

func TestRecallScopes(t *testing.T) {
	ms := []*Memory{
		mem(numbered(1), "Web cache", "cache for web", area("perf")),
		mem(numbered(2), "General cache", "cache everywhere", project("general")),
		mem(numbered(3), "Api cache", "cache for api", project("api"), area("perf")),
		mem(numbered(4), "Old api cache", "cache, long ago", project("api"), updated(30*24*time.Hour)),
		mem(numbered(5), "Fix the cache", "an action item", typ(TypeAction), status(StatusOpen), project("api")),
		mem(numbered(6), "Standup", "cache discussed", typ(TypeMeeting), project("general")),
		mem(numbered(7), "Tagged cache", "cache with tags", tags("redis", "perf")),
		mem(numbered(8), "Replaced cache", "cache, superseded", status(StatusSuperseded)),
	}
	tests := []struct {
		name string
		req  RecallRequest
		want []string // sorted numbers
	}{
		{"no scope: everything live", RecallRequest{Query: "cache"}, ids(1, 2, 3, 4, 5, 6, 7)},
		{"scope all", RecallRequest{Query: "cache", Scope: "all"}, ids(1, 2, 3, 4, 5, 6, 7)},
		{"project and general", RecallRequest{Query: "cache", Project: "api"}, ids(2, 3, 4, 5, 6)},
		{"scope naming a project", RecallRequest{Query: "cache", Scope: "API"}, ids(2, 3, 4, 5, 6)},
		{"scope naming an area", RecallRequest{Query: "cache", Scope: "perf"}, ids(1, 3)},
		{"area within a project", RecallRequest{Query: "cache", Scope: "perf", Project: "web"}, ids(1)},
		{"a project scope and another project: general only", RecallRequest{Query: "cache", Scope: "web", Project: "api"}, ids(2, 6)},
		{"scope naming nothing", RecallRequest{Query: "cache", Scope: "nowhere"}, nil},
		{"recent", RecallRequest{Query: "cache", Scope: "recent"}, ids(1, 2, 3, 5, 6, 7)},
		{"since", RecallRequest{Query: "cache", Since: "40d"}, ids(1, 2, 3, 4, 5, 6, 7)},
		{"since a date", RecallRequest{Query: "cache", Since: testNow.AddDate(0, 0, -2).Format(time.DateOnly)}, ids(1, 2, 3, 5, 6, 7)},
		{"open", RecallRequest{Scope: "open"}, ids(5)},
		{"meetings", RecallRequest{Scope: "meetings"}, ids(6)},
		{"tags, all of them", RecallRequest{Query: "cache", Tags: []string{"perf", "redis"}}, ids(7)},
		// Without a query, project or scope, a filter alone searches every project.
		{"tags alone", RecallRequest{Tags: []string{"redis"}}, ids(7)},
		{"type alone", RecallRequest{Type: "action"}, ids(5)},
		{"since alone", RecallRequest{Since: "2d"}, ids(1, 2, 3, 5, 6, 7)},
		{"type", RecallRequest{Query: "cache", Type: "action"}, ids(5)},
		{"superseded asked for", RecallRequest{Query: "superseded", IncludeSuperseded: true}, ids(8)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFake(t, ms...)
			svc, _ := newTestService(f)
			res, err := svc.Recall(context.Background(), tt.req)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(recalledIDs(res), tt.want, sortStrings()); diff != "" {
				t.Errorf("(-got +want):\n%s", diff)
			}
		})
	}
}

func ids(ns ...int) []string {
	out := make([]string, len(ns))
	for i, n := range ns {
		out[i] = numbered(n)
	}
	return out
}

func TestRecallScopeWithoutQueryRanksByRecencyActivationImportance(t *testing.T) {
	f := newFake(t,
		mem(numbered(1), "Newest", "a", updated(time.Minute)),
		mem(numbered(2), "Important", "b", updated(2*time.Hour), importance(5)),
		mem(numbered(3), "Old", "c", updated(24*time.Hour)),
	)
	svc, _ := newTestService(f)
	res, err := svc.Recall(context.Background(), RecallRequest{Scope: "web"})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(recalledIDs(res), ids(2, 1, 3)); diff != "" {
		t.Errorf("(-got +want):\n%s", diff)
	}
	for _, r := range res.Results {
		if r.Signals.Relevance != 0 || r.Weights.Relevance != 0 {
			t.Errorf("%s: relevance %g with weight %g, without a query", r.Memory.ID, r.Signals.Relevance, r.Weights.Relevance)
		}
		if sum := r.Weights.Recency + r.Weights.Activation + r.Weights.Importance; !approx(sum, 1) {
			t.Errorf("effective weights sum to %g", sum)
		}
	}
	if res.EmptyMessage() != "No memories in scope: web" {
		t.Errorf("empty message %q", res.EmptyMessage())
	}
}

func TestRecallMeetingScope(t *testing.T) {
	meeting := mem(numbered(10), "Planning", "the meeting", typ(TypeMeeting), created(testNow.Add(-2*time.Hour)))
	action := mem(numbered(11), "Ship the cache", "an action", typ(TypeAction), status(StatusOpen), derivedFrom(numbered(10)))
	decision := mem(numbered(12), "Use Redis", "a decision", typ(TypeDecision), related(numbered(10)))
	other := mem(numbered(13), "Unrelated", "not from the meeting", typ(TypeDecision))
	before := mem(numbered(14), "Earlier", "older than the meeting", typ(TypeAction), derivedFrom(numbered(10)), created(testNow.Add(-3*time.Hour)))
	f := newFake(t, meeting, action, decision, other, before)
	svc, _ := newTestService(f)
	res, err := svc.Recall(context.Background(), RecallRequest{Scope: "meeting:" + strings.ToUpper(numbered(10))})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(recalledIDs(res), ids(10, 11, 12), sortStrings()); diff != "" {
		t.Errorf("(-got +want):\n%s", diff)
	}
	for _, tt := range []struct {
		scope, arg, msg string
	}{
		{"meeting:" + numbered(11), "scope", "is a action, not a meeting"},
		{"meeting:01jn", "scope", "at least 8 characters"},
		{"meeting:01jn0000", "scope", "more than one memory"},
	} {
		_, err := svc.Recall(context.Background(), RecallRequest{Scope: tt.scope})
		checkArgError(t, err, tt.arg, tt.msg)
	}
	_, err = svc.Recall(context.Background(), RecallRequest{Scope: "meeting:01zzzzzzzzzz"})
	if !errors.Is(err, ErrNotFound) {
		t.Errorf("unknown meeting: %v, want ErrNotFound", err)
	}
}

func TestRecallAppendsRelated(t *testing.T) {
	// 1 links to 2 (same project) and 3 (general); 2 links back to 1; 4 is
	// superseded; 5 is a link to nothing.
	m1 := mem(numbered(1), "Cache rule", "about the cache", related(numbered(2), numbered(3), numbered(4), "nothing-here", "../escape"))
	m2 := mem(numbered(2), "Eviction", "keys expire after an hour", related(numbered(1)))
	m3 := mem(numbered(3), "General TTLs", "ttl conventions", project("general"))
	m4 := mem(numbered(4), "Old eviction", "keys never expired", status(StatusSuperseded))
	f := newFake(t, m1, m2, m3, m4)
	svc, _ := newTestService(f)
	res, err := svc.Recall(context.Background(), RecallRequest{Query: "cache", Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	type row struct {
		ID      string
		Related bool
		Via     string
	}
	var got []row
	for _, r := range res.Results {
		got = append(got, row{r.Memory.ID, r.Related, r.Via})
	}
	// Limit 1: one result and at most one related (2 × limit in all).
	want := []row{{numbered(1), false, ""}, {numbered(2), true, numbered(1)}}
	if diff := cmp.Diff(got, want); diff != "" {
		t.Errorf("limit 1 (-got +want):\n%s", diff)
	}
	if r := res.Results[1]; r.Signals.Relevance != 0 || r.Score <= 0 {
		t.Errorf("related memory scored %g with relevance %g", r.Score, r.Signals.Relevance)
	}

	res, err = svc.Recall(context.Background(), RecallRequest{Query: "cache", Limit: 5})
	if err != nil {
		t.Fatal(err)
	}
	got = nil
	for _, r := range res.Results {
		got = append(got, row{r.Memory.ID, r.Related, r.Via})
	}
	want = []row{{numbered(1), false, ""}, {numbered(2), true, numbered(1)}, {numbered(3), true, numbered(1)}}
	if diff := cmp.Diff(got, want); diff != "" {
		t.Errorf("limit 5 (-got +want):\n%s", diff)
	}
	// A superseded memory is linked when superseded ones are asked for.
	res, err = svc.Recall(context.Background(), RecallRequest{Query: "rule", Limit: 5, IncludeSuperseded: true})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(res.Results); n != 4 || res.Results[3].Memory.ID != numbered(4) {
		t.Errorf("with superseded: %v", recalledIDs(res))
	}
}

func TestRecallInvalidScopes(t *testing.T) {
	tests := []struct {
		req      RecallRequest
		arg, msg string
	}{
		{RecallRequest{Scope: "../etc"}, "scope", "is not a project or area name"},
		{RecallRequest{Scope: "meetings", Type: "decision"}, "type", "contradicts the scope"},
		{RecallRequest{Query: "x", Since: "yesterday"}, "since", "is not a duration"},
		{RecallRequest{Query: "x", Since: "0d"}, "since", "is zero"},
		{RecallRequest{Query: "x", Since: "7y"}, "since", "is not a duration"},
		{RecallRequest{Query: "x", Since: "99999999d"}, "since", "is not a duration"},
		{RecallRequest{Query: "x", Tags: []string{"a!b"}}, "tags", ""},
	}
	for _, tt := range tests {
		t.Run(tt.arg+" "+tt.req.Scope+tt.req.Since+strings.Join(tt.req.Tags, ","), func(t *testing.T) {
			f := newFake(t)
			svc, _ := newTestService(f)
			_, err := svc.Recall(context.Background(), tt.req)
			checkArgError(t, err, tt.arg, tt.msg)
		})
	}
}

func TestParseSince(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want time.Time
	}{
		{"90m", testNow.Add(-90 * time.Minute)},
		{"12h", testNow.Add(-12 * time.Hour)},
		{"7d", testNow.Add(-7 * 24 * time.Hour)},
		{"2w", testNow.Add(-14 * 24 * time.Hour)},
		{" 3d ", testNow.Add(-3 * 24 * time.Hour)},
		{"2025-03-01T10:00:00Z", time.Date(2025, 3, 1, 10, 0, 0, 0, time.UTC)},
		{"2025-03-01", time.Date(2025, 3, 1, 0, 0, 0, 0, time.Local)},
	} {
		got, err := ParseSince(tt.in, testNow)
		if err != nil || !got.Equal(tt.want) {
			t.Errorf("ParseSince(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
		}
	}
}
