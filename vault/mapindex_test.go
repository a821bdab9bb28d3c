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

// superseded is e superseded by a memory the vault does not hold.
func superseded(e memories.Entry) memories.Entry {
	e.Status = memories.StatusSuperseded
	e.SupersededBy = "01hvzzzzzzzzzzzzzzzzzzzzzz"
	return e
}

// mapVault is the vault the map tests render for: cortex's folder is
// "cortex", so links start with "cortex/".
var mapVault = &Vault{Root: "/vault", Dir: "/vault/cortex"}

func renderTest(entries []memories.Entry) []byte { return mapVault.RenderIndex(entries) }

func TestRenderIndexGolden(t *testing.T) {
	tie1 := entry("web", "tie-low-id", 30)
	tie1.ID = "01hv00000000000000000000aa"
	tie2 := entry("web", "tie-high-id", 30)
	tie2.ID = "01hv00000000000000000000bb"
	odd := entry("infra", "odd-title", 5, "k8s", "area/sub")
	odd.Title = "Pipes | [brackets] and\na new line"
	replacement := entry("infra", "pool-is-40", 45)
	replaced := entry("infra", "pool-is-20", 10, "db")
	replaced.Status, replaced.SupersededBy, replaced.Updated = memories.StatusSuperseded, replacement.ID, indexBase.Add(45*time.Minute)
	retired := entry("web", "retired", 20)
	retired.Status, retired.Updated = memories.StatusSuperseded, indexBase.Add(50*time.Minute)
	entries := []memories.Entry{
		entry("web", "oldest", 1, "css"),
		tie1,
		entry("infra", "deploy-with-blue-green-01m5y8hg", 40, "k8s", "deploy"),
		superseded(entry("infra", "replaced", 50)),
		entry("general", "note-without-tags", 2),
		tie2,
		odd,
		entry("web", "newest", 60),
		replacement,
		replaced,
		retired,
	}
	golden.Check(t, filepath.Join("testdata", "index", "render.golden"), renderTest(entries))
}

func TestRenderIndexTotals(t *testing.T) {
	tests := []struct {
		name    string
		entries []memories.Entry
		want    string
	}{
		{name: "none", want: indexHeader + "0 memories in 0 projects.\n"},
		{
			name:    "only superseded",
			entries: []memories.Entry{superseded(entry("a", "x", 1))},
			want: indexHeader + "0 memories in 0 projects; 1 superseded.\n\n## Superseded (1)\n\n" +
				"- [[cortex/memories/a/x|Title of x]] → 01hvzzzzzzzzzzzzzzzzzzzzzz (not in the vault)\n",
		},
		{
			name:    "one",
			entries: []memories.Entry{entry("a", "x", 1, "t")},
			want:    indexHeader + "1 memory in 1 project.\n\n## a (1)\n\n- [[cortex/memories/a/x|Title of x]] #t\n",
		},
		{
			name:    "two projects",
			entries: []memories.Entry{entry("b", "y", 2), entry("a", "x", 1)},
			want: indexHeader + "2 memories in 2 projects.\n\n## a (1)\n\n- [[cortex/memories/a/x|Title of x]]\n\n" +
				"## b (1)\n\n- [[cortex/memories/b/y|Title of y]]\n",
		},
		{
			// Two notes with one file name are two links (issue: both went
			// to one note).
			name:    "one file name in two folders",
			entries: []memories.Entry{entry("b", "setup", 2), entry("a", "setup", 1)},
			want: indexHeader + "2 memories in 2 projects.\n\n## a (1)\n\n- [[cortex/memories/a/setup|Title of setup]]\n\n" +
				"## b (1)\n\n- [[cortex/memories/b/setup|Title of setup]]\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, string(renderTest(tt.entries))); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestRenderIndexFolder: links start with cortex's folder as the vault has
// it, or with nothing when cortex's folder is the vault.
func TestRenderIndexFolder(t *testing.T) {
	e := []memories.Entry{entry("a", "x", 1)}
	for _, tt := range []struct {
		v    *Vault
		want string
	}{
		{&Vault{Root: "/v", Dir: "/v/brain/cortex"}, "- [[brain/cortex/memories/a/x|Title of x]]\n"},
		{&Vault{Root: "/v", Dir: "/v"}, "- [[memories/a/x|Title of x]]\n"},
	} {
		if got := string(tt.v.RenderIndex(e)); !strings.HasSuffix(got, tt.want) {
			t.Errorf("%s: map ends %q, want %q", tt.v.Dir, got[len(got)-len(tt.want):], tt.want)
		}
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

// lookup answers SpliceIndex's questions from the entries before the
// changes, the way the store does from its catalog.
type lookup struct{ byPath, byID map[string]memories.Entry }

func lookupOf(entries []memories.Entry) lookup {
	l := lookup{byPath: map[string]memories.Entry{}, byID: map[string]memories.Entry{}}
	for _, e := range entries {
		l.byPath[e.Path], l.byID[e.ID] = e, e
	}
	return l
}

func (l lookup) ByPath(p string) (*memories.Entry, error) {
	if e, ok := l.byPath[p]; ok {
		return &e, nil
	}
	return nil, nil
}

func (l lookup) ByID(id string) (*memories.Entry, error) {
	if e, ok := l.byID[id]; ok {
		return &e, nil
	}
	return nil, nil
}

func splice(before []memories.Entry, changes []IndexChange) ([]byte, bool) {
	return mapVault.SpliceIndex(renderTest(before), changes, lookupOf(before))
}

func ptr(e memories.Entry) *memories.Entry { return &e }

func TestSpliceIndex(t *testing.T) {
	a1, a2, a3 := entry("api", "a1", 1, "x"), entry("api", "a2", 2), entry("api", "a3", 3, "x", "y")
	m1 := entry("mobile", "m1", 10)
	w1, w2 := entry("web", "w1", 4), entry("web", "w2", 20)
	old := superseded(entry("web", "old", 30))
	base := []memories.Entry{a1, a2, a3, m1, w1, w2, old}

	later := indexBase.Add(24 * time.Hour)
	supersededBy := func(e memories.Entry, by string, at time.Time) memories.Entry {
		e.Status, e.SupersededBy, e.Updated = memories.StatusSuperseded, by, at
		return e
	}
	retitled := a3
	retitled.Title = "A new title"
	moved := a3
	moved.Project = "web"
	renamed := a3
	renamed.Path = "memories/api/a3-renamed.md"
	touched := a3
	touched.Importance = 5
	touched.Updated = indexBase.Add(time.Hour)
	tieLow, tieHigh := entry("api", "tie-low", 50), entry("api", "tie-high", 50)
	tieLow.ID, tieHigh.ID = "01hv00000000000000000000aa", "01hv00000000000000000000bb"
	sameTimeHigher, sameTimeLower := entry("api", "same-time-higher", 3), entry("api", "same-time-lower", 3)
	sameTimeHigher.ID, sameTimeLower.ID = a3.ID+"z", a3.ID[:len(a3.ID)-1]+"0"
	renumbered := tieHigh
	renumbered.ID = "01hv000000000000000000000a" // now below tieLow's
	replacement := entry("api", "replacement", 99)
	byA3 := supersededBy(m1, a3.ID, later)
	withReplaced := append(base[:len(base):len(base)], byA3)
	pending := supersededBy(m1, replacement.ID, later) // its replacement is not synced yet
	withPending := []memories.Entry{a1, a2, a3, pending}
	mined := func(e memories.Entry, typ memories.Type) memories.Entry {
		e.Type, e.Source = typ, memories.SourceMined
		return e
	}
	dec, ses, ep := mined(entry("web", "dec", 5), memories.TypeDecision), mined(entry("web", "ses", 5), memories.TypeSession), mined(entry("web", "ep", 5), memories.TypeEpisode)
	withMined := append(base[:len(base):len(base)], dec, ses, ep)

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
		{name: "add a superseded one, changed last", before: base, changes: []IndexChange{{New: ptr(supersededBy(entry("api", "gone", 0), "", later))}}, wantOK: true},
		{name: "add a superseded one changed earlier", before: base, changes: []IndexChange{{New: ptr(superseded(entry("api", "gone", 0)))}}, wantOK: false},
		{name: "add a mined decision", before: withMined, changes: []IndexChange{{New: ptr(mined(entry("web", "dec2", 6), memories.TypeDecision))}}, wantOK: true},
		{name: "add a session", before: withMined, changes: []IndexChange{{New: ptr(mined(entry("web", "ses2", 6), memories.TypeSession))}}, wantOK: true},
		{name: "add an episode", before: withMined, changes: []IndexChange{{New: ptr(mined(entry("web", "ep2", 1), memories.TypeEpisode))}}, wantOK: true},
		{name: "remove an episode", before: withMined, changes: []IndexChange{{Old: &ep}}, wantOK: true},
		{name: "remove the first line", before: base, changes: []IndexChange{{Old: &a3}}, wantOK: true},
		{name: "remove a middle line", before: base, changes: []IndexChange{{Old: &a2}}, wantOK: true},
		{name: "remove the last line", before: base, changes: []IndexChange{{Old: &a1}}, wantOK: true},
		{name: "remove a middle section", before: base, changes: []IndexChange{{Old: &m1}}, wantOK: true},
		{name: "remove the first section", before: base, changes: []IndexChange{{Old: &a1}, {Old: &a2}, {Old: &a3}}, wantOK: true},
		{name: "remove the last project", before: base, changes: []IndexChange{{Old: &w2}, {Old: &w1}}, wantOK: true},
		{name: "remove a superseded one", before: base, changes: []IndexChange{{Old: &old}}, wantOK: true},
		{name: "remove everything", before: base, changes: []IndexChange{{Old: &a1}, {Old: &a2}, {Old: &a3}, {Old: &m1}, {Old: &w1}, {Old: &w2}, {Old: &old}}, wantOK: true},
		{name: "retire", before: base, changes: []IndexChange{{Old: &a2, New: ptr(supersededBy(a2, "", later))}}, wantOK: true},
		{
			name: "supersede with a replacement", before: base,
			changes: []IndexChange{{Old: &a2, New: ptr(supersededBy(a2, replacement.ID, later))}, {New: &replacement}}, wantOK: true,
		},
		{name: "supersede by one the vault has", before: base, changes: []IndexChange{{Old: &a2, New: ptr(supersededBy(a2, a3.ID, later))}}, wantOK: true},
		{name: "bring back a superseded one", before: base, changes: []IndexChange{{Old: &old, New: ptr(entry("web", "old", 30))}}, wantOK: true},
		{name: "remove then add", before: base, changes: []IndexChange{{Old: &w2}, {New: ptr(entry("web", "n", 5))}}, wantOK: true},
		{name: "a change the map does not show", before: base, changes: []IndexChange{{Old: &a3, New: &touched}}, wantOK: true},
		{name: "a replacement changes what the map does not show", before: withReplaced, changes: []IndexChange{{Old: &a3, New: &touched}}, wantOK: true},
		{name: "a replacement is renamed", before: withReplaced, changes: []IndexChange{{Old: &a3}, {New: &renamed}}, wantOK: false},
		{name: "a replacement is deleted", before: withReplaced, changes: []IndexChange{{Old: &a3}}, wantOK: false},
		{name: "a replacement arrives", before: withPending, changes: []IndexChange{{New: &replacement}}, wantOK: false},
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
			got, ok := splice(tt.before, tt.changes)
			if ok != tt.wantOK {
				t.Errorf("ok = %v, want %v", ok, tt.wantOK)
			}
			if !ok {
				return
			}
			if diff := cmp.Diff(string(renderTest(after)), string(got)); diff != "" {
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
	entries := []memories.Entry{entry("api", "a1", 1), entry("api", "a2", 2), entry("web", "w1", 3)}
	good := string(renderTest(entries))
	ep := entry("web", "ep", 4)
	ep.Type = memories.TypeEpisode
	withEpisode := string(renderTest(append(entries[:3:3], ep)))
	tests := []struct {
		name string
		data string
	}{
		{name: "empty", data: ""},
		{name: "header edited", data: "# My index\n" + good[len("# Cortex memory index\n"):]},
		{name: "no totals line", data: indexHeader},
		{name: "totals edited", data: mustReplace(good, "3 memories", "4 memories")},
		{name: "episodes edited", data: mustReplace(withEpisode, "1 code edit.", "2 code edits.")},
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
	for _, data := range []string{good, withEpisode} {
		if _, ok := mapVault.SpliceIndex([]byte(data), add, lookupOf(append(entries, ep))); !ok {
			t.Fatal("the map as rendered does not splice; the cases below prove nothing")
		}
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got, ok := mapVault.SpliceIndex([]byte(tt.data), add, lookupOf(append(entries, ep))); ok {
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
	var ids []string // every id made, for replacements
	// supersede marks e superseded: retired, or replaced by a memory made
	// before or after it, or by one that never exists.
	supersede := func(e *memories.Entry) {
		e.Status = memories.StatusSuperseded
		e.Updated = indexBase.Add(time.Duration(next()%4) * time.Hour)
		switch n := next() % 4; {
		case n == 0:
			e.SupersededBy = ""
		case n == 1 || len(ids) == 0:
			e.SupersededBy = fmt.Sprintf("01hv%02x%020d", 0, k+1+next()%3) // maybe made next
		default:
			e.SupersededBy = ids[next()%len(ids)]
		}
	}
	newEntry := func() memories.Entry {
		k++
		p := projects[next()%len(projects)]
		e := memories.Entry{
			// Few creation times, so ties are common; the id decides them.
			ID:      fmt.Sprintf("01hv%02x%020d", next()%2, k),
			Path:    fmt.Sprintf("memories/%s/note-%d.md", p, k),
			Title:   titles[next()%len(titles)],
			Project: p,
			Tags:    tags[:next()%(len(tags)+1)],
			Status:  memories.StatusActive,
			Created: indexBase.Add(time.Duration(next()%6) * time.Minute),
		}
		ids = append(ids, e.ID)
		if next()%5 == 0 {
			supersede(&e)
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
			e := old
			supersede(&e)
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
				e.ID = fmt.Sprintf("01hv%02x%020d", next()%2, 1000+len(changes))
			case 4:
				e.Project = projects[next()%len(projects)]
			}
			c.New = &e
		case 4: // status changed
			e := old
			e.Status = statuses[next()%len(statuses)]
			if !e.Live() && old.Live() {
				supersede(&e)
			}
			c.New = &e
		}
		changes = append(changes, c)
	}
	return before, changes
}

// mustSplice reports whether SpliceIndex has to manage changes on its own:
// each removes a line, adds one that comes before every line of its
// section at that point, or changes nothing the map shows — and none
// changes the memory a superseded line links to as its replacement.
func mustSplice(before []memories.Entry, changes []IndexChange) bool {
	byID := map[string]memories.Entry{}
	for _, e := range before {
		byID[e.ID] = e
	}
	for _, e := range before {
		if e.Live() || e.SupersededBy == "" {
			continue
		}
		succ, held := byID[e.SupersededBy]
		for _, c := range changes {
			switch {
			case held && c.Old != nil && c.Old.Path == succ.Path:
				if c.New == nil || c.New.ID != c.Old.ID || c.New.Path != c.Old.Path || LinkAlias(c.New.Title) != LinkAlias(c.Old.Title) {
					return false
				}
			case !held && c.New != nil && c.New.ID == e.SupersededBy && (c.Old == nil || c.Old.ID != c.New.ID):
				return false
			}
		}
	}
	listed := map[string][]memories.Entry{}
	for _, e := range before {
		if sec := IndexSection(&e); sec != "" {
			listed[sec] = append(listed[sec], e)
		}
	}
	succ := func(e *memories.Entry, after bool) string {
		if e.Live() {
			return ""
		}
		if after {
			for _, c := range changes {
				if c.New != nil && c.New.ID == e.SupersededBy {
					return c.New.Path + c.New.Title
				}
			}
			for _, c := range changes {
				if c.Old != nil && c.Old.ID == e.SupersededBy {
					return ""
				}
			}
		}
		if s, ok := byID[e.SupersededBy]; ok {
			return s.Path + s.Title
		}
		return ""
	}
	for _, c := range changes {
		oldSec, newSec := "", ""
		if c.Old != nil {
			oldSec = IndexSection(c.Old)
		}
		if c.New != nil {
			newSec = IndexSection(c.New)
		}
		if oldSec != "" && oldSec == newSec {
			if listedBefore(oldSec, c.Old, c.New) || listedBefore(oldSec, c.New, c.Old) ||
				indexLine("x", c.Old, nil) != indexLine("x", c.New, nil) || succ(c.Old, false) != succ(c.New, true) {
				return false
			}
			continue
		}
		if oldSec != "" {
			list := listed[oldSec]
			for i := range list {
				if list[i].Path == c.Old.Path {
					listed[oldSec] = append(list[:i:i], list[i+1:]...)
					break
				}
			}
		}
		if newSec != "" {
			for _, x := range listed[newSec] {
				if !listedBefore(newSec, c.New, &x) {
					return false
				}
			}
			listed[newSec] = append(listed[newSec], *c.New)
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
	got, ok := splice(before, changes)
	if !ok {
		if mustSplice(before, changes) {
			t.Fatalf("SpliceIndex declined changes it must make (input %q)\nbefore: %+v\nchanges: %s", data, before, describe(changes))
		}
		return
	}
	if diff := cmp.Diff(string(renderTest(after)), string(got)); diff != "" {
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
	spliced := 0
	for range n {
		for i := range data {
			data[i] = byte(rng.Uint32())
		}
		checkSplice(t, data)
		if before, changes := spliceCase(data); len(changes) > 0 {
			if _, ok := splice(before, changes); ok {
				spliced++
			}
		}
	}
	// The cases must exercise splicing, not only its refusals.
	if spliced < n/10 {
		t.Errorf("only %d of %d cases spliced", spliced, n)
	}
}

func FuzzSpliceIndex(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{5, 0, 1, 2, 3, 4, 1, 1, 2, 3, 4, 0, 2, 3, 0})
	f.Add([]byte("a map of contents spliced in place"))
	f.Fuzz(checkSplice)
}

// TestRenderIndexMined: mined decisions and sessions get their own sections
// ahead of the projects, episodes are counted but not listed, and the
// superseded come last.
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
	want := indexHeader + `6 memories: 2 in 2 projects; mined from transcripts: 2 decisions, 1 session, 1 code edit; 1 superseded.

## Decisions (2)

- [[cortex/memories/web/never-vendor|Title of never-vendor]] #ban
- [[cortex/memories/web/use-bleve|Title of use-bleve]]

## Sessions (1)

- [[cortex/memories/web/2024-05-01-use-bleve|Title of 2024-05-01-use-bleve]]

## 0ops (1)

- [[cortex/memories/0ops/a-decision-of-mine|Title of a-decision-of-mine]]

## web (1)

- [[cortex/memories/web/oldest|Title of oldest]] #css

## Superseded (1)

- [[cortex/memories/web/old-decision|Title of old-decision]] → 01hvzzzzzzzzzzzzzzzzzzzzzz (not in the vault)
`
	got := renderTest(entries)
	if diff := cmp.Diff(want, string(got)); diff != "" {
		t.Fatalf("map (-want +got):\n%s", diff)
	}
	// The map reads back: a mined decision's line can be spliced out.
	gone := entries[3]
	out, ok := mapVault.SpliceIndex(got, []IndexChange{{Old: &gone}}, lookupOf(entries))
	if !ok {
		t.Fatal("SpliceIndex declined to remove a mined decision")
	}
	if diff := cmp.Diff(string(renderTest(append(entries[:3:3], entries[4:]...))), string(out)); diff != "" {
		t.Fatalf("spliced (-rendered +spliced):\n%s", diff)
	}
}

// BenchmarkSpliceIndex: a save and a supersede spliced into the map of
// 10,000 memories, 2,000 of them superseded (the superseded section is
// searched for lines that link to a changed note).
func BenchmarkSpliceIndex(b *testing.B) {
	var entries []memories.Entry
	for i := range 10000 {
		e := entry(fmt.Sprintf("p%d", i%20), fmt.Sprintf("note-%d", i), i, "tag")
		if i%5 == 0 {
			e.Status, e.SupersededBy, e.Updated = memories.StatusSuperseded, fmt.Sprintf("01hv%022d", i+1), e.Created.Add(time.Hour)
		}
		entries = append(entries, e)
	}
	data := renderTest(entries)
	l := lookupOf(entries)
	newest := entry("p1", "new", 20000)
	live := entries[1]
	sup := live
	sup.Status, sup.SupersededBy, sup.Updated = memories.StatusSuperseded, newest.ID, indexBase.Add(1000*time.Hour)
	for _, bc := range []struct {
		name    string
		changes []IndexChange
	}{
		{"save", []IndexChange{{New: &newest}}},
		{"supersede", []IndexChange{{Old: &live, New: &sup}, {New: &newest}}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				if _, ok := mapVault.SpliceIndex(data, bc.changes, l); !ok {
					b.Fatal("declined")
				}
			}
		})
	}
	b.Run("render", func(b *testing.B) {
		for b.Loop() {
			renderTest(entries)
		}
	})
}
