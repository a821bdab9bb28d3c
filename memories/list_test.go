package memories

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// day is midnight of the nth day of March 2025.
func day(n int) time.Time { return time.Date(2025, 3, n, 0, 0, 0, 0, time.UTC) }

// listStore is a store whose path order (project, then id) differs from the
// newest-first order List must give.
func listStore(t *testing.T) *fakeBackend {
	t.Helper()
	return newFake(t,
		mem(numbered(1), "A web note", "", created(day(1))),
		mem(numbered(2), "A web decision", "", created(day(3)), typ(TypeDecision), source(SourceMined)),
		mem(numbered(3), "An api note", "", created(day(2)), project("api"), source(SourceMined)),
		mem(numbered(4), "A retired web note", "", created(day(4)), status(StatusSuperseded), source(SourceImport)),
		mem(numbered(5), "An open action", "", created(day(5)), typ(TypeAction), status(StatusOpen)),
		mem(numbered(6), "A done action", "", created(day(5)), typ(TypeAction), status(StatusDone), source(SourceMined)),
	)
}

func itemIDs(res *ListResult) []string {
	var ids []string
	for _, it := range res.Items {
		ids = append(ids, it.ID)
	}
	return ids
}

func TestList(t *testing.T) {
	n := numbered
	tests := []struct {
		name        string
		req         ListRequest
		want        []string // ids, in order
		wantProject string
		wantSources map[Source]int
	}{
		{
			name:        "everything but superseded, newest first",
			req:         ListRequest{},
			want:        []string{n(6), n(5), n(2), n(3), n(1)},
			wantSources: map[Source]int{SourceMined: 3, SourceUser: 2},
		},
		{
			name:        "one project",
			req:         ListRequest{Project: " Web "},
			want:        []string{n(6), n(5), n(2), n(1)},
			wantProject: "web",
			wantSources: map[Source]int{SourceMined: 2, SourceUser: 2},
		},
		{
			name:        "one type",
			req:         ListRequest{Type: "Action"},
			want:        []string{n(6), n(5)},
			wantSources: map[Source]int{SourceMined: 1, SourceUser: 1},
		},
		{
			name:        "open",
			req:         ListRequest{Status: "open"},
			want:        []string{n(5)},
			wantSources: map[Source]int{SourceUser: 1},
		},
		{
			name:        "done, any case",
			req:         ListRequest{Status: " DONE "},
			want:        []string{n(6)},
			wantSources: map[Source]int{SourceMined: 1},
		},
		{
			name:        "active",
			req:         ListRequest{Status: "active"},
			want:        []string{n(2), n(3), n(1)},
			wantSources: map[Source]int{SourceMined: 2, SourceUser: 1},
		},
		{
			name:        "superseded",
			req:         ListRequest{Status: "superseded"},
			want:        []string{n(4)},
			wantSources: map[Source]int{SourceImport: 1},
		},
		{
			name:        "all",
			req:         ListRequest{Status: "all"},
			want:        []string{n(6), n(5), n(4), n(2), n(3), n(1)},
			wantSources: map[Source]int{SourceMined: 3, SourceUser: 2, SourceImport: 1},
		},
		{
			name:        "every filter",
			req:         ListRequest{Project: "web", Type: "note", Status: "all"},
			want:        []string{n(4), n(1)},
			wantProject: "web",
			wantSources: map[Source]int{SourceImport: 1, SourceUser: 1},
		},
		{
			name:        "empty project",
			req:         ListRequest{Project: "mobile"},
			want:        nil,
			wantProject: "mobile",
			wantSources: map[Source]int{},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := listStore(t)
			svc, _ := newTestService(f)
			res, err := svc.List(context.Background(), tt.req)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(itemIDs(res), tt.want); diff != "" {
				t.Errorf("ids (-got +want):\n%s", diff)
			}
			if res.Total != len(tt.want) {
				t.Errorf("total %d, want %d", res.Total, len(tt.want))
			}
			if res.Project != tt.wantProject {
				t.Errorf("project %q, want %q", res.Project, tt.wantProject)
			}
			if diff := cmp.Diff(res.Sources, tt.wantSources); diff != "" {
				t.Errorf("sources (-got +want):\n%s", diff)
			}
			if f.updates != 0 || f.wrote() {
				t.Errorf("list wrote to the store: %d updates, %d events", f.updates, len(f.events))
			}
		})
	}
}

func TestListInvalid(t *testing.T) {
	tests := []struct {
		name string
		req  ListRequest
		arg  string
		msg  string
	}{
		{"unknown status", ListRequest{Status: "closed"}, "status", `"closed" is not a status`},
		{"unknown type", ListRequest{Type: "idea"}, "type", "is not a type"},
		{"bad project", ListRequest{Project: "../web"}, "project", "may hold only"},
		{"negative limit", ListRequest{Limit: -1}, "limit", "is -1; it must be 0 (list every memory) or more"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := listStore(t)
			svc, _ := newTestService(f)
			res, err := svc.List(context.Background(), tt.req)
			checkArgError(t, err, tt.arg, tt.msg)
			if res != nil || f.views != 0 {
				t.Errorf("got result %v and %d views with the error", res, f.views)
			}
		})
	}
}

// TestListLimit: the limit keeps the first memories in the list's order
// (newest first; best match first with a filter); the total, the sources and
// the short ids are those of the whole scope, and More says what was left
// out. 0 lists everything.
func TestListLimit(t *testing.T) {
	n := numbered
	tests := []struct {
		name string
		req  ListRequest
		want []string
		more int
	}{
		{"two newest", ListRequest{Limit: 2}, []string{n(6), n(5)}, 3},
		{"no limit", ListRequest{}, []string{n(6), n(5), n(2), n(3), n(1)}, 0},
		{"a limit above the total", ListRequest{Limit: 9}, []string{n(6), n(5), n(2), n(3), n(1)}, 0},
		{"the limit of a project", ListRequest{Project: "web", Status: "all", Limit: 3}, []string{n(6), n(5), n(4)}, 2},
		{"the best match", ListRequest{Filter: "web note", Status: "all", Limit: 1}, []string{n(1)}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			svc, _ := newTestService(listStore(t))
			all := tt.req
			all.Limit = 0
			whole, err := svc.List(context.Background(), all)
			if err != nil {
				t.Fatal(err)
			}
			res, err := svc.List(context.Background(), tt.req)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(itemIDs(res), tt.want); diff != "" {
				t.Errorf("ids (-got +want):\n%s", diff)
			}
			if res.More() != tt.more || res.Total != whole.Total {
				t.Errorf("total %d, more %d; want the whole scope's %d and %d", res.Total, res.More(), whole.Total, tt.more)
			}
			if diff := cmp.Diff(res.Sources, whole.Sources); diff != "" {
				t.Errorf("sources are not the whole scope's (-got +want):\n%s", diff)
			}
			if m := res.MoreMessage("--"); (m == "") != (tt.more == 0) || tt.more > 0 && !strings.HasPrefix(m, fmt.Sprintf("… and %d more: --limit 0", tt.more)) {
				t.Errorf("MoreMessage %q with %d more", m, tt.more)
			}
			for i, it := range res.Items {
				if it.ShortID != whole.Items[i].ShortID {
					t.Errorf("%s: short id %q, %q without the limit", it.ID, it.ShortID, whole.Items[i].ShortID)
				}
			}
		})
	}
}

func TestListFuzzyFilter(t *testing.T) {
	// Newest first: 7 (hidden), 6, 5, 4, 3, 2, 1.
	f := newFake(t,
		mem(numbered(1), "Cache rules", "", created(day(1))),
		mem(numbered(2), "Redis as a cache", "", created(day(2))),
		mem(numbered(3), "Create a cheap entry", "", created(day(3))),
		mem(numbered(4), "Unrelated note", "", created(day(4))),
		mem(numbered(5), "Cache A", "", created(day(5))),
		mem(numbered(6), "Cache B", "", created(day(6))),
		mem(numbered(7), "Cache invalidation superseded", "", created(day(7)), status(StatusSuperseded)),
	)
	tests := []struct {
		filter string
		want   []string
	}{
		// Equally good matches (6 and 5) stay newest first; a prefix match
		// beats a match after a word, which beats scattered letters.
		{"cache", []string{numbered(6), numbered(5), numbered(1), numbered(2), numbered(3)}},
		{"  CACHE rul ", []string{numbered(1)}},
		{"zzz", nil},
		{"", []string{numbered(6), numbered(5), numbered(4), numbered(3), numbered(2), numbered(1)}},
	}
	for _, tt := range tests {
		t.Run(tt.filter, func(t *testing.T) {
			svc, _ := newTestService(f)
			res, err := svc.List(context.Background(), ListRequest{Filter: tt.filter})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(itemIDs(res), tt.want); diff != "" {
				t.Errorf("ids (-got +want):\n%s", diff)
			}
			if res.Total != len(tt.want) {
				t.Errorf("total %d, want %d", res.Total, len(tt.want))
			}
		})
	}
}

func TestListShortIDs(t *testing.T) {
	// x shares 15 characters with y, which is superseded and so not listed:
	// x's short id must still tell them apart. w is in another project.
	const (
		x = "01jn12345678aaaaaaaaaaaaaa"
		y = "01jn12345678aaab0000000000"
		z = "01jn99999999999999999999zz"
		w = "01jn12345678ab000000000000"
	)
	f := newFake(t,
		mem(x, "x", "", created(day(3))),
		mem(y, "y", "", created(day(2)), status(StatusSuperseded)),
		mem(z, "z", "", created(day(1))),
		mem(w, "w", "", created(day(1)), project("api")),
	)
	svc, _ := newTestService(f)
	res, err := svc.List(context.Background(), ListRequest{Project: "web"})
	if err != nil {
		t.Fatal(err)
	}
	type item struct{ ID, ShortID string }
	var got []item
	for _, it := range res.Items {
		got = append(got, item{it.ID, it.ShortID})
	}
	want := []item{{x, "01jn12345678aaaa"}, {z, "01jn9999"}}
	if diff := cmp.Diff(got, want); diff != "" {
		t.Errorf("short ids (-got +want):\n%s", diff)
	}
	// List abbreviates on its own; it must agree with the snapshot.
	snap := &fakeTx{f}
	for _, it := range got {
		if s := snap.ShortID(it.ID); s != it.ShortID {
			t.Errorf("list abbreviates %s to %q, the snapshot to %q", it.ID, it.ShortID, s)
		}
	}
}

func TestListShortIDsNeighbours(t *testing.T) {
	// The longest shared prefix can be with either neighbour in sorted order.
	ids := []string{
		"01jn0000000000000000000000",
		"01jn0000000000000000000001", // shares 25 with the one before
		"01jn0000001000000000000000", // shares 10 with the one before
		"01jn0000001000000000000001", // shares 25 with the one before
		"01jn0000002000000000000000", // shares 10 with the one before, 10 after
		"01jn0000003000000000000000",
		"01jn1000000000000000000000",
	}
	var ms []*Memory
	for i, id := range ids {
		ms = append(ms, mem(id, id, "", created(day(1+i))))
	}
	f := newFake(t, ms...)
	svc, _ := newTestService(f)
	res, err := svc.List(context.Background(), ListRequest{})
	if err != nil {
		t.Fatal(err)
	}
	snap := &fakeTx{f}
	got, want := map[string]string{}, map[string]string{}
	for _, it := range res.Items {
		got[it.ID] = it.ShortID
		want[it.ID] = snap.ShortID(it.ID)
	}
	if diff := cmp.Diff(got, want); diff != "" {
		t.Errorf("short ids (-list +snapshot):\n%s", diff)
	}
	if len(got) != len(ids) {
		t.Errorf("listed %d of %d", len(got), len(ids))
	}
}

func TestSourceSummary(t *testing.T) {
	tests := []struct {
		sources map[Source]int
		want    string
	}{
		{nil, ""},
		{map[Source]int{SourceUser: 1}, "user:1"},
		{map[Source]int{SourceUser: 1, SourceMined: 2}, "mined:2, user:1"},
		{map[Source]int{SourceUser: 12, SourceMined: 32, SourceImport: 3}, "mined:32, user:12, import:3"},
		{map[Source]int{SourceUser: 2, SourceImport: 2, SourceHook: 2, SourceCapture: 5}, "capture:5, hook:2, import:2, user:2"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			r := &ListResult{Sources: tt.sources}
			if got := r.SourceSummary(); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestListSourceSummary(t *testing.T) {
	f := newFake(t,
		mem(numbered(1), "one", "", source(SourceUser)),
		mem(numbered(2), "two", "", source(SourceMined)),
		mem(numbered(3), "three", "", source(SourceMined)),
		mem(numbered(4), "four", "", source(SourceImport), status(StatusSuperseded)),
	)
	svc, _ := newTestService(f)
	res, err := svc.List(context.Background(), ListRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := res.SourceSummary(), "mined:2, user:1"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestListEmptyMessage(t *testing.T) {
	tests := []struct {
		project string
		want    string
	}{
		{"", "No memories in scope: all"},
		{"Mobile App", "No memories in scope: mobile-app"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			svc, _ := newTestService(newFake(t))
			res, err := svc.List(context.Background(), ListRequest{Project: tt.project})
			if err != nil {
				t.Fatal(err)
			}
			if res.Total != 0 || len(res.Items) != 0 {
				t.Fatalf("got %d items from an empty store", res.Total)
			}
			if got := res.EmptyMessage(); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

// referenceList is List as it was written first: every entry that passes
// the filters, sorted through pointers, and every id sorted to abbreviate
// them. TestListMatchesReference holds the faster List to it.
func referenceList(entries []Entry, project string, typ Type, keep func(Status) bool, filter string) []ListItem {
	var sel []*Entry
	for i := range entries {
		e := &entries[i]
		if (project == "" || e.Project == project) && (typ == "" || e.Type == typ) && keep(e.Status) {
			sel = append(sel, e)
		}
	}
	sort.Slice(sel, func(i, j int) bool { return newer(sel[i], sel[j]) })
	if filter != "" {
		sel = fuzzyFilter(filter, sel)
	}
	ids := make([]string, len(entries))
	for i := range entries {
		ids[i] = entries[i].ID
	}
	sort.Strings(ids)
	var out []ListItem
	for _, e := range sel {
		n := MinPrefix
		i := sort.SearchStrings(ids, e.ID)
		for _, j := range []int{i - 1, i + 1} {
			if j >= 0 && j < len(ids) {
				l := 0
				for l < len(e.ID) && l < len(ids[j]) && e.ID[l] == ids[j][l] {
					l++
				}
				n = max(n, l+1)
			}
		}
		out = append(out, ListItem{Entry: e, ShortID: e.ID[:min(n, len(e.ID))]})
	}
	return out
}

// TestListMatchesReference: on generated stores whose memories share
// creation times (to the second and below) and id prefixes of 8 to 25
// characters, List gives the reference's items in the reference's order,
// with its short ids, whatever the filters.
func TestListMatchesReference(t *testing.T) {
	const alphabet = "0123456789abcdefghjkmnpqrstvwxyz"
	rng := rand.New(rand.NewPCG(1, 2))
	randID := func() string {
		b := []byte("01jn")
		// Half the ids have few values per character early on: many of
		// them share a prefix; the others' prefix is mostly their own.
		crowded := rng.IntN(2) == 0
		for i := 4; i < 26; i++ {
			k := len(alphabet)
			if crowded && i < 12 {
				k = 2
			}
			b = append(b, alphabet[rng.IntN(k)])
		}
		return string(b)
	}
	for round := range 3 {
		seen := map[string]bool{}
		var ms []*Memory
		for len(ms) < 1500 {
			id := randID()
			if seen[id] {
				continue
			}
			seen[id] = true
			at := day(1 + rng.IntN(4))
			if rng.IntN(2) == 0 {
				at = at.Add(time.Duration(rng.IntN(3)) * 300 * time.Millisecond)
			}
			title := []string{"retry the timeout", "pool size", "timeout on deploy", "jwt leeway"}[rng.IntN(4)]
			ms = append(ms, mem(id, title, "", created(at),
				project([]string{"web", "api", "general"}[rng.IntN(3)]),
				typ([]Type{TypeFact, TypeDecision, TypeAction}[rng.IntN(3)]),
				status([]Status{StatusActive, StatusActive, StatusOpen, StatusSuperseded}[rng.IntN(4)]),
				source([]Source{SourceUser, SourceMined, SourceImport}[rng.IntN(3)])))
		}
		f := newFake(t, ms...)
		svc, _ := newTestService(f)
		entries, err := (&fakeTx{f}).Entries()
		if err != nil {
			t.Fatal(err)
		}
		for _, req := range []ListRequest{{}, {Status: "all"}, {Project: "web"}, {Type: "decision", Status: "superseded"},
			{Filter: "timeout"}, {Project: "api", Filter: "tmo", Status: "all"}} {
			res, err := svc.List(context.Background(), req)
			if err != nil {
				t.Fatal(err)
			}
			var typ Type
			if req.Type != "" {
				typ = Type(req.Type)
			}
			keep, _ := statusFilter(req.Status)
			want := referenceList(entries, req.Project, typ, keep, req.Filter)
			if diff := cmp.Diff(want, res.Items); diff != "" {
				t.Errorf("round %d, %+v (-reference +list):\n%s", round, req, diff)
			}
			if res.Total != len(want) {
				t.Errorf("round %d, %+v: total %d, want %d", round, req, res.Total, len(want))
			}
		}
	}
}
