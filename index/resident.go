package index

import (
	"sync"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/index/scorch"
)

// openIndexes are the indexes this process has open, for DropResident.
var openIndexes struct {
	sync.Mutex
	set map[*Bleve]struct{}
}

func opened(b *Bleve) {
	openIndexes.Lock()
	defer openIndexes.Unlock()
	if openIndexes.set == nil {
		openIndexes.set = map[*Bleve]struct{}{}
	}
	openIndexes.set[b] = struct{}{}
}

// closing marks b closed before its Close begins: a DropResident under way
// ends first, and none after touches it.
func closing(b *Bleve) {
	b.life.Lock()
	b.closed = true
	b.life.Unlock()
	openIndexes.Lock()
	delete(openIndexes.set, b)
	openIndexes.Unlock()
}

// DropResident takes the pages of the segment files of every index this
// process has open out of its resident memory (zap's
// Segment.DropResident). A search maps the parts of the files it reads, a
// large page at a time, and a long-lived process's open index kept all it
// had read. The pages stay in the page cache, and the next read maps what
// it reads again from there. It takes no lock a search holds, so it may
// run beside one, which then maps again what it reads next; it waits for
// an index being opened or closed.
func DropResident() {
	openIndexes.Lock()
	bs := make([]*Bleve, 0, len(openIndexes.set))
	for b := range openIndexes.set {
		bs = append(bs, b)
	}
	openIndexes.Unlock()
	for _, b := range bs {
		b.DropResident()
	}
}

// DropResident is DropResident of b's segments alone; nothing once b is
// closed.
func (b *Bleve) DropResident() {
	b.life.RLock()
	defer b.life.RUnlock()
	if !b.closed {
		dropResident(b.idx)
	}
}

// dropResident is DropResident of the segments of idx's current snapshot,
// which holds them open while their pages are dropped.
func dropResident(idx bleve.Index) {
	adv, err := idx.Advanced()
	if err != nil {
		return
	}
	s, ok := adv.(*scorch.Scorch)
	if !ok {
		return
	}
	r, err := s.Reader()
	if err != nil {
		return
	}
	snap, ok := r.(*scorch.IndexSnapshot)
	if !ok {
		_ = r.Close()
		return
	}
	if snap == nil {
		// A closed index has no snapshot (one closed by its bleve.Index,
		// not by Close, is still among the open ones).
		return
	}
	defer snap.Close()
	for _, seg := range snap.Segments() {
		if d, ok := seg.Segment().(interface{ DropResident() }); ok {
			d.DropResident()
		}
	}
}
