package index

import (
	"cmp"
	"container/heap"
	"context"
	"slices"
	"strings"

	bsearch "github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/collector"
	bindex "github.com/blevesearch/bleve_index_api"
)

// withTiesByID makes a search sorted by score alone keep, of the hits that
// score the same at its cut (the size-th best score), those of least id.
// Bleve keeps the ones it met first, which is the documents' order in the
// segments: how a rebuild's batches and merges fell, or when each note was
// saved. With it which notes make a recall's candidates is a function of
// the notes' scores, which are a function of the notes (BM25's statistics
// are the live documents', see fieldLengths). Ids are read
// only for the hits tied at the cut, and only when the search meets more
// of them than it keeps; a sort of "-_score", "_id" reads the id of every
// match.
func withTiesByID(ctx context.Context, size int) context.Context {
	if size <= 0 {
		return ctx
	}
	return context.WithValue(ctx, bsearch.MakeDocumentMatchHandlerKey, bsearch.MakeDocumentMatchHandler(
		func(sctx *bsearch.SearchContext) (bsearch.DocumentMatchHandler, bool, error) {
			next, loadID, err := collector.MakeTopNDocumentMatchHandler(sctx)
			if err != nil {
				return nil, false, err
			}
			c := &tieCut{size: size, reader: sctx.IndexReader, pool: sctx.DocumentMatchPool, next: next,
				kept: make(lowFirst, 0, size)}
			return c.add, loadID, nil
		}))
}

// tieCut is a search's handler of hits under withTiesByID: it keeps the
// size best by score, and every hit left out that scores as the least of
// those, and hands the collector the size best by score and then id.
type tieCut struct {
	size   int
	reader bindex.IndexReader
	pool   *bsearch.DocumentMatchPool
	next   bsearch.DocumentMatchHandler
	// kept is a heap of the best hits so far, least score first.
	kept lowFirst
	// tied are hits left out that score the least of kept's, when it is
	// full: one of them may yet be kept in place of a kept hit of a
	// greater id.
	tied []*bsearch.DocumentMatch
}

// add takes one hit; nil says the search is done.
func (c *tieCut) add(d *bsearch.DocumentMatch) error {
	if d == nil {
		return c.finish()
	}
	if len(c.kept) < c.size {
		heap.Push(&c.kept, d)
		return nil
	}
	low := c.kept[0]
	switch scoreOrder(d, low) {
	case -1:
		c.pool.Put(d)
	case 0:
		c.tie(d)
	default:
		c.kept[0] = d
		heap.Fix(&c.kept, 0)
		c.tie(low)
	}
	return nil
}

// tie keeps d, left out of kept, when it scores as the least of kept; the
// hits tied before it are let go when kept's least has risen above theirs.
func (c *tieCut) tie(d *bsearch.DocumentMatch) {
	least := c.kept[0]
	if len(c.tied) > 0 && scoreOrder(c.tied[0], least) != 0 {
		for _, t := range c.tied {
			c.pool.Put(t)
		}
		c.tied = c.tied[:0]
	}
	if scoreOrder(d, least) != 0 {
		c.pool.Put(d)
		return
	}
	c.tied = append(c.tied, d)
}

// finish hands the collector the hits kept, the tied ones settled by id.
func (c *tieCut) finish() error {
	out := []*bsearch.DocumentMatch(c.kept)
	if len(c.tied) > 0 {
		least := c.kept[0]
		var ties []*bsearch.DocumentMatch
		out = out[:0] // filtered in place: each is written where one was read
		for _, d := range c.kept {
			if scoreOrder(d, least) == 0 {
				ties = append(ties, d)
			} else {
				out = append(out, d)
			}
		}
		ties = append(ties, c.tied...)
		for _, d := range ties {
			if d.ID != "" {
				continue
			}
			id, err := c.reader.ExternalID(d.IndexInternalID)
			if err != nil {
				return err
			}
			d.ID = id
		}
		slices.SortFunc(ties, func(a, b *bsearch.DocumentMatch) int { return strings.Compare(a.ID, b.ID) })
		n := c.size - len(out)
		out = append(out, ties[:n]...)
		for _, d := range ties[n:] {
			c.pool.Put(d)
		}
		c.tied = nil
	}
	for _, d := range out {
		if err := c.next(d); err != nil {
			return err
		}
	}
	c.kept = nil
	return c.next(nil)
}

// scoreOrder compares two hits' scores. A search without text scores
// every hit NaN (its filters' weights are 0, and so is the norm they are
// divided by): NaN is equal to NaN and below any other score.
func scoreOrder(a, b *bsearch.DocumentMatch) int { return cmp.Compare(a.Score, b.Score) }

// lowFirst is a heap of hits, least score first (of equal scores, the one
// met last).
type lowFirst []*bsearch.DocumentMatch

func (h lowFirst) Len() int { return len(h) }
func (h lowFirst) Less(i, j int) bool {
	if c := scoreOrder(h[i], h[j]); c != 0 {
		return c < 0
	}
	return h[i].HitNumber > h[j].HitNumber
}
func (h lowFirst) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *lowFirst) Push(x any)   { *h = append(*h, x.(*bsearch.DocumentMatch)) }
func (h *lowFirst) Pop() any {
	old := *h
	d := old[len(old)-1]
	*h = old[:len(old)-1]
	return d
}
