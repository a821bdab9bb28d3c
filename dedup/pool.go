package dedup

import (
	"fmt"
	"slices"
)

// Pool holds the fingerprints of texts not yet in any index (the earlier items
// of an import or a batch of saves, or every stored memory for a large import)
// and finds those most like a new text, as the index does for stored
// memories: candidates are the texts that share the new text's rarest words,
// and only they are scored exactly.
type Pool struct {
	fps      []*Fingerprint     // nil with a store
	n        int                // how many fingerprints
	store    PoolStore          // where the fingerprints are, when not in fps
	err      error              // the store's first error
	enc      []byte             // scratch of the store's encodings
	older    Fingerprint        // scratch: a fingerprint read back from the store
	postings map[uint64][]int32 // word → indexes into fps
	// shared counts, per pooled text, the rare words it shares with the text
	// being looked up; touched lists the texts counted, to reset them.
	shared  []uint8
	touched []int32
	rarest  []poolWord // scratch of Similar
	cands   []poolCand // scratch of Similar
	at      []int32    // scratch of Similar
}

// poolCand is a pooled text sharing some of the rarest words of a text
// looked up, and how many.
type poolCand struct {
	index  int32
	shared uint8
}

// poolWord is a word of a text looked up and how many pooled texts hold it.
type poolWord struct {
	w  uint64
	df int
}

func (a poolWord) less(b poolWord) bool {
	if a.df != b.df {
		return a.df < b.df
	}
	return a.w < b.w
}

// PoolStore keeps the fingerprints of a pool out of its memory (a file, say):
// a pool of a large import then holds only which texts have each word, and
// reads back the few fingerprints each lookup scores.
type PoolStore interface {
	// Put keeps enc, the encoding of the pool's i-th fingerprint (i counts
	// from 0, one more each call).
	Put(i int, enc []byte) error
	// Get appends the encoding Put kept as the i-th to b.
	Get(i int, b []byte) ([]byte, error)
}

// NewPool returns an empty pool.
func NewPool() *Pool { return &Pool{postings: map[uint64][]int32{}} }

// NewStoredPool returns an empty pool that keeps its fingerprints in st. It
// finds and scores as a pool of NewPool does; a store's error makes it find
// nothing from then on, and is Err.
func NewStoredPool(st PoolStore) *Pool {
	return &Pool{postings: map[uint64][]int32{}, store: st}
}

// Err is the first error of the pool's store, nil if none (and without one).
func (p *Pool) Err() error { return p.err }

// Len is how many fingerprints the pool holds.
func (p *Pool) Len() int { return p.n }

// Add puts fp in the pool and returns its index.
func (p *Pool) Add(fp *Fingerprint) int {
	i := p.n
	p.n++
	if p.store == nil {
		p.fps = append(p.fps, fp)
	} else if p.err == nil {
		p.enc = fp.AppendBinary(p.enc[:0])
		p.err = p.store.Put(i, p.enc)
	}
	p.shared = append(p.shared, 0)
	for _, w := range fp.words {
		p.postings[w] = append(p.postings[w], int32(i))
	}
	return i
}

// Match is a pooled fingerprint, the score of the one looked up against it
// (Score: the one looked up is the new text), and how related they are
// (Related).
type Match struct {
	Index   int
	Score   float64
	Related float64
}

// poolRarest is how many of a text's words, the rarest in the pool, find its
// candidates; poolCandidates how many candidates are scored.
const (
	poolRarest     = 10
	poolCandidates = 20
)

// Similar returns the pooled fingerprints most like fp, best first (then by
// index), at most n of them, scores above 0 only. It is not safe to call from
// two goroutines at once.
func (p *Pool) Similar(fp *Fingerprint, n int) []Match {
	if fp.Empty() || p.n == 0 || n <= 0 || p.err != nil {
		return nil
	}
	// The poolRarest rarest words, by how many texts hold them then by
	// hash: kept in order as they are found, rather than sorting all of
	// the text's words.
	ws := p.rarest[:0]
	for _, w := range fp.words {
		df := len(p.postings[w])
		if df == 0 {
			continue
		}
		x := poolWord{w, df}
		if len(ws) == poolRarest && !x.less(ws[poolRarest-1]) {
			continue
		}
		at, _ := slices.BinarySearchFunc(ws, x, func(a, b poolWord) int {
			if a.less(b) {
				return -1
			}
			return 1 // the hashes of a set are distinct: never equal
		})
		if len(ws) < poolRarest {
			ws = append(ws, poolWord{})
		}
		copy(ws[at+1:], ws[at:])
		ws[at] = x
	}
	p.rarest = ws
	// Count, per pooled text, how many of the rarest words it shares. A slice
	// indexed by text, reset through the list of texts touched, costs a
	// fraction of a map.
	p.touched = p.touched[:0]
	for _, w := range ws[:min(poolRarest, len(ws))] {
		for _, i := range p.postings[w.w] {
			if p.shared[i] == 0 {
				p.touched = append(p.touched, i)
			}
			p.shared[i]++
		}
	}
	// The candidates: those sharing the most, lower indexes first among
	// equals. One pass counts the texts by how many words they share, which
	// gives the least count a candidate can have; a second keeps those (and
	// resets the counts), and only they are sorted.
	var hist [poolRarest + 1]int
	for _, i := range p.touched {
		hist[p.shared[i]]++
	}
	least, n := 1, 0
	for c := min(poolRarest, len(ws)); c >= 1; c-- {
		if n += hist[c]; n >= poolCandidates {
			least = c
			break
		}
	}
	// Those above the least count are fewer than poolCandidates; of those
	// at it, the lowest indexes fill the rest.
	cands, at := p.cands[:0], p.at[:0]
	for _, i := range p.touched {
		switch c := p.shared[i]; {
		case int(c) > least:
			cands = append(cands, poolCand{i, c})
		case int(c) == least:
			at = append(at, i)
		}
		p.shared[i] = 0
	}
	slices.SortFunc(cands, func(a, b poolCand) int {
		if a.shared != b.shared {
			return int(b.shared) - int(a.shared)
		}
		return int(a.index - b.index)
	})
	slices.Sort(at)
	for _, i := range at[:min(poolCandidates-len(cands), len(at))] {
		cands = append(cands, poolCand{i, uint8(least)})
	}
	p.cands, p.at = cands, at
	var out []Match
	for _, c := range cands {
		i := c.index
		s, err := p.compare(fp, i)
		if err != nil {
			p.err = err
			return nil
		}
		if s.Score > 0 {
			out = append(out, Match{Index: int(i), Score: s.Score, Related: s.Related})
		}
	}
	slices.SortFunc(out, func(a, b Match) int {
		switch {
		case a.Score > b.Score:
			return -1
		case a.Score < b.Score:
			return 1
		}
		return a.Index - b.Index
	})
	return out[:min(n, len(out))]
}

// compare is Compare(fp, the i-th pooled fingerprint). A fingerprint read
// back from the store is decoded whole only when its conflicts can change the
// score — when fp shares more than conflictCap of its words with it —, as
// Compare's score is min(words, conflictCap) with a conflict, else words.
func (p *Pool) compare(fp *Fingerprint, i int32) (Similarity, error) {
	if p.store == nil {
		return Compare(fp, p.fps[i]), nil
	}
	var err error
	if p.enc, err = p.store.Get(int(i), p.enc[:0]); err != nil {
		return Similarity{}, fmt.Errorf("read pooled fingerprint %d: %w", i, err)
	}
	words, n, err := encodedWords(p.enc)
	if err != nil {
		return Similarity{}, fmt.Errorf("read pooled fingerprint %d: %w", i, err)
	}
	if fp.Empty() || n == 0 {
		return Similarity{}, nil
	}
	common := intersectEncoded(fp.words, words)
	s := Similarity{
		Words:   float64(common) / float64(len(fp.words)),
		Related: 2 * float64(common) / float64(len(fp.words)+n),
	}
	s.Score = s.Words
	if s.Words <= conflictCap {
		return s, nil
	}
	if err := p.older.DecodeInto(p.enc); err != nil {
		return Similarity{}, fmt.Errorf("read pooled fingerprint %d: %w", i, err)
	}
	return Compare(fp, &p.older), nil
}
