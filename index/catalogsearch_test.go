package index

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/cortexmem/cortex/memories"
)

// randomRecords are n records of a few projects, areas, types, statuses and
// tags, updated at few distinct times (ties by time are many).
func randomRecords(r *rand.Rand, n int, prefix string) []*Record {
	projects := []string{"proj", "other", memories.DefaultProject}
	areas := []string{"", "", "backend", "ops"}
	types := []memories.Type{memories.TypeNote, memories.TypeDecision, memories.TypeAction}
	statuses := []memories.Status{memories.StatusActive, memories.StatusOpen, memories.StatusSuperseded}
	tags := [][]string{nil, {"go"}, {"go", "auth"}, {"auth"}}
	var out []*Record
	for i := range n {
		x := rec(fmt.Sprintf("%s/%s%05d.md", projects[i%3], prefix, i), fmt.Sprintf("01j%s%021d", prefix, r.IntN(1<<40)), "t")
		x.Project, x.Area = projects[r.IntN(3)], areas[r.IntN(4)]
		x.Type, x.Status, x.Tags = types[r.IntN(3)], statuses[r.IntN(3)], tags[r.IntN(4)]
		x.Updated = t0.Add(time.Duration(r.IntN(20)) * time.Hour)
		if r.IntN(50) == 0 {
			x.Broken = "unreadable"
		}
		out = append(out, x)
	}
	return out
}

// TestSearchEntriesWhereAsSearchEntries: one pass over the catalog answers
// each request as SearchEntries over EntriesWhere's list does, with the
// journal's added, replaced and removed notes, and with every entry
// decoded before (a listing came first).
func TestSearchEntriesWhereAsSearchEntries(t *testing.T) {
	keeps := map[string]func(project, area, name string) bool{
		"all":        func(string, string, string) bool { return true },
		"scope":      func(p, _, _ string) bool { return p == "proj" || p == memories.DefaultProject },
		"areas":      func(_, a, _ string) bool { return a == "backend" || a == "ops" },
		"none":       func(string, string, string) bool { return false },
		"some names": func(_, _, n string) bool { return len(n) > 0 && n[len(n)-4]%2 == 0 },
	}
	reqs := []memories.SearchRequest{
		{Projects: []string{"proj", memories.DefaultProject}, Type: memories.TypeAction, Status: memories.StatusOpen, Size: 100},
		{Projects: []string{"proj", memories.DefaultProject}, Size: 7},
		{Projects: []string{"proj"}, Type: memories.TypeDecision, Size: 12},
		{Area: "backend", Size: 50},
		{Area: "ops", Size: 3},
		{Project: "other", Tags: []string{"auth"}, Size: 20},
		{Status: memories.StatusSuperseded, IncludeSuperseded: true, Size: 9},
		{UpdatedSince: t0.Add(10 * time.Hour), Size: 1000},
		{Size: 0},
		{Size: 1},
	}
	for seed := range uint64(12) {
		r := rand.New(rand.NewPCG(seed, 18))
		base := randomRecords(r, 300+r.IntN(300), "b")
		c := load(t, writeBase(t, base, fixtureDirs))
		if seed%3 != 0 {
			// The journal replaces some notes, removes others, adds new ones.
			changes := map[string]*Record{}
			for _, x := range base[:40] {
				if r.IntN(2) == 0 {
					changes[x.Path] = nil
				} else {
					y := *x
					y.Updated, y.Status = t0.Add(time.Duration(r.IntN(30))*time.Hour), memories.StatusOpen
					changes[x.Path] = &y
				}
			}
			for _, x := range randomRecords(r, 30, "j") {
				changes[x.Path] = x
			}
			c.Put(changes)
		}
		for _, cached := range []bool{false, true} {
			if cached {
				if _, err := c.Entries(); err != nil {
					t.Fatal(err)
				}
			}
			for kname, keep := range keeps {
				es, err := c.EntriesWhere(keep)
				if err != nil {
					t.Fatal(err)
				}
				got, err := c.SearchEntriesWhere(keep, reqs)
				if err != nil {
					t.Fatal(err)
				}
				for i, req := range reqs {
					want, err := memories.SearchEntries(es, req)
					if err != nil {
						t.Fatal(err)
					}
					if diff := cmp.Diff(want, got[i]); diff != "" {
						t.Errorf("seed %d, cached %v, keep %s, request %d: (-want +got)\n%s", seed, cached, kname, i, diff)
					}
				}
			}
		}
	}
	if _, err := load(t, writeBase(t, nil, nil)).SearchEntriesWhere(nil, []memories.SearchRequest{{Text: "x", Size: 1}}); err == nil {
		t.Error("SearchEntriesWhere with text: no error, want one (only the index can answer it)")
	}
}

// TestSearchEntriesWhereDecodesTheListsOnly: a briefing's lists over a
// project of thousands of notes allocate for the few entries they keep,
// not for every entry of the project (EntriesWhere's 5,000, with their
// paths: over a megabyte).
func TestSearchEntriesWhereDecodesTheListsOnly(t *testing.T) {
	var recs []*Record
	for i := range 5000 {
		r := rec(fmt.Sprintf("kept/%05d.md", i), fmt.Sprintf("01j7%022d", i), "kept")
		r.Updated = t0.Add(time.Duration(i%97) * time.Minute)
		recs = append(recs, r)
	}
	c := load(t, writeBase(t, recs, fixtureDirs))
	keep := func(p, _, _ string) bool { return p == "proj" }
	reqs := []memories.SearchRequest{{Projects: []string{"proj"}, Size: 20}, {Projects: []string{"proj"}, Type: memories.TypeDecision, Size: 10}}
	if _, err := c.SearchEntriesWhere(keep, reqs); err != nil { // the metadata is read once, before
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	got, err := c.SearchEntriesWhere(keep, reqs)
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if len(got[0]) != 20 {
		t.Fatalf("the first list holds %d entries, want 20", len(got[0]))
	}
	if allocated := after.TotalAlloc - before.TotalAlloc; allocated > 64<<10 {
		t.Errorf("two lists of 5,000 entries allocated %d bytes, want at most 64 KB", allocated)
	}
}
