package index

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/document"
	"github.com/blevesearch/bleve/v2/index/scorch"
	bsearch "github.com/blevesearch/bleve/v2/search"
	bindex "github.com/blevesearch/bleve_index_api"
	segment "github.com/blevesearch/scorch_segment_api/v2"
)

// BM25 divides a field's length in a document by the field's average
// length. Bleve takes that average as the field's distinct terms summed over
// the index's segments, divided by the document count and rounded up: the
// same notes scored differently in one segment than in three, and a term
// that only deleted documents held still counted. cortex gives its searches
// the average itself (bsearch.BM25FieldLengthsKey, Bleve patch 0009): the
// field's length summed over the live documents, divided by their number,
// where a field's length in a document is its number of tokens, the length
// Bleve keeps in the document's postings and scores it by. Segments do not
// keep that sum, so every document says its lengths in one more field,
// fieldLengths: a term "<field>:<bit>" for each bit set in the field's
// length (a body of 37 tokens is body:0, body:2 and body:5). A term's
// document count in a segment, less the segment's deleted documents, is
// what Bleve's own postings count, so the sum is Σ 2^bit × count over the
// terms: exact integers, the same in any layout, from a dictionary of a few
// dozen terms per segment.
const fieldLengths = "lengths"

// lengthsField is the fieldLengths field of a document: its Analyze, run
// after the document's other fields are analysed (scorch analyses a
// document's fields in order, and this one is added last), reads their
// lengths.
type lengthsField struct {
	doc    *document.Document
	fields []string
	length int
	freqs  bindex.TokenFrequencies
}

var _ document.Field = (*lengthsField)(nil)

// addLengths adds to doc, after its other fields, the fieldLengths field of
// the lengths of fields in it.
func addLengths(doc *document.Document, fields []string) {
	doc.AddField(&lengthsField{doc: doc, fields: fields})
}

func (f *lengthsField) Name() string             { return fieldLengths }
func (f *lengthsField) ArrayPositions() []uint64 { return nil }
func (f *lengthsField) Options() bindex.FieldIndexingOptions {
	return bindex.IndexField
}
func (f *lengthsField) Value() []byte                                     { return nil }
func (f *lengthsField) NumPlainTextBytes() uint64                         { return 0 }
func (f *lengthsField) EncodedFieldType() byte                            { return 't' }
func (f *lengthsField) AnalyzedLength() int                               { return f.length }
func (f *lengthsField) AnalyzedTokenFrequencies() bindex.TokenFrequencies { return f.freqs }
func (f *lengthsField) Size() int                                         { return 64 + 96*len(f.freqs) }

// Analyze sums each counted field's lengths over its values (a field with
// several values, like tags, has one length in the postings: the sum) and
// makes a term of each bit set in a sum.
func (f *lengthsField) Analyze() {
	sums := make([]int, len(f.fields))
	for _, fld := range f.doc.Fields {
		for i, name := range f.fields {
			if fld.Name() == name {
				sums[i] += fld.AnalyzedLength()
			}
		}
	}
	f.freqs = bindex.TokenFrequencies{}
	for i, n := range sums {
		for bit := 0; n > 0; bit, n = bit+1, n>>1 {
			if n&1 == 0 {
				continue
			}
			term := []byte(lengthTerm(f.fields[i], bit))
			tf := &bindex.TokenFreq{Term: term}
			tf.SetFrequency(1)
			f.freqs[string(term)] = tf
		}
	}
	f.length = len(f.freqs)
}

// lengthTerm is the fieldLengths term of bit of field's length.
func lengthTerm(field string, bit int) string {
	return field + ":" + strconv.Itoa(bit)
}

// parseLengthTerm is the field and bit of a fieldLengths term.
func parseLengthTerm(term string) (string, uint, error) {
	i := strings.LastIndexByte(term, ':')
	if i < 0 {
		return "", 0, fmt.Errorf("field lengths: term %q has no ':'", term)
	}
	bit, err := strconv.ParseUint(term[i+1:], 10, 8)
	if err != nil || bit > 62 {
		return "", 0, fmt.Errorf("field lengths: term %q: bit must be 0 to 62", term)
	}
	return term[:i], uint(bit), nil
}

// lengthsCache keeps the average lengths of an open index's last snapshot:
// they change only when its segments or their deletions do.
type lengthsCache struct {
	mu   sync.Mutex
	key  []segKey
	avgs bsearch.BM25FieldLengths
}

// segKey identifies a segment of a snapshot with its deletions: scorch
// replaces a segment's deletion bitmap, never changes it.
type segKey struct {
	seg     segment.Segment
	deleted any // the segment's *roaring.Bitmap
}

// withLengths is ctx with the average field lengths of idx's documents for
// BM25 (see fieldLengths). An index that is not scorch's is searched with
// Bleve's own statistic.
func (c *lengthsCache) withLengths(ctx context.Context, idx bleve.Index) (context.Context, error) {
	adv, err := idx.Advanced()
	if err != nil {
		return nil, fmt.Errorf("field lengths: %w", err)
	}
	r, err := adv.Reader()
	if err != nil {
		return nil, fmt.Errorf("field lengths: %w", err)
	}
	defer func() { _ = r.Close() }()
	snap, ok := r.(*scorch.IndexSnapshot)
	if !ok {
		return ctx, nil
	}
	avgs, err := c.lengths(snap)
	if err != nil {
		return nil, err
	}
	return context.WithValue(ctx, bsearch.BM25FieldLengthsKey, avgs), nil
}

// lengths is the average length of each field snap's documents have a
// length of, from the cache when snap's segments are the last ones'.
func (c *lengthsCache) lengths(snap *scorch.IndexSnapshot) (bsearch.BM25FieldLengths, error) {
	segs := snap.Segments()
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(segs) == len(c.key) && c.avgs != nil {
		same := true
		for i, ss := range segs {
			if c.key[i] != (segKey{ss.Segment(), ss.Deleted()}) {
				same = false
				break
			}
		}
		if same {
			return c.avgs, nil
		}
	}
	avgs, err := averageLengths(segs)
	if err != nil {
		return nil, err
	}
	c.key = c.key[:0]
	for _, ss := range segs {
		c.key = append(c.key, segKey{ss.Segment(), ss.Deleted()})
	}
	c.avgs = avgs
	return avgs, nil
}

// averageLengths sums each field's lengths over the live documents of segs
// and divides by their number.
func averageLengths(segs []*scorch.SegmentSnapshot) (bsearch.BM25FieldLengths, error) {
	sums := map[string]uint64{}
	var docs uint64
	for _, ss := range segs {
		docs += ss.Count()
		dict, err := ss.Segment().Dictionary(fieldLengths)
		if err != nil {
			return nil, fmt.Errorf("field lengths: %w", err)
		}
		deleted := ss.Deleted()
		if deleted != nil && deleted.IsEmpty() {
			deleted = nil // scored as no deletions
		}
		it := dict.AutomatonIterator(nil, nil, nil)
		var pl segment.PostingsList
		for {
			e, err := it.Next()
			if err != nil {
				return nil, fmt.Errorf("field lengths: %w", err)
			}
			if e == nil {
				break
			}
			field, bit, err := parseLengthTerm(e.Term)
			if err != nil {
				return nil, err
			}
			n := e.Count
			if deleted != nil {
				if pl, err = dict.PostingsList([]byte(e.Term), deleted, pl); err != nil {
					return nil, fmt.Errorf("field lengths: %w", err)
				}
				n = pl.Count()
			}
			sums[field] += n << bit
		}
	}
	avgs := make(bsearch.BM25FieldLengths, len(sums))
	if docs == 0 {
		return avgs, nil
	}
	for field, sum := range sums {
		if sum > 0 {
			avgs[field] = float64(sum) / float64(docs)
		}
	}
	return avgs, nil
}
