package store

import (
	"path"
	"slices"

	"github.com/cortexmem/cortex/index"
	"github.com/cortexmem/cortex/vault"
)

// followedDir is a writer's vault.ScanOptions.Unchanged: folder rel holds
// the notes known, as this process's watch of it proves (see dirWatch).
func (s *Store) followedDir(rel string, known func(name string) bool) bool {
	return s.dirs != nil && s.dirs.unchanged(s.vstate.Dir, s.v.Abs(rel), known)
}

// followWritten follows the folders a writer wrote notes into, once its
// commit is done: the next writer's scan then need not list them again
// (see dirWatch). It holds the write lock; cat is its catalog, committed.
func (s *Store) followWritten(cat *index.Catalog, recs map[string]*index.Record) {
	if s.dirs == nil || len(recs) == 0 {
		return
	}
	var dirs []string
	for p, r := range recs {
		if r == nil {
			continue
		}
		if d := path.Dir(p); !slices.Contains(dirs, d) {
			dirs = append(dirs, d)
		}
	}
	var known map[string]bool
	knownDir := func(p string) bool {
		if known == nil {
			known = map[string]bool{}
			for _, d := range cat.Dirs() {
				known[d.Path] = true
			}
		}
		return known[p]
	}
	for _, d := range dirs {
		rel := d
		if rel == "." {
			rel = ""
		}
		s.dirs.follow(s.vstate.Dir, s.v.Abs(rel), rel == "", func() []vault.KnownFile { return cat.Files(rel) }, func(name string) bool {
			if rel == "" && (name == vault.IndexDir || name == "playbooks") {
				return true // never looked into by a scan
			}
			return knownDir(path.Join(rel, name))
		})
	}
}
