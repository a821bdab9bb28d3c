package briefing

import (
	"path"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cortexmem/cortex/memories"
)

// fakeSelector lists its entries as the catalog does, counting listings.
type fakeSelector struct {
	memories.Snapshot
	entries  []memories.Entry
	listings int
}

func (f *fakeSelector) EntriesWhere(keep func(project, area, name string) bool) ([]memories.Entry, error) {
	f.listings++
	var out []memories.Entry
	for _, e := range f.entries {
		if keep(e.Project, e.Area, path.Base(e.Path)) {
			out = append(out, e)
		}
	}
	return out, nil
}

// TestListingAnsweredAgain: a listing whose keep answers as the last one's
// did is answered without the snapshot; one that answers a single question
// otherwise is the snapshot's, and the entries are right either way.
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
		name     string
		keep     func(project, area, name string) bool
		want     []string
		listings int
	}{
		{"first", project("web"), []string{"1", "2"}, 1},
		{"same answers", project("web"), []string{"1", "2"}, 1},
		{"another project", project("api"), []string{"2", "3", "4"}, 2},
		{"one answer differs", func(pr, _, n string) bool { return (pr == "api" || pr == "general") && n != "d.md" }, []string{"2", "3"}, 3},
		{"same again", func(pr, _, n string) bool { return pr != "web" && n != "d.md" }, []string{"2", "3"}, 3},
		{"by area, the same answers", func(_, a, _ string) bool { return a == "auth" }, []string{"2", "3"}, 3},
		{"no area", func(_, a, _ string) bool { return a == "" }, []string{"1", "4"}, 4},
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
		if f.listings != tt.listings {
			t.Errorf("%d %s: %d listings of the snapshot, want %d", i, tt.name, f.listings, tt.listings)
		}
	}
}
