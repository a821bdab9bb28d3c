//  Copyright (c) 2017 Couchbase, Inc.
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

package scorch

import (
	"container/heap"

	index "github.com/blevesearch/bleve_index_api"
	segment "github.com/blevesearch/scorch_segment_api/v2"
)

// termDictionaryOmitCount is an optional interface a segment's TermDictionary
// may implement to return an automaton iterator that skips the per-term
// postings read used to populate DictEntry.Count. It is used by candidate-term
// collection (fuzzy/regexp) where the count is discarded, and falls back to the
// regular AutomatonIterator when the segment does not implement it.
type termDictionaryOmitCount interface {
	AutomatonIteratorOmitCount(a segment.Automaton,
		startKeyInclusive, endKeyExclusive []byte) segment.DictionaryIterator
}

// automatonIteratorOmitCount returns a count-omitting automaton iterator when
// the dictionary supports it, otherwise the standard one.
func automatonIteratorOmitCount(dict segment.TermDictionary, a segment.Automaton,
	startKeyInclusive, endKeyExclusive []byte) segment.DictionaryIterator {
	if oc, ok := dict.(termDictionaryOmitCount); ok {
		return oc.AutomatonIteratorOmitCount(a, startKeyInclusive, endKeyExclusive)
	}
	return dict.AutomatonIterator(a, startKeyInclusive, endKeyExclusive)
}

type segmentDictCursor struct {
	dict segment.TermDictionary
	itr  segment.DictionaryIterator
	curr index.DictEntry
}

type IndexSnapshotFieldDict struct {
	cardinality int
	bytesRead   uint64

	snapshot *IndexSnapshot
	cursors  []*segmentDictCursor
	entry    index.DictEntry
}

func (i *IndexSnapshotFieldDict) BytesRead() uint64 {
	return i.bytesRead
}

func (i *IndexSnapshotFieldDict) Len() int { return len(i.cursors) }
func (i *IndexSnapshotFieldDict) Less(a, b int) bool {
	return i.cursors[a].curr.Term < i.cursors[b].curr.Term
}
func (i *IndexSnapshotFieldDict) Swap(a, b int) {
	i.cursors[a], i.cursors[b] = i.cursors[b], i.cursors[a]
}

func (i *IndexSnapshotFieldDict) Push(x interface{}) {
	i.cursors = append(i.cursors, x.(*segmentDictCursor))
}

func (i *IndexSnapshotFieldDict) Pop() interface{} {
	n := len(i.cursors)
	x := i.cursors[n-1]
	i.cursors = i.cursors[0 : n-1]
	return x
}

func (i *IndexSnapshotFieldDict) Next() (*index.DictEntry, error) {
	if len(i.cursors) == 0 {
		return nil, nil
	}
	i.entry = i.cursors[0].curr
	next, err := i.cursors[0].itr.Next()
	if err != nil {
		return nil, err
	}
	if next == nil {
		// at end of this cursor, remove it
		heap.Pop(i)
	} else {
		// modified heap, fix it
		i.cursors[0].curr = *next
		heap.Fix(i, 0)
	}
	// look for any other entries with the exact same term
	for len(i.cursors) > 0 && i.cursors[0].curr.Term == i.entry.Term {
		i.entry.Count += i.cursors[0].curr.Count
		next, err := i.cursors[0].itr.Next()
		if err != nil {
			return nil, err
		}
		if next == nil {
			// at end of this cursor, remove it
			heap.Pop(i)
		} else {
			// modified heap, fix it
			i.cursors[0].curr = *next
			heap.Fix(i, 0)
		}
	}

	return &i.entry, nil
}

func (i *IndexSnapshotFieldDict) Cardinality() int {
	return i.cardinality
}

func (i *IndexSnapshotFieldDict) Close() error {
	return nil
}

func (i *IndexSnapshotFieldDict) Contains(key []byte) (bool, error) {
	if len(i.cursors) == 0 {
		return false, nil
	}

	for _, cursor := range i.cursors {
		if found, _ := cursor.dict.Contains(key); found {
			return true, nil
		}
	}

	return false, nil
}
