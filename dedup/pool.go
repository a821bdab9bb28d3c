package dedup

import (
	"slices"
	"sort"
)

// Pool holds the fingerprints of texts not yet in any index (the earlier items
// of an import or a batch of saves) and finds those most like a new text, as
// the index does for stored memories: candidates are the texts that share the
// new text's rarest words, and only they are scored exactly.
type Pool struct {
	fps      []*Fingerprint
	postings map[uint64][]int32 // word → indexes into fps
}

// NewPool returns an empty pool.
func NewPool() *Pool { return &Pool{postings: map[uint64][]int32{}} }

// Len is how many fingerprints the pool holds.
func (p *Pool) Len() int { return len(p.fps) }

// Add puts fp in the pool and returns its index.
func (p *Pool) Add(fp *Fingerprint) int {
	i := len(p.fps)
	p.fps = append(p.fps, fp)
	for _, w := range fp.words {
		p.postings[w] = append(p.postings[w], int32(i))
	}
	return i
}

// Match is a pooled fingerprint and its score against the one looked up.
type Match struct {
	Index int
	Score float64
}

// poolRarest is how many of a text's words, the rarest in the pool, find its
// candidates; poolCandidates how many candidates are scored.
const (
	poolRarest     = 10
	poolCandidates = 20
)

// Similar returns the pooled fingerprints most like fp, best first (then by
// index), at most n of them, scores above 0 only.
func (p *Pool) Similar(fp *Fingerprint, n int) []Match {
	if fp.Empty() || len(p.fps) == 0 || n <= 0 {
		return nil
	}
	type word struct {
		w  uint64
		df int
	}
	ws := make([]word, 0, len(fp.words))
	for _, w := range fp.words {
		if df := len(p.postings[w]); df > 0 {
			ws = append(ws, word{w, df})
		}
	}
	sort.Slice(ws, func(i, j int) bool {
		if ws[i].df != ws[j].df {
			return ws[i].df < ws[j].df
		}
		return ws[i].w < ws[j].w
	})
	shared := map[int32]int{}
	for _, w := range ws[:min(poolRarest, len(ws))] {
		for _, i := range p.postings[w.w] {
			shared[i]++
		}
	}
	cands := make([]int32, 0, len(shared))
	for i := range shared {
		cands = append(cands, i)
	}
	slices.SortFunc(cands, func(a, b int32) int {
		if shared[a] != shared[b] {
			return shared[b] - shared[a]
		}
		return int(a - b)
	})
	var out []Match
	for _, i := range cands[:min(poolCandidates, len(cands))] {
		if s := Score(fp, p.fps[i]); s > 0 {
			out = append(out, Match{Index: int(i), Score: s})
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
