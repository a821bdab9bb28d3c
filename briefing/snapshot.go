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
}

func (c selectingCache) EntriesWhere(keep func(project, area, name string) bool) ([]memories.Entry, error) {
	return c.sel.EntriesWhere(keep)
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
	case selectingCache:
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
		return selectingCache{loadCache: c, sel: sel}
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
