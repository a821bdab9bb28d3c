package dedup

import (
	"cmp"
	"fmt"
	"math/bits"
	"slices"
)

// Pool holds the fingerprints of texts not yet in any index (the earlier items
// of an import or a batch of saves, or every stored memory for a large import)
// and finds, for a new text, exactly the pooled texts a save's check needs:
// every one it may duplicate and the most related ones (see Near). No text is
// missed because others share more of the new text's rare words: each pooled
// text's count of shared words is exact.
//
// The count is cheap because of how words are kept. A word held by a few
// texts keeps the list of them; once it is held by promoteAt texts it gets
// one of poolSlots bits, set in the bit set of every text holding it, and
// its list is dropped. Counting the words a pooled text shares with a new one
// is then the popcount of their bit sets' intersection plus what the rare
// words' lists add: a vocabulary of a few hundred words, where every word is
// in hundreds of texts, costs a few nanoseconds per pooled text, and the
// long tail of a real vocabulary costs the length of short lists. The bit
// sets are kept as poolBitWords planes, the w-th 64 bits of every text in
// one slice: a lookup reads only the planes its words have bits in, in one
// tight pass each, and looks at each text's count once, after. Once every
// bit is given, the bits of the words held by the fewest texts go to words
// held by many more (see rebalance).
type Pool struct {
	n int
	// fps are the first fingerprints: every one without a store, and with
	// one those that fit in hold bytes (held so far); the store has the
	// others, the first of them as its 0th.
	fps   []*Fingerprint
	store PoolStore // where the fingerprints are, when not in fps
	hold  int
	held  int
	err   error       // the store's first error
	enc   []byte      // scratch of the store's encodings
	older Fingerprint // scratch: a fingerprint read back from the store

	groups []int32 // each text's group (a project, say)
	// grouped counts the texts of each group, to know when every text is in
	// the groups looked in.
	grouped map[int32]int
	sizes   []int32 // each text's number of words
	// planes[w][j] is the w-th 64 bits of text j's bit set: its words that
	// have a slot.
	planes [poolBitWords][]uint64
	words  map[uint64]int32
	infos  []poolWord // by words' value
	slots  int        // slots given so far
	// owners are the words holding each slot given, and rebalanceAt the
	// pool's size at which the slots next go to the words most held.
	owners      []int32
	rebalanceAt int
	moved       int // slots given to another word

	// looked are the words of the text Near looked up last (lookedUp), as
	// their indexes in infos, -1 for a word the pool did not hold then. An
	// import adds a text it accepts right after looking it up: Add then
	// finds the words held already here, not in the map a second time (the
	// index of a word held never changes).
	lookedUp []uint64
	looked   []int32

	// Scratch of Near: the words each pooled text shares with the one looked
	// up.
	counts []int32
	top    []nearText
	dups   []nearText
	order  []int32 // the matches to score
}

// poolWord is what a pool keeps of a word: its bit, or the texts holding it.
type poolWord struct {
	slot     int32   // -1 while it has none
	df       int32   // how many texts hold it
	postings []int32 // the texts holding it, while it has no slot
}

// nearText is a pooled text sharing words with one looked up.
type nearText struct {
	index, common, size int32
}

const (
	// poolBitWords is how many 64-bit words a text's bit set takes, and
	// poolSlots how many words can have a bit.
	poolBitWords = 8
	poolSlots    = 64 * poolBitWords
	// promoteAt is how many texts must hold a word for it to get a bit:
	// below, its list is shorter than a scan of the bit sets makes worth.
	promoteAt = 16
)

// PoolStore keeps the fingerprints of a pool out of its memory (a file, say):
// a pool of a large import then holds only its words' bits and lists, and
// reads back the few fingerprints a lookup scores whole.
type PoolStore interface {
	// Put keeps enc, the encoding of the pool's i-th fingerprint (i counts
	// from 0, one more each call).
	Put(i int, enc []byte) error
	// Get appends the encoding Put kept as the i-th to b.
	Get(i int, b []byte) ([]byte, error)
}

// NewPool returns an empty pool.
func NewPool() *Pool { return &Pool{words: map[uint64]int32{}, grouped: map[int32]int{}} }

// NewStoredPool returns an empty pool that keeps its fingerprints in st. It
// finds and scores as a pool of NewPool does; a store's error makes it find
// nothing from then on, and is Err.
func NewStoredPool(st PoolStore) *Pool {
	return &Pool{words: map[uint64]int32{}, grouped: map[int32]int{}, store: st}
}

// HoldInMemory keeps the fingerprints of a pool with a store in memory
// until they take n bytes, the first n bytes' worth: only those added after
// go to the store. An import of a few thousand notes then pays nothing for
// its store (encoding each fingerprint, copying it in and out, decoding the
// ones it scores: a tenth of the CPU of a real-shaped dry run, most of it on
// the one core its comparisons run on), and a large one holds at most n
// bytes more. Call it before the first Add.
func (p *Pool) HoldInMemory(n int) { p.hold = n }

// Err is the first error of the pool's store, nil if none (and without one).
func (p *Pool) Err() error { return p.err }

// Len is how many fingerprints the pool holds.
func (p *Pool) Len() int { return p.n }

// Add puts fp in the pool, in group (Near looks in the groups it is given),
// and returns its index.
func (p *Pool) Add(fp *Fingerprint, group int32) int {
	i := p.n
	p.n++
	switch {
	case p.store == nil:
		p.fps = append(p.fps, fp)
	case len(p.fps) == i && p.held+fp.memSize() <= p.hold:
		p.fps = append(p.fps, fp)
		p.held += fp.memSize()
	case p.err == nil:
		p.enc = fp.AppendBinary(p.enc[:0])
		p.err = p.store.Put(i-len(p.fps), p.enc)
	}
	p.groups = append(p.groups, group)
	p.grouped[group]++
	p.sizes = append(p.sizes, int32(len(fp.Words())))
	p.counts = append(p.counts, 0)
	for w := range p.planes {
		p.planes[w] = append(p.planes[w], 0)
	}
	var looked []int32
	if slices.Equal(fp.Words(), p.lookedUp) {
		looked = p.looked
	}
	for j, w := range fp.Words() {
		var k int32
		ok := false
		if looked != nil && looked[j] >= 0 {
			k, ok = looked[j], true
		} else {
			k, ok = p.words[w]
		}
		if !ok {
			k = int32(len(p.infos))
			p.infos = append(p.infos, poolWord{slot: -1})
			p.words[w] = k
		}
		info := &p.infos[k]
		info.df++
		if info.slot >= 0 {
			p.planes[info.slot/64][i] |= 1 << (info.slot % 64)
			continue
		}
		info.postings = append(info.postings, int32(i))
		if len(info.postings) >= promoteAt && p.slots < poolSlots {
			s := int32(p.slots)
			p.slots++
			p.owners = append(p.owners, k)
			p.promote(k, s)
		}
	}
	if p.slots == poolSlots && p.n >= p.rebalanceAt {
		p.rebalance()
	}
	return i
}

// promote gives word k slot s: its texts get the bit, and its list goes.
func (p *Pool) promote(k, s int32) {
	info := &p.infos[k]
	info.slot = s
	plane, bit := p.planes[s/64], uint64(1)<<(s%64)
	for _, j := range info.postings {
		plane[j] |= bit
	}
	info.postings = nil
}

// demote takes word k's slot away: its texts, read off the bit, are its
// list again.
func (p *Pool) demote(k int32) int32 {
	info := &p.infos[k]
	s := info.slot
	plane, bit := p.planes[s/64], uint64(1)<<(s%64)
	info.postings = make([]int32, 0, info.df)
	for j := range plane {
		if plane[j]&bit != 0 {
			plane[j] &^= bit
			info.postings = append(info.postings, int32(j))
		}
	}
	info.slot = -1
	return s
}

// rebalance gives the slots of the words held by the fewest texts to words
// without one held by many more, once all slots are given: the slots go
// first come, first served, and an import that reads one language after
// another finds its most common words later. Taking a slot away costs a
// pass over the pool, so a word must be held by twice as many texts (and
// promoteAt more) to take it, and the pool grows by an eighth between two
// rebalances.
func (p *Pool) rebalance() {
	p.rebalanceAt = p.n + max(p.n/8, 256)
	type held struct{ k, df int32 }
	var want []held
	least := int32(1 << 30)
	for _, k := range p.owners {
		least = min(least, p.infos[k].df)
	}
	for k := range p.infos {
		if x := &p.infos[k]; x.slot < 0 && x.df >= 2*least+promoteAt {
			want = append(want, held{int32(k), x.df})
		}
	}
	if len(want) == 0 {
		return
	}
	slices.SortFunc(want, func(a, b held) int { return cmp.Or(cmp.Compare(b.df, a.df), cmp.Compare(a.k, b.k)) })
	owners := make([]held, len(p.owners))
	for i, k := range p.owners {
		owners[i] = held{k, p.infos[k].df}
	}
	// The slots of the least held first, slot order among equals.
	order := make([]int, len(owners))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return cmp.Or(cmp.Compare(owners[a].df, owners[b].df), a-b) })
	for i, w := range want {
		if i == len(order) {
			break
		}
		o := owners[order[i]]
		if w.df < 2*o.df+promoteAt {
			break
		}
		s := p.demote(o.k)
		p.owners[s] = w.k
		p.promote(w.k, s)
		p.moved++
	}
}

// Match is a pooled text and how the one looked up (the new text) compares
// with it: Words and Related as Compare gives them, and Score, which is
// Compare's for a text whose Words reaches the duplicate threshold and Words
// for the others (Score is at most Words: only those can be duplicates).
type Match struct {
	Index   int
	Words   float64
	Score   float64
	Related float64
}

// Near returns, of the pooled texts in groups, what choosing the new text's
// duplicate and related texts by th needs, exactly as comparing it with each
// of them would give: every text whose Words reaches th.Duplicate, and the k
// texts whose Related is highest above th.Related together with every text
// tied with the k-th (the caller breaks ties by its own order). Matches are
// in index order; texts sharing no word are never returned. It is not safe
// to call from two goroutines at once.
func (p *Pool) Near(fp *Fingerprint, groups []int32, th Thresholds, k int) []Match {
	return p.near(fp, groups, th, k, false)
}

// NearBest is Near for a caller that takes, of the texts whose Words reaches
// th.Duplicate, only the one scoring best (a save's check of its duplicate):
// it scores them most Words first and stops once the next one's Words is
// below the best score so far. Those left have Score = Words, more than
// their score but less than the best (a score is at most Words), so the
// best is the same and every text tied with it is scored; the rest of each
// Match is Near's. Comparing whole fingerprints was a tenth of a real-shaped
// import's dry run, where a note has dozens of possible duplicates.
func (p *Pool) NearBest(fp *Fingerprint, groups []int32, th Thresholds, k int) []Match {
	return p.near(fp, groups, th, k, true)
}

func (p *Pool) near(fp *Fingerprint, groups []int32, th Thresholds, k int, best bool) []Match {
	if fp.Empty() || p.n == 0 || p.err != nil || len(groups) == 0 {
		return nil
	}
	n := int32(len(fp.words))
	// least is the fewest shared words whose Words reaches the duplicate
	// threshold, as the float division Compare makes says it.
	least := n + 1
	for c := int32(0); c <= n; c++ {
		if float64(c)/float64(n) >= th.Duplicate {
			least = c
			break
		}
	}
	// counts[j] is how many words text j shares with the new one: first
	// what the rare words' lists say, then each plane the new text's words
	// have bits in, in one pass over every text.
	counts := p.counts[:p.n]
	clear(counts)
	var q [poolBitWords]uint64
	looked := p.looked[:0]
	for _, w := range fp.words {
		x, ok := p.words[w]
		if !ok {
			looked = append(looked, -1)
			continue
		}
		looked = append(looked, x)
		info := &p.infos[x]
		if info.slot >= 0 {
			q[info.slot/64] |= 1 << (info.slot % 64)
			continue
		}
		for _, j := range info.postings {
			counts[j]++
		}
	}
	p.looked, p.lookedUp = looked, append(p.lookedUp[:0], fp.words...)
	addShared(counts, &p.planes, &q)
	// Every text is in the groups looked in (one project, say): no text's
	// group needs looking at.
	inGroups := 0
	for i, g := range groups {
		if !slices.Contains(groups[:i], g) {
			inGroups += p.grouped[g]
		}
	}
	all := inGroups == p.n
	g0, g1 := groups[0], groups[0]
	if len(groups) > 1 {
		g1 = groups[1]
	}
	// A text sharing c words has at least c words: its Related is at most
	// 2c/(n+c), which grows with c. relatedAt is the least count whose
	// bound passes Related (n+1 when no text can be related, or none is
	// asked for); a text sharing fewer words is not related whatever its
	// size. A text sharing fewer than relatedAt and least words matters
	// neither way: the scan passes it on its count alone, without looking
	// at its group or size. A text sharing no word is never a match,
	// whatever the thresholds. (Raising the bar to the k-th kept text's, as
	// it rises, made no difference on real-shaped imports and cost a fifth
	// of the lookups' time on the synthetic one.)
	relatedAt := n + 1
	if k > 0 {
		relatedAt = relatedFrom(n, th.Related)
	}
	lowest := max(1, min(least, relatedAt))
	top, dups := p.top[:0], p.dups[:0]
	// cut is the k-th most related text once k are kept: a text less
	// related than it is not kept.
	var cut nearText
	full := false
	for j, c := range counts {
		if c < lowest {
			continue
		}
		if g := p.groups[j]; !all && g != g0 && g != g1 && (len(groups) <= 2 || !slices.Contains(groups[2:], g)) {
			continue
		}
		size := p.sizes[j]
		if c >= least {
			dups = append(dups, nearText{int32(j), c, size})
		}
		if c < relatedAt {
			continue
		}
		t := nearText{int32(j), c, size}
		if full && lessRelated(t, cut, n) || 2*float64(c)/float64(n+size) <= th.Related {
			continue
		}
		top = append(top, t)
		if len(top) >= 4*k+16 {
			top, cut, full = keepTop(top, n, k)
		}
	}
	top, _, _ = keepTop(top, n, k)
	p.top, p.dups = top, dups
	if len(top)+len(dups) == 0 {
		return nil
	}
	out := make([]Match, 0, len(top)+len(dups))
	for _, t := range top {
		out = append(out, p.match(t, n))
	}
	for _, t := range dups {
		if !slices.ContainsFunc(top, func(x nearText) bool { return x.index == t.index }) {
			out = append(out, p.match(t, n))
		}
	}
	slices.SortFunc(out, func(a, b Match) int { return a.Index - b.Index })
	order := p.order[:0]
	for i := range out {
		if out[i].Words >= th.Duplicate {
			order = append(order, int32(i))
		}
	}
	if best {
		// Most Words first, index order among equals (a stable sort).
		slices.SortStableFunc(order, func(a, b int32) int { return cmp.Compare(out[b].Words, out[a].Words) })
	}
	p.order = order
	most := -1.0 // the best score so far
	for _, i := range order {
		if best && out[i].Words < most {
			break // the rest score less than most: a score is at most Words
		}
		s, err := p.compare(fp, int32(out[i].Index), out[i].Words)
		if err != nil {
			p.err = err
			return nil
		}
		out[i].Score = s
		most = max(most, s)
	}
	return out
}

// relatedFrom is the least count c of words shared with a text of n words
// for which 2c/(n+c), the most Related a text sharing them can have (it has
// at least c words), passes related as near compares it; n+1 when none does.
// Related falls as the text's size grows (a correctly rounded quotient does
// not rise as its divisor grows), so a text sharing fewer words is not
// related, whatever its size.
func relatedFrom(n int32, related float64) int32 {
	for c := int32(1); c <= n; c++ {
		if 2*float64(c)/float64(n+c) > related {
			return c
		}
	}
	return n + 1
}

// match is t's Match, scored as Overlap gives Words and Related.
func (p *Pool) match(t nearText, n int32) Match {
	w := float64(t.common) / float64(n)
	return Match{Index: int(t.index), Words: w, Score: w, Related: 2 * float64(t.common) / float64(n+t.size)}
}

// moreRelated orders a before b when it is more related to a text of n
// words, then by index.
func moreRelated(a, b nearText, n int32) int {
	x, y := int64(a.common)*int64(n+b.size), int64(b.common)*int64(n+a.size)
	if x != y {
		return cmp.Compare(y, x)
	}
	return cmp.Compare(a.index, b.index)
}

// lessRelated says whether a is less related than b to a text of n words.
// Related is 2·common/(n+size): the products of the fractions compare as the
// float divisions do, since two different fractions of such small numbers
// are farther apart than a rounding.
func lessRelated(a, b nearText, n int32) bool {
	return int64(a.common)*int64(n+b.size) < int64(b.common)*int64(n+a.size)
}

// keepTop keeps of top the k most related texts and those tied with the
// k-th, most related first, and gives the k-th and whether there are k.
func keepTop(top []nearText, n int32, k int) ([]nearText, nearText, bool) {
	slices.SortFunc(top, func(a, b nearText) int { return moreRelated(a, b, n) })
	if len(top) < k || k <= 0 {
		return top, nearText{}, false
	}
	cut := top[k-1]
	end := k
	for end < len(top) && !lessRelated(top[end], cut, n) {
		end++
	}
	return top[:end], cut, true
}

// compare is Compare(fp, the i-th pooled fingerprint).Score, given its Words.
// Compare's score is min(words, conflictCap) with a conflict, else words, so
// the whole fingerprint is looked at only when the conflicts can change it,
// and then only for them: words, the pool's exact count of shared words over
// fp's, is what Compare would count again.
func (p *Pool) compare(fp *Fingerprint, i int32, words float64) (float64, error) {
	if words <= conflictCap {
		return words, nil
	}
	if int(i) < len(p.fps) {
		return scoreGiven(fp, p.fps[i], words), nil
	}
	var err error
	if p.enc, err = p.store.Get(int(i)-len(p.fps), p.enc[:0]); err != nil {
		return 0, fmt.Errorf("read pooled fingerprint %d: %w", i, err)
	}
	if err := p.older.DecodeInto(p.enc); err != nil {
		return 0, fmt.Errorf("read pooled fingerprint %d: %w", i, err)
	}
	return scoreGiven(fp, &p.older, words), nil
}

// scoreGiven is Compare(newer, older).Score for two fingerprints with words,
// whose Words is words.
func scoreGiven(newer, older *Fingerprint, words float64) float64 {
	if conflict(newer, older) != "" {
		return min(words, conflictCap)
	}
	return words
}

// addShared adds to each text's count the words it shares with a new text
// whose bit set is q, over planes. The planes are taken four at a time, then
// two, then one: each pass reads and writes every count once, so taking
// planes together cuts what the passes move besides the bits (a tenth of a
// real-shaped import's lookups).
func addShared(counts []int32, planes *[poolBitWords][]uint64, q *[poolBitWords]uint64) {
	var active [poolBitWords]int
	na := 0
	for w, qw := range q {
		if qw != 0 {
			active[na] = w
			na++
		}
	}
	a := active[:na]
	for ; len(a) >= 4; a = a[4:] {
		addCommon4(counts, planes, q, a[0], a[1], a[2], a[3])
	}
	if len(a) >= 2 {
		addCommon2(counts, planes[a[0]], q[a[0]], planes[a[1]], q[a[1]])
		a = a[2:]
	}
	if len(a) == 1 {
		addCommon(counts, planes[a[0]], q[a[0]])
	}
}

// addCommon4 is addCommon for planes w, x, y and z at once.
func addCommon4(counts []int32, planes *[poolBitWords][]uint64, q *[poolBitWords]uint64, w, x, y, z int) {
	a, b, c, d := planes[w][:len(counts)], planes[x][:len(counts)], planes[y][:len(counts)], planes[z][:len(counts)]
	qa, qb, qc, qd := q[w], q[x], q[y], q[z]
	for j := range counts {
		counts[j] += int32(bits.OnesCount64(qa&a[j]) + bits.OnesCount64(qb&b[j]) + bits.OnesCount64(qc&c[j]) + bits.OnesCount64(qd&d[j]))
	}
}

// addCommon2 is addCommon for two planes at once.
func addCommon2(counts []int32, a []uint64, qa uint64, b []uint64, qb uint64) {
	a, b = a[:len(counts)], b[:len(counts)]
	for j := range counts {
		counts[j] += int32(bits.OnesCount64(qa&a[j]) + bits.OnesCount64(qb&b[j]))
	}
}

// addCommon adds to each text's count the words it shares with a new text in
// one plane: the bits of q set in its bits there.
func addCommon(counts []int32, plane []uint64, q uint64) {
	plane = plane[:len(counts)]
	for j, b := range plane {
		counts[j] += int32(bits.OnesCount64(q & b))
	}
}
