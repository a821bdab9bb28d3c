package briefing

import (
	"context"

	"github.com/cortexmem/cortex/memories"
)

// loadCache is a snapshot that reads each note once: a briefing's recalls
// often find the same notes (a decision the query finds is a standing one
// too, a related note is linked from several), and parsing a note's
// frontmatter is most of what loading it costs.
type loadCache struct {
	memories.Snapshot
	loaded map[string]*memories.Memory
}

// PeekByIDs is the snapshot's (memories.PeekByIDs): a loadCache caches the
// notes it loads, not their entries.
func (c *loadCache) PeekByIDs(ids []string, fn func(id string, e *memories.Entry) bool) error {
	return memories.PeekByIDs(c.Snapshot, ids, fn)
}

// selectingCache is a loadCache over a snapshot that can list the entries of
// some projects (memories.EntrySelector), which recall uses when it can.
type selectingCache struct {
	*loadCache
	sel memories.EntrySelector
	// last is the listing EntriesWhere made last, to answer again.
	last *listing
}

// listing is one EntriesWhere of the snapshot under a selectingCache: the
// answers its keep gave, in the order it was asked, and the entries.
type listing struct {
	answers []uint64 // bit i: the answer to the i-th question
	n       int
	entries []memories.Entry
}

// EntriesWhere answers a listing again when keep gives every question the
// last listing's keep was asked the same answer: the playbook's two recalls
// without a query (conventions, then decisions) list the same projects, and
// a listing decodes the entries of thousands of notes. The check asks the
// snapshot's questions again, in its order (a listing asks keep about every
// note, whatever it answers: memories.EntrySelector), saying no to each, so
// that nothing is decoded; the snapshot's listing depends on nothing but
// keep's answers, so the entries are the same. They are shared: callers
// only read them, as they do the catalog's own.
func (c *selectingCache) EntriesWhere(keep func(project, area, name string) bool) ([]memories.Entry, error) {
	if l := c.last; l != nil {
		i, same := 0, true
		_, err := c.sel.EntriesWhere(func(project, area, name string) bool {
			if same && (i == l.n || keep(project, area, name) != l.answer(i)) {
				same = false
			}
			i++
			return false
		})
		if err != nil {
			c.last = nil
			return nil, err
		}
		if same && i == l.n {
			return l.entries, nil
		}
	}
	l := &listing{}
	es, err := c.sel.EntriesWhere(func(project, area, name string) bool {
		ok := keep(project, area, name)
		if l.n%64 == 0 {
			l.answers = append(l.answers, 0)
		}
		if ok {
			l.answers[l.n/64] |= 1 << (l.n % 64)
		}
		l.n++
		return ok
	})
	if err != nil {
		c.last = nil
		return nil, err
	}
	l.entries, c.last = es, l
	return es, nil
}

// SearchEntriesWhere answers through the snapshot's own EntrySearcher when
// it is one: that decodes only the entries the searches keep (the
// playbook's conventions and decisions, a few dozen of a project's
// thousands), where a listing decodes every entry keep accepts. Else the
// searches are made over the listing, which EntriesWhere keeps.
func (c *selectingCache) SearchEntriesWhere(keep func(project, area, name string) bool, reqs []memories.SearchRequest) ([][]memories.Hit, error) {
	if s, ok := c.sel.(memories.EntrySearcher); ok {
		return s.SearchEntriesWhere(keep, reqs)
	}
	es, err := c.EntriesWhere(keep)
	if err != nil {
		return nil, err
	}
	return memories.SearchEntriesEach(es, reqs)
}

func (l *listing) answer(i int) bool { return l.answers[i/64]&(1<<(i%64)) != 0 }

// entryNamer is a snapshot that can list the entries of notes by file name
// without decoding the others (the store's).
type entryNamer interface {
	EntriesNamed(keep func(name string) bool) ([]memories.Entry, error)
}

// entriesNamed lists snap's entries whose file name keep accepts: through
// the snapshot under a loadCache when it is an entryNamer, else as
// memories.EntriesWhere does.
func entriesNamed(snap memories.Snapshot, keep func(name string) bool) ([]memories.Entry, error) {
	inner := snap
	switch c := snap.(type) {
	case *loadCache:
		inner = c.Snapshot
	case *selectingCache:
		inner = c.Snapshot
	}
	if n, ok := inner.(entryNamer); ok {
		return n.EntriesNamed(keep)
	}
	return memories.EntriesWhere(snap, func(_, _, name string) bool { return keep(name) })
}

// withLoadCache wraps snap so that each note is read from the vault once,
// keeping what else snap can do.
func withLoadCache(snap memories.Snapshot) memories.Snapshot {
	c := &loadCache{Snapshot: snap, loaded: map[string]*memories.Memory{}}
	if sel, ok := snap.(memories.EntrySelector); ok {
		return &selectingCache{loadCache: c, sel: sel}
	}
	return c
}

// Load returns a copy of the note as first read: callers set fields of what
// they get (the id the index knows it by).
func (c *loadCache) Load(ctx context.Context, path string) (*memories.Memory, error) {
	m, ok := c.loaded[path]
	if !ok {
		var err error
		if m, err = c.Snapshot.Load(ctx, path); err != nil {
			return nil, err
		}
		c.loaded[path] = m
	}
	cp := *m
	return &cp, nil
}
