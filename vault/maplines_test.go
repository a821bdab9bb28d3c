package vault

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/google/go-cmp/cmp"

	"github.com/cortexmem/cortex/memories"
)

// entriesSectioned is the map's sections as they were made from a slice of
// every entry, before mapLines: the entries grouped by section, sorted by
// listedBefore, each line indexLine's with its successor from a map of
// every entry by id.
func entriesSectioned(folder string, entries []memories.Entry) ([]indexSection, int) {
	bySection := map[string][]*memories.Entry{}
	episodes := 0
	for i := range entries {
		e := &entries[i]
		if sec := IndexSection(e); sec != "" {
			bySection[sec] = append(bySection[sec], e)
		} else {
			episodes++
		}
	}
	byID := make(map[string]*memories.Entry, len(entries))
	for i := range entries {
		byID[entries[i].ID] = &entries[i]
	}
	sections := make([]indexSection, 0, len(bySection))
	for sec, list := range bySection {
		sort.Slice(list, func(i, j int) bool { return listedBefore(sec, list[i], list[j]) })
		lines := make([]string, len(list))
		for i, e := range list {
			lines[i] = indexLine(folder, e, byID[e.SupersededBy])
		}
		sections = append(sections, indexSection{name: sec, lines: lines})
	}
	sort.Slice(sections, func(i, j int) bool { return sectionLess(sections[i].name, sections[j].name) })
	return sections, episodes
}

// mixedEntries is n entries of every kind the map tells apart: projects'
// memories with tags, mined decisions and sessions, episodes, superseded
// ones whose successor comes before or after them, is an episode, is
// missing or is named by no valid id, retired ones, ids shared by two
// entries, and times that tie, with and without fractions of a second.
func mixedEntries(r *rand.Rand, n int) []memories.Entry {
	ids := func() string { return fmt.Sprintf("01hv%022d", r.IntN(n+n/4+1)) }
	out := make([]memories.Entry, n)
	for i := range out {
		e := &out[i]
		e.ID = ids()
		project := []string{"api", "web", "infra", "ops"}[r.IntN(4)]
		e.Project = project
		e.Path = fmt.Sprintf("memories/%s/note-%d.md", project, i)
		e.Title = fmt.Sprintf("Note %d [of] %s|x", i, project)
		e.Status = memories.StatusActive
		e.Created = indexBase.Add(time.Duration(r.IntN(n/3+1)) * time.Minute)
		if r.IntN(3) == 0 {
			e.Created = e.Created.Add(time.Duration(r.IntN(1000)) * time.Millisecond)
		}
		e.Updated = e.Created.Add(time.Duration(r.IntN(5)) * time.Hour)
		for range r.IntN(3) {
			e.Tags = append(e.Tags, []string{"k8s", "deploy", "db"}[r.IntN(3)])
		}
		switch r.IntN(10) {
		case 0:
			e.Type = memories.TypeEpisode
		case 1:
			e.Type, e.Source = memories.TypeDecision, memories.SourceMined
		case 2:
			e.Type = memories.TypeSession
		case 3, 4:
			e.Status = memories.StatusSuperseded
			switch r.IntN(5) {
			case 0:
				e.SupersededBy = ""
			case 1:
				e.SupersededBy = "not an id!"
			default:
				e.SupersededBy = ids()
			}
		}
	}
	return out
}

// TestMapLinesAsFromEveryEntry: the sections mapLines makes from entries
// given one at a time are the ones made from the slice of all of them,
// line for line, in every section's order.
func TestMapLinesAsFromEveryEntry(t *testing.T) {
	for seed := range uint64(40) {
		r := rand.New(rand.NewPCG(seed, 7))
		entries := mixedEntries(r, 1+r.IntN(400))
		wantSecs, wantEps := entriesSectioned("cortex", entries)
		gotSecs, gotEps := indexSections("cortex", entries)
		if gotEps != wantEps {
			t.Fatalf("seed %d: %d episodes, want %d", seed, gotEps, wantEps)
		}
		if diff := cmp.Diff(wantSecs, gotSecs, cmp.AllowUnexported(indexSection{})); diff != "" {
			t.Fatalf("seed %d: sections (-from the slice +mapLines):\n%s", seed, diff)
		}
	}
}

// TestRenderMapFromKeepsNoEntry: RenderMapFrom given the entries through
// one Entry whose strings are overwritten after each call (as a catalog
// read a window at a time reuses its memory) renders what RenderMap renders
// from the slice.
func TestRenderMapFromKeepsNoEntry(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 9))
	entries := mixedEntries(r, 3*PagedAbove/2) // a split map: root and pages
	want := mapVault.RenderMap(entries)
	var buf []byte
	// reused is s in buf's memory, which the next entry overwrites.
	reused := func(s string) string {
		if s == "" {
			return ""
		}
		buf = append(buf, s...)
		return unsafe.String(&buf[len(buf)-len(s)], len(s))
	}
	got, err := mapVault.RenderMapFrom(func(fn func(*memories.Entry) error) error {
		var e memories.Entry
		for i := range entries {
			buf = make([]byte, 0, 4096)
			src := &entries[i]
			e = *src
			e.ID, e.Path, e.Title, e.Project = reused(src.ID), reused(src.Path), reused(src.Title), reused(src.Project)
			e.SupersededBy = reused(src.SupersededBy)
			e.Tags = nil
			for _, tag := range src.Tags {
				e.Tags = append(e.Tags, reused(tag))
			}
			if err := fn(&e); err != nil {
				return err
			}
			for j := range buf {
				buf[j] = '#'
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) < 2 {
		t.Fatalf("%d files, want a split map", len(got))
	}
	if len(got) != len(want) {
		t.Fatalf("RenderMapFrom: %d files, RenderMap %d", len(got), len(want))
	}
	for i := range want {
		if diff := cmp.Diff(want[i], got[i]); diff != "" {
			t.Fatalf("file %d (-RenderMap +RenderMapFrom):\n%s", i, diff)
		}
	}
}

// TestRenderMapFromReturnsItsError: an error of the entries' source is
// RenderMapFrom's, with no map.
func TestRenderMapFromReturnsItsError(t *testing.T) {
	boom := fmt.Errorf("catalog: file 3: short record")
	files, err := mapVault.RenderMapFrom(func(fn func(*memories.Entry) error) error {
		e := entry("api", "a", 1)
		if err := fn(&e); err != nil {
			return err
		}
		return boom
	})
	if err != boom || files != nil {
		t.Errorf("RenderMapFrom = %d files, %v; want none, %v", len(files), err, boom)
	}
	if !strings.Contains(err.Error(), "short record") {
		t.Error(err)
	}
}
