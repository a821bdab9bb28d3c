//  Copyright (c) 2023 Couchbase, Inc.
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
	"math"
	"sort"
	"sync/atomic"

	"github.com/RoaringBitmap/roaring/v2"
	index "github.com/blevesearch/bleve_index_api"
	seg "github.com/blevesearch/scorch_segment_api/v2"
	"github.com/blevesearch/vellum"
)

func init() {
	registerSegmentSection(SectionInvertedTextIndex, &invertedTextIndexSection{})
}

type invertedTextIndexSection struct {
}

// This function checks whether the inverted text index section should avoid processing
// a particular field, preventing unnecessary work if another section will handle it.
//
// NOTE: The exclusion check is applicable only to the InvertedTextIndexSection
// because it serves as a catch-all section. This section processes every field
// unless explicitly excluded, similar to a "default" case in a switch statement.
// Other sections, such as VectorSection and SynonymSection, rely on inclusion
// checks to process only specific field types (e.g., index.VectorField or
// index.SynonymField). Any new section added in the future must define its
// special field type and inclusion logic explicitly.
var isFieldExcludedFromInvertedTextIndexSection = func(field index.Field) bool {
	for _, excludeField := range invertedTextIndexSectionExclusionChecks {
		if excludeField(field) {
			// atleast one section has agreed to exclude this field
			// from inverted text index section processing and has
			// agreed to process it independently
			return true
		}
	}
	// no section has excluded this field from inverted index processing
	// so it should be processed by the inverted index section
	return false
}

// List of checks to determine if a field is excluded from the inverted text index section
var invertedTextIndexSectionExclusionChecks = make([]func(field index.Field) bool, 0)

func (i *invertedTextIndexSection) Process(opaque map[int]resetable, docNum uint32, field index.Field, fieldID uint16) {
	if !isFieldExcludedFromInvertedTextIndexSection(field) {
		io := i.getInvertedIndexOpaque(opaque)
		io.process(field, fieldID, docNum)
	}
}

func (i *invertedTextIndexSection) Persist(opaque map[int]resetable, w *FileWriter) error {
	io := i.getInvertedIndexOpaque(opaque)
	return io.writeDicts(w)
}

func (i *invertedTextIndexSection) AddrForField(opaque map[int]resetable, fieldID int) int {
	io := i.getInvertedIndexOpaque(opaque)
	return io.fieldAddrs[fieldID]
}

func mergeAndPersistInvertedSection(segments []*SegmentBase, dropsIn []*roaring.Bitmap,
	fieldsInv []string, fieldsMap map[string]uint16, fieldsOptions map[string]index.FieldIndexingOptions,
	fieldsSame bool, newDocNumsIn [][]uint64, newSegDocCount uint64, chunkMode uint32, w *FileWriter,
	closeCh chan struct{}) (map[int]int, error) {
	var bufMaxVarintLen64 []byte = make([]byte, binary.MaxVarintLen64)

	fieldAddrs := make(map[int]int)
	dictOffsets := make([]uint64, len(fieldsInv))
	fieldDvLocsStart := make([]uint64, len(fieldsInv))
	fieldDvLocsEnd := make([]uint64, len(fieldsInv))

	// copying data directly is safe only if there are no
	// file callbacks that might modify the data in all
	// of the involved segments and the current writer
	copyFlag := true
	for _, segment := range segments {
		if segment.fileReader.id != "" {
			copyFlag = false
			break
		}
	}
	if w.id != "" {
		copyFlag = false
	}

	// The dictionaries are built on another goroutine while the postings
	// lists are merged and written (cortex patch 0002).
	var vellumBuf bytes.Buffer
	newVellum, err := newDictPipe(nil, &vellumBuf)
	if err != nil {
		return nil, err
	}
	defer newVellum.stop()

	newDocNums := make([][]uint64, 0, len(segments))
	drops := make([]*roaring.Bitmap, 0, len(segments))
	dicts := make([]*Dictionary, 0, len(segments))
	itrs := make([]vellum.Iterator, 0, len(segments))
	segmentsInFocus := make([]*SegmentBase, 0, len(segments))
	// for each field
	for fieldID, fieldName := range fieldsInv {
		// collect FST iterators from all active segments for this field
		newDocNums = newDocNums[:0]
		drops = drops[:0]
		dicts = dicts[:0]
		itrs = itrs[:0]
		segmentsInFocus = segmentsInFocus[:0]
		for segmentI, segment := range segments {
			// check for the closure in meantime
			if isClosed(closeCh) {
				return nil, seg.ErrClosed
			}
			// early exit if the field's index option is false
			if !fieldsOptions[fieldName].IsIndexed() {
				continue
			}

			dict, err2 := segment.dictionary(fieldName)
			if err2 != nil {
				return nil, err2
			}
			if dict != nil && dict.fst != nil {
				itr, err2 := dict.fst.Iterator(nil, nil)
				if err2 != nil && err2 != vellum.ErrIteratorDone {
					return nil, err2
				}
				if itr != nil {
					newDocNums = append(newDocNums, newDocNumsIn[segmentI])
					if dropsIn[segmentI] != nil && !dropsIn[segmentI].IsEmpty() {
						drops = append(drops, dropsIn[segmentI])
					} else {
						drops = append(drops, nil)
					}
					dicts = append(dicts, dict)
					itrs = append(itrs, itr)
					segmentsInFocus = append(segmentsInFocus, segment)
				}
			}
		}

		// The terms' postings, written and given to the dictionary in key
		// order, cut into ranges merged at the same time when the field
		// is large (cortex patch 0010).
		f := &focus{dicts: dicts, drops: drops, newDocNums: newDocNums}
		if err := mergeFieldTerms(f, itrs, fieldsSame && copyFlag, fieldsMap, chunkMode, newSegDocCount,
			w, newVellum, bufMaxVarintLen64, closeCh); err != nil {
			return nil, err
		}

		dictOffset := uint64(w.Count())

		dictBytes, err := newVellum.finish()
		if err != nil {
			return nil, err
		}
		vellumData := w.process(dictBytes)

		// write out the length of the vellum data
		n := binary.PutUvarint(bufMaxVarintLen64, uint64(len(vellumData)))
		_, err = w.Write(bufMaxVarintLen64[:n])
		if err != nil {
			return nil, err
		}

		// write this vellum to disk
		_, err = w.Write(vellumData)
		if err != nil {
			return nil, err
		}

		dictOffsets[fieldID] = dictOffset

		fieldDvLocsStart[fieldID] = uint64(w.Count())

		// update the field doc values
		// NOTE: doc values continue to use legacy chunk mode
		chunkSize, err := getChunkSize(LegacyChunkMode, 0, 0)
		if err != nil {
			return nil, err
		}
		if fieldsOptions[fieldName].SkipDVChunking() {
			chunkSize = 1
		}
		fdvEncoder := newChunkedContentCoder(chunkSize, newSegDocCount-1, w, true, fieldsOptions[fieldName].SkipDVCompression())

		fdvReadersAvailable := false
		var dvIterClone *docValueReader
		var dvIter *docValueReader
		for segmentI, segment := range segmentsInFocus {
			// check for the closure in meantime
			if isClosed(closeCh) {
				return nil, seg.ErrClosed
			}
			// early exit if docvalues are not wanted for this field
			if !fieldsOptions[fieldName].IncludeDocValues() {
				continue
			}
			fieldIDPlus1 := uint16(segment.fieldsMap[fieldName])
			dvIter = segment.fieldDvReaders[SectionInvertedTextIndex][fieldIDPlus1-1]
			if dvIter != nil {
				fdvReadersAvailable = true
				dvIterClone = dvIter.cloneInto(dvIterClone)
				err = dvIterClone.iterateAllDocValues(segment, func(docNum uint64, terms []byte) error {
					if newDocNums[segmentI][docNum] == docDropped {
						return nil
					}
					err := fdvEncoder.Add(newDocNums[segmentI][docNum], terms)
					if err != nil {
						return err
					}
					return nil
				})
				if err != nil {
					return nil, err
				}
			}
		}

		if fdvReadersAvailable {
			err = fdvEncoder.Close()
			if err != nil {
				return nil, err
			}

			// persist the doc value details for this field
			_, err = fdvEncoder.Write()
			if err != nil {
				return nil, err
			}

			// get the field doc value offset (end)
			fieldDvLocsEnd[fieldID] = uint64(w.Count())
		} else {
			fieldDvLocsStart[fieldID] = fieldNotUninverted
			fieldDvLocsEnd[fieldID] = fieldNotUninverted
		}

		fieldStart := w.Count()

		n = binary.PutUvarint(bufMaxVarintLen64, fieldDvLocsStart[fieldID])
		_, err = w.Write(bufMaxVarintLen64[:n])
		if err != nil {
			return nil, err
		}

		n = binary.PutUvarint(bufMaxVarintLen64, fieldDvLocsEnd[fieldID])
		_, err = w.Write(bufMaxVarintLen64[:n])
		if err != nil {
			return nil, err
		}

		n = binary.PutUvarint(bufMaxVarintLen64, dictOffsets[fieldID])
		_, err = w.Write(bufMaxVarintLen64[:n])
		if err != nil {
			return nil, err
		}

		fieldAddrs[fieldID] = fieldStart

		// reset vellum buffer and vellum builder
		err = newVellum.reset()
		if err != nil {
			return nil, err
		}
	}
	return fieldAddrs, nil
}

func (i *invertedTextIndexSection) Merge(opaque map[int]resetable, segments []*SegmentBase,
	drops []*roaring.Bitmap, fieldsInv []string, newDocNumsIn [][]uint64,
	w *FileWriter, closeCh chan struct{}) error {
	io := i.getInvertedIndexOpaque(opaque)
	fieldAddrs, err := mergeAndPersistInvertedSection(segments, drops, fieldsInv,
		io.FieldsMap, io.FieldsOptions, io.fieldsSame, newDocNumsIn, io.numDocs, io.chunkMode, w, closeCh)
	if err != nil {
		return err
	}

	io.fieldAddrs = fieldAddrs
	return nil
}

func (i *invertedIndexOpaque) grabBuf(size int) []byte {
	buf := i.tmp0
	if cap(buf) < size {
		buf = make([]byte, size)
		i.tmp0 = buf
	}
	return buf[:size]
}

func (i *invertedIndexOpaque) incrementBytesWritten(bytes uint64) {
	i.bytesWritten += bytes
}

func (i *invertedIndexOpaque) BytesWritten() uint64 {
	return i.bytesWritten
}

func (i *invertedIndexOpaque) BytesRead() uint64 {
	return 0
}

func (i *invertedIndexOpaque) ResetBytesRead(uint64) {}

func (io *invertedIndexOpaque) writeDicts(w *FileWriter) error {
	if len(io.results) == 0 {
		return nil
	}

	dictOffsets := make([]uint64, len(io.FieldsInv))
	var err error

	fdvOffsetsStart := make([]uint64, len(io.FieldsInv))
	fdvOffsetsEnd := make([]uint64, len(io.FieldsInv))

	buf := io.grabBuf(binary.MaxVarintLen64)

	// these int coders are initialized with chunk size 1024
	// however this will be reset to the correct chunk size
	// while processing each individual field-term section
	tfEncoder := newChunkedIntCoder(1024, uint64(len(io.results)-1))
	locEncoder := newChunkedIntCoder(1024, uint64(len(io.results)-1))

	var docTermMap [][]byte

	// The dictionaries are built on another goroutine while the postings
	// lists are written (cortex patch 0002).
	dicts, err := newDictPipe(io.builder, &io.builderBuf)
	if err != nil {
		return err
	}
	io.builder = dicts.builder
	defer dicts.stop()

	for fieldID, terms := range io.DictKeys {
		// Only a field with doc values needs each document's terms
		// (cortex patch 0002).
		withDocValues := io.IncludeDocValues[fieldID]
		if !withDocValues {
			docTermMap = docTermMap[:0]
		} else if cap(docTermMap) < len(io.results) {
			docTermMap = make([][]byte, len(io.results))
		} else {
			docTermMap = docTermMap[:len(io.results)]
			for docNum := range docTermMap { // reset the docTermMap
				docTermMap[docNum] = docTermMap[docNum][:0]
			}
		}

		dict := io.Dicts[fieldID]

		for _, term := range terms { // terms are already sorted
			pid := dict[term] - 1

			// The doc numbers were appended in increasing order; one
			// bitmap is refilled per postings list (cortex patch 0001).
			postingsBS := io.postingsBS
			postingsBS.Clear()
			postingsBS.AddMany(io.DocNums[pid])

			freqNorms := io.FreqNorms[pid]
			freqNormOffset := 0

			locs := io.Locs[pid]
			locOffset := 0

			var cardinality uint64
			if postingsBS != nil {
				cardinality = postingsBS.GetCardinality()
			}
			chunkSize, err := getChunkSize(io.chunkMode, cardinality, uint64(len(io.results)))
			if err != nil {
				return err
			}
			tfEncoder.SetChunkSize(chunkSize, uint64(len(io.results)-1))
			locEncoder.SetChunkSize(chunkSize, uint64(len(io.results)-1))

			for _, docNum32 := range io.DocNums[pid] { // the bitmap's, in order
				docNum := uint64(docNum32)

				freqNorm := freqNorms[freqNormOffset]

				// check if freq/norm is enabled
				if freqNorm.freq > 0 {
					err = tfEncoder.Add(docNum,
						encodeFreqHasLocs(freqNorm.freq, freqNorm.numLocs > 0),
						uint64(math.Float32bits(freqNorm.norm)))
				} else {
					// if disabled, then skip the norm part
					err = tfEncoder.Add(docNum,
						encodeFreqHasLocs(freqNorm.freq, freqNorm.numLocs > 0))
				}
				if err != nil {
					return err
				}

				if freqNorm.numLocs > 0 {
					numBytesLocs := 0
					for _, loc := range locs[locOffset : locOffset+freqNorm.numLocs] {
						numBytesLocs += totalUvarintBytes(
							uint64(loc.fieldID), loc.pos, loc.start, loc.end,
							uint64(len(loc.arrayposs)), loc.arrayposs)
					}

					err = locEncoder.Add(docNum, uint64(numBytesLocs))
					if err != nil {
						return err
					}
					for _, loc := range locs[locOffset : locOffset+freqNorm.numLocs] {
						err = locEncoder.Add(docNum,
							uint64(loc.fieldID), loc.pos, loc.start, loc.end,
							uint64(len(loc.arrayposs)))
						if err != nil {
							return err
						}

						err = locEncoder.Add(docNum, loc.arrayposs...)
						if err != nil {
							return err
						}
					}
					locOffset += freqNorm.numLocs
				}

				freqNormOffset++

				if withDocValues {
					docTermMap[docNum] = append(
						append(docTermMap[docNum], term...),
						index.DocValueTermSeparator)
				}
			}

			tfEncoder.Close()
			locEncoder.Close()
			io.incrementBytesWritten(locEncoder.getBytesWritten())
			io.incrementBytesWritten(tfEncoder.getBytesWritten())

			postingsOffset, err :=
				writePostings(postingsBS, tfEncoder, locEncoder, nil, w, buf)
			if err != nil {
				return err
			}

			if postingsOffset > uint64(0) {
				dicts.insertString(term, postingsOffset)
			}

			tfEncoder.Reset()
			locEncoder.Reset()
		}

		dictBytes, err := dicts.finish()
		if err != nil {
			return err
		}

		// record where this dictionary starts
		dictOffsets[fieldID] = uint64(w.Count())

		vellumData := w.process(dictBytes)

		// write out the length of the vellum data
		n := binary.PutUvarint(buf, uint64(len(vellumData)))
		_, err = w.Write(buf[:n])
		if err != nil {
			return err
		}

		io.incrementBytesWritten(uint64(len(vellumData)))

		// write this vellum to disk
		_, err = w.Write(vellumData)
		if err != nil {
			return err
		}

		// reset vellum for reuse
		err = dicts.reset()
		if err != nil {
			return err
		}

		// write the field doc values
		// NOTE: doc values continue to use legacy chunk mode
		chunkSize, err := getChunkSize(LegacyChunkMode, 0, 0)
		if err != nil {
			return err
		}
		if io.FieldsOptions[io.FieldsInv[fieldID]].SkipDVChunking() {
			chunkSize = 1
		}
		fdvEncoder := newChunkedContentCoder(chunkSize, uint64(len(io.results)-1), w, false, io.FieldsOptions[io.FieldsInv[fieldID]].SkipDVCompression())
		if io.IncludeDocValues[fieldID] {
			for docNum, docTerms := range docTermMap {
				if fieldTermMap, ok := io.extraDocValues[docNum]; ok {
					if sTerms, ok := fieldTermMap[uint16(fieldID)]; ok {
						for _, sTerm := range sTerms {
							docTerms = append(append(docTerms, sTerm...), index.DocValueTermSeparator)
						}
					}
				}
				if len(docTerms) > 0 {
					err = fdvEncoder.Add(uint64(docNum), docTerms)
					if err != nil {
						return err
					}
				}
			}
			err = fdvEncoder.Close()
			if err != nil {
				return err
			}

			io.incrementBytesWritten(fdvEncoder.getBytesWritten())

			fdvOffsetsStart[fieldID] = uint64(w.Count())

			_, err = fdvEncoder.Write()
			if err != nil {
				return err
			}

			fdvOffsetsEnd[fieldID] = uint64(w.Count())
			fdvEncoder.Reset()
		} else {
			fdvOffsetsStart[fieldID] = fieldNotUninverted
			fdvOffsetsEnd[fieldID] = fieldNotUninverted
		}

		fieldStart := w.Count()

		n = binary.PutUvarint(buf, fdvOffsetsStart[fieldID])
		_, err = w.Write(buf[:n])
		if err != nil {
			return err
		}

		n = binary.PutUvarint(buf, fdvOffsetsEnd[fieldID])
		_, err = w.Write(buf[:n])
		if err != nil {
			return err
		}

		n = binary.PutUvarint(buf, dictOffsets[fieldID])
		_, err = w.Write(buf[:n])
		if err != nil {
			return err
		}

		io.fieldAddrs[fieldID] = fieldStart
	}

	return nil
}

func (io *invertedIndexOpaque) process(field index.Field, fieldID uint16, docNum uint32) {
	if !io.init && io.results != nil {
		io.realloc()
		io.init = true
	}

	// if the fieldID is MaxUint16, it's mainly indicated that the caller has
	// finished invoking the process() for every field on that doc.
	if fieldID == math.MaxUint16 && io.docTermsKept {
		// The postings of the document's terms, as realloc found them:
		// no map is walked or looked up again.
		for _, t := range io.docTerms[io.docTermStarts[docNum]:io.docTermStarts[docNum+1]] {
			io.DocNums[t.pid] = append(io.DocNums[t.pid], docNum)
			io.FreqNorms[t.pid] = append(io.FreqNorms[t.pid], interimFreqNorm{
				freq: uint64(t.freq),
				norm: math.Float32frombits(uint32(io.reusableFieldLens[t.fid])),
			})
		}
		for i := 0; i < len(io.FieldsInv); i++ {
			io.reusableFieldLens[i] = 0
		}
		return
	}
	if fieldID == math.MaxUint16 {
		for fid, tfs := range io.reusableFieldTFs {
			dict := io.Dicts[fid]
			norm := math.Float32frombits(uint32(io.reusableFieldLens[fid]))

			for term, tf := range tfs {
				pid := dict[term] - 1
				io.DocNums[pid] = append(io.DocNums[pid], docNum)

				io.FreqNorms[pid] = append(io.FreqNorms[pid],
					interimFreqNorm{
						freq:    uint64(tf.Frequency()),
						norm:    norm,
						numLocs: len(tf.Locations),
					})

				if len(tf.Locations) > 0 {
					locs := io.Locs[pid]

					for _, loc := range tf.Locations {
						var locf = uint16(fid)
						if loc.Field != "" {
							locf = uint16(io.getOrDefineField(loc.Field))
						}
						var arrayposs []uint64
						if len(loc.ArrayPositions) > 0 {
							arrayposs = loc.ArrayPositions
						}
						locs = append(locs, interimLoc{
							fieldID:   locf,
							pos:       uint64(loc.Position),
							start:     uint64(loc.Start),
							end:       uint64(loc.End),
							arrayposs: arrayposs,
						})
					}

					io.Locs[pid] = locs
				}
			}
		}
		for i := 0; i < len(io.FieldsInv); i++ { // clear these for reuse
			io.reusableFieldLens[i] = 0
			io.reusableFieldTFs[i] = nil
		}
		return
	}

	io.reusableFieldLens[fieldID] += field.AnalyzedLength()
	if io.docTermsKept {
		return
	}
	existingFreqs := io.reusableFieldTFs[fieldID]
	if existingFreqs != nil {
		existingFreqs.MergeAll(field.Name(), field.AnalyzedTokenFrequencies())
	} else {
		io.reusableFieldTFs[fieldID] = field.AnalyzedTokenFrequencies()
	}
}

// termLister is a field that lists its distinct terms, and how often each
// occurs, in two slices of the same length, rather than in a map of
// TokenFreqs made for it: a field without term locations (cortex patch
// 0007). Its AnalyzedTokenFrequencies must hold the same terms.
type termLister interface {
	TermFrequencies() (terms []string, freqs []int32)
}

// numTerms is how many distinct terms field has.
func numTerms(field index.Field) int {
	if l, ok := field.(termLister); ok {
		terms, _ := l.TermFrequencies()
		return len(terms)
	}
	return len(field.AnalyzedTokenFrequencies())
}

// docTerm is a term of a document's field, as its postings list will hold
// it (see invertedIndexOpaque.docTerms).
type docTerm struct {
	pid  uint32
	freq uint32
	fid  uint16
}

// docTermSeen is the document (its number plus one) a postings list was
// last seen in, and where in docTerms.
type docTermSeen struct {
	doc, at uint32
}

func (i *invertedIndexOpaque) initDictsAndKeysFromFields() {
	numFields := len(i.FieldsInv)

	// Resize or allocate Dicts
	if cap(i.Dicts) >= numFields {
		i.Dicts = i.Dicts[:numFields]
	} else {
		i.Dicts = make([]map[string]uint64, numFields)
	}

	// Resize or allocate DictKeys
	if cap(i.DictKeys) >= numFields {
		i.DictKeys = i.DictKeys[:numFields]
	} else {
		i.DictKeys = make([][]string, numFields)
	}

	for idx := 0; idx < numFields; idx++ {
		// --- Dicts ---
		if i.Dicts[idx] == nil {
			i.Dicts[idx] = make(map[string]uint64)
		} else {
			clear(i.Dicts[idx])
		}

		// --- DictKeys ---
		if i.DictKeys[idx] != nil {
			i.DictKeys[idx] = i.DictKeys[idx][:0]
		} else {
			i.DictKeys[idx] = nil
		}
	}
}

func (i *invertedIndexOpaque) realloc() {
	var pidNext int

	var totTFs int
	var totLocs int

	// initialize dicts and dict keys from fieldsMap
	i.initDictsAndKeysFromFields()

	// The terms of each document's fields are kept in the order found,
	// each (postings list, document) once with the frequencies of the
	// field's values summed, as process merges them (cortex patch 0003);
	// process then appends the postings from them rather than walking
	// each field's frequencies and looking every term up again. That
	// holds without locations only: with any, process works as before.
	i.docTerms = i.docTerms[:0]
	i.docTermStarts = append(i.docTermStarts[:0], 0)
	i.docTermLast = i.docTermLast[:0]
	visitField := func(field index.Field, docNum int) {
		fieldID := uint16(i.getOrDefineField(field.Name()))

		dict := i.Dicts[fieldID]
		dictKeys := i.DictKeys[fieldID]
		keep := !isFieldExcludedFromInvertedTextIndexSection(field)

		visitTerm := func(term string, freq, locs int) {
			pidPlus1, exists := dict[term]
			if !exists {
				pidNext++
				pidPlus1 = uint64(pidNext)

				dict[term] = pidPlus1
				dictKeys = append(dictKeys, term)

				i.numTermsPerPostingsList = append(i.numTermsPerPostingsList, 0)
				i.numLocsPerPostingsList = append(i.numLocsPerPostingsList, 0)
				i.docTermLast = append(i.docTermLast, docTermSeen{})
			}

			pid := pidPlus1 - 1

			i.numTermsPerPostingsList[pid] += 1
			i.numLocsPerPostingsList[pid] += locs

			totLocs += locs

			if keep {
				if seen := &i.docTermLast[pid]; seen.doc == uint32(docNum)+1 {
					i.docTerms[seen.at].freq += uint32(freq)
				} else {
					*seen = docTermSeen{doc: uint32(docNum) + 1, at: uint32(len(i.docTerms))}
					i.docTerms = append(i.docTerms, docTerm{pid: uint32(pid), fid: fieldID, freq: uint32(freq)})
				}
			}
		}

		// A field that lists its terms is read from its lists, not from
		// a map made for it (cortex patch 0007).
		if l, ok := field.(termLister); ok {
			terms, freqs := l.TermFrequencies()
			for k, term := range terms {
				visitTerm(term, int(freqs[k]), 0)
			}
			totTFs += len(terms)
		} else {
			tfs := field.AnalyzedTokenFrequencies()
			for term, tf := range tfs {
				visitTerm(term, tf.Frequency(), len(tf.Locations))
			}
			totTFs += len(tfs)
		}

		i.DictKeys[fieldID] = dictKeys
		if field.Options().IncludeDocValues() {
			i.IncludeDocValues[fieldID] = true
		}

		if f, ok := field.(index.GeoShapeField); ok {
			if _, exists := i.extraDocValues[docNum]; !exists {
				i.extraDocValues[docNum] = make(map[uint16][][]byte)
			}
			i.extraDocValues[docNum][fieldID] = append(i.extraDocValues[docNum][fieldID], f.EncodedShape())
		}
	}

	if cap(i.IncludeDocValues) >= len(i.FieldsInv) {
		i.IncludeDocValues = i.IncludeDocValues[:len(i.FieldsInv)]
	} else {
		i.IncludeDocValues = make([]bool, len(i.FieldsInv))
	}

	if i.extraDocValues == nil {
		i.extraDocValues = map[int]map[uint16][][]byte{}
	}

	// The documents' terms are counted first, so that docTerms is made
	// once at its bound rather than grown by doubling as it is filled
	// (cortex patch 0004).
	var termsBound int
	for _, result := range i.results {
		result.VisitComposite(func(field index.CompositeField) {
			termsBound += len(field.AnalyzedTokenFrequencies())
		})
		result.VisitFields(func(field index.Field) {
			termsBound += numTerms(field)
		})
	}
	if cap(i.docTerms) < termsBound {
		i.docTerms = make([]docTerm, 0, termsBound)
	}

	for docNum, result := range i.results {
		// walk each composite field
		result.VisitComposite(func(field index.CompositeField) {
			visitField(field, docNum)
		})

		// walk each field
		result.VisitFields(func(field index.Field) {
			visitField(field, docNum)
		})
		i.docTermStarts = append(i.docTermStarts, len(i.docTerms))
	}
	i.docTermsKept = totLocs == 0 && pidNext <= math.MaxUint32
	if !i.docTermsKept {
		i.docTerms = i.docTerms[:0]
	}

	numPostingsLists := pidNext

	if i.postingsBS == nil {
		i.postingsBS = roaring.New()
	}

	if cap(i.DocNums) >= numPostingsLists {
		i.DocNums = i.DocNums[:numPostingsLists]
	} else {
		i.DocNums = make([][]uint32, numPostingsLists)
	}

	// Every doc number of a postings list has a freq/norm: the lists
	// share one backing array, as the freq/norms do.
	if cap(i.docNumsBacking) >= totTFs {
		i.docNumsBacking = i.docNumsBacking[:totTFs]
	} else {
		i.docNumsBacking = make([]uint32, totTFs)
	}

	if cap(i.FreqNorms) >= numPostingsLists {
		i.FreqNorms = i.FreqNorms[:numPostingsLists]
	} else {
		i.FreqNorms = make([][]interimFreqNorm, numPostingsLists)
	}

	if cap(i.freqNormsBacking) >= totTFs {
		i.freqNormsBacking = i.freqNormsBacking[:totTFs]
	} else {
		i.freqNormsBacking = make([]interimFreqNorm, totTFs)
	}

	freqNormsBacking := i.freqNormsBacking
	docNumsBacking := i.docNumsBacking
	for pid, numTerms := range i.numTermsPerPostingsList {
		i.FreqNorms[pid] = freqNormsBacking[0:0]
		freqNormsBacking = freqNormsBacking[numTerms:]
		i.DocNums[pid] = docNumsBacking[0:0:numTerms]
		docNumsBacking = docNumsBacking[numTerms:]
	}

	if cap(i.Locs) >= numPostingsLists {
		i.Locs = i.Locs[:numPostingsLists]
	} else {
		i.Locs = make([][]interimLoc, numPostingsLists)
	}

	if cap(i.locsBacking) >= totLocs {
		i.locsBacking = i.locsBacking[:totLocs]
	} else {
		i.locsBacking = make([]interimLoc, totLocs)
	}

	locsBacking := i.locsBacking
	for pid, numLocs := range i.numLocsPerPostingsList {
		i.Locs[pid] = locsBacking[0:0]
		locsBacking = locsBacking[numLocs:]
	}

	for _, dict := range i.DictKeys {
		sort.Strings(dict)
	}

	if cap(i.reusableFieldTFs) >= len(i.FieldsInv) {
		i.reusableFieldTFs = i.reusableFieldTFs[:len(i.FieldsInv)]
	} else {
		i.reusableFieldTFs = make([]index.TokenFrequencies, len(i.FieldsInv))
	}

	if cap(i.reusableFieldLens) >= len(i.FieldsInv) {
		i.reusableFieldLens = i.reusableFieldLens[:len(i.FieldsInv)]
	} else {
		i.reusableFieldLens = make([]int, len(i.FieldsInv))
	}
}

func (i *invertedTextIndexSection) getInvertedIndexOpaque(opaque map[int]resetable) *invertedIndexOpaque {
	if _, ok := opaque[SectionInvertedTextIndex]; !ok {
		opaque[SectionInvertedTextIndex] = i.InitOpaque(nil)
	}
	return opaque[SectionInvertedTextIndex].(*invertedIndexOpaque)
}

func (i *invertedIndexOpaque) getOrDefineField(fieldName string) int {
	fieldIDPlus1, exists := i.FieldsMap[fieldName]
	if !exists {
		fieldIDPlus1 = uint16(len(i.FieldsInv) + 1)
		i.FieldsMap[fieldName] = fieldIDPlus1
		i.FieldsInv = append(i.FieldsInv, fieldName)

		i.Dicts = append(i.Dicts, make(map[string]uint64))

		n := len(i.DictKeys)
		if n < cap(i.DictKeys) {
			i.DictKeys = i.DictKeys[:n+1]
			i.DictKeys[n] = i.DictKeys[n][:0]
		} else {
			i.DictKeys = append(i.DictKeys, []string(nil))
		}
	}

	return int(fieldIDPlus1 - 1)
}

func (i *invertedTextIndexSection) InitOpaque(args map[string]interface{}) resetable {
	rv := &invertedIndexOpaque{
		fieldAddrs: map[int]int{},
	}
	for k, v := range args {
		rv.Set(k, v)
	}

	return rv
}

type invertedIndexOpaque struct {
	bytesWritten uint64 // atomic access to this variable, moved to top to correct alignment issues on ARM, 386 and 32-bit MIPS.

	results []index.Document

	chunkMode uint32

	// indicates whethere the following structs are initialized
	init bool

	// FieldsMap adds 1 to field id to avoid zero value issues
	//  name -> field id + 1
	FieldsMap map[string]uint16

	// FieldsInv is the inverse of FieldsMap
	//  field id -> name
	FieldsInv []string

	// Field indexing options
	//  field name -> options
	FieldsOptions map[string]index.FieldIndexingOptions

	// Term dictionaries for each field
	//  field id -> term -> postings list id + 1
	Dicts []map[string]uint64

	// Terms for each field, where terms are sorted ascending
	//  field id -> []term
	DictKeys [][]string

	// Fields whose IncludeDocValues is true
	//  field id -> bool
	IncludeDocValues []bool

	// postings id -> docNums, in increasing order; the bitmap written
	// for a postings list is made from them when it is written (cortex
	// patch 0001: one roaring.Bitmap per postings list cost an allocation
	// per list and a search per Add)
	DocNums        [][]uint32
	docNumsBacking []uint32
	postingsBS     *roaring.Bitmap

	// postings id -> freq/norm's, one for each docNum in postings
	FreqNorms        [][]interimFreqNorm
	freqNormsBacking []interimFreqNorm

	// postings id -> locs, one for each freq
	Locs        [][]interimLoc
	locsBacking []interimLoc

	numTermsPerPostingsList []int // key is postings list id
	numLocsPerPostingsList  []int // key is postings list id

	// docTerms is the (postings list, field, frequency) of each term of
	// each document, found by realloc, for process to append without
	// looking the terms up again; the document docNum's are
	// docTerms[docTermStarts[docNum]:docTermStarts[docNum+1]].
	// docTermLast is where each postings list was last seen. They are used
	// when docTermsKept: when no term has locations.
	docTerms      []docTerm
	docTermStarts []int
	docTermLast   []docTermSeen
	docTermsKept  bool

	// store terms that are unnecessary for the term dictionaries but needed in doc values
	// eg - encoded geoshapes
	// docNum -> fieldID -> terms
	extraDocValues map[int]map[uint16][][]byte

	builder    *vellum.Builder
	builderBuf bytes.Buffer

	// reusable stuff for processing fields etc.
	reusableFieldLens []int
	reusableFieldTFs  []index.TokenFrequencies

	tmp0 []byte

	fieldAddrs map[int]int

	fieldsSame bool
	numDocs    uint64
}

func (io *invertedIndexOpaque) Reset() (err error) {
	// cleanup stuff over here
	io.results = nil
	io.init = false
	io.chunkMode = 0
	io.FieldsMap = nil
	io.FieldsOptions = nil
	io.FieldsInv = nil
	for i := range io.Dicts {
		io.Dicts[i] = nil
	}
	io.Dicts = io.Dicts[:0]
	for i := range io.DictKeys {
		io.DictKeys[i] = io.DictKeys[i][:0]
	}
	io.DictKeys = io.DictKeys[:0]
	for i := range io.IncludeDocValues {
		io.IncludeDocValues[i] = false
	}
	io.IncludeDocValues = io.IncludeDocValues[:0]
	io.DocNums = io.DocNums[:0]
	io.docNumsBacking = io.docNumsBacking[:0]
	if io.postingsBS != nil {
		io.postingsBS.Clear()
	}
	io.FreqNorms = io.FreqNorms[:0]
	for i := range io.freqNormsBacking {
		io.freqNormsBacking[i] = interimFreqNorm{}
	}
	io.freqNormsBacking = io.freqNormsBacking[:0]
	io.Locs = io.Locs[:0]
	for i := range io.locsBacking {
		io.locsBacking[i] = interimLoc{}
	}
	io.locsBacking = io.locsBacking[:0]
	io.numTermsPerPostingsList = io.numTermsPerPostingsList[:0]
	io.numLocsPerPostingsList = io.numLocsPerPostingsList[:0]
	io.docTerms = io.docTerms[:0]
	io.docTermStarts = io.docTermStarts[:0]
	io.docTermLast = io.docTermLast[:0]
	io.docTermsKept = false
	io.builderBuf.Reset()
	if io.builder != nil {
		err = io.builder.Reset(&io.builderBuf)
	}

	io.reusableFieldLens = io.reusableFieldLens[:0]
	io.reusableFieldTFs = io.reusableFieldTFs[:0]

	io.tmp0 = io.tmp0[:0]
	io.extraDocValues = nil
	atomic.StoreUint64(&io.bytesWritten, 0)
	io.fieldsSame = false
	io.numDocs = 0

	clear(io.fieldAddrs)

	return err
}
func (i *invertedIndexOpaque) Set(key string, val interface{}) {
	switch key {
	case "results":
		i.results = val.([]index.Document)
	case "chunkMode":
		i.chunkMode = val.(uint32)
	case "fieldsSame":
		i.fieldsSame = val.(bool)
	case "fieldsMap":
		i.FieldsMap = val.(map[string]uint16)
	case "fieldsOptions":
		i.FieldsOptions = val.(map[string]index.FieldIndexingOptions)
	case "fieldsInv":
		i.FieldsInv = val.([]string)
	case "numDocs":
		i.numDocs = val.(uint64)
	}
}
