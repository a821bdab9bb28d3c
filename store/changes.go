package store

import (
	"maps"
	"slices"
	"sort"

	"github.com/cortexmem/cortex/index"
	"github.com/cortexmem/cortex/memories"
	"github.com/cortexmem/cortex/vault"
)

// changeSet collects new states of notes against a catalog and works out what
// Bleve and the catalog must do.
type changeSet struct {
	cat  *index.Catalog
	recs map[string]*index.Record    // path → new record; nil removes the note
	mems map[string]*memories.Memory // path → memory to index
}

func newChangeSet(cat *index.Catalog) *changeSet {
	return &changeSet{cat: cat, recs: map[string]*index.Record{}, mems: map[string]*memories.Memory{}}
}

// put records the new state of a note; m is nil when the note cannot be read.
func (c *changeSet) put(r *index.Record, m *memories.Memory) {
	c.recs[r.Path] = r
	if m != nil {
		c.mems[r.Path] = m
	} else {
		delete(c.mems, r.Path)
	}
}

// remove records that a note is gone.
func (c *changeSet) remove(path string) {
	c.recs[path] = nil
	delete(c.mems, path)
}

// settleIDs gives every note touched by the change its effective id. A note's
// own id is its id unless another note holds it too (a copied file): then the
// note that held it first keeps it — or, among newcomers, the oldest file — and
// the others use ids derived from their paths until someone edits them apart.
// Unchanged notes whose id changes hands are re-read through reread.
func (c *changeSet) settleIDs(reread func(vault.FileStat) (*index.Record, *memories.Memory, error)) error {
	touched := map[string]bool{}
	for p, r := range c.recs {
		old, err := c.cat.Get(p)
		if err != nil {
			return err
		}
		if old != nil && old.FID != "" {
			touched[old.FID] = true
		}
		if r != nil && r.FID != "" && r.Broken == "" {
			touched[r.FID] = true
		}
	}
	if len(touched) == 0 {
		return nil
	}
	holders := map[string][]*index.Record{}
	olds := map[string]*index.Record{} // the catalog's record of each holder's path
	for fid := range touched {
		hs, err := c.cat.Holders(fid)
		if err != nil {
			return err
		}
		for _, r := range hs {
			olds[r.Path] = r
			if _, changed := c.recs[r.Path]; !changed {
				holders[fid] = append(holders[fid], r)
			}
		}
	}
	for _, p := range slices.Sorted(maps.Keys(c.recs)) {
		if r := c.recs[p]; r != nil && r.Broken == "" && touched[r.FID] {
			if _, ok := olds[p]; !ok {
				old, err := c.cat.Get(p)
				if err != nil {
					return err
				}
				olds[p] = old
			}
			holders[r.FID] = append(holders[r.FID], r)
		}
	}
	for _, fid := range slices.Sorted(maps.Keys(holders)) {
		hs := holders[fid]
		owner := owner(fid, hs, olds)
		for _, h := range hs {
			want := fid
			if h != owner {
				want = memories.DerivedID(h.Path)
			}
			if _, changed := c.recs[h.Path]; changed {
				h.ID = want
				c.mems[h.Path].ID = want
				continue
			}
			if h.ID == want {
				continue
			}
			r, m, err := reread(vault.FileStat{Path: h.Path})
			if err != nil {
				return err
			}
			if m != nil {
				r.ID, m.ID = want, want
			}
			c.put(r, m)
		}
	}
	return nil
}

// owner picks which holder of fid keeps it: the one that already has it, else the
// oldest file (then the first path).
func owner(fid string, hs []*index.Record, olds map[string]*index.Record) *index.Record {
	for _, h := range hs {
		if old := olds[h.Path]; old != nil && old.ID == fid && old.FID == fid {
			return h
		}
	}
	best := hs[0]
	for _, h := range hs[1:] {
		if h.MTime < best.MTime || h.MTime == best.MTime && h.Path < best.Path {
			best = h
		}
	}
	return best
}

// result lists the Bleve operations (deletes first, so a re-used id is not
// deleted after it is indexed) and the catalog changes.
func (c *changeSet) result() ([]index.Doc, map[string]*index.Record, error) {
	paths := slices.Sorted(maps.Keys(c.recs))
	indexed := map[string]bool{}
	var adds []index.Doc
	for _, p := range paths {
		if r := c.recs[p]; r != nil && r.Broken == "" {
			indexed[r.ID] = true
			adds = append(adds, index.Doc{ID: r.ID, Memory: c.mems[p]})
		}
	}
	var docs []index.Doc
	for _, p := range paths {
		old, err := c.cat.Get(p)
		if err != nil {
			return nil, nil, err
		}
		if old == nil || old.Broken != "" || indexed[old.ID] {
			continue
		}
		if r := c.recs[p]; r == nil || r.Broken != "" || r.ID != old.ID {
			docs = append(docs, index.Doc{ID: old.ID, Deleted: true})
		}
	}
	sort.Slice(docs, func(i, j int) bool { return docs[i].ID < docs[j].ID })
	return append(docs, adds...), c.recs, nil
}
