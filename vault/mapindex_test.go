package vault

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/cortexmem/cortex/internal/golden"
	"github.com/cortexmem/cortex/memories"
)

var indexBase = time.Date(2024, 5, 1, 9, 0, 0, 0, time.UTC)

// entry is a live memory of project created minutes after indexBase; its note
// is memories/<project>/<name>.md.
func entry(project, name string, minutes int, tags ...string) memories.Entry {
	return memories.Entry{
		ID:      fmt.Sprintf("01hv%022d", minutes),
		Path:    "memories/" + project + "/" + name + ".md",
		Title:   "Title of " + name,
		Project: project,
		Tags:    tags,
		Status:  memories.StatusActive,
		Created: indexBase.Add(time.Duration(minutes) * time.Minute),
	}
}

func superseded(e memories.Entry) memories.Entry {
	e.Status = memories.StatusSuperseded
	e.SupersededBy = "01hvzzzzzzzzzzzzzzzzzzzzzz"
	return e
}

func TestRenderIndexGolden(t *testing.T) {
	tie1 := entry("web", "tie-low-id", 30)
	tie1.ID = "01hv00000000000000000000aa"
	tie2 := entry("web", "tie-high-id", 30)
	tie2.ID = "01hv00000000000000000000bb"
	odd := entry("infra", "odd-title", 5, "k8s", "area/sub")
	odd.Title = "Pipes | [brackets] and\na new line"
	entries := []memories.Entry{
		entry("web", "oldest", 1, "css"),
		tie1,
		entry("infra", "deploy-with-blue-green-01m5y8hg", 40, "k8s", "deploy"),
		superseded(entry("infra", "replaced", 50)),
		entry("general", "note-without-tags", 2),
		tie2,
		odd,
		entry("web", "newest", 60),
	}
	golden.Check(t, filepath.Join("testdata", "index", "render.golden"), RenderIndex(entries))
}

func TestRenderIndexTotals(t *testing.T) {
	tests := []struct {
		name    string
		entries []memories.Entry
		want    string
	}{
		{name: "none", want: indexHeader + "0 memories in 0 projects.\n"},
		{name: "only superseded", entries: []memories.Entry{superseded(entry("a", "x", 1))}, want: indexHeader + "0 memories in 0 projects.\n"},
		{
			name:    "one",
			entries: []memories.Entry{entry("a", "x", 1, "t")},
			want:    indexHeader + "1 memory in 1 project.\n\n## a (1)\n\n- [[x|Title of x]] #t\n",
		},
		{
			name:    "two projects",
			entries: []memories.Entry{entry("b", "y", 2), entry("a", "x", 1)},
			want:    indexHeader + "2 memories in 2 projects.\n\n## a (1)\n\n- [[x|Title of x]]\n\n## b (1)\n\n- [[y|Title of y]]\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, string(RenderIndex(tt.entries))); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// afterChanges is entries with changes made: each change's Old leaves (by path)
// and its New comes in.
func afterChanges(entries []memories.Entry, changes []IndexChange) []memories.Entry {
	byPath := map[string]int{}
	out := append([]memories.Entry(nil), entries...)
	for i, e := range out {
		byPath[e.Path] = i
	}
	gone := map[int]bool{}
	for _, c := range changes {
		if c.Old != nil {
			gone[byPath[c.Old.Path]] = true
		}
	}
	var after []memories.Entry
	for i, e := range out {
		if !gone[i] {
			after = append(after, e)
		}
	}
	for _, c := range changes {
		if c.New != nil {
			after = append(after, *c.New)
		}
	}
	return after
}

// newerOracle answers SpliceIndex's question from the entries a test knows,
// the way the store does from its catalog.
func newerOracle(lists ...[]memories.Entry) func(e *memories.Entry, project, firstNote string) bool {
	byName := map[string]memories.Entry{}
	for _, list := range lists {
		for _, x := range list {
			byName[x.Project+"\x00"+noteName(x.Path)] = x
		}
	}
	return func(e *memories.Entry, project, firstNote string) bool {
		f, ok := byName[project+"\x00"+firstNote]
		if !ok {
			return false
		}
		return e.Created.After(f.Created) || e.Created.Equal(f.Created) && e.ID > f.ID
	}
}

func news(changes []IndexChange) []memories.Entry {
	var out []memories.Entry
	for _, c := range changes {
		if c.New != nil {
			out = append(out, *c.New)
		}
	}
	return out
}

func ptr(e memories.Entry) *memories.Entry { return &e }

func TestSpliceIndex(t *testing.T) {
	a1, a2, a3 := entry("api", "a1", 1, "x"), entry("api", "a2", 2), entry("api", "a3", 3, "x", "y")
	m1 := entry("mobile", "m1", 10)
	w1, w2 := entry("web", "w1", 4), entry("web", "w2", 20)
	base := []memories.Entry{a1, a2, a3, m1, w1, w2, superseded(entry("web", "old", 30))}

	retitled := a3
	retitled.Title = "A new title"
	moved := a3
	moved.Project = "web"
	touched := a3
	touched.Importance = 5
	touched.Updated = indexBase.Add(time.Hour)
	tieLow, tieHigh := entry("api", "tie-low", 50), entry("api", "tie-high", 50)
	tieLow.ID, tieHigh.ID = "01hv00000000000000000000aa", "01hv00000000000000000000bb"
	sameTimeHigher, sameTimeLower := entry("api", "same-time-higher", 3), entry("api", "same-time-lower", 3)
	sameTimeHigher.ID, sameTimeLower.ID = a3.ID+"z", a3.ID[:len(a3.ID)-1]+"0"
	renumbered := tieHigh
	renumbered.ID = "01hv000000000000000000000a" // now below tieLow's

	tests := []struct {
		name    string
		before  []memories.Entry
		changes []IndexChange
		wantOK  bool
	}{
		{name: "add the newest", before: base, changes: []IndexChange{{New: ptr(entry("api", "new", 99))}}, wantOK: true},
		{name: "add with the same time, higher id", before: base, changes: []IndexChange{{New: &sameTimeHigher}}, wantOK: true},
		{name: "add with the same time, lower id", before: base, changes: []IndexChange{{New: &sameTimeLower}}, wantOK: false},
		{name: "add an older one", before: base, changes: []IndexChange{{New: ptr(entry("api", "new", 0))}}, wantOK: false},
		{name: "add a first project", before: base, changes: []IndexChange{{New: ptr(entry("aaa", "new", 0))}}, wantOK: true},
		{name: "add a middle project", before: base, changes: []IndexChange{{New: ptr(entry("docs", "new", 0))}}, wantOK: true},
		{name: "add a last project", before: base, changes: []IndexChange{{New: ptr(entry("zzz", "new", 0))}}, wantOK: true},
		{name: "add to an empty map", changes: []IndexChange{{New: ptr(entry("api", "new", 0))}}, wantOK: true},
		{name: "add two, oldest first", before: base, changes: []IndexChange{{New: ptr(entry("web", "n1", 98))}, {New: ptr(entry("web", "n2", 99))}}, wantOK: true},
		{name: "add two, newest first", before: base, changes: []IndexChange{{New: ptr(entry("web", "n2", 99))}, {New: ptr(entry("web", "n1", 98))}}, wantOK: false},
		{name: "add a superseded one", before: base, changes: []IndexChange{{New: ptr(superseded(entry("api", "gone", 0)))}}, wantOK: true},
		{name: "remove the first line", before: base, changes: []IndexChange{{Old: &a3}}, wantOK: true},
		{name: "remove a middle line", before: base, changes: []IndexChange{{Old: &a2}}, wantOK: true},
		{name: "remove the last line", before: base, changes: []IndexChange{{Old: &a1}}, wantOK: true},
		{name: "remove a middle section", before: base, changes: []IndexChange{{Old: &m1}}, wantOK: true},
		{name: "remove the first section", before: base, changes: []IndexChange{{Old: &a1}, {Old: &a2}, {Old: &a3}}, wantOK: true},
		{name: "remove the last section", before: base, changes: []IndexChange{{Old: &w2}, {Old: &w1}}, wantOK: true},
		{name: "remove everything", before: base, changes: []IndexChange{{Old: &a1}, {Old: &a2}, {Old: &a3}, {Old: &m1}, {Old: &w1}, {Old: &w2}}, wantOK: true},
		{name: "supersede", before: base, changes: []IndexChange{{Old: &a2, New: ptr(superseded(a2))}}, wantOK: true},
		{name: "bring back a superseded one", before: base, changes: []IndexChange{{Old: ptr(superseded(entry("web", "old", 30))), New: ptr(entry("web", "old", 30))}}, wantOK: true},
		{name: "remove then add", before: base, changes: []IndexChange{{Old: &w2}, {New: ptr(entry("web", "n", 5))}}, wantOK: true},
		{name: "a change the map does not show", before: base, changes: []IndexChange{{Old: &a3, New: &touched}}, wantOK: true},
		{name: "retitle", before: base, changes: []IndexChange{{Old: &a3, New: &retitled}}, wantOK: false},
		{name: "move to another project", before: base, changes: []IndexChange{{Old: &a3, New: &moved}}, wantOK: false},
		{name: "new id reorders a tie", before: []memories.Entry{tieLow, tieHigh}, changes: []IndexChange{{Old: &tieHigh, New: &renumbered}}, wantOK: false},
		{name: "remove a line the map does not have", before: base, changes: []IndexChange{{Old: ptr(entry("api", "nowhere", 5))}}, wantOK: false},
		{name: "remove from a project the map does not have", before: base, changes: []IndexChange{{Old: ptr(entry("nowhere", "x", 5))}}, wantOK: false},
		{name: "nothing", before: base, wantOK: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			after := afterChanges(tt.before, tt.changes)
			got, ok := SpliceIndex(RenderIndex(tt.before), tt.changes, newerOracle(tt.before, news(tt.changes)))
			if ok != tt.wantOK {
				t.Errorf("ok = %v, want %v", ok, tt.wantOK)
			}
			if !ok {
				return
			}
			if diff := cmp.Diff(string(RenderIndex(after)), string(got)); diff != "" {
				t.Errorf("spliced map differs from a rendered one (-rendered +spliced):\n%s", diff)
			}
		})
	}
}

// mustReplace replaces the first old in s, which must be there.
func mustReplace(s, old, new string) string {
	if !strings.Contains(s, old) {
		panic(fmt.Sprintf("%q not in %q", old, s))
	}
	return strings.Replace(s, old, new, 1)
}

// TestSpliceIndexNotOurs: a map that is not as cortex writes it is rendered
// again, never spliced.
func TestSpliceIndexNotOurs(t *testing.T) {
	good := string(RenderIndex([]memories.Entry{entry("api", "a1", 1), entry("api", "a2", 2), entry("web", "w1", 3)}))
	tests := []struct {
		name string
		data string
	}{
		{name: "empty", data: ""},
		{name: "header edited", data: "# My index\n" + good[len("# Cortex memory index\n"):]},
		{name: "no totals line", data: indexHeader},
		{name: "a line added by hand", data: good + "- [[mine|Mine]]\n"},
		{name: "a note written under a section", data: mustReplace(good, "\n## web", "\nsome words\n\n## web")},
		{name: "count too high", data: mustReplace(good, "## api (2)", "## api (3)")},
		{name: "count too low", data: mustReplace(good, "## api (2)", "## api (1)")},
		{name: "count not a number", data: mustReplace(good, "## api (2)", "## api (two)")},
		{name: "sections out of order", data: indexHeader + "2 memories in 2 projects.\n\n## web (1)\n\n- [[w|W]]\n\n## api (1)\n\n- [[a|A]]\n"},
		{name: "same section twice", data: indexHeader + "2 memories in 1 project.\n\n## api (1)\n\n- [[w|W]]\n\n## api (1)\n\n- [[a|A]]\n"},
		{name: "crlf", data: strings.ReplaceAll(good, "\n", "\r\n")},
		{name: "no final newline", data: good[:len(good)-1]},
		{name: "blank line at the end", data: good + "\n"},
	}
	add := []IndexChange{{New: ptr(entry("api", "new", 99))}}
	always := func(*memories.Entry, string, string) bool { return true }
	if _, ok := SpliceIndex([]byte(good), add, always); !ok {
		t.Fatal("the map as rendered does not splice; the cases below prove nothing")
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got, ok := SpliceIndex([]byte(tt.data), add, always); ok {
				t.Errorf("spliced %q into\n%q", got, tt.data)
			}
		})
	}
}

// spliceCase builds a map and a few changes from data, the way the store
// makes them: each change is about one note path, its Old from before the
// changes.
func spliceCase(data []byte) (before []memories.Entry, changes []IndexChange) {
	i := 0
	next := func() int {
		if i >= len(data) {
			return 0
		}
		i++
		return int(data[i-1])
	}
	projects := []string{"alpha", "beta", "gamma", "delta", "0ops"}
	titles := []string{"Deploy", "Use | pipes", "[[brackets]]", "two\nlines", "Café 🚀", "", "Same"}
	tags := []string{"t1", "t2", "area/t3"}
	statuses := []memories.Status{memories.StatusActive, memories.StatusOpen, memories.StatusDone, memories.StatusSuperseded}
	k := 0
	newEntry := func() memories.Entry {
		k++
		p := projects[next()%len(projects)]
		e := memories.Entry{
			// Few creation times, so ties are common; the id decides them.
			ID:      fmt.Sprintf("01hv%02x%020d", next()%8, k),
			Path:    fmt.Sprintf("memories/%s/note-%d.md", p, k),
			Title:   titles[next()%len(titles)],
			Project: p,
			Tags:    tags[:next()%(len(tags)+1)],
			Status:  memories.StatusActive,
			Created: indexBase.Add(time.Duration(next()%6) * time.Minute),
		}
		if next()%5 == 0 {
			e.Status = memories.StatusSuperseded
		}
		switch next() % 8 { // notes mined from transcripts
		case 0:
			e.Type, e.Source = memories.TypeSession, memories.SourceMined
		case 1:
			e.Type, e.Source = memories.TypeEpisode, memories.SourceMined
		case 2:
			e.Type, e.Source = memories.TypeDecision, memories.SourceMined
		case 3:
			e.Type = memories.TypeDecision // a decision a person saved
		}
		return e
	}
	for n := next() % 12; len(before) < n; {
		before = append(before, newEntry())
	}
	changed := map[string]bool{}
	for len(changes) < 6 && i < len(data) {
		kind := next() % 5
		if kind == 0 || len(before) == 0 {
			e := newEntry()
			changes = append(changes, IndexChange{New: &e})
			continue
		}
		old := before[next()%len(before)]
		if changed[old.Path] {
			continue
		}
		changed[old.Path] = true
		c := IndexChange{Old: &old}
		switch kind {
		case 1: // deleted or moved away
		case 2: // superseded
			e := superseded(old)
			c.New = &e
		case 3: // edited
			e := old
			switch next() % 5 {
			case 0:
				e.Title = titles[next()%len(titles)]
			case 1:
				e.Tags = tags[:next()%(len(tags)+1)]
			case 2:
				e.Created = indexBase.Add(time.Duration(next()%6) * time.Minute)
			case 3:
				e.ID = fmt.Sprintf("01hv%02x%020d", next()%8, 1000+len(changes))
			case 4:
				e.Project = projects[next()%len(projects)]
			}
			c.New = &e
		case 4: // status changed
			e := old
			e.Status = statuses[next()%len(statuses)]
			c.New = &e
		}
		changes = append(changes, c)
	}
	return before, changes
}

// mustSplice reports whether SpliceIndex has to manage changes on its own:
// each removes a live memory, adds one newer than every live one of its
// project at that point, or changes nothing the map shows.
func mustSplice(before []memories.Entry, changes []IndexChange) bool {
	live := map[string][]memories.Entry{}
	for _, e := range before {
		if sec := IndexSection(&e); sec != "" {
			live[sec] = append(live[sec], e)
		}
	}
	for _, c := range changes {
		oldSec, newSec := "", ""
		if c.Old != nil {
			oldSec = IndexSection(c.Old)
		}
		if c.New != nil {
			newSec = IndexSection(c.New)
		}
		switch {
		case oldSec != "" && newSec != "":
			if oldSec != newSec || !c.Old.Created.Equal(c.New.Created) || c.Old.ID != c.New.ID ||
				indexLine(c.Old) != indexLine(c.New) {
				return false
			}
		case oldSec != "":
			list := live[oldSec]
			for i := range list {
				if list[i].Path == c.Old.Path {
					live[oldSec] = append(list[:i:i], list[i+1:]...)
					break
				}
			}
		case newSec != "":
			if newSec == DecisionsSection || newSec == SessionsSection {
				return false // rendered afresh
			}
			for _, x := range live[newSec] {
				if !(c.New.Created.After(x.Created) || c.New.Created.Equal(x.Created) && c.New.ID > x.ID) {
					return false
				}
			}
			live[newSec] = append(live[newSec], *c.New)
		}
	}
	return true
}

// checkSplice: splicing changes into the map of the memories before gives
// the map of the memories after, byte for byte, or declines; it declines
// only changes it is not built for.
func checkSplice(t *testing.T, data []byte) {
	t.Helper()
	before, changes := spliceCase(data)
	after := afterChanges(before, changes)
	got, ok := SpliceIndex(RenderIndex(before), changes, newerOracle(before, news(changes)))
	if !ok {
		if mustSplice(before, changes) {
			t.Fatalf("SpliceIndex declined changes it must make (input %q)\nbefore: %+v\nchanges: %s", data, before, describe(changes))
		}
		return
	}
	if diff := cmp.Diff(string(RenderIndex(after)), string(got)); diff != "" {
		t.Fatalf("spliced map differs from a rendered one (input %q)\nbefore: %+v\nchanges: %s\n(-rendered +spliced):\n%s",
			data, before, describe(changes), diff)
	}
}

func describe(changes []IndexChange) string {
	s := ""
	for _, c := range changes {
		s += fmt.Sprintf("\n  old %+v\n  new %+v", c.Old, c.New)
	}
	return s
}

func TestSpliceIndexRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	data := make([]byte, 64)
	n := 20000
	if testing.Short() {
		n = 2000
	}
	for range n {
		for i := range data {
			data[i] = byte(rng.Uint32())
		}
		checkSplice(t, data)
	}
}

func FuzzSpliceIndex(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{5, 0, 1, 2, 3, 4, 1, 1, 2, 3, 4, 0, 2, 3, 0})
	f.Add([]byte("a map of contents spliced in place"))
	f.Fuzz(checkSplice)
}

// TestRenderIndexMined: mined decisions and sessions get their own sections
// ahead of the projects, episodes are left out, and the totals count them
// apart.
func TestRenderIndexMined(t *testing.T) {
	mined := func(e memories.Entry, typ memories.Type) memories.Entry {
		e.Type, e.Source = typ, memories.SourceMined
		return e
	}
	saved := entry("0ops", "a-decision-of-mine", 3)
	saved.Type = memories.TypeDecision
	entries := []memories.Entry{
		entry("web", "oldest", 1, "css"),
		saved,
		mined(entry("web", "use-bleve", 10), memories.TypeDecision),
		mined(entry("web", "never-vendor", 12, "ban"), memories.TypeDecision),
		mined(entry("web", "2024-05-01-use-bleve", 9), memories.TypeSession),
		mined(entry("web", "2024-05-01-edit-main-go", 11), memories.TypeEpisode),
		superseded(mined(entry("web", "old-decision", 2), memories.TypeDecision)),
	}
	want := indexHeader + `2 memories in 2 projects; mined from transcripts: 2 decisions, 1 session.

## Decisions (2)

- [[never-vendor|Title of never-vendor]] #ban
- [[use-bleve|Title of use-bleve]]

## Sessions (1)

- [[2024-05-01-use-bleve|Title of 2024-05-01-use-bleve]]

## 0ops (1)

- [[a-decision-of-mine|Title of a-decision-of-mine]]

## web (1)

- [[oldest|Title of oldest]] #css
`
	got := RenderIndex(entries)
	if diff := cmp.Diff(want, string(got)); diff != "" {
		t.Fatalf("map (-want +got):\n%s", diff)
	}
	// The map reads back: a mined decision's line can be spliced out.
	gone := entries[3]
	out, ok := SpliceIndex(got, []IndexChange{{Old: &gone}}, newerOracle(entries))
	if !ok {
		t.Fatal("SpliceIndex declined to remove a mined decision")
	}
	if diff := cmp.Diff(string(RenderIndex(append(entries[:3:3], entries[4:]...))), string(out)); diff != "" {
		t.Fatalf("spliced (-rendered +spliced):\n%s", diff)
	}
}
