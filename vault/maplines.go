package vault

import (
	"sort"
	"strings"

	"github.com/cortexmem/cortex/memories"
)

// mapLines gathers what the map of contents lists from entries given one at
// a time, keeping none of them: a line for each listed entry, and what
// places it. Rendering the map of 100,000 notes from a slice of their
// entries held the slice (38 MB) beside the lines, and a server that
// rendered the whole map again (a map left owed by a server killed after a
// save, a change too large to splice) peaked at 180 MB against its 150 MB
// budget.
type mapLines struct {
	folder string
	items  []mapItem
	// listed holds the indexes of the items of each section, in the order
	// they came.
	listed   map[string]*[]int32
	episodes int
	// owed says a superseded entry's successor is still to be found: it
	// may come after it.
	owed bool
}

// mapItem is an entry as the map needs it. Episodes are items too, listed
// nowhere: one may be a successor.
type mapItem struct {
	id string
	// line is "- " and the note's link, then its tags, or for a
	// superseded entry what replaced it (once found).
	line string
	link int32 // where the link ends in line
	by   string
	// sec and nsec are the time the section orders by: the creation, or
	// for a superseded entry its last change.
	sec  int64
	nsec int32
}

func newMapLines(folder string) *mapLines {
	return &mapLines{folder: folder, listed: map[string]*[]int32{}}
}

// add takes e's line and place. Nothing of e is kept: its strings may be
// reused once add returns.
func (m *mapLines) add(e *memories.Entry) error {
	sec := IndexSection(e)
	link := noteLink(m.folder, e.Path, e.Title)
	it := mapItem{id: strings.Clone(e.ID), link: int32(2 + len(link))}
	t := e.Created
	switch sec {
	case "":
		m.episodes++
		it.line = "- " + link
	case SupersededSection:
		t = e.Updated
		if e.SupersededBy == "" {
			it.line = supersededLine(link, "", "", false)
			break
		}
		// The line ends with what replaced it, which may come later:
		// until then it is the link only (see resolve).
		it.line = "- " + link
		it.by = strings.Clone(e.SupersededBy)
		m.owed = true
	default:
		it.line = liveLine(link, e.Tags)
	}
	it.sec, it.nsec = t.Unix(), int32(t.Nanosecond())
	if sec != "" {
		// Through a pointer: assigning to a string key the map holds
		// replaces the key with the one given, which is the entry's.
		list := m.listed[sec]
		if list == nil {
			list = new([]int32)
			m.listed[strings.Clone(sec)] = list
		}
		*list = append(*list, int32(len(m.items)))
	}
	m.items = append(m.items, it)
	return nil
}

// sections sorts the lines into the map's sections, in order, and counts
// the episodes. The order within a section is listedBefore's.
func (m *mapLines) sections() ([]indexSection, int) {
	if m.owed {
		m.resolve()
	}
	out := make([]indexSection, 0, len(m.listed))
	for name, p := range m.listed {
		list := *p
		sort.Slice(list, func(i, j int) bool { return m.before(list[i], list[j]) })
		lines := make([]string, len(list))
		for i, k := range list {
			lines[i] = m.items[k].line
		}
		out = append(out, indexSection{name: name, lines: lines})
	}
	sort.Slice(out, func(i, j int) bool { return sectionLess(out[i].name, out[j].name) })
	return out, m.episodes
}

// before is listedBefore of items a and b of one section: newest first,
// then by id.
func (m *mapLines) before(a, b int32) bool {
	x, y := &m.items[a], &m.items[b]
	if x.sec != y.sec || x.nsec != y.nsec {
		return x.sec > y.sec || x.sec == y.sec && x.nsec > y.nsec
	}
	return x.id > y.id
}

// resolve ends each superseded entry's line with what replaced it: the link
// of the entry its superseded_by names (the last of that id, as a map filled
// in order keeps), else the id marked as not in the vault (supersededLine).
func (m *mapLines) resolve() {
	byID := make([]int32, len(m.items))
	for i := range byID {
		byID[i] = int32(i)
	}
	sort.SliceStable(byID, func(i, j int) bool { return m.items[byID[i]].id < m.items[byID[j]].id })
	for k := range m.items {
		it := &m.items[k]
		if it.by == "" {
			continue
		}
		n := sort.Search(len(byID), func(i int) bool { return m.items[byID[i]].id > it.by })
		succ, found := "", n > 0 && m.items[byID[n-1]].id == it.by
		if found {
			s := &m.items[byID[n-1]]
			succ = s.line[2:s.link]
		}
		it.line = supersededLine(it.line[2:it.link], it.by, succ, found)
		it.by = ""
	}
	m.owed = false
}
