package briefing

import (
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
}

func (f *fakeSelector) EntriesWhere(keep func(project, area, name string) bool) ([]memories.Entry, error) {
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
