package store

import (
	"cmp"
	"encoding/binary"
	"hash/crc32"
	"math/bits"
	"slices"
	"sort"
	"sync"
	"sync/atomic"

	"github.com/cortexmem/cortex/dedup"
	"github.com/cortexmem/cortex/index"
	"github.com/cortexmem/cortex/memories"
)

// A project's word index: for each word, the project's memories that have it.
//
// A save counts, for every memory of its project and general, how many of its
// words the memory has. Merging the new memory's set with each of thousands of
// sets (16,000 at 100,000 notes) cost more than the rest of the save, and
// reading them all cost as much again. The index lists, for each word, the
// memories that have it, so a save walks the lists of its own few dozen words
// only: the same counts, exactly, for every memory that shares a word, and no
// memory that shares none is looked at.
//
// Memories are numbered by the catalog's base (index.Catalog.BaseID): the
// index holds neither paths nor entries, and is made again when another base
// is written (a compaction, a rebuild). What the journal changed since is
// compared apart (WordOverlaps).
//
// The file, little-endian:
//
//	header        wordIndexHeader, the probe's hash (8), the base's id (8)
//	counts        sets, stale, words, postings, keys, key refs (4 each)
//	sets          per memory: base number, size of its word set, hash of
//	              the bytes it was made from (4 + 4 + 8)
//	stale         base numbers of the memories whose notes did not read as
//	              the base says when the index was made (4 each)
//	words         the words, increasing (8 each)
//	starts        words+1 offsets into postings (4 each)
//	postings      memory numbers (places in sets), increasing per word (4 each)
//	keys          the keys (numbers and code tokens, dedup.Keys) of the
//	              memories, increasing (8 each)
//	key starts    2×sets+1 offsets into key refs: memory s's numbers are
//	              refs [2s, 2s+1), its code tokens [2s+1, 2s+2) (4 each)
//	key refs      places in keys, increasing per memory and kind (4 each)
//	checksum      CRC-32 (IEEE) of all that precedes (4)
//
// The keys let a save's duplicate check tell that a memory conflicts with
// the new one by a number or a code token it lacks without reading its
// note (memories.KnownKeys). Version 1 files, which have none, are of
// another header: like a file that is short, long, of another probe, or
// whose checksum or offsets do not hold, they are not used, and the index
// is made again (from the word-set files of version 2, which hold the keys
// too: a version 1 word-set file is read as empty, so the notes are read).

// wordIndexHeader starts a word index file.
const wordIndexHeader = "cortex dedup index 2\n"

const wordIndexFixed = len(wordIndexHeader) + 8 + 8 + 24

type wordIndex struct {
	data                           []byte
	base                           uint64
	nSets, nStale, nWords, nPost   int
	setsAt, staleAt, wordsAt, strt int
	postsAt                        int
	nKeys, nRefs                   int
	keysAt, keyStrt, refsAt        int
	// walks is what the walks of an index kept mapped by a long-lived
	// process have mapped of it since its pages were last dropped (nil
	// for any other index): see walked.
	walks *walkedChunks
	// fitted is the base fits last held for (fitsBase): a resident store
	// keeps the index while its file is unchanged, and asked it again on
	// every save, a look-up of every memory's hash in the catalog.
	fitted atomic.Pointer[index.BaseToken]
	// planes are the bits of the commonest words of a kept index, made on
	// its first near count (see planesOf).
	planesOnce sync.Once
	planes     *wordPlanes
}

func le32(b []byte, at int) int { return int(binary.LittleEndian.Uint32(b[at:])) }

// parseWordIndex reads a word index file; false when it cannot be trusted.
func parseWordIndex(data []byte) (*wordIndex, bool) {
	return parseWordIndexSummed(data, crc32.ChecksumIEEE)
}

// parseKeptWordIndex is parseWordIndexSummed of a file's mapping that a
// long-lived process keeps: the pages its checks read are taken out of the
// process's resident memory as it goes (dropResident), a chunk at a time,
// and they stay in the page cache, read again where a save's walk needs
// them; sum is checksumDropping, which drops them as it sums (or a check
// recorded before: see parseCheckedWordIndex). Checked whole in one go,
// the 100 MB index of a real-shaped 100,000-note project was all resident
// at once, two thirds of the MCP server's peak.
func parseKeptWordIndex(data []byte, sum func([]byte) uint32) (*wordIndex, bool) {
	ix, ok := parseWordIndexSummed(data, sum)
	dropResident(data)
	if ok {
		ix.walks = &walkedChunks{}
	}
	return ix, ok
}

// A save's walk reads the lists of its words, a few hundred in a
// real-shaped note, spread over the postings; the kernel maps a file's
// page cache a large page at a time (up to 2 MB), so that one save into a
// real-shaped 100,000-note project left 80 of its index's 100 MB resident
// in the server, half its memory. The walks of a kept index note the
// chunks of the file they read, and once they have read keptWalkBudget's
// worth, the index's pages are dropped (dropResident) and the count
// starts again: what the walks read next is mapped again from the page
// cache, a large page at a time. An index smaller than the budget (a
// project of 10,000 notes has 9 MB) is never dropped.
var keptWalkBudget = 16 << 20

// walkChunk is the most of a file one fault maps (a large page); tests
// make it smaller.
var walkChunk = 2 << 20

// walkedChunks is which chunks of a kept index's file its walks have read
// since its pages were last dropped.
type walkedChunks struct {
	mu   sync.Mutex
	bits []uint64
	n    int
	// drops counts the times the pages were dropped, for tests.
	drops int
}

// walked notes that a walk read ix.data[from:to]; a kept index's pages
// are dropped once the chunks read reach the budget.
func (ix *wordIndex) walked(from, to int) {
	w := ix.walks
	if w == nil || from >= to {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	for c := from / walkChunk; c <= (to-1)/walkChunk; c++ {
		if c/64 >= len(w.bits) {
			w.bits = append(w.bits, make([]uint64, c/64+1-len(w.bits))...)
		}
		if w.bits[c/64]&(1<<(c%64)) == 0 {
			w.bits[c/64] |= 1 << (c % 64)
			w.n++
		}
	}
	if w.n*walkChunk >= keptWalkBudget {
		dropResident(ix.data)
		clear(w.bits)
		w.n = 0
		w.drops++
	}
}

// keptCheckChunk is how much of a kept index is checksummed before its
// pages are dropped: a multiple of the page size, so that every chunk
// starts on a page (tests make it smaller).
var keptCheckChunk = 4 << 20

// checksumDropping is crc32.ChecksumIEEE(data), dropping each chunk's pages
// once summed.
func checksumDropping(data []byte) uint32 {
	var sum uint32
	for len(data) > 0 {
		n := min(len(data), keptCheckChunk)
		sum = crc32.Update(sum, crc32.IEEETable, data[:n])
		dropResident(data[:n])
		data = data[n:]
	}
	return sum
}

// parseWordIndexSummed is parseWordIndex with its checksum taken by sum
// (crc32.ChecksumIEEE, or checksumDropping).
func parseWordIndexSummed(data []byte, sum func([]byte) uint32) (*wordIndex, bool) {
	if len(data) < wordIndexFixed+8 || string(data[:len(wordIndexHeader)]) != wordIndexHeader {
		return nil, false
	}
	at := len(wordIndexHeader)
	if binary.LittleEndian.Uint64(data[at:]) != probeHash() {
		return nil, false
	}
	ix := &wordIndex{data: data, base: binary.LittleEndian.Uint64(data[at+8:])}
	at += 16
	ix.nSets, ix.nStale, ix.nWords, ix.nPost = le32(data, at), le32(data, at+4), le32(data, at+8), le32(data, at+12)
	ix.nKeys, ix.nRefs = le32(data, at+16), le32(data, at+20)
	// Sizes in int64, so that no count of a damaged file overflows.
	size := int64(wordIndexFixed) + 16*int64(ix.nSets) + 4*int64(ix.nStale) + 8*int64(ix.nWords) +
		4*(int64(ix.nWords)+1) + 4*int64(ix.nPost) +
		8*int64(ix.nKeys) + 4*(2*int64(ix.nSets)+1) + 4*int64(ix.nRefs) + 4
	if size != int64(len(data)) {
		return nil, false
	}
	n := len(data) - 4
	if sum(data[:n]) != binary.LittleEndian.Uint32(data[n:]) {
		return nil, false
	}
	ix.setsAt = wordIndexFixed
	ix.staleAt = ix.setsAt + 16*ix.nSets
	ix.wordsAt = ix.staleAt + 4*ix.nStale
	ix.strt = ix.wordsAt + 8*ix.nWords
	ix.postsAt = ix.strt + 4*(ix.nWords+1)
	ix.keysAt = ix.postsAt + 4*ix.nPost
	ix.keyStrt = ix.keysAt + 8*ix.nKeys
	ix.refsAt = ix.keyStrt + 4*(2*ix.nSets+1)
	if !ix.keysHold() {
		return nil, false
	}
	// The offsets and the words' order, checked once so that count need
	// not; the postings themselves are checked as they are walked.
	prev := 0
	for w := 0; w <= ix.nWords; w++ {
		s := le32(data, ix.strt+4*w)
		if s < prev || s > ix.nPost || w == 0 && s != 0 {
			return nil, false
		}
		prev = s
		if w > 0 && w < ix.nWords && ix.word(w) <= ix.word(w-1) {
			return nil, false
		}
	}
	return ix, prev == ix.nPost
}

func (ix *wordIndex) word(w int) uint64 {
	return binary.LittleEndian.Uint64(ix.data[ix.wordsAt+8*w:])
}

// fits reports whether every memory of ix is in the base, as baseLen and
// hash (of a base number) say: a base number below baseLen whose note has
// the hash its set was made from. The base's id says as much; this makes
// an index made for another base with the same id (two compactions in one
// clock tick, say) be made again rather than trusted.
func (ix *wordIndex) fits(baseLen int, hash func(i int) uint64) bool {
	for s := 0; s < ix.nSets; s++ {
		if i, _ := ix.set(s); i >= baseLen || hash(i) != ix.hash(s) {
			return false
		}
	}
	for _, i := range ix.staleList() {
		if i >= baseLen {
			return false
		}
	}
	return true
}

// fitsBase is fits for the catalog base tok (whose length and hashes are
// baseLen and hash), remembered for that base: a base never changes, so
// an index that fits it fits it still.
func (ix *wordIndex) fitsBase(tok index.BaseToken, baseLen int, hash func(i int) uint64) bool {
	if t := ix.fitted.Load(); t != nil && *t == tok && tok != (index.BaseToken{}) {
		return true
	}
	if !ix.fits(baseLen, hash) {
		return false
	}
	ix.fitted.Store(&tok)
	return true
}

// set is memory s's base number and the size of its word set.
func (ix *wordIndex) set(s int) (base, n int) {
	return le32(ix.data, ix.setsAt+16*s), le32(ix.data, ix.setsAt+16*s+4)
}

// hash is the hash of the bytes memory s's word set was made from.
func (ix *wordIndex) hash(s int) uint64 {
	return binary.LittleEndian.Uint64(ix.data[ix.setsAt+16*s+8:])
}

// staleList is the base numbers of the memories the index could not hold.
func (ix *wordIndex) staleList() []int {
	out := make([]int, ix.nStale)
	for k := range out {
		out[k] = le32(ix.data, ix.staleAt+4*k)
	}
	return out
}

// count adds to counts[s], for every memory s, how many of words (sorted,
// without repeats) it has. counts must have a place for each memory. A
// posting out of range or not above the one before it in its list (a
// damaged file the checksum let through) is skipped: a memory is counted
// at most once a word, whatever the file.
func (ix *wordIndex) count(words []uint64, counts []uint32) {
	ix.lists(words, func(from, to int) {
		postingsRead.Add(int64(to - from))
		ix.countList(from, to, counts)
	})
}

// countList adds one to counts[s] for every memory s of the postings from
// to to, skipping as count does.
func (ix *wordIndex) countList(from, to int, counts []uint32) {
	ix.walked(ix.postsAt+4*from, ix.postsAt+4*to)
	prev := -1
	for p := ix.postsAt + 4*from; p < ix.postsAt+4*to; p += 4 {
		if s := le32(ix.data, p); s > prev && s < len(counts) {
			counts[s]++
			prev = s
		}
	}
}

// lists calls fn with the bounds in the postings of each of words' lists
// (words sorted, without repeats), in words' order; a word the index does
// not hold has none.
func (ix *wordIndex) lists(words []uint64, fn func(from, to int)) {
	ix.listsAt(words, func(_, from, to int) { fn(from, to) })
}

// encodeWordIndex makes the word index of base (an id) whose memories are
// the base numbers bases with their word sets sets (sorted, without
// repeats) and their keys, made from bytes with hashes; a memory whose kept
// is false is left out, and stale lists the memories whose sets could not
// be made from the base's bytes. keys nil gives every memory none.
func encodeWordIndex(base uint64, bases []int, hashes []uint64, sets [][]uint64, keys []dedup.Keys, kept []bool, stale []int) []byte {
	// Each word is numbered as it is first met, with one map lookup a
	// posting, and each posting's number kept: the lists are then counted
	// and filled by number, without the map (three lookups a posting cost
	// most of the making; a sort of every posting cost five times as much).
	// Each word's list is filled in memory order, so it increases.
	var nSets, total int
	for j := range bases {
		if kept[j] {
			nSets++
			total += len(sets[j])
		}
	}
	type word struct {
		w  uint64
		id uint32
	}
	num := make(map[uint64]uint32, total/8)
	var words []word // by number, then by word
	var lens []int   // by number
	ids := make([]uint32, 0, total)
	for j := range bases {
		if !kept[j] {
			continue
		}
		for _, w := range sets[j] {
			id, ok := num[w]
			if !ok {
				id = uint32(len(words))
				num[w] = id
				words = append(words, word{w, id})
				lens = append(lens, 0)
			}
			ids = append(ids, id)
			lens[id]++
		}
	}
	slices.SortFunc(words, func(a, b word) int { return cmp.Compare(a.w, b.w) })
	setLen := func(j int) int { return len(sets[j]) }
	b, counts := startWordIndex(base, bases, hashes, kept, setLen, stale, nSets, len(words), total)
	for _, w := range words {
		b = binary.LittleEndian.AppendUint64(b, w.w)
	}
	// next is each word's next place in postings, by number.
	next := make([]uint32, len(words))
	at := 0
	for _, w := range words {
		b = binary.LittleEndian.AppendUint32(b, uint32(at))
		next[w.id] = uint32(at)
		at += lens[w.id]
	}
	b = binary.LittleEndian.AppendUint32(b, uint32(total))
	b = appendPostings(b, counts, kept, setLen, ids, next, nSets, len(stale), len(words), total)
	return appendKeys(b, counts, keys, kept)
}

// startWordIndex begins a word index of base: its header, room for the
// counts (at counts; see appendPostings), the kept sets (base number, setLen
// words, hash) and the stale base numbers, in a buffer that will hold the
// nWords words and total postings that follow.
func startWordIndex(base uint64, bases []int, hashes []uint64, kept []bool, setLen func(j int) int, stale []int, nSets, nWords, total int) (b []byte, counts int) {
	b = make([]byte, 0, wordIndexFixed+16*nSets+4*len(stale)+12*nWords+4*total+8)
	b = append(b, wordIndexHeader...)
	b = binary.LittleEndian.AppendUint64(b, probeHash())
	b = binary.LittleEndian.AppendUint64(b, base)
	counts = len(b)
	b = append(b, make([]byte, 24)...)
	for j, i := range bases {
		if kept[j] {
			b = binary.LittleEndian.AppendUint32(b, uint32(i))
			b = binary.LittleEndian.AppendUint32(b, uint32(setLen(j)))
			b = binary.LittleEndian.AppendUint64(b, hashes[j])
		}
	}
	for _, i := range stale {
		b = binary.LittleEndian.AppendUint32(b, uint32(i))
	}
	return b, counts
}

// appendPostings goes on with a word index whose postings' offsets b
// holds: it appends each word's postings, the sets that hold it in order
// (ids is the kept sets' word numbers set after set, setLen(j) of them for
// set j; next is where each word's postings start, and is used up), and
// fills in the counts of sets, stale, words and postings at counts. The
// keys follow (appendKeys).
func appendPostings(b []byte, counts int, kept []bool, setLen func(j int) int, ids, next []uint32, nSets, nStale, nWords, total int) []byte {
	posts := len(b)
	b = append(b, make([]byte, 4*total)...)
	s, p := 0, 0
	for j := range kept {
		if !kept[j] {
			continue
		}
		for range setLen(j) {
			id := ids[p]
			p++
			binary.LittleEndian.PutUint32(b[posts+4*int(next[id]):], uint32(s))
			next[id]++
		}
		s++
	}
	le := binary.LittleEndian
	le.PutUint32(b[counts:], uint32(nSets))
	le.PutUint32(b[counts+4:], uint32(nStale))
	le.PutUint32(b[counts+8:], uint32(nWords))
	le.PutUint32(b[counts+12:], uint32(total))
	return b
}

// postingsRead counts the postings a word index's counts read (walked, or
// probed by a search), for the tests that show how much the near counts
// spare.
var postingsRead atomic.Int64

// countNear is count for a save's duplicate check, which needs the counts
// of only the memories that can matter to it (near): those whose Words can
// reach near.Duplicate, and those whose Related can be among the near.Top
// best above near.Related. It returns those memories (places in sets, but
// none that skip names), each with its exact count in counts, and perhaps
// others with theirs; the counts of memories it does not return may be
// short.
//
// The words' lists are walked rarest first. After j of the words' r lists,
// a memory not met yet shares at most r−j of the words, so its Words is at
// most (r−j)/len(words) and its Related at most 2(r−j)/(len(words)+r−j);
// once neither can matter, no memory met later would, and the walk stops
// meeting new ones. The lists left (the common words', the longest) are
// then only searched for the memories met that still can matter, from the
// count each has and the words left. A memory can matter to the related
// links only if its Related can reach floor: the near.Top-th best Related
// that memories certain not to be duplicates have already (Related grows
// with the count), kept across the projects of one check.
//
// A kept index counts over its planes instead (countNearPlanes).
func (ix *wordIndex) countNear(words []uint64, counts []uint32, near memories.NearWords, skip func(s int) bool, floor *float64) []int {
	if p := ix.planesOf(); p != nil {
		return ix.countNearPlanes(p, words, counts, near, skip, floor)
	}
	type list struct{ from, to int }
	lists := make([]list, 0, len(words))
	walk := 0
	ix.lists(words, func(from, to int) {
		lists = append(lists, list{from, to})
		walk += to - from
	})
	slices.SortStableFunc(lists, func(a, b list) int { return cmp.Compare(a.to-a.from, b.to-b.from) })
	n := len(words)
	// olen is memory s's set size; upper its count's upper bound with rem
	// lists left.
	olen := func(s int) int { _, l := ix.set(s); return l }
	upper := func(s, rem int) int { return min(int(counts[s])+rem, olen(s)) }
	dupAt, most := nearBars(n, near)
	matters := func(c, l int) bool {
		if c >= dupAt {
			return true
		}
		_, r := dedup.OverlapOf(n, c, l)
		return r > near.Related && r >= *floor
	}
	// cut is the least count that can matter (n+1 when none can), for
	// the floor as it is: a memory whose count can reach no more than
	// cut-1 is neither a duplicate nor, its Related being at most most of
	// that count, among the related. Related and most grow with the count
	// (a correctly rounded quotient does not fall as its dividend grows
	// or its divisor shrinks), so comparing a count's bound with cut
	// decides as matters does, with no look-up of the memory's size and
	// no division, for the thousands that cannot matter.
	cut := 0
	setCut := func() {
		cut = sort.Search(n+1, func(c int) bool { return c >= dupAt || most[c] > near.Related && most[c] >= *floor })
	}
	setCut()
	// mayMatter is matters of memory s with rem lists left: false at once
	// when its count cannot reach cut.
	mayMatter := func(s, rem int) bool {
		if c := int(counts[s]) + rem; c < cut && c <= n {
			return false
		}
		return matters(upper(s, rem), olen(s))
	}
	// raise lifts floor to the near.Top-th best Related among memories of
	// cands that cannot be duplicates, counted so far (a lower bound: a
	// memory left out for its count alone, in a damaged file whose counts
	// pass a set's size, only leaves it lower). Only a Related above the
	// floor can lift it: the floor is the bar from the start.
	best := make([]float64, 0, near.Top+1) // decreasing
	raise := func(cands []int, rem int) {
		if near.Top <= 0 {
			return
		}
		best = best[:0]
		bar := max(near.Related, *floor)
		for _, s := range cands {
			c := int(counts[s])
			if c < len(most) && most[c] <= bar {
				continue
			}
			l := olen(s)
			if min(c+rem, l) >= dupAt || skip(s) {
				continue
			}
			_, r := dedup.OverlapOf(n, c, l)
			if r <= bar {
				continue
			}
			best, bar = addBest(best, r, near.Top, bar)
		}
		if len(best) == near.Top && best[near.Top-1] > *floor {
			*floor = best[near.Top-1]
			setCut()
		}
	}
	// Every memory met is in seen once: room for all of them at once (a
	// slice grown by appends to thousands was a fifth of the walk).
	seen := make([]int, 0, min(walk, len(counts)))
	read, since := 0, 0
	rem := len(lists)
	closed := false
	for _, l := range lists {
		if closed {
			break
		}
		prev := -1
		ix.walked(ix.postsAt+4*l.from, ix.postsAt+4*l.to)
		post := ix.data[ix.postsAt+4*l.from : ix.postsAt+4*l.to]
		for k := 0; k+4 <= len(post); k += 4 {
			if s := int(binary.LittleEndian.Uint32(post[k:])); s > prev && s < len(counts) {
				if counts[s] == 0 {
					seen = append(seen, s)
				}
				counts[s]++
				prev = s
			}
		}
		read += l.to - l.from
		since += l.to - l.from
		rem--
		// The floor is raised once the walk since it last was costs as
		// much as raising it again, so that it costs at most the walk.
		if w, _ := dedup.OverlapOf(n, rem, rem); w >= near.Duplicate || rem > 0 && since < len(seen) {
			continue
		}
		since = 0
		raise(seen, rem)
		closed = !matters(rem, rem)
	}
	live := seen[:0]
	for _, s := range seen {
		if (!closed || mayMatter(s, rem)) && !skip(s) {
			live = append(live, s)
		}
	}
	slices.Sort(live)
	drop := func(s int) bool { return !mayMatter(s, rem) }
	for _, l := range lists[len(lists)-rem:] {
		ix.walked(ix.postsAt+4*l.from, ix.postsAt+4*l.to)
		// Both the list and live increase: the list is walked beside
		// live when that reads less than searching it for each.
		if len(live)*bits.Len(uint(l.to-l.from)) >= l.to-l.from {
			at := l.from
			for _, s := range live {
				for at < l.to && le32(ix.data, ix.postsAt+4*at) < s {
					at++
				}
				if at < l.to && le32(ix.data, ix.postsAt+4*at) == s {
					counts[s]++
					at++
				}
			}
			read += at - l.from
			rem--
			raise(live, rem)
			live = slices.DeleteFunc(live, drop)
			continue
		}
		// Each search starts past the last one's place, and gallops from
		// there: live's memories are spread over the list, each a short
		// way past the one before.
		at := l.from
		for _, s := range live {
			i, j := at, at+1
			for step := 1; j < l.to; step *= 2 {
				read++
				if le32(ix.data, ix.postsAt+4*(j-1)) >= s {
					break
				}
				i, j = j, j+step
			}
			j = min(j, l.to)
			for i < j {
				h := int(uint(i+j) >> 1)
				read++
				if le32(ix.data, ix.postsAt+4*h) < s {
					i = h + 1
				} else {
					j = h
				}
			}
			if i < l.to && le32(ix.data, ix.postsAt+4*i) == s {
				counts[s]++
				i++
			}
			at = i
		}
		rem--
		raise(live, rem)
		live = slices.DeleteFunc(live, drop)
	}
	postingsRead.Add(int64(read))
	return live
}

// addBest puts r in best (decreasing, at most top of them) and gives the
// bar: the top-th best once there are top, else bar as it was.
func addBest(best []float64, r float64, top int, bar float64) ([]float64, float64) {
	i, _ := slices.BinarySearchFunc(best, r, func(a, b float64) int { return cmp.Compare(b, a) })
	best = slices.Insert(best, i, r)
	if len(best) > top {
		best = best[:top]
	}
	if len(best) == top {
		bar = best[top-1]
	}
	return best, bar
}

// nearBars are what a near count of a memory of n words compares counts
// with. dupAt is the least count whose Words reaches near.Duplicate (n+1
// when none does): Words grows with the count alone, so comparing counts
// decides as comparing the quotients, without a division for each of the
// thousands of memories met. most[c] is the most Related a memory counted
// c can have: its set holds at least the c words (a memory's size is not
// read, nor whether it is skipped, unless it can pass the bar: most of the
// thousands met cannot).
func nearBars(n int, near memories.NearWords) (dupAt int, most []float64) {
	dupAt = sort.Search(n+1, func(c int) bool { w, _ := dedup.OverlapOf(n, c, 1); return w >= near.Duplicate })
	most = make([]float64, n+1)
	for c := range most {
		_, most[c] = dedup.OverlapOf(n, c, c)
	}
	return dupAt, most
}
