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
	if gen, stamp, cat := s.takeKept(); cat != nil {
		return gen, cat, stamp, nil
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
// the one it replaces. A resident store keeps it as its resident's (see
// resident).
func (s *Store) keepCatalog(gen string, stamp index.Stamp, cat *index.Catalog) {
	if !stamp.Equal(stamp) { // a zero stamp equals none
		_ = cat.Close()
		return
	}
	if r := s.res; r != nil {
		r.mu.Lock()
		defer r.mu.Unlock()
		if r.cat != nil && r.cat != cat {
			_ = r.cat.Close()
		}
		if r.gen != gen {
			r.closeIndexLocked() // an index of another generation
		}
		r.gen, r.stamp, r.cat = gen, stamp, cat
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

// writerCatalog is load for a writer, which holds the write lock: the
// catalog this process's last read or write kept (the resident's, for a
// resident store), taken from where it was kept, when the live generation
// and the catalog's files are as they were then; else one loaded afresh. A
// save in the MCP server, or saves in a row in one process, then load the
// catalog once, not once each (at 100,000 notes a load is several
// milliseconds).
func (s *Store) writerCatalog() (string, *index.Catalog, error) {
	if gen, _, cat := s.takeKept(); cat != nil {
		return gen, cat, nil
	}
	return s.load()
}

// takeKept takes the kept catalog (see readCatalog and writerCatalog) when
// it is still the live one; nil when there is none or it is out of date.
func (s *Store) takeKept() (string, index.Stamp, *index.Catalog) {
	var gen string
	var stamp index.Stamp
	var cat *index.Catalog
	if r := s.res; r != nil {
		r.mu.Lock()
		gen, stamp, cat = r.gen, r.stamp, r.cat
		// The resident's open index stays: it is of the same generation,
		// and the resident takes the catalog back after the write.
		r.cat = nil
		r.mu.Unlock()
	} else {
		s.kept.mu.Lock()
		gen, stamp, cat = s.kept.gen, s.kept.stamp, s.kept.cat
		s.kept.gen, s.kept.stamp, s.kept.cat = "", index.Stamp{}, nil
		s.kept.mu.Unlock()
	}
	if cat == nil {
		return "", index.Stamp{}, nil
	}
	if cur, err := s.idx.Current(); err == nil && cur == gen {
		if now, err := index.CatalogStamp(gen); err == nil && now.Equal(stamp) {
			return gen, stamp, cat
		}
	}
	_ = cat.Close()
	return "", index.Stamp{}, nil
}

// keepWritten keeps a writer's catalog for the reads and writes that follow
// (see writerCatalog and readCatalog), stamped with the files it wrote, or
// closes it when the write failed (*err) or the catalog is no longer the
// live one. The caller still holds the write lock, so no other writer has
// changed the files since its own last append: the stamp is of exactly
// what the catalog holds.
func (s *Store) keepWritten(st *writeState, err *error) {
	if *err != nil {
		closeCatalog(st.cat, err)
		return
	}
	cur, cerr := s.idx.Current()
	stamp, serr := index.CatalogStamp(st.gen)
	if cerr != nil || serr != nil || cur != st.gen {
		closeCatalog(st.cat, err)
		return
	}
	s.keepCatalog(st.gen, stamp, st.cat)
}
