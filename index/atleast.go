package index

import (
	"context"
	"encoding/binary"
	"errors"
	"slices"

	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/mapping"
	bsearch "github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/query"
	bindex "github.com/blevesearch/bleve_index_api"
	segment "github.com/blevesearch/scorch_segment_api/v2"
)

// fieldTerm is a term of a field, as the index holds it.
type fieldTerm struct {
	field, term string
}

// atLeastQuery matches the documents that have a term of at least n of its
// words (a word is one or more terms) or a term of also, and none of the
// terms of except, and
// scores nothing (its searcher is an idSearcher: score 0, weight 0, see
// candidatesQuery). It counts each document's words from the segments'
// postings bitmaps, read in bulk, with no posting decoded and none scored: a
// disjunction of the words' terms with Bleve's minimum would walk every
// posting through a term searcher, and the words of a question are in most
// of the index.
type atLeastQuery struct {
	words  [][]fieldTerm
	n      int
	also   []fieldTerm
	except []fieldTerm
}

var _ query.Query = (*atLeastQuery)(nil)

// errNoBitmaps is an atLeastQuery's failure on an index whose postings are
// not bitmaps (not a scorch snapshot of zap segments); the caller searches
// without it.
var errNoBitmaps = errors.New("the index's postings are not bitmaps")

// errNoneLeft is an atLeastQuery's failure when it matches no document: the
// search ends before it makes the searchers of its other parts.
var errNoneLeft = errors.New("no document to score")

// Searcher lists the documents of the reader the search uses, so that both
// see the same snapshot of the index.
func (q *atLeastQuery) Searcher(ctx context.Context, r bindex.IndexReader, _ mapping.IndexMapping, _ bsearch.SearcherOptions) (bsearch.Searcher, error) {
	snap, ok := r.(*scorch.IndexSnapshot)
	if !ok || q.n < 1 || len(q.words) >= excluded {
		return nil, errNoBitmaps
	}
	if q.n > len(q.words) && len(q.also) == 0 {
		return nil, errNoneLeft // no document has more words than there are
	}
	ids := &idSearcher{}
	var counts []uint8
	var docs []uint32
	buf := make([]uint32, 512)
	var base uint64 // the first internal id of the segment, as scorch numbers them
	for _, ss := range snap.Segments() {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		size := int(ss.Segment().Count())
		if cap(counts) < size {
			counts = make([]uint8, size)
		}
		counts = counts[:size]
		clear(counts)
		var err error
		if docs, err = q.segment(ss, counts, buf, docs[:0]); err != nil {
			return nil, err
		}
		for _, d := range docs {
			ids.buf = binary.BigEndian.AppendUint64(ids.buf, base+uint64(d))
			ids.ends = append(ids.ends, len(ids.buf))
		}
		base += uint64(size)
	}
	if len(ids.ends) == 0 {
		return nil, errNoneLeft
	}
	return ids, nil
}

// excluded marks, in atLeastQuery's counts, a document with a term of
// except; it bounds the words a query can count.
const excluded = 255

// segment appends to docs, in order, the segment's documents that the query
// matches, counting in counts (one per document of the segment, all 0) how
// many of the words each has.
func (q *atLeastQuery) segment(ss *scorch.SegmentSnapshot, counts []uint8, buf, docs []uint32) ([]uint32, error) {
	dicts := map[string]segment.TermDictionary{}
	// visit calls f with the term's live documents, a buffer at a time.
	visit := func(ft fieldTerm, f func([]uint32)) error {
		d, ok := dicts[ft.field]
		if !ok {
			var err error
			if d, err = ss.Segment().Dictionary(ft.field); err != nil {
				return err
			}
			dicts[ft.field] = d
		}
		pl, err := d.PostingsList([]byte(ft.term), ss.Deleted(), nil)
		if err != nil {
			return err
		}
		if pl.Count() == 0 {
			return nil
		}
		it, ok := pl.Iterator(false, false, false, nil).(segment.OptimizablePostingsIterator)
		if !ok {
			return errNoBitmaps
		}
		if n, ok := it.DocNum1Hit(); ok {
			f([]uint32{uint32(n)})
			return nil
		}
		bm := it.ActualBitmap()
		if bm == nil {
			return errNoBitmaps
		}
		many := bm.ManyIterator()
		for n := many.NextMany(buf); n > 0; n = many.NextMany(buf) {
			f(buf[:n])
		}
		return nil
	}
	for _, ft := range q.except {
		if err := visit(ft, func(ds []uint32) {
			for _, d := range ds {
				counts[d] = excluded
			}
		}); err != nil {
			return nil, err
		}
	}
	n := uint8(q.n)
	for _, w := range q.words {
		// A word's terms count once in a document: the first to find it
		// marks it seen.
		var seen map[uint32]bool
		if len(w) > 1 {
			seen = map[uint32]bool{}
		}
		for _, ft := range w {
			if err := visit(ft, func(ds []uint32) {
				for _, d := range ds {
					c := counts[d]
					if c == excluded || (seen != nil && seen[d]) {
						continue
					}
					if seen != nil {
						seen[d] = true
					}
					c++
					counts[d] = c
					if c == n {
						docs = append(docs, d)
					}
				}
			}); err != nil {
				return nil, err
			}
		}
	}
	for _, ft := range q.also {
		if err := visit(ft, func(ds []uint32) {
			for _, d := range ds {
				if c := counts[d]; c != excluded && c < n {
					counts[d] = n // listed
					docs = append(docs, d)
				}
			}
		}); err != nil {
			return nil, err
		}
	}
	slices.Sort(docs)
	return docs, nil
}
