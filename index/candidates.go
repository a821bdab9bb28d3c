package index

import (
	"context"
	"errors"
	"sort"

	"github.com/blevesearch/bleve/v2/mapping"
	bsearch "github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/query"
	bindex "github.com/blevesearch/bleve_index_api"
)

// candidatesQuery matches the documents its query matches, found without
// scoring, and scores nothing. Made one of the parts of the scored
// conjunction of the same clauses it changes no score and no order, only
// the work: a scored conjunction visits, scores and drops every posting of
// every term on its way to the documents that hold all of them (at 100,000
// notes, three common words hold 60,000 postings for 1,500 documents),
// while the unscored search intersects the terms' document bitmaps, and the
// conjunction, which puts its smallest part first, then steps from one of
// those documents to the next. It must be a part of the terms' own
// conjunction, not of one around it: after each match a conjunction steps
// every part on, and the terms' conjunction would walk to its next match
// alone. Its score and weight are 0, so the sum of the parts' scores (in
// the order the conjunction sorts them, which keeps the others' order: see
// maxPrefiltered) and the query norm are what they were.
type candidatesQuery struct {
	q query.Query
	// atLeast, when above 0, is how many documents the query must match:
	// with fewer its searcher fails with errTooFew (pruning's first pass,
	// which cannot answer with fewer than a page of candidates, ends there
	// before it scores any).
	atLeast int
}

// errTooFew is a candidatesQuery's failure when it matches fewer documents
// than it was asked for.
var errTooFew = errors.New("fewer candidates than asked for")

var _ query.Query = (*candidatesQuery)(nil)

// Searcher runs the unscored search on the reader the scored search uses,
// so that both see the same snapshot of the index.
func (c *candidatesQuery) Searcher(ctx context.Context, r bindex.IndexReader, m mapping.IndexMapping, _ bsearch.SearcherOptions) (bsearch.Searcher, error) {
	s, err := c.q.Searcher(ctx, r, m, bsearch.SearcherOptions{Score: "none"})
	if err != nil {
		return nil, err
	}
	sctx := &bsearch.SearchContext{DocumentMatchPool: bsearch.NewDocumentMatchPool(s.DocumentMatchPoolSize(), 0)}
	// The count of an intersection Bleve has made is its size (of another
	// searcher, a bound): room for that many ids, up to a few thousand.
	n := min(s.Count(), 4096)
	ids := &idSearcher{buf: make([]byte, 0, 8*n), ends: make([]int, 0, n)}
	for {
		d, err := s.Next(sctx)
		if err != nil {
			_ = s.Close()
			return nil, err
		}
		if d == nil {
			break
		}
		ids.buf = append(ids.buf, d.IndexInternalID...)
		ids.ends = append(ids.ends, len(ids.buf))
		sctx.DocumentMatchPool.Put(d)
		if len(ids.ends)%4096 == 0 && ctx.Err() != nil {
			_ = s.Close()
			return nil, ctx.Err()
		}
	}
	if err := s.Close(); err != nil {
		return nil, err
	}
	if len(ids.ends) < c.atLeast {
		return nil, errTooFew
	}
	return ids, nil
}

// idSearcher matches a sorted list of documents, each with score 0 and
// weight 0, so that it adds nothing to a conjunction's score or norm. The
// ids are kept end to end in one buffer: thousands of small ones would
// each be an allocation.
type idSearcher struct {
	buf  []byte
	ends []int
	next int
}

var _ bsearch.Searcher = (*idSearcher)(nil)

func (s *idSearcher) id(i int) bindex.IndexInternalID {
	start := 0
	if i > 0 {
		start = s.ends[i-1]
	}
	return s.buf[start:s.ends[i]]
}

func (s *idSearcher) Next(ctx *bsearch.SearchContext) (*bsearch.DocumentMatch, error) {
	if s.next >= len(s.ends) {
		return nil, nil
	}
	d := ctx.DocumentMatchPool.Get()
	d.IndexInternalID = append(d.IndexInternalID[:0], s.id(s.next)...)
	d.Score = 0
	s.next++
	return d, nil
}

func (s *idSearcher) Advance(ctx *bsearch.SearchContext, id bindex.IndexInternalID) (*bsearch.DocumentMatch, error) {
	s.next += sort.Search(len(s.ends)-s.next, func(i int) bool { return s.id(s.next+i).Compare(id) >= 0 })
	return s.Next(ctx)
}

func (s *idSearcher) Close() error               { return nil }
func (s *idSearcher) Weight() float64            { return 0 }
func (s *idSearcher) SetQueryNorm(float64)       {}
func (s *idSearcher) Count() uint64              { return uint64(len(s.ends)) }
func (s *idSearcher) Min() int                   { return 0 }
func (s *idSearcher) Size() int                  { return 64 + len(s.buf) + 8*len(s.ends) }
func (s *idSearcher) DocumentMatchPoolSize() int { return 1 }

// maxPrefiltered bounds the terms of a search given a candidatesQuery: the
// conjunction sorts its parts by size with sort.Sort, which keeps equal
// parts in their order (an insertion sort) only up to 12 of them, and the
// order of the parts is the order their scores are added in.
const maxPrefiltered = 12
