package store

import (
	"sync"

	"github.com/cortexmem/cortex/index"
)

// keptCatalog is the catalog a store's last read loaded, with the stamp of
// its files when it was loaded. A command makes several reads of the store
// (a briefing makes five), and loading the catalog again for each — its
// tables read and its journal replayed — was a good part of their cost.
// The next read reuses it when the live generation and the catalog's files
// are still as they were: any write, by this process or another, appends to
// the journal or replaces the base (or publishes a new generation), which
// changes the stamp, so a read still sees every write made before it.
type keptCatalog struct {
	mu    sync.Mutex
	gen   string
	stamp index.Stamp
	cat   *index.Catalog
}

// readCatalog returns the live generation's catalog, the kept one when its
// files are unchanged, else one loaded afresh; the caller owns it and gives it
// back with keepCatalog or closes it. A read running meanwhile loads its own.
func (s *Store) readCatalog() (string, *index.Catalog, index.Stamp, error) {
	s.kept.mu.Lock()
	gen, stamp, cat := s.kept.gen, s.kept.stamp, s.kept.cat
	s.kept.gen, s.kept.stamp, s.kept.cat = "", index.Stamp{}, nil
	s.kept.mu.Unlock()
	if cat != nil {
		cur, err := s.idx.Current()
		if err == nil && cur == gen {
			if now, err := index.CatalogStamp(gen); err == nil && now.Equal(stamp) {
				return gen, cat, stamp, nil
			}
		}
		_ = cat.Close()
	}
	gen, err := s.idx.Current()
	if err != nil {
		return "", nil, index.Stamp{}, err
	}
	// Stamped before and after the load: a catalog a writer changed
	// meanwhile is used once and not kept (a zero stamp equals none).
	before, berr := index.CatalogStamp(gen)
	g, cat, err := s.load()
	if err != nil {
		return "", nil, index.Stamp{}, err
	}
	after, aerr := index.CatalogStamp(g)
	if berr != nil || aerr != nil || g != gen || !after.Equal(before) {
		return g, cat, index.Stamp{}, nil
	}
	return g, cat, after, nil
}

// keepCatalog keeps a catalog readCatalog returned for the next read, closing
// the one it replaces. A resident store keeps its own (see resident).
func (s *Store) keepCatalog(gen string, stamp index.Stamp, cat *index.Catalog) {
	if s.res != nil || !stamp.Equal(stamp) { // a zero stamp equals none
		_ = cat.Close()
		return
	}
	s.kept.mu.Lock()
	old := s.kept.cat
	s.kept.gen, s.kept.stamp, s.kept.cat = gen, stamp, cat
	s.kept.mu.Unlock()
	if old != nil {
		_ = old.Close()
	}
}
