package store

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/cortexmem/cortex/index"
	"github.com/cortexmem/cortex/vault"
)

// mapOwedFile, in the vault's state folder, says that the map of contents
// lacks changes the catalog holds: a resident store's save leaves its line
// in the map to the next writer that catches the full-text index up (the
// server's background catch-up, 50 ms later), as it leaves its index work.
// It is made before the catalog takes the save, and removed once the map
// is written, so a process killed in between leaves it for the next
// command: that one renders the whole map again (settleMap).
const mapOwedFile = "map-owed"

// mapOwed is the path of the file that says the map is owed changes.
func (s *Store) mapOwed() string { return filepath.Join(s.vstate.Dir, mapOwedFile) }

// owedMap is what a resident store's own saves left out of the map: the
// paths of the new notes, whose lines are spliced in by settleMap while
// the file mapOwed still holds this store's token (no other process has
// written the map since).
type owedMap struct {
	token []byte
	paths map[string]bool
}

// deferMap is finish's choice for a save whose index work is deferred
// (lazy) in a resident store: it records the save's new notes (recs, none
// of which cat, the catalog before the save, holds) as owed to the map and
// reports true, or reports false when the map must be written now — another
// process owes it changes, or recs are not only new readable notes. The
// caller holds the write lock, and calls it before the catalog takes recs.
func (s *Store) deferMap(cat *index.Catalog, recs map[string]*index.Record) (bool, error) {
	if s.res == nil || len(recs) == 0 || !s.hasFolder() {
		return false, nil
	}
	for p, r := range recs {
		if r == nil || r.Broken != "" {
			return false, nil
		}
		if old, err := cat.Get(p); err != nil || old != nil {
			return false, err
		}
	}
	data, err := os.ReadFile(s.mapOwed())
	switch {
	case err == nil && s.owedMap.token != nil && bytes.Equal(data, s.owedMap.token):
		// This store's own lines are owed already: one more.
	case err == nil:
		return false, nil // another's: the map is rendered again now
	case !errors.Is(err, fs.ErrNotExist):
		return false, err
	default:
		token := fmt.Appendf(nil, "%d %d\n", os.Getpid(), time.Now().UnixNano())
		// Not flushed: the file only has to outlive this process (a
		// killed server), as the catalog's unflushed append of the save
		// does.
		if err := os.WriteFile(s.mapOwed(), token, 0o600); err != nil {
			return false, err
		}
		s.owedMap = owedMap{token: token, paths: map[string]bool{}}
	}
	for p := range recs {
		s.owedMap.paths[p] = true
	}
	return true, nil
}

// settleMap writes the changes the map of contents is owed (see
// mapOwedFile) as cat, the catalog, holds them: the lines of this store's
// saves are spliced in, and a map another process left owed is rendered
// again from every entry. It does nothing when nothing is owed. The caller
// holds the write lock.
func (s *Store) settleMap(cat *index.Catalog) error {
	data, err := os.ReadFile(s.mapOwed())
	if errors.Is(err, fs.ErrNotExist) {
		s.owedMap = owedMap{}
		return nil
	}
	if err != nil {
		return err
	}
	own := s.owedMap.token != nil && bytes.Equal(data, s.owedMap.token)
	if own && len(s.owedMap.paths) > 0 {
		// The catalog before the saves is cat without their notes.
		before := cat.Clone()
		gone := make(map[string]*index.Record, len(s.owedMap.paths))
		recs := make(map[string]*index.Record, len(s.owedMap.paths))
		for _, p := range slices.Sorted(maps.Keys(s.owedMap.paths)) {
			r, err := cat.Get(p)
			if err != nil {
				return err
			}
			gone[p], recs[p] = nil, r
		}
		before.Put(gone)
		err = s.spliceMap(before, recs)
	} else if s.hasFolder() {
		var files []vault.MapFile
		if files, _, err = s.renderMap(cat); err == nil {
			err = s.writeIndexFile(files)
		}
	}
	if err != nil {
		return err
	}
	s.owedMap = owedMap{}
	if err := os.Remove(s.mapOwed()); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}
