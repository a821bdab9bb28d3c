package index

import (
	"runtime"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cortexmem/cortex/memories"
)

// A catalog whose base is mapped answers as one that is read: records,
// folders, entries (all, and of a project), ids by prefix and short ids,
// with and without a journal over the base.
func TestMappedCatalogReadsAsRead(t *testing.T) {
	answers := func(c *Catalog) string {
		s := dump(t, c)
		for _, p := range []string{"", "0", "01", "01j"} {
			ids, err := c.IDsWithPrefix(p, 100)
			if err != nil {
				t.Fatal(err)
			}
			for _, id := range ids {
				short, err := c.ShortID(id)
				if err != nil {
					t.Fatal(err)
				}
				r, err := c.ByID(id)
				if err != nil {
					t.Fatal(err)
				}
				s += id + " " + short + " " + r.Path + "\n"
			}
		}
		where, err := c.EntriesWhere(func(p, _, _ string) bool { return p == "other" })
		if err != nil {
			t.Fatal(err)
		}
		all, err := c.Entries()
		if err != nil {
			t.Fatal(err)
		}
		for _, es := range [][]memories.Entry{where, all} {
			for _, e := range es {
				s += e.ID + " " + e.Path + " " + e.Title + " " + e.Project + "\n"
			}
		}
		return s
	}
	read := map[string]string{}
	for name, c := range idCatalogs(t) {
		if c.base.mapped != nil {
			t.Fatalf("%s: mapped before MapCatalogs", name)
		}
		read[name] = answers(c)
	}
	t.Cleanup(func() { mapCatalogs.Store(false) })
	MapCatalogs()
	for name, c := range idCatalogs(t) {
		if c.base.mapped == nil && runtime.GOOS != "windows" && runtime.GOOS != "plan9" && runtime.GOOS != "js" {
			t.Fatalf("%s: not mapped after MapCatalogs", name)
		}
		if diff := cmp.Diff(read[name], answers(c)); diff != "" {
			t.Errorf("%s: (-read +mapped)\n%s", name, diff)
		}
	}
}
