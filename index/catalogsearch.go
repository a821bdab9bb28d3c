package index

import (
	"slices"
	"strings"
	"time"

	"github.com/cortexmem/cortex/memories"
)

// SearchEntriesWhere is, for each of reqs, memories.SearchEntries over the
// entries EntriesWhere(keep) lists (memories.EntrySearcher), in one pass
// over the metadata that decodes whole only the entries the lists keep: a
// session-start's briefing lists a few dozen of the memories of a project
// that may hold all 10,000 notes of the vault, and decoding every one of
// them (its path, title and tags made) was most of what the briefing cost.
// A request with text, source hashes or creation hours is an error, as
// for SearchEntries.
func (c *Catalog) SearchEntriesWhere(keep func(project, area, name string) bool, reqs []memories.SearchRequest) ([][]memories.Hit, error) {
	for _, req := range reqs {
		if _, err := memories.SearchEntries(nil, req); err != nil {
			return nil, err
		}
	}
	if c.entries != nil {
		// Every entry is decoded already (a listing came first).
		es, err := c.EntriesWhere(keep)
		if err != nil {
			return nil, err
		}
		return memories.SearchEntriesEach(es, reqs)
	}
	tops := make([]entryTop, len(reqs))
	tags := false
	for i, req := range reqs {
		tops[i].k = req.Size
		tags = tags || len(req.Tags) > 0
	}
	offer := func(e *memories.Entry, c entryCand) {
		for i := range reqs {
			if tops[i].k > 0 && reqs[i].KeepsEntry(e) {
				c.updated, c.id = e.Updated, e.ID
				tops[i].offer(c)
			}
		}
	}
	seq := 0
	if c.base != nil {
		if err := c.base.loadMeta(); err != nil {
			return nil, err
		}
		var shadowed []bool
		if len(c.over) > 0 {
			shadowed = make([]bool, c.base.nFiles)
			for _, i := range c.Shadowed() {
				shadowed[i] = true
			}
		}
		err := c.baseKept(keep, func(i int, s [11]string, nums [3]int64) error {
			if shadowed != nil && shadowed[i] {
				return nil
			}
			// What the requests filter and order on, and nothing more: no
			// path, title or tags are made for the thousands left out.
			e := memories.Entry{ID: s[0], Type: memories.Type(s[3]), Project: s[metaProject], Area: s[metaArea],
				Status: memories.Status(s[8]), Updated: time.Unix(nums[2], 0).UTC()}
			if tags && s[6] != "" {
				e.Tags = strings.Split(s[6], ",")
			}
			offer(&e, entryCand{base: i, seq: seq})
			seq++
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	for _, r := range c.overKept(keep) {
		offer(&r.Entry, entryCand{base: -1, rec: r, seq: seq})
		seq++
	}
	out := make([][]memories.Hit, len(reqs))
	for i := range tops {
		cs := tops[i].sorted()
		if len(cs) == 0 {
			continue
		}
		hits := make([]memories.Hit, len(cs))
		for j, x := range cs {
			if x.rec != nil {
				hits[j] = memories.Hit{Entry: x.rec.Entry}
				continue
			}
			m, err := c.base.metaRecord(x.base)
			if err != nil {
				return nil, err
			}
			s, nums, err := splitMeta(m)
			if err != nil {
				return nil, corrupt("file %d: %v", x.base, err)
			}
			hits[j].Entry.Path = c.base.path(x.base)
			fillEntry(&hits[j].Entry, &s, &nums)
		}
		out[i] = hits
	}
	return out, nil
}

// entryCand is an entry a search without text may list: file base of the
// base, or the overlay's record rec; seq is its place in EntriesWhere's
// order, which breaks ties of time and id (none between readable entries,
// whose ids are unique).
type entryCand struct {
	updated time.Time
	id      string
	base    int
	rec     *Record
	seq     int
}

// before orders candidates as memories.CompareEntries orders entries.
func (x *entryCand) before(y *entryCand) bool {
	if c := y.updated.Compare(x.updated); c != 0 {
		return c < 0
	}
	if x.id != y.id {
		return x.id < y.id
	}
	return x.seq < y.seq
}

// entryTop keeps the k first candidates offered: a heap whose root is the
// last of those kept, so that most offers are refused with one comparison.
type entryTop struct {
	k    int
	heap []entryCand
}

func (t *entryTop) offer(x entryCand) {
	if len(t.heap) < t.k {
		t.heap = append(t.heap, x)
		for i := len(t.heap) - 1; i > 0; {
			p := (i - 1) / 2
			if !t.heap[p].before(&t.heap[i]) {
				break
			}
			t.heap[p], t.heap[i] = t.heap[i], t.heap[p]
			i = p
		}
		return
	}
	if !x.before(&t.heap[0]) {
		return
	}
	t.heap[0] = x
	for i := 0; ; {
		l, r, last := 2*i+1, 2*i+2, i
		if l < len(t.heap) && t.heap[last].before(&t.heap[l]) {
			last = l
		}
		if r < len(t.heap) && t.heap[last].before(&t.heap[r]) {
			last = r
		}
		if last == i {
			return
		}
		t.heap[i], t.heap[last] = t.heap[last], t.heap[i]
		i = last
	}
}

// sorted is the candidates kept, first first.
func (t *entryTop) sorted() []entryCand {
	slices.SortFunc(t.heap, func(a, b entryCand) int {
		if a.before(&b) {
			return -1
		}
		if b.before(&a) {
			return 1
		}
		return 0
	})
	return t.heap
}
