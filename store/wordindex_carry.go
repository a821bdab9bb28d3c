package store

import (
	"cmp"
	"encoding/binary"
	"hash/crc32"
	"io"
	"os"
	"slices"
	"sort"

	"github.com/cortexmem/cortex/dedup"
)

// A word index carried to a new base (carryWordIndex) is written as it is
// made, a section at a time, in one pass over the earlier index's postings:
// made in memory, the new index's bytes, every posting's word number and
// the earlier index's sets spelled out as the places of their words were
// each as large as the index (the 100 MB of a real-shaped 100,000-note
// project), and the MCP server, which carries its indexes after each
// compaction of the catalog (every 632 saves at 100,000 notes), peaked near
// 500 MB. Written as made, the new index costs what its words' counts and
// one word's postings take; the earlier index's pages are read in order and
// dropped behind the reading where the index is kept mapped (keptIndexes).

// indexWriter writes a word index: to w, through a buffer, with the
// checksum of what it wrote; with w nil, into buf (the whole index, for an
// index made in memory).
type indexWriter struct {
	w   io.Writer
	buf []byte
	crc uint32
	err error
}

// spillAt is how much an indexWriter to a file buffers (tests make it
// smaller).
var spillAt = 64 << 10

func (iw *indexWriter) u32(v uint32) {
	iw.buf = binary.LittleEndian.AppendUint32(iw.buf, v)
	iw.spill()
}

func (iw *indexWriter) u64(v uint64) {
	iw.buf = binary.LittleEndian.AppendUint64(iw.buf, v)
	iw.spill()
}

func (iw *indexWriter) bytes(b string) {
	iw.buf = append(iw.buf, b...)
	iw.spill()
}

func (iw *indexWriter) spill() {
	if iw.w != nil && len(iw.buf) >= spillAt {
		iw.flush()
	}
}

func (iw *indexWriter) flush() {
	iw.crc = crc32.Update(iw.crc, crc32.IEEETable, iw.buf)
	if iw.err == nil {
		_, iw.err = iw.w.Write(iw.buf)
	}
	iw.buf = iw.buf[:0]
}

// finish appends the checksum of all written before it and says what it
// is, with the first write's error.
func (iw *indexWriter) finish() (uint32, error) {
	if iw.w == nil {
		sum := crc32.ChecksumIEEE(iw.buf)
		iw.buf = binary.LittleEndian.AppendUint32(iw.buf, sum)
		return sum, nil
	}
	iw.flush()
	sum := iw.crc
	iw.buf = binary.LittleEndian.AppendUint32(iw.buf, sum)
	if iw.err == nil {
		_, iw.err = iw.w.Write(iw.buf)
	}
	iw.buf = iw.buf[:0]
	return sum, iw.err
}

// dropBehind takes the pages of a kept index's mapping out of the process's
// resident memory behind a pass that reads it in order (see dropResident):
// a pass over the postings of a 100 MB index otherwise left all of them
// resident. It does nothing for an index in memory (a heap slice must never
// be dropped) or mapped by a process that does not keep it.
type dropBehind struct {
	data []byte
	done int
	on   bool
}

// dropChunk is how far a pass reads before the pages behind it are dropped.
var dropChunk = 4 << 20

func (ix *wordIndex) dropBehind() *dropBehind {
	return &dropBehind{data: ix.data, on: ix.walks != nil}
}

// passed says the pass has read up to to.
func (d *dropBehind) passed(to int) {
	if !d.on || to-d.done < dropChunk {
		return
	}
	end := to &^ (os.Getpagesize() - 1)
	dropResident(d.data[d.done:end])
	d.done = end
}

// end drops what is left behind the pass.
func (d *dropBehind) end() {
	if d.on && d.done < len(d.data) {
		dropResident(d.data[d.done:])
		d.done = len(d.data)
	}
}

// list is the bounds in data of word w's postings.
func (ix *wordIndex) list(w int) (from, to int) {
	return ix.postsAt + 4*le32(ix.data, ix.strt+4*w), ix.postsAt + 4*le32(ix.data, ix.strt+4*w+4)
}

// postingsOf calls fn with each posting of word w's list but those count
// skips (out of range, or not above the one before it in the list), and
// says where in data the list ends.
func (ix *wordIndex) postingsOf(w int, fn func(s int)) (end int) {
	from, to := ix.list(w)
	prev := -1
	for p := from; p < to; p += 4 {
		if s := le32(ix.data, p); s > prev && s < ix.nSets {
			prev = s
			fn(s)
		}
	}
	return to
}

// eachPosting calls fn with each posting of ix, word after word (postingsOf).
func (ix *wordIndex) eachPosting(fn func(w, s int)) {
	d := ix.dropBehind()
	for w := range ix.nWords {
		d.passed(ix.postingsOf(w, func(s int) { fn(w, s) }))
	}
	d.end()
}

// badSets says of each memory of ix whether its postings (those count
// reads) do not add up to its size: a damaged file the checksum let
// through, whose set cannot be carried. When the sizes add up to more than
// the postings, none is trusted.
func (ix *wordIndex) badSets() []bool {
	bad := make([]bool, ix.nSets)
	at := 0
	for s := range ix.nSets {
		_, n := ix.set(s)
		if at+n > ix.nPost {
			for s := range bad {
				bad[s] = true
			}
			return bad
		}
		at += n
	}
	counts := make([]uint32, ix.nSets)
	ix.eachPosting(func(_, s int) { counts[s]++ })
	for s := range ix.nSets {
		_, n := ix.set(s)
		bad[s] = int(counts[s]) != n
	}
	return bad
}

// encodeCarriedWordIndex is writeCarriedWordIndex in memory: the index's
// bytes.
func encodeCarriedWordIndex(base uint64, bases []int, hashes []uint64, sets [][]uint64, from []int, keys []dedup.Keys, kept []bool, stale []int, prev *wordIndex) []byte {
	iw := &indexWriter{}
	writeCarriedWordIndex(iw, base, bases, hashes, sets, from, keys, kept, stale, prev)
	_, _ = iw.finish()
	return iw.buf
}

// writeCarriedWordIndex writes, but for its checksum (iw.finish), the
// index encodeWordIndex makes of the same memories, byte for byte, where
// memory j, when from[j] is 0 or more, has the set and keys of prev's set
// from[j] (which badSets and keysRead must find sound), and otherwise
// sets[j] and keys[j]. The words of prev keep their places there as their
// numbers, and only the other sets' words are looked up (the map lookups of
// every posting were most of the making); each of prev's lists gives the
// word's postings of the carried sets, renumbered.
func writeCarriedWordIndex(iw *indexWriter, base uint64, bases []int, hashes []uint64, sets [][]uint64, from []int, keys []dedup.Keys, kept []bool, stale []int, prev *wordIndex) {
	nOld := prev.nWords
	// Each kept memory's place in the new index, and for each of prev's
	// sets the places of the memories that carry it (usually one; two
	// notes with the same bytes carry the same set), increasing.
	place := make([]uint32, len(bases))
	carries := make([]uint32, prev.nSets+1)
	var nSets, total int
	setLen := func(j int) int {
		if from[j] >= 0 {
			_, n := prev.set(from[j])
			return n
		}
		return len(sets[j])
	}
	for j := range bases {
		if !kept[j] {
			continue
		}
		place[j] = uint32(nSets)
		nSets++
		total += setLen(j)
		if from[j] >= 0 {
			carries[from[j]+1]++
		}
	}
	for s := range prev.nSets {
		carries[s+1] += carries[s]
	}
	carriers := make([]uint32, carries[prev.nSets])
	next := slices.Clone(carries[:prev.nSets])
	for j := range bases {
		if kept[j] && from[j] >= 0 {
			carriers[next[from[j]]] = place[j]
			next[from[j]]++
		}
	}
	// The words' counts: prev's from its lists, the other sets' as they
	// are looked up (a word prev lacks is numbered nOld and up, as first
	// met), with each such word's postings of the other sets.
	lens := make([]int, nOld)
	prev.eachPosting(func(w, s int) { lens[w] += int(carries[s+1] - carries[s]) })
	num := map[uint64]uint32{}
	var newWords []uint64 // by number less nOld
	own := map[uint32][]uint32{}
	for j := range bases {
		if !kept[j] || from[j] >= 0 {
			continue
		}
		for _, w := range sets[j] {
			id, ok := num[w]
			if !ok {
				i := sort.Search(nOld, func(i int) bool { return prev.word(i) >= w })
				if i < nOld && prev.word(i) == w {
					id = uint32(i)
				} else {
					id = uint32(nOld + len(newWords))
					newWords = append(newWords, w)
					lens = append(lens, 0)
				}
				num[w] = id
			}
			lens[id]++
			own[id] = append(own[id], place[j])
		}
	}
	// The words held, increasing: prev's in place, the new ones merged in.
	wordOf := func(id uint32) uint64 {
		if int(id) < nOld {
			return prev.word(int(id))
		}
		return newWords[int(id)-nOld]
	}
	newOrder := make([]uint32, len(newWords))
	for k := range newOrder {
		newOrder[k] = uint32(nOld + k)
	}
	slices.SortFunc(newOrder, func(a, b uint32) int { return cmp.Compare(wordOf(a), wordOf(b)) })
	order := make([]uint32, 0, len(lens))
	k := 0
	for w := range nOld {
		for k < len(newOrder) && wordOf(newOrder[k]) < prev.word(w) {
			order = append(order, newOrder[k])
			k++
		}
		if lens[w] > 0 {
			order = append(order, uint32(w))
		}
	}
	order = append(order, newOrder[k:]...)
	kp := planKeys(keys, from, kept, prev)

	iw.bytes(wordIndexHeader)
	iw.u64(probeHash())
	iw.u64(base)
	for _, n := range []int{nSets, len(stale), len(order), total, len(kp.all), kp.nRefs} {
		iw.u32(uint32(n))
	}
	for j, i := range bases {
		if kept[j] {
			iw.u32(uint32(i))
			iw.u32(uint32(setLen(j)))
			iw.u64(hashes[j])
		}
	}
	for _, i := range stale {
		iw.u32(uint32(i))
	}
	for _, id := range order {
		iw.u64(wordOf(id))
	}
	at := 0
	for _, id := range order {
		iw.u32(uint32(at))
		at += lens[id]
	}
	iw.u32(uint32(total))
	// Each word's postings: the carried sets' from prev's list, in the
	// order of prev's sets (sorted again only where two carriers of a set
	// are not in that order), merged with the other sets'.
	d := prev.dropBehind()
	var carried []uint32
	for _, id := range order {
		carried = carried[:0]
		if int(id) < nOld {
			d.passed(prev.postingsOf(int(id), func(s int) {
				carried = append(carried, carriers[carries[s]:carries[s+1]]...)
			}))
			if !slices.IsSorted(carried) {
				slices.Sort(carried)
			}
		}
		others := own[id]
		c, o := 0, 0
		for c < len(carried) || o < len(others) {
			if o == len(others) || c < len(carried) && carried[c] < others[o] {
				iw.u32(carried[c])
				c++
			} else {
				iw.u32(others[o])
				o++
			}
		}
	}
	d.end()
	kp.write(iw, keys, from, kept, prev)
}
