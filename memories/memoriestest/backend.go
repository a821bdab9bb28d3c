// Package memoriestest holds the conformance suite of memories.Backend: what
// every implementation of the services' storage port must do, checked the
// same way for each. The store passes it, and so does the in-memory fake the
// services' own tests run on, so that what those tests assume of a backend
// is what the real one does.
package memoriestest

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/cortexmem/cortex/memories"
)

// RunBackendSuite runs the conformance suite on backends made by open: each
// subtest gets a new, empty one.
func RunBackendSuite(t *testing.T, open func(t *testing.T) memories.Backend) {
	tests := []struct {
		name string
		run  func(t *testing.T, b memories.Backend)
	}{
		{"empty", testEmpty},
		{"create then read", testCreateThenRead},
		{"read your writes", testReadYourWrites},
		{"ids and short ids", testIDs},
		{"search filters", testSearchFilters},
		{"search without text", testSearchWithoutText},
		{"search without text, from the catalog", testSearchEntries},
		{"superseded", testSuperseded},
		{"patch", testPatch},
		{"rewrite", testRewrite},
		{"create all", testCreateAll},
		{"missing notes", testMissing},
		{"update error", testUpdateError},
		{"log", testLog},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { tt.run(t, open(t)) })
	}
}

// t0 dates the suite's memories.
var t0 = time.Date(2025, 6, 1, 9, 0, 0, 0, time.UTC)

// id is the n-th id of the suite: ids share their first 24 characters, so
// that short ids must grow past the minimum to tell them apart.
func id(n int) string {
	s := "01jq" + strings.Repeat("0", memories.IDLen-4)
	tail := []byte{"0123456789abcdefghjkmnpqrs"[n/26%26], "0123456789abcdefghjkmnpqrs"[n%26]}
	return s[:memories.IDLen-2] + string(tail)
}

// mem is a memory of the suite: active, of type fact unless changed.
func mem(n int, title, body, project string, tags ...string) *memories.Memory {
	at := t0.Add(time.Duration(n) * time.Hour)
	return &memories.Memory{
		ID: id(n), Title: title, Body: body, Project: project, Tags: tags,
		Type: memories.TypeFact, Source: memories.SourceUser, Status: memories.StatusActive,
		Importance: memories.DefaultImportance, Created: at, Updated: at,
	}
}

// create writes ms, one Create each, in one update.
func create(t *testing.T, b memories.Backend, ms ...*memories.Memory) {
	t.Helper()
	err := b.Update(context.Background(), func(tx memories.Tx) error {
		for _, m := range ms {
			if err := tx.Create(context.Background(), m); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatalf("create: %v", err)
	}
}

// view runs fn on a snapshot, failing the test on an error.
func view(t *testing.T, b memories.Backend, fn func(memories.Snapshot) error) {
	t.Helper()
	if err := b.View(context.Background(), fn); err != nil {
		t.Fatal(err)
	}
}

// entryIDs lists the ids of entries, sorted.
func entryIDs(es []memories.Entry) []string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = e.ID
	}
	sort.Strings(out)
	return out
}

// hitIDs lists the ids of hits, sorted.
func hitIDs(hs []memories.Hit) []string {
	out := inOrder(hs)
	sort.Strings(out)
	return out
}

// inOrder lists the ids of hits in the order given.
func inOrder(hs []memories.Hit) []string {
	out := make([]string, len(hs))
	for i, h := range hs {
		out[i] = h.ID
	}
	return out
}

func testEmpty(t *testing.T, b memories.Backend) {
	view(t, b, func(sn memories.Snapshot) error {
		es, err := sn.Entries()
		if err != nil || len(es) != 0 {
			t.Errorf("Entries of an empty backend = %v, %v; want none", es, err)
		}
		if _, err := sn.Get(id(1)); !errors.Is(err, memories.ErrNotFound) {
			t.Errorf("Get of an unknown id: %v, want an error matching ErrNotFound", err)
		}
		if _, ok, err := sn.ByPath("memories/p/none.md"); ok || err != nil {
			t.Errorf("ByPath of an unknown note = %v, %v; want false, nil", ok, err)
		}
		if got, err := sn.IDsWithPrefix("", 0); len(got) != 0 || err != nil {
			t.Errorf("IDsWithPrefix = %v, %v; want none", got, err)
		}
		if hs, err := sn.Search(context.Background(), memories.SearchRequest{Size: 10}); len(hs) != 0 || err != nil {
			t.Errorf("Search = %v, %v; want no hit", hs, err)
		}
		return nil
	})
}

func testCreateThenRead(t *testing.T, b memories.Backend) {
	m := mem(1, "Walrus feeding", "The walrus is fed herring at noon.", "zoo", "animals", "food")
	m.Type, m.Importance = memories.TypeConvention, 4
	create(t, b, m)
	if m.Path == "" || !strings.HasSuffix(m.Path, ".md") {
		t.Fatalf("Create set the path %q, want a note path", m.Path)
	}
	want := memories.EntryOf(m)
	view(t, b, func(sn memories.Snapshot) error {
		got, err := sn.Get(m.ID)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("Get (-want +got):\n%s", diff)
		}
		byPath, ok, err := sn.ByPath(m.Path)
		if err != nil || !ok || byPath.ID != m.ID {
			t.Errorf("ByPath(%s) = %v, %v, %v; want %s", m.Path, byPath.ID, ok, err, m.ID)
		}
		es, err := sn.Entries()
		if err != nil || len(es) != 1 || es[0].ID != m.ID {
			t.Errorf("Entries = %v, %v; want the one memory", es, err)
		}
		loaded, err := sn.Load(context.Background(), m.Path)
		if err != nil {
			t.Fatal(err)
		}
		if loaded.ID != m.ID || loaded.Title != m.Title || loaded.Project != m.Project || loaded.Type != m.Type ||
			loaded.Importance != m.Importance || !slices.Equal(loaded.Tags, m.Tags) || strings.TrimSpace(loaded.Body) != m.Body {
			t.Errorf("Load = %+v, want the memory written, %+v", loaded, m)
		}
		return nil
	})
}

// testReadYourWrites: inside an update, what the update wrote is read back.
func testReadYourWrites(t *testing.T, b memories.Backend) {
	m := mem(2, "Penguin pool", "The penguin pool is drained on Fridays.", "zoo")
	err := b.Update(context.Background(), func(tx memories.Tx) error {
		if err := tx.Create(context.Background(), m); err != nil {
			return err
		}
		if got, err := tx.Get(m.ID); err != nil || got.Path != m.Path {
			t.Errorf("Get in the update that created it = %+v, %v", got, err)
		}
		if _, ok, err := tx.ByPath(m.Path); !ok || err != nil {
			t.Errorf("ByPath in the update that created it = %v, %v", ok, err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func testIDs(t *testing.T, b memories.Backend) {
	var ms []*memories.Memory
	for _, n := range []int{1, 2, 30} {
		ms = append(ms, mem(n, "Note "+id(n), "A body about giraffes.", "zoo"))
	}
	create(t, b, ms...)
	view(t, b, func(sn memories.Snapshot) error {
		all, err := sn.IDsWithPrefix("", 0)
		if diff := cmp.Diff([]string{id(1), id(2), id(30)}, all); err != nil || diff != "" {
			t.Errorf("IDsWithPrefix(\"\") (-want +got):\n%s%v", diff, err)
		}
		two, err := sn.IDsWithPrefix("", 2)
		if diff := cmp.Diff([]string{id(1), id(2)}, two); err != nil || diff != "" {
			t.Errorf("IDsWithPrefix with limit 2 (-want +got):\n%s%v", diff, err)
		}
		prefix := id(30)[:memories.IDLen-1]
		one, err := sn.IDsWithPrefix(prefix, 0)
		if diff := cmp.Diff([]string{id(30)}, one); err != nil || diff != "" {
			t.Errorf("IDsWithPrefix(%q) (-want +got):\n%s%v", prefix, diff, err)
		}
		for _, m := range ms {
			short := sn.ShortID(m.ID)
			if len(short) < memories.MinPrefix || !strings.HasPrefix(m.ID, short) {
				t.Errorf("ShortID(%s) = %q: want a prefix of at least %d characters", m.ID, short, memories.MinPrefix)
			}
			if got, err := sn.IDsWithPrefix(short, 0); len(got) != 1 || err != nil {
				t.Errorf("ShortID(%s) = %q names %v (%v), want it alone", m.ID, short, got, err)
			}
		}
		return nil
	})
}

func testSearchFilters(t *testing.T, b memories.Backend) {
	walrus := mem(1, "Walrus feeding", "The walrus eats herring.", "zoo", "animals")
	penguin := mem(2, "Penguin feeding", "The penguin eats herring and sprats.", "zoo", "animals", "birds")
	budget := mem(3, "Herring budget", "The herring order costs too much.", "finance")
	general := mem(4, "Opening hours", "The zoo opens at nine; herring arrives at eight.", memories.DefaultProject)
	general.Type = memories.TypeConvention
	open := mem(5, "Fix the walrus gate", "The walrus gate latch is loose.", "zoo")
	open.Type, open.Status = memories.TypeAction, memories.StatusOpen
	create(t, b, walrus, penguin, budget, general, open)
	tests := []struct {
		name string
		req  memories.SearchRequest
		want []string
	}{
		{"text", memories.SearchRequest{Text: "herring"}, []string{walrus.ID, penguin.ID, budget.ID, general.ID}},
		{"every term", memories.SearchRequest{Text: "walrus herring"}, []string{walrus.ID}},
		{"any term", memories.SearchRequest{Text: "walrus sprats", AnyTerm: true}, []string{walrus.ID, penguin.ID, open.ID}},
		{"project", memories.SearchRequest{Text: "herring", Project: "zoo"}, []string{walrus.ID, penguin.ID}},
		{"projects", memories.SearchRequest{Text: "herring", Projects: []string{"finance", memories.DefaultProject}}, []string{budget.ID, general.ID}},
		{"type", memories.SearchRequest{Type: memories.TypeConvention}, []string{general.ID}},
		{"status", memories.SearchRequest{Status: memories.StatusOpen}, []string{open.ID}},
		{"tags", memories.SearchRequest{Tags: []string{"animals", "birds"}}, []string{penguin.ID}},
		{"updated since", memories.SearchRequest{UpdatedSince: general.Updated}, []string{general.ID, open.ID}},
		{"no match", memories.SearchRequest{Text: "elephant"}, nil},
	}
	view(t, b, func(sn memories.Snapshot) error {
		for _, tt := range tests {
			tt.req.Size = 10
			hs, err := sn.Search(context.Background(), tt.req)
			if err != nil {
				t.Errorf("%s: %v", tt.name, err)
				continue
			}
			want := slices.Clone(tt.want)
			sort.Strings(want)
			if want == nil {
				want = []string{}
			}
			if diff := cmp.Diff(want, hitIDs(hs)); diff != "" {
				t.Errorf("%s: Search(%+v) (-want +got):\n%s", tt.name, tt.req, diff)
			}
		}
		hs, err := sn.Search(context.Background(), memories.SearchRequest{Text: "walrus", Size: 10})
		if err != nil || len(hs) == 0 {
			t.Fatalf("Search walrus = %v, %v", hs, err)
		}
		for _, h := range hs {
			if h.Score <= 0 {
				t.Errorf("a text search's hit %s has score %v, want above 0", h.ID, h.Score)
			}
		}
		return nil
	})
}

// testSearchWithoutText: without text every memory that passes the filters
// matches, the most recently updated first, at most Size of them.
func testSearchWithoutText(t *testing.T, b memories.Backend) {
	var ms []*memories.Memory
	for _, n := range []int{3, 1, 4, 2} {
		ms = append(ms, mem(n, "Keeper rota "+id(n), "Who keeps which enclosure.", "zoo"))
	}
	create(t, b, ms...)
	view(t, b, func(sn memories.Snapshot) error {
		hs, err := sn.Search(context.Background(), memories.SearchRequest{Size: 3})
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff([]string{id(4), id(3), id(2)}, inOrder(hs)); diff != "" {
			t.Errorf("Search without text (-want +got):\n%s", diff)
		}
		for _, h := range hs {
			if h.Score != 0 {
				t.Errorf("hit %s of a search without text has score %v, want 0", h.ID, h.Score)
			}
		}
		return nil
	})
}

// testSearchEntries: memories.SearchEntries lists from the catalog's
// entries what a search without text finds, in the same order (last updated
// first, ties by id) and cut at the same size: a briefing relies on it to
// search no index.
func testSearchEntries(t *testing.T, b memories.Backend) {
	projects := []string{"zoo", "finance", memories.DefaultProject}
	areas := []string{"", "animals", "money"}
	types := []memories.Type{memories.TypeFact, memories.TypeDecision, memories.TypeAction, memories.TypeConvention}
	var ms []*memories.Memory
	for n := 1; n <= 60; n++ {
		m := mem(n, fmt.Sprintf("Note %d", n), "Something the zoo knows.", projects[n%3])
		m.Area, m.Type = areas[n/3%3], types[n/2%4]
		// Every fifth pair shares its update time, so ties are ordered by id.
		m.Updated = t0.Add(time.Duration(n/2*(n%5)) * time.Hour)
		if m.Type == memories.TypeAction {
			m.Status = []memories.Status{memories.StatusOpen, memories.StatusDone}[n%2]
		}
		if n%4 == 0 {
			m.Tags = []string{"feeding"}
		}
		ms = append(ms, m)
	}
	create(t, b, ms...)
	// Some are superseded: left out unless asked for.
	err := b.Update(context.Background(), func(tx memories.Tx) error {
		for _, m := range ms[:60:60] {
			if m.ID[len(m.ID)-1]%7 != 0 {
				continue
			}
			m.Status, m.SupersededBy = memories.StatusSuperseded, ms[0].ID
			if err := tx.Patch(context.Background(), m, "status", "superseded_by"); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	reqs := []memories.SearchRequest{
		{Size: 100},
		{Size: 7},
		{Projects: []string{"zoo", memories.DefaultProject}, Size: 25},
		{Projects: []string{"zoo", memories.DefaultProject}, Type: memories.TypeAction, Status: memories.StatusOpen, Size: 100},
		{Projects: []string{"finance"}, Type: memories.TypeDecision, Size: 3},
		{Project: "zoo", Area: "animals", Size: 100},
		{Area: "money", Size: 4},
		{Tags: []string{"feeding"}, Size: 100},
		{UpdatedSince: t0.Add(20 * time.Hour), Size: 100},
		{IncludeSuperseded: true, Size: 100},
		{Status: memories.StatusSuperseded, IncludeSuperseded: true, Size: 100},
		{Project: "nowhere", Size: 10},
	}
	view(t, b, func(sn memories.Snapshot) error {
		entries, err := sn.Entries()
		if err != nil {
			t.Fatal(err)
		}
		for _, req := range reqs {
			want, err := sn.Search(context.Background(), req)
			if err != nil {
				t.Fatal(err)
			}
			got, err := memories.SearchEntries(entries, req)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(inOrder(want), inOrder(got)); diff != "" {
				t.Errorf("SearchEntries(%+v) differs from Search (-search +entries):\n%s", req, diff)
			}
		}
		if _, err := memories.SearchEntries(entries, memories.SearchRequest{Text: "zoo", Size: 10}); err == nil {
			t.Error("SearchEntries with text: no error, want one (only the index can answer it)")
		}
		return nil
	})
}

func testSuperseded(t *testing.T, b memories.Backend) {
	old := mem(1, "Feeding time", "The lions are fed at four.", "zoo")
	old.Status, old.SupersededBy = memories.StatusSuperseded, id(2)
	cur := mem(2, "Feeding time", "The lions are fed at five.", "zoo")
	cur.Supersedes = id(1)
	create(t, b, old, cur)
	view(t, b, func(sn memories.Snapshot) error {
		hs, err := sn.Search(context.Background(), memories.SearchRequest{Text: "lions", Size: 10})
		if diff := cmp.Diff([]string{cur.ID}, hitIDs(hs)); err != nil || diff != "" {
			t.Errorf("Search leaves superseded memories out (-want +got):\n%s%v", diff, err)
		}
		hs, err = sn.Search(context.Background(), memories.SearchRequest{Text: "lions", IncludeSuperseded: true, Size: 10})
		if diff := cmp.Diff([]string{old.ID, cur.ID}, hitIDs(hs)); err != nil || diff != "" {
			t.Errorf("Search with IncludeSuperseded (-want +got):\n%s%v", diff, err)
		}
		es, err := sn.Entries()
		if diff := cmp.Diff([]string{old.ID, cur.ID}, entryIDs(es)); err != nil || diff != "" {
			t.Errorf("Entries lists superseded memories too (-want +got):\n%s%v", diff, err)
		}
		if e, err := sn.Get(old.ID); err != nil || e.SupersededBy != cur.ID || e.Live() {
			t.Errorf("Get of the superseded memory = %+v, %v", e, err)
		}
		return nil
	})
}

// testPatch: a patch changes the keys it names and nothing else.
func testPatch(t *testing.T, b memories.Backend) {
	m := mem(1, "Reptile house", "The reptile house is kept at 28 degrees.", "zoo", "reptiles")
	create(t, b, m)
	changed := *m
	changed.Title, changed.Tags, changed.Importance = "Reptile house heating", []string{"reptiles", "heating"}, 5
	changed.Body = "A body the patch must not write."
	changed.Updated = t0.Add(48 * time.Hour)
	err := b.Update(context.Background(), func(tx memories.Tx) error {
		return tx.Patch(context.Background(), &changed, "title", "tags", "updated")
	})
	if err != nil {
		t.Fatal(err)
	}
	view(t, b, func(sn memories.Snapshot) error {
		e, err := sn.Get(m.ID)
		if err != nil {
			t.Fatal(err)
		}
		if e.Title != changed.Title || !slices.Equal(e.Tags, changed.Tags) || !e.Updated.Equal(changed.Updated) || e.Importance != m.Importance {
			t.Errorf("after the patch Get = %+v; want the new title, tags and time, the old importance", e)
		}
		loaded, err := sn.Load(context.Background(), m.Path)
		if err != nil {
			t.Fatal(err)
		}
		if strings.TrimSpace(loaded.Body) != m.Body || loaded.Title != changed.Title {
			t.Errorf("after the patch Load = %q, %q; want the new title and the old body", loaded.Title, loaded.Body)
		}
		hs, err := sn.Search(context.Background(), memories.SearchRequest{Text: "heating", Size: 10})
		if diff := cmp.Diff([]string{m.ID}, hitIDs(hs)); err != nil || diff != "" {
			t.Errorf("the patched title is not searched (-want +got):\n%s%v", diff, err)
		}
		return nil
	})
}

// testRewrite: a rewrite replaces the body too, and says whether the note
// changed.
func testRewrite(t *testing.T, b memories.Backend) {
	m := mem(1, "Aquarium", "The aquarium glass is cleaned weekly.", "zoo")
	create(t, b, m)
	changed := *m
	changed.Body = "The aquarium glass is cleaned every day."
	for _, want := range []bool{true, false} {
		var got bool
		err := b.Update(context.Background(), func(tx memories.Tx) error {
			var err error
			got, err = tx.Rewrite(context.Background(), &changed, "title")
			return err
		})
		if err != nil || got != want {
			t.Errorf("Rewrite = %v, %v; want %v (the second time, the note already reads so)", got, err, want)
		}
	}
	view(t, b, func(sn memories.Snapshot) error {
		loaded, err := sn.Load(context.Background(), m.Path)
		if err != nil || strings.TrimSpace(loaded.Body) != changed.Body {
			t.Errorf("after the rewrite Load = %+v, %v", loaded, err)
		}
		return nil
	})
}

func testCreateAll(t *testing.T, b memories.Backend) {
	a := mem(1, "Elephant bath", "The elephants bathe at ten.", "zoo")
	c := mem(2, "Elephant bath", "The elephants bathe at eleven in winter.", "zoo")
	d := mem(3, "Elephant feed", "Hay, fruit and branches.", "zoo")
	err := b.Update(context.Background(), func(tx memories.Tx) error {
		if err := tx.AssignPaths([]*memories.Memory{a, c}); err != nil {
			return err
		}
		if a.Path == "" || c.Path == "" || a.Path == c.Path {
			t.Errorf("AssignPaths gave %q and %q, want two paths", a.Path, c.Path)
		}
		if _, ok, err := tx.ByPath(a.Path); ok || err != nil {
			t.Errorf("AssignPaths wrote %s (%v)", a.Path, err)
		}
		return tx.CreateAll(context.Background(), []*memories.Memory{a, c, d})
	})
	if err != nil {
		t.Fatal(err)
	}
	if d.Path == "" || d.Path == a.Path || d.Path == c.Path {
		t.Errorf("CreateAll gave the memory without a path %q", d.Path)
	}
	view(t, b, func(sn memories.Snapshot) error {
		for _, m := range []*memories.Memory{a, c, d} {
			if e, ok, err := sn.ByPath(m.Path); !ok || err != nil || e.ID != m.ID {
				t.Errorf("ByPath(%s) = %v, %v, %v; want %s", m.Path, e.ID, ok, err, m.ID)
			}
		}
		hs, err := sn.Search(context.Background(), memories.SearchRequest{Text: "bathe", Size: 10})
		if diff := cmp.Diff([]string{a.ID, c.ID}, hitIDs(hs)); err != nil || diff != "" {
			t.Errorf("the notes CreateAll wrote are not searched (-want +got):\n%s%v", diff, err)
		}
		return nil
	})
}

func testMissing(t *testing.T, b memories.Backend) {
	m := mem(1, "Ghost", "Never written.", "zoo")
	m.Path = "memories/zoo/ghost.md"
	view(t, b, func(sn memories.Snapshot) error {
		if _, err := sn.Load(context.Background(), m.Path); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("Load of a missing note: %v, want an error matching fs.ErrNotExist", err)
		}
		return nil
	})
	err := b.Update(context.Background(), func(tx memories.Tx) error {
		return tx.Patch(context.Background(), m, "title")
	})
	if !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Patch of a missing note: %v, want an error matching fs.ErrNotExist", err)
	}
}

// testUpdateError: the error of fn is the update's; what fn wrote before it
// failed stays written.
func testUpdateError(t *testing.T, b memories.Backend) {
	m := mem(1, "Okapi", "The okapi is shy.", "zoo")
	stop := errors.New("stop here")
	err := b.Update(context.Background(), func(tx memories.Tx) error {
		if err := tx.Create(context.Background(), m); err != nil {
			return err
		}
		return stop
	})
	if !errors.Is(err, stop) {
		t.Errorf("Update = %v, want the error fn returned", err)
	}
	view(t, b, func(sn memories.Snapshot) error {
		if _, err := sn.Get(m.ID); err != nil {
			t.Errorf("a note written before the error is not there: %v", err)
		}
		return nil
	})
}

func testLog(t *testing.T, b memories.Backend) {
	ev := memories.Event{Time: t0, Op: memories.OpReject, Rule: "duplicate", Ref: id(1), Hash: "abc"}
	if err := b.Log(context.Background(), ev); err != nil {
		t.Errorf("Log: %v", err)
	}
	err := b.Update(context.Background(), func(tx memories.Tx) error {
		tx.Record(memories.Event{Time: t0, Op: memories.OpSave, ID: id(1)})
		return nil
	})
	if err != nil {
		t.Errorf("an update that only records an event: %v", err)
	}
}
