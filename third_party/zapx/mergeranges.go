//  Copyright (c) 2026 cortex authors.
//
// Licensed under the Apache License, Version 2.0 (the "License");
// you may not use this file except in compliance with the License.
// You may obtain a copy of the License at
//
// 		http://www.apache.org/licenses/LICENSE-2.0
//
// Unless required by applicable law or agreed to in writing, software
// distributed under the License is distributed on an "AS IS" BASIS,
// WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
// See the License for the specific language governing permissions and
// limitations under the License.

package zap

import (
	"bytes"
	"encoding/binary"
	"errors"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/RoaringBitmap/roaring/v2"
	seg "github.com/blevesearch/scorch_segment_api/v2"
	"github.com/blevesearch/vellum"
)

// A merge's terms of one field, in a range of keys (cortex patch 0010).
//
// A merge walked each field's terms in order on one goroutine, reading and
// re-encoding every postings list, while another built the dictionary
// (patch 0002): the merge that ends a rebuild ran on about one core, after
// every batch was built, a quarter of a 10,000-note rebuild. A field with
// many terms is now cut into ranges of keys: the first is merged and
// written as before, and each other range is merged at the same time on a
// goroutine of its own into memory, its postings encoded as they will be
// written. Once the first range is written, the others' are written after
// it, in key order, each list at the offset it then has. The file is the
// one a merge of the whole field in one walk writes, byte for byte: every
// list is encoded by the same code (termRange.merge), and the offsets,
// the only bytes that depend on where a list lands, are written where it
// lands.

// ParallelTermsFrom is the fewest dictionary entries (a field's terms,
// summed over the segments merged) from which a merge cuts the field's
// terms into ranges merged at the same time; 0 never cuts. A variable for
// tests, which cut small fields to compare the files with uncut merges.
var ParallelTermsFrom = 1 << 14

// TermRangesMerged counts the ranges merged beside the first, for tests.
var TermRangesMerged atomic.Int64

// focus is what a field's merge reads of each segment that has the field:
// its dictionary, deleted documents and new document numbers.
type focus struct {
	dicts      []*Dictionary
	drops      []*roaring.Bitmap
	newDocNums [][]uint64
}

// termRange merges the postings lists of a field's terms: each term's lists
// from every segment into one, kept in its encoders until finish takes it.
type termRange struct {
	f          *focus
	copying    bool
	fieldsMap  map[string]uint16
	chunkMode  uint32
	newDocs    uint64
	closeCh    chan struct{}
	tf, loc    *chunkedIntCoder
	newRoaring *roaring.Bitmap
	postings   *PostingsList
	postItr    *PostingsIterator
	// lists are the postings lists of the term being merged, one for each
	// of its entries, in the enumerator's order, read once to count its
	// documents and used again to merge them (they were read twice);
	// listOf is the place in f of each one's segment.
	lists  []*PostingsList
	listOf []int
	bufLoc []uint64
	// lastDocNum, lastFreq and lastNorm are the term's last posting, for
	// the one-hit encoding.
	lastDocNum, lastFreq, lastNorm uint64
}

func newTermRange(f *focus, copying bool, fieldsMap map[string]uint16, chunkMode uint32, newDocs uint64, closeCh chan struct{}) *termRange {
	// These int coders are made with chunk size 1024; each term sets its
	// own.
	return &termRange{f: f, copying: copying, fieldsMap: fieldsMap, chunkMode: chunkMode, newDocs: newDocs, closeCh: closeCh,
		tf: newChunkedIntCoder(1024, newDocs-1), loc: newChunkedIntCoder(1024, newDocs-1), newRoaring: roaring.NewBitmap()}
}

// oneHit says whether the term just merged is written in its dictionary
// entry alone: it is in one document, once, with no locations, and the
// document's number fits in 31 bits.
func (r *termRange) oneHit(card uint64) (bool, uint64, uint64) {
	if card == 1 && r.loc.FinalSize() <= 0 {
		docNum := uint64(r.newRoaring.Minimum())
		if under32Bits(docNum) && docNum == r.lastDocNum && r.lastFreq == 1 {
			return true, docNum, r.lastNorm
		}
	}
	return false, 0, 0
}

// reset readies the encoders for the next term.
func (r *termRange) reset() {
	r.newRoaring.Clear()
	r.tf.Reset()
	r.loc.Reset()
	r.lastDocNum, r.lastFreq, r.lastNorm = 0, 0, 0
}

// merge walks the terms of itrs (iterators of the dictionaries of the
// segments at which in r.f) in order and merges each term's postings
// lists, calling finish with the term once its lists are all in the
// encoders (and once first with no term: finish then has nothing to take).
func (r *termRange) merge(itrs []vellum.Iterator, which []int, finish func(term []byte) error) error {
	var prevTerm []byte
	r.newRoaring.Clear()
	enumerator, err := newEnumerator(itrs)
	for err == nil {
		term, itrI, postingsOffset := enumerator.Current()
		at := which[itrI]
		if !bytes.Equal(prevTerm, term) {
			if isClosed(r.closeCh) {
				_ = enumerator.Close()
				return seg.ErrClosed
			}
			// The term changed: the one before is whole.
			if err := finish(prevTerm); err != nil {
				_ = enumerator.Close()
				return err
			}
		}
		if !bytes.Equal(prevTerm, term) || prevTerm == nil {
			// The term's documents in the new segment set its chunk size.
			var newCard uint64
			lowItrIdxs, lowItrVals := enumerator.GetLowIdxsAndValues()
			r.listOf = r.listOf[:0]
			for i, idx := range lowItrIdxs {
				s := which[idx]
				if i == len(r.lists) {
					r.lists = append(r.lists, nil)
				}
				pl, err := r.f.dicts[s].postingsListFromOffset(lowItrVals[i], r.f.drops[s], r.lists[i])
				if err != nil {
					_ = enumerator.Close()
					return err
				}
				r.lists[i] = pl
				r.listOf = append(r.listOf, s)
				newCard += pl.Count()
			}
			chunkSize, err := getChunkSize(r.chunkMode, newCard, r.newDocs)
			if err != nil {
				_ = enumerator.Close()
				return err
			}
			r.tf.SetChunkSize(chunkSize, r.newDocs-1)
			r.loc.SetChunkSize(chunkSize, r.newDocs-1)
		}
		if k := enumerator.lowCurr; k < len(r.listOf) && r.listOf[k] == at && r.lists[k].postingsOffset == postingsOffset {
			r.postings = r.lists[k]
		} else if r.postings, err = r.f.dicts[at].postingsListFromOffset(postingsOffset, r.f.drops[at], nil); err != nil {
			_ = enumerator.Close()
			return err
		}
		r.postItr = r.postings.iterator(true, true, true, r.postItr)
		// Only when all segments have the same fields and no writer
		// callbacks may the bytes be copied.
		if r.copying {
			r.lastDocNum, r.lastFreq, r.lastNorm, err = mergeTermFreqNormLocsByCopying(
				term, r.postItr, r.f.newDocNums[at], r.newRoaring, r.tf, r.loc)
		} else {
			r.lastDocNum, r.lastFreq, r.lastNorm, r.bufLoc, err = mergeTermFreqNormLocs(
				r.fieldsMap, term, r.postItr, r.f.newDocNums[at], r.newRoaring, r.tf, r.loc, r.bufLoc)
		}
		if err != nil {
			_ = enumerator.Close()
			return err
		}
		prevTerm = prevTerm[:0] // copied: Next may reuse the term's bytes
		prevTerm = append(prevTerm, term...)
		err = enumerator.Next()
	}
	if err != vellum.ErrIteratorDone {
		_ = enumerator.Close()
		return err
	}
	if err := enumerator.Close(); err != nil {
		return err
	}
	return finish(prevTerm)
}

// writeTo is the finish of a range written to w as it is merged: the term's
// postings are written, and its dictionary entry given to dict.
func (r *termRange) writeTo(w *FileWriter, dict *dictPipe, varint []byte) func(term []byte) error {
	return func(term []byte) error {
		r.tf.Close()
		r.loc.Close()
		postingsOffset, err := writePostings(r.newRoaring, r.tf, r.loc, r.oneHit, w, varint)
		if err != nil {
			return err
		}
		if postingsOffset > 0 {
			dict.insert(term, postingsOffset)
		}
		r.reset()
		return nil
	}
}

// Kinds of a term kept in memory (termRange.keep).
const (
	keptOneHit   = 1 // the dictionary's value
	keptPostings = 2 // the encoded frequencies, locations and documents
)

// keep is the finish of a range merged into memory: each term with
// postings is appended to out as its key, its kind, and its dictionary
// value (a one-hit term) or the bytes writePostings would write of it
// before its offsets (the encoded frequencies and locations, each empty
// when the encoder has none, and the documents' bitmap).
func (r *termRange) keep(out *[]byte) func(term []byte) error {
	var scratch bytes.Buffer
	return func(term []byte) error {
		r.tf.Close()
		r.loc.Close()
		card := r.newRoaring.GetCardinality()
		if card == 0 {
			r.reset()
			return nil
		}
		b := binary.AppendUvarint(*out, uint64(len(term)))
		b = append(b, term...)
		if hit, docNum, norm := r.oneHit(card); hit {
			b = append(b, keptOneHit)
			b = binary.AppendUvarint(b, FSTValEncode1Hit(docNum, norm))
		} else {
			b = append(b, keptPostings)
			for _, c := range [...]*chunkedIntCoder{r.tf, r.loc} {
				scratch.Reset()
				if c.FinalSize() > 0 {
					if _, err := c.Write(&scratch); err != nil {
						return err
					}
				}
				b = binary.AppendUvarint(b, uint64(scratch.Len()))
				b = append(b, scratch.Bytes()...)
			}
			bm, err := r.newRoaring.ToBytes()
			if err != nil {
				return err
			}
			b = binary.AppendUvarint(b, uint64(len(bm)))
			b = append(b, bm...)
		}
		*out = b
		r.reset()
		return nil
	}
}

// errKeptTerms is a range kept in memory that does not read back.
var errKeptTerms = errors.New("zap: merged terms kept in memory do not read back")

// writeKept writes the terms keep kept, as writePostings writes them: the
// frequencies, the locations, then the offsets of the two (termNotEncoded
// when empty) and the bitmap with its length, the term's dictionary entry
// the offset of what follows the first two.
func writeKept(kept []byte, w *FileWriter, dict *dictPipe, varint []byte) error {
	next := func() ([]byte, bool) {
		n, k := binary.Uvarint(kept)
		if k <= 0 || uint64(len(kept)-k) < n {
			return nil, false
		}
		b := kept[k : k+int(n)]
		kept = kept[k+int(n):]
		return b, true
	}
	for len(kept) > 0 {
		term, ok := next()
		if !ok || len(kept) == 0 {
			return errKeptTerms
		}
		kind := kept[0]
		kept = kept[1:]
		switch kind {
		case keptOneHit:
			v, k := binary.Uvarint(kept)
			if k <= 0 {
				return errKeptTerms
			}
			kept = kept[k:]
			dict.insert(term, v)
		case keptPostings:
			var offs [2]uint64
			for i := range offs {
				enc, ok := next()
				if !ok {
					return errKeptTerms
				}
				offs[i] = termNotEncoded
				if len(enc) > 0 {
					offs[i] = uint64(w.Count())
					if _, err := w.Write(enc); err != nil {
						return err
					}
				}
			}
			bm, ok := next()
			if !ok {
				return errKeptTerms
			}
			postingsOffset := uint64(w.Count())
			for _, v := range [...]uint64{offs[0], offs[1], uint64(len(bm))} {
				n := binary.PutUvarint(varint, v)
				if _, err := w.Write(varint[:n]); err != nil {
					return err
				}
			}
			if _, err := w.Write(bm); err != nil {
				return err
			}
			dict.insert(term, postingsOffset)
		default:
			return errKeptTerms
		}
	}
	return nil
}

// termCuts is where a field's terms are cut into ranges merged at the same
// time: up to parts-1 keys, in order, taken at even places of the
// smallest of the dictionaries with at least parts terms (the segments of
// a merge are alike, and the smallest costs least to walk); none when the
// field is too small to cut (ParallelTermsFrom) or there is no such
// dictionary.
func termCuts(dicts []*Dictionary, parts int) ([][]byte, error) {
	if ParallelTermsFrom <= 0 || parts < 2 {
		return nil, nil
	}
	total := 0
	var sample *Dictionary
	for _, d := range dicts {
		n := d.fst.Len()
		total += n
		if n >= parts && (sample == nil || n < sample.fst.Len()) {
			sample = d
		}
	}
	if total < ParallelTermsFrom || sample == nil {
		return nil, nil
	}
	n := sample.fst.Len()
	itr, err := sample.fst.Iterator(nil, nil)
	var cuts [][]byte
	for i := 0; err == nil && len(cuts) < parts-1; i++ {
		// The j-th cut is the key at j*n/parts: never the first, so every
		// range has a key below it.
		if j := len(cuts) + 1; i == j*n/parts && i > 0 {
			k, _ := itr.Current()
			if len(k) > 0 && (len(cuts) == 0 || bytes.Compare(k, cuts[len(cuts)-1]) > 0) {
				cuts = append(cuts, append([]byte(nil), k...))
			}
		}
		err = itr.Next()
	}
	if err != nil && err != vellum.ErrIteratorDone {
		return nil, err
	}
	return cuts, nil
}

// rangeIterators opens, for the keys from lo to hi (nil: no bound), an
// iterator of each dictionary of f that has a key there, and which
// dictionary each is.
func rangeIterators(f *focus, lo, hi []byte) ([]vellum.Iterator, []int, error) {
	var itrs []vellum.Iterator
	var which []int
	for i, d := range f.dicts {
		itr, err := d.fst.Iterator(lo, hi)
		if err != nil && err != vellum.ErrIteratorDone {
			return nil, nil, err
		}
		if itr != nil {
			itrs = append(itrs, itr)
			which = append(which, i)
		}
	}
	return itrs, which, nil
}

// mergeFieldTerms merges the terms of a field whose dictionaries are f's:
// cut into ranges (termCuts) when the field is large and there are cores
// to spare, else in one walk (itrs, the dictionaries' iterators of every
// key). It writes each term's postings to w and gives its dictionary entry
// to dict, in key order.
func mergeFieldTerms(f *focus, itrs []vellum.Iterator, copying bool, fieldsMap map[string]uint16,
	chunkMode uint32, newDocs uint64, w *FileWriter, dict *dictPipe, varint []byte, closeCh chan struct{}) error {
	first := newTermRange(f, copying, fieldsMap, chunkMode, newDocs, closeCh)
	var cuts [][]byte
	if copying && w.id == "" {
		var err error
		if cuts, err = termCuts(f.dicts, min(runtime.GOMAXPROCS(0), 4)); err != nil {
			return err
		}
	}
	if len(cuts) == 0 {
		whole := make([]int, len(itrs))
		for i := range whole {
			whole[i] = i
		}
		return first.merge(itrs, whole, first.writeTo(w, dict, varint))
	}
	for _, itr := range itrs {
		_ = itr.Close()
	}
	// Range i holds the keys from cuts[i-1] (none: the first key) up to
	// cuts[i] (none: the last).
	bound := func(i int) []byte {
		if i < 0 || i >= len(cuts) {
			return nil
		}
		return cuts[i]
	}
	// The ranges after the first, each merged into memory on a goroutine
	// of its own. Every one has ended before this returns: they read the
	// segments, which the caller may close once it has.
	kept := make([][]byte, len(cuts))
	errs := make([]error, len(cuts))
	ready := make([]chan struct{}, len(cuts))
	stop := make(chan struct{})
	var wg sync.WaitGroup
	defer func() {
		close(stop)
		wg.Wait()
	}()
	for i := range cuts {
		ready[i] = make(chan struct{})
		lo, hi := bound(i), bound(i+1)
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer close(ready[i])
			its, which, err := rangeIterators(f, lo, hi)
			if err == nil {
				r := newTermRange(f, copying, fieldsMap, chunkMode, newDocs, mergeStop(closeCh, stop))
				err = r.merge(its, which, r.keep(&kept[i]))
			}
			errs[i] = err
		}()
	}
	TermRangesMerged.Add(int64(len(cuts)))
	its, which, err := rangeIterators(f, nil, bound(0))
	if err == nil {
		err = first.merge(its, which, first.writeTo(w, dict, varint))
	}
	for i := range cuts {
		if err != nil {
			return err
		}
		<-ready[i]
		if err = errs[i]; err == nil {
			err = writeKept(kept[i], w, dict, varint)
			kept[i] = nil
		}
	}
	return err
}

// mergeStop is a channel closed when either of closeCh (the merge's, may
// be nil) and stop is.
func mergeStop(closeCh, stop chan struct{}) chan struct{} {
	if closeCh == nil {
		return stop
	}
	both := make(chan struct{})
	go func() {
		select {
		case <-closeCh:
		case <-stop:
		}
		close(both)
	}()
	return both
}
