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

// selectingCache is a loadCache over a snapshot that can list the entries of
// some projects (memories.EntrySelector), which recall uses when it can.
type selectingCache struct {
	*loadCache
	sel memories.EntrySelector
	// last is the listing EntriesWhere made last, to answer again.
	last *listing
}

// listing is one EntriesWhere of the snapshot under a selectingCache: what
// its keep was asked, what it answered and the entries it gave.
type listing struct {
	asked   []keepArgs
	answers []bool
	entries []memories.Entry
}

type keepArgs struct{ project, area, name string }

// EntriesWhere answers a listing again without the snapshot when keep gives
// every question the last listing's keep was asked the same answer: the
// playbook's two recalls without a query (conventions, then decisions) list
// the same projects, and each listing splits the metadata of every note in
// the catalog. The snapshot's listing depends on nothing but those answers,
// so the entries are the same. The entries are shared: callers only read
// them, as they do the catalog's own.
func (c *selectingCache) EntriesWhere(keep func(project, area, name string) bool) ([]memories.Entry, error) {
	if l := c.last; l != nil && l.same(keep) {
		return l.entries, nil
	}
	l := &listing{}
	es, err := c.sel.EntriesWhere(func(project, area, name string) bool {
		ok := keep(project, area, name)
		l.asked = append(l.asked, keepArgs{project, area, name})
		l.answers = append(l.answers, ok)
		return ok
	})
	if err != nil {
		c.last = nil
		return nil, err
	}
	l.entries, c.last = es, l
	return es, nil
}

// same reports whether keep answers every question of the listing as it was
// answered.
func (l *listing) same(keep func(project, area, name string) bool) bool {
	for i, a := range l.asked {
		if keep(a.project, a.area, a.name) != l.answers[i] {
			return false
		}
	}
	return true
}

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
