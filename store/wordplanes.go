package store

import (
	"cmp"
	"math/bits"
	"slices"

	"github.com/cortexmem/cortex/dedup"
	"github.com/cortexmem/cortex/memories"
)

// Bit planes of a kept word index's commonest words.
//
// A real-shaped note shares hundreds of its words with most of its project,
// and those words' lists are the longest: a save's near count (countNear)
// read 10,000 to 200,000 postings at 10,000 real-shaped notes, 1.35 ms of a
// 4.4 ms save in the server. A word index a long-lived process keeps (the
// MCP server's) is read by save after save, so it pays to turn its
// commonest words' lists, once, into bits: each of the planeBits words with
// the longest lists gets a bit, set in the bit set of every memory holding
// it, kept as planes (the k-th 64 bits of every memory in one slice, as the
// dedup pool keeps them). A save's count of the words a memory shares is
// then the popcount of its bits and the new note's in the planes those
// words have bits in, one tight pass a plane over every memory, plus what
// the other words' lists, short ones, add: the count of every memory,
// exact, and no bound to walk by. Only a kept index has planes: a command
// reads its index once, and making them reads every common list, which is
// what the near count spares.
const (
	// planeWords is how many 64-bit words a memory's bits take, and
	// planeBits how many words can have one.
	planeWords = 8
	planeBits  = 64 * planeWords
)

// planeMinList is the shortest list whose word gets a bit: a shorter one
// is walked as cheaply as the planes are read. A variable so that tests
// can give every word one.
var planeMinList = 64

// planeMaxSets is the most memories an index with planes may number: each
// takes 8 bytes a plane, up to 64 bytes, 2 MB at this many; a server at
// 100,000 real-shaped notes of one project peaks near its 150 MB budget,
// and keeps no planes. A variable so that tests can change it.
var planeMaxSets = 1 << 15

// planesForAll gives every index planes, kept or not (tests).
var planesForAll = false

// wordPlanes are the bits of an index's commonest words: bit[w] is the bit
// of the word at place w of the index's words, planes[k][s] the k-th 64
// bits of memory s.
type wordPlanes struct {
	bit    map[int]int
	planes [][]uint64
}

// planesOf is ix's planes, made on first use; nil when it has none (an
// index not kept, too large, or without a list long enough).
func (ix *wordIndex) planesOf() *wordPlanes {
	if ix.walks == nil && !planesForAll || ix.nSets > planeMaxSets {
		return nil
	}
	ix.planesOnce.Do(func() { ix.planes = ix.makePlanes() })
	return ix.planes
}

// makePlanes makes ix's planes: the planeBits words of longest lists, at
// least planeMinList long, each a bit, set for every memory its list
// holds. A posting out of range or not above the one before it (a damaged
// file the checksum let through) is skipped, as count skips it.
func (ix *wordIndex) makePlanes() *wordPlanes {
	type list struct{ w, from, to int }
	var common []list
	for w := 0; w < ix.nWords; w++ {
		from, to := le32(ix.data, ix.strt+4*w), le32(ix.data, ix.strt+4*w+4)
		if to-from >= planeMinList {
			common = append(common, list{w, from, to})
		}
	}
	if len(common) == 0 {
		return nil
	}
	slices.SortFunc(common, func(a, b list) int {
		if c := cmp.Compare(b.to-b.from, a.to-a.from); c != 0 {
			return c
		}
		return cmp.Compare(a.w, b.w)
	})
	common = common[:min(len(common), planeBits)]
	p := &wordPlanes{bit: make(map[int]int, len(common)), planes: make([][]uint64, (len(common)+63)/64)}
	for k := range p.planes {
		p.planes[k] = make([]uint64, ix.nSets)
	}
	for b, l := range common {
		p.bit[l.w] = b
		ix.walked(ix.postsAt+4*l.from, ix.postsAt+4*l.to)
		plane, mask := p.planes[b/64], uint64(1)<<(b%64)
		prev := -1
		for at := ix.postsAt + 4*l.from; at < ix.postsAt+4*l.to; at += 4 {
			if s := le32(ix.data, at); s > prev && s < ix.nSets {
				plane[s] |= mask
				prev = s
			}
		}
	}
	return p
}

// countNearPlanes is countNear over ix's planes p: every memory's count,
// exact (the common words' bits, and the other words' lists walked), then
// the memories that matter, in increasing order, with the floor raised by
// the near.Top-th best Related among those that cannot be duplicates.
func (ix *wordIndex) countNearPlanes(p *wordPlanes, words []uint64, counts []uint32, near memories.NearWords, skip func(s int) bool, floor *float64) []int {
	q := make([]uint64, len(p.planes))
	read := 0
	ix.listsAt(words, func(w, from, to int) {
		if b, ok := p.bit[w]; ok {
			q[b/64] |= 1 << (b % 64)
			return
		}
		read += to - from
		ix.countList(from, to, counts)
	})
	postingsRead.Add(int64(read))
	for k, qk := range q {
		if qk == 0 {
			continue
		}
		plane := p.planes[k][:len(counts)]
		for s, b := range plane {
			counts[s] += uint32(bits.OnesCount64(qk & b))
		}
	}
	n := len(words)
	dupAt, most := nearBars(n, near)
	// count is memory s's count, no more than its set's size (a damaged
	// file's lists may hold it more often than its set says), and its
	// set's size.
	count := func(s int) (int, int) {
		_, l := ix.set(s)
		return min(int(counts[s]), l), l
	}
	if near.Top > 0 {
		best := make([]float64, 0, near.Top+1) // decreasing
		bar := max(near.Related, *floor)
		for s, c := range counts {
			if c == 0 || int(c) < len(most) && most[c] <= bar {
				continue
			}
			c, l := count(s)
			if c >= dupAt || skip(s) {
				continue
			}
			if _, r := dedup.OverlapOf(n, c, l); r > bar {
				best, bar = addBest(best, r, near.Top, bar)
			}
		}
		if len(best) == near.Top && best[near.Top-1] > *floor {
			*floor = best[near.Top-1]
		}
	}
	bar := max(near.Related, *floor)
	var out []int
	for s, c := range counts {
		if c == 0 || int(c) < dupAt && int(c) < len(most) && most[c] < bar {
			continue
		}
		c, l := count(s)
		if skip(s) {
			continue
		}
		if c >= dupAt {
			out = append(out, s)
			continue
		}
		if _, r := dedup.OverlapOf(n, c, l); r > near.Related && r >= *floor {
			out = append(out, s)
		}
	}
	return out
}

// listsAt is lists, with each word's place in the index's words.
func (ix *wordIndex) listsAt(words []uint64, fn func(w, from, to int)) {
	lo := 0
	for _, w := range words {
		i, j := lo, ix.nWords
		for i < j {
			h := int(uint(i+j) >> 1)
			if ix.word(h) < w {
				i = h + 1
			} else {
				j = h
			}
		}
		lo = i
		if i < ix.nWords && ix.word(i) == w {
			fn(i, le32(ix.data, ix.strt+4*i), le32(ix.data, ix.strt+4*i+4))
		}
	}
}
