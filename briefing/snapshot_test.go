package briefing

import (
	"fmt"
	"path"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cortexmem/cortex/memories"
)

// fakeSelector lists its entries as the catalog does, asking about every
// one, counting the entries it decodes.
type fakeSelector struct {
	memories.Snapshot
	entries []memories.Entry
	decoded int
	err     error // what listing fails with, if set
}

func (f *fakeSelector) EntriesWhere(keep func(project, area, name string) bool) ([]memories.Entry, error) {
	if f.err != nil {
		return nil, f.err
	}
	var out []memories.Entry
	for _, e := range f.entries {
		if keep(e.Project, e.Area, path.Base(e.Path)) {
			f.decoded++
			out = append(out, e)
		}
	}
	return out, nil
}

// TestListingAnsweredAgain: a listing whose keep answers as the last one's
// did is answered without the snapshot decoding anything; one that answers
// a single question otherwise is the snapshot's, and the entries are right
// either way.
func TestListingAnsweredAgain(t *testing.T) {
	f := &fakeSelector{entries: []memories.Entry{
		{ID: "1", Path: "memories/web/a.md", Project: "web"},
		{ID: "2", Path: "memories/general/b.md", Project: "general", Area: "auth"},
		{ID: "3", Path: "memories/api/c.md", Project: "api", Area: "auth"},
		{ID: "4", Path: "memories/api/d.md", Project: "api"},
	}}
	snap := withLoadCache(f).(memories.EntrySelector)
	project := func(p string) func(string, string, string) bool {
		return func(pr, _, _ string) bool { return pr == p || pr == "general" }
	}
	for i, tt := range []struct {
		name    string
		keep    func(project, area, name string) bool
		want    []string
		decoded int
	}{
		{"first", project("web"), []string{"1", "2"}, 2},
		{"same answers", project("web"), []string{"1", "2"}, 2},
		{"another project", project("api"), []string{"2", "3", "4"}, 5},
		{"one answer differs", func(pr, _, n string) bool { return (pr == "api" || pr == "general") && n != "d.md" }, []string{"2", "3"}, 7},
		{"same again", func(pr, _, n string) bool { return pr != "web" && n != "d.md" }, []string{"2", "3"}, 7},
		{"by area, the same answers", func(_, a, _ string) bool { return a == "auth" }, []string{"2", "3"}, 7},
		{"no area", func(_, a, _ string) bool { return a == "" }, []string{"1", "4"}, 9},
		{"the last question differs", func(pr, a, _ string) bool { return a == "" && pr != "api" || pr == "api" && a == "auth" }, []string{"1", "3"}, 11},
	} {
		es, err := snap.EntriesWhere(tt.keep)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, e := range es {
			got = append(got, e.ID)
		}
		if d := cmp.Diff(tt.want, got); d != "" {
			t.Errorf("%d %s: entries (-want +got):\n%s", i, tt.name, d)
		}
		if f.decoded != tt.decoded {
			t.Errorf("%d %s: %d entries decoded in all, want %d", i, tt.name, f.decoded, tt.decoded)
		}
	}
}

// TestSearchOverAListing: over a snapshot that can only list, the cache's
// searches without text are SearchEntries over its listing, and a listing
// that fails fails them.
func TestSearchOverAListing(t *testing.T) {
	f := &fakeSelector{entries: []memories.Entry{
		{ID: "1", Path: "memories/web/a.md", Project: "web", Type: memories.TypeConvention},
		{ID: "2", Path: "memories/web/b.md", Project: "web", Type: memories.TypeDecision},
		{ID: "3", Path: "memories/api/c.md", Project: "api", Type: memories.TypeConvention},
	}}
	snap := withLoadCache(f).(memories.EntrySearcher)
	web := func(p, _, _ string) bool { return p == "web" }
	reqs := []memories.SearchRequest{{Type: memories.TypeConvention, Size: 5}, {Type: memories.TypeDecision, Size: 5}}
	got, err := snap.SearchEntriesWhere(web, reqs)
	if err != nil {
		t.Fatal(err)
	}
	want, err := memories.SearchEntriesEach(f.entries[:2], reqs)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(want, got); d != "" || len(got) != 2 || len(got[0]) != 1 || got[0][0].ID != "1" {
		t.Errorf("searches (-want +got):\n%s", d)
	}
	f.err = fmt.Errorf("the catalog is unreadable")
	withErr := withLoadCache(f).(memories.EntrySearcher)
	if _, err := withErr.SearchEntriesWhere(web, reqs); err == nil || err.Error() != "the catalog is unreadable" {
		t.Errorf("a failing listing: %v, want its error", err)
	}
}

// fakeNamer lists entries by file name as the catalog does.
type fakeNamer struct {
	memories.Snapshot
	entries []memories.Entry
}

func (f *fakeNamer) EntriesNamed(keep func(name string) bool) ([]memories.Entry, error) {
	var out []memories.Entry
	for _, e := range f.entries {
		if keep(path.Base(e.Path)) {
			out = append(out, e)
		}
	}
	return out, nil
}

// TestNoteNamesFoldFewNames: following links by name folds to lower case
// only the file names that may be wanted (same length, same first and last
// letter), not every name of a wanted length, and finds what folding every
// name finds: names in capitals, with and without .md, non-ASCII ones.
func TestNoteNamesFoldFewNames(t *testing.T) {
	var entries []memories.Entry
	add := func(p string) { entries = append(entries, memories.Entry{ID: p, Path: p}) }
	for i := range 2000 {
		// The length of a wanted name ("missing-note"), and a capital, so
		// that folding a name allocates: the allocations count the names
		// folded.
		add(fmt.Sprintf("memories/web/Filler-%05d.md", i))
	}
	for _, p := range []string{"memories/web/Target-One.md", "memories/api/target-one.md", "memories/web/ÉTÉ-Two.md",
		"memories/web/TARGET-THREE", "memories/web/.md", "memories/web/target-four.MD", "memories/web/Kelvin-K.md"} {
		add(p)
	}
	want := map[string]bool{}
	for _, n := range []string{"target-one", "été-two", "target-three", "target-four.md", "kelvin-k", "filler-00017", "missing-note"} {
		want[n] = true
	}
	snap := &fakeNamer{entries: entries}
	got, err := noteNames(snap, want)
	if err != nil {
		t.Fatal(err)
	}
	ref := map[string]memories.Entry{}
	for _, e := range entries {
		n := noteName(path.Base(e.Path))
		if old, ok := ref[n]; want[n] && (!ok || e.Path < old.Path) {
			ref[n] = e
		}
	}
	if d := cmp.Diff(ref, got); d != "" {
		t.Errorf("names (-folding every name +noteNames):\n%s", d)
	}
	// Without the name that shares the fillers' length, first and last
	// letter, none of the 2,000 is folded.
	delete(want, "filler-00017")
	allocs := testing.AllocsPerRun(10, func() { _, _ = noteNames(snap, want) })
	if allocs > 100 {
		t.Errorf("%.0f allocations for %d names: names of a wanted length were folded", allocs, len(entries))
	}
}
