package index

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cortexmem/cortex/memories"
)

// streamedCatalog writes a base of n notes over several projects (every
// seventh broken, so that a project only broken notes name is not listed)
// and a journal replacing two of them, and loads it as a long-running
// process does: read, not mapped.
func streamedCatalog(t *testing.T, n int) *Catalog {
	t.Helper()
	dir := t.TempDir()
	c := NewCatalog(Schema)
	changes := map[string]*Record{}
	for i := range n {
		r := rec(fmt.Sprintf("p/n%04d.md", i), fmt.Sprintf("01jstream%016d", i), fmt.Sprintf("note %d with a title long enough to fill windows", i))
		r.Project = fmt.Sprintf("project-%d", i%5)
		if i%7 == 0 {
			r.Broken = "bad yaml"
			r.Project = "only-broken"
		}
		changes[r.Path] = r
	}
	c.Put(changes)
	if err := c.Write(dir, nil, observed); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"p/n0001.md", "p/n0002.md"} {
		r := rec(p, "01jstreamreplaced"+p[3:7], "replaced")
		r.Project = "journal-only"
		if err := c.Commit(dir, map[string]*Record{p: r}, nil, observed); err != nil {
			t.Fatal(err)
		}
	}
	c.Close()
	c, err := LoadCatalog(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if c.base == nil || c.base.mapped != nil {
		t.Fatal("the test needs a base file that is read, not mapped")
	}
	return c
}

// TestBaseProjectsAndReadableKeepNoMetadata: listing the base's projects
// and counting the readable notes read the metadata section a window at a
// time and keep none of it (a server that lives for hours did both at
// start-up and then held the whole section, 15 MB at 100,000 notes), with
// the answers the loaded section gives: projects of the base's readable
// records (journal replacements included, as BaseEntriesWhere sees them),
// and the count Entries lists.
func TestBaseProjectsAndReadableKeepNoMetadata(t *testing.T) {
	defer func(w int) { metaWindow = w }(metaWindow)
	for _, window := range []int{1, 100, 4096, 1 << 20} {
		metaWindow = window
		c := streamedCatalog(t, 300)
		projects, err := c.BaseProjects()
		if err != nil {
			t.Fatal(err)
		}
		n, err := c.Readable()
		if err != nil {
			t.Fatal(err)
		}
		if c.base.meta != "" {
			t.Fatalf("window %d: the metadata section was loaded", window)
		}
		seen := map[string]bool{}
		err = c.BaseEntriesWhere(func(p, _, _ string) bool { seen[p] = true; return false }, func(int, *memories.Entry, uint64) error { return nil })
		if err != nil {
			t.Fatal(err)
		}
		if want := slices.Sorted(maps.Keys(seen)); !slices.Equal(projects, want) {
			t.Errorf("window %d: BaseProjects = %q, want %q", window, projects, want)
		}
		if slices.Contains(projects, "only-broken") || slices.Contains(projects, "journal-only") {
			t.Errorf("window %d: BaseProjects = %q lists a broken note's or a journal's project", window, projects)
		}
		all, err := c.Entries()
		if err != nil {
			t.Fatal(err)
		}
		if n != len(all) || n != 300-43 { // 43 broken; the two replaced stay readable
			t.Errorf("window %d: Readable = %d, Entries lists %d", window, n, len(all))
		}
		// With the section loaded, the same answers from it.
		if again, err := c.BaseProjects(); err != nil || !slices.Equal(again, projects) {
			t.Errorf("window %d: BaseProjects with the section loaded = %q, %v; want %q", window, again, err, projects)
		}
	}
}

// TestEachEntryAsEntries: EachEntry gives the entries Entries lists, in the
// same order, reading the metadata section a window at a time and keeping
// none of it, and the same again once Entries has listed them. An error of
// fn ends the walk and is EachEntry's.
func TestEachEntryAsEntries(t *testing.T) {
	defer func(w int) { metaWindow = w }(metaWindow)
	for _, window := range []int{1, 100, 4096, 1 << 20} {
		metaWindow = window
		c := streamedCatalog(t, 300)
		var got []memories.Entry
		each := func(e *memories.Entry) error {
			c := *e
			// Copied: the strings share a window the walk reuses.
			c.ID, c.Path, c.Title, c.Project = strings.Clone(c.ID), strings.Clone(c.Path), strings.Clone(c.Title), strings.Clone(c.Project)
			c.Area, c.SupersededBy = strings.Clone(c.Area), strings.Clone(c.SupersededBy)
			c.Type = memories.Type(strings.Clone(string(c.Type)))
			c.Source = memories.Source(strings.Clone(string(c.Source)))
			c.Status = memories.Status(strings.Clone(string(c.Status)))
			c.Tags = slices.Clone(c.Tags)
			for i := range c.Tags {
				c.Tags[i] = strings.Clone(c.Tags[i])
			}
			got = append(got, c)
			return nil
		}
		if err := c.EachEntry(each); err != nil {
			t.Fatal(err)
		}
		if c.base.meta != "" || c.entries != nil {
			t.Fatalf("window %d: EachEntry kept the metadata section or the entries", window)
		}
		want, err := c.Entries()
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("window %d: EachEntry (-Entries +EachEntry):\n%s", window, diff)
		}
		got = nil
		if err := c.EachEntry(each); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("window %d: EachEntry once listed (-Entries +EachEntry):\n%s", window, diff)
		}
		stop := errors.New("stop")
		n := 0
		err = c.EachEntry(func(*memories.Entry) error {
			if n++; n == 3 {
				return stop
			}
			return nil
		})
		if err != stop || n != 3 {
			t.Errorf("window %d: EachEntry whose fn fails at the third = %v after %d calls", window, err, n)
		}
	}
}
