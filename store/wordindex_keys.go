package store

import (
	"encoding/binary"
	"slices"

	"github.com/cortexmem/cortex/dedup"
)

// The keys of a word index's memories (see wordindex.go for the file): each
// memory's numbers and code tokens, as places in one list of the keys of
// them all, so that a save's duplicate check can tell a conflict with a
// memory from its keys without reading its note (memories.KnownKeys).

// appendKeys ends a word index whose postings b holds: it appends the keys
// of the kept memories (keys[j] of memory j, none for all when keys is
// nil), fills in their counts at counts (after appendPostings' four) and
// appends the checksum.
func appendKeys(b []byte, counts int, keys []dedup.Keys, kept []bool) []byte {
	kp := planKeys(keys, nil, kept, nil)
	binary.LittleEndian.PutUint32(b[counts+16:], uint32(len(kp.all)))
	binary.LittleEndian.PutUint32(b[counts+20:], uint32(kp.nRefs))
	iw := &indexWriter{buf: b}
	kp.write(iw, keys, nil, kept, nil)
	_, _ = iw.finish()
	return iw.buf
}

// keysPlan is the keys section of a word index to be written: all the keys
// held, increasing, the new place of each key of the earlier index that a
// carried memory uses, and how many refs the memories have.
type keysPlan struct {
	all   []uint64
	place []uint32
	nRefs int
}

// planKeys plans the keys of the kept memories: those of memory j are the
// keys of set from[j] of prev when from is not nil and from[j] is 0 or more
// (keysRead true of it), else keys[j] (none when keys is nil). The keys
// carried are numbered by their place in prev, and only the others' are
// looked up (after a compaction nearly every memory's keys are carried).
func planKeys(keys []dedup.Keys, from []int, kept []bool, prev *wordIndex) keysPlan {
	// The keys held: prev's used by a carried memory, in place, and the
	// others', merged in.
	nPrev := 0
	if prev != nil {
		nPrev = prev.nKeys
	}
	used := make([]bool, nPrev)
	var others []uint64
	var kp keysPlan
	for j := range kept {
		if !kept[j] {
			continue
		}
		if s, ok := carriedKeys(from, j); ok {
			at := prev.keyStrt + 8*s
			for r := le32(prev.data, at); r < le32(prev.data, at+8); r++ {
				used[le32(prev.data, prev.refsAt+4*r)] = true
			}
			kp.nRefs += le32(prev.data, at+8) - le32(prev.data, at)
			continue
		}
		k := keysAt(keys, j)
		others = append(others, k.Numbers()...)
		others = append(others, k.Codes()...)
		kp.nRefs += len(k.Numbers()) + len(k.Codes())
	}
	slices.Sort(others)
	others = slices.Compact(others)
	kp.place = make([]uint32, nPrev)
	kp.all = make([]uint64, 0, len(others)+nPrev)
	o := 0
	for k := range nPrev {
		if !used[k] {
			continue
		}
		h := prev.key(k)
		for o < len(others) && others[o] < h {
			kp.all = append(kp.all, others[o])
			o++
		}
		if o < len(others) && others[o] == h {
			o++ // a key both carried and not
		}
		kp.place[k] = uint32(len(kp.all))
		kp.all = append(kp.all, h)
	}
	kp.all = append(kp.all, others[o:]...)
	return kp
}

// carriedKeys says whether memory j's keys are carried, and from which set.
func carriedKeys(from []int, j int) (s int, ok bool) {
	if from == nil || from[j] < 0 {
		return 0, false
	}
	return from[j], true
}

// keysAt is memory j's keys, none when keys is nil.
func keysAt(keys []dedup.Keys, j int) dedup.Keys {
	if keys == nil {
		return dedup.Keys{}
	}
	return keys[j]
}

// write writes the keys section kp plans (planKeys of the same memories):
// the keys, each memory's starts, and the refs.
func (kp *keysPlan) write(iw *indexWriter, keys []dedup.Keys, from []int, kept []bool, prev *wordIndex) {
	if iw.w == nil {
		// One growth of the index (megabytes), not one per append.
		iw.buf = slices.Grow(iw.buf, 8*len(kp.all)+4*(2*len(kept)+1)+4*kp.nRefs+4)
	}
	for _, k := range kp.all {
		iw.u64(k)
	}
	refs := 0
	iw.u32(0)
	for j := range kept {
		if !kept[j] {
			continue
		}
		if s, ok := carriedKeys(from, j); ok {
			at := prev.keyStrt + 8*s
			refs += le32(prev.data, at+4) - le32(prev.data, at)
			iw.u32(uint32(refs))
			refs += le32(prev.data, at+8) - le32(prev.data, at+4)
			iw.u32(uint32(refs))
			continue
		}
		k := keysAt(keys, j)
		refs += len(k.Numbers())
		iw.u32(uint32(refs))
		refs += len(k.Codes())
		iw.u32(uint32(refs))
	}
	for j := range kept {
		if !kept[j] {
			continue
		}
		if s, ok := carriedKeys(from, j); ok {
			at := prev.keyStrt + 8*s
			for r := le32(prev.data, at); r < le32(prev.data, at+8); r++ {
				iw.u32(kp.place[le32(prev.data, prev.refsAt+4*r)])
			}
			continue
		}
		k := keysAt(keys, j)
		for _, list := range [][]uint64{k.Numbers(), k.Codes()} {
			for _, h := range list {
				i, _ := slices.BinarySearch(kp.all, h)
				iw.u32(uint32(i))
			}
		}
	}
}

// keysHold reports whether the keys of ix increase and their starts do,
// from 0 to the refs: parseWordIndex refuses a file where they do not. The
// refs themselves are checked as a memory's keys are read (keysOf).
func (ix *wordIndex) keysHold() bool {
	for k := 1; k < ix.nKeys; k++ {
		if ix.key(k) <= ix.key(k-1) {
			return false
		}
	}
	prev := 0
	for i := 0; i <= 2*ix.nSets; i++ {
		at := le32(ix.data, ix.keyStrt+4*i)
		if at < prev || at > ix.nRefs || i == 0 && at != 0 {
			return false
		}
		prev = at
	}
	return prev == ix.nRefs
}

func (ix *wordIndex) key(k int) uint64 {
	return binary.LittleEndian.Uint64(ix.data[ix.keysAt+8*k:])
}

// keysOf is the keys of memory s (a place in sets), copied out of the
// file; false when its refs are out of range or do not increase (a damaged
// file the checksum let through), and then nothing is to be told from them.
func (ix *wordIndex) keysOf(s int) (dedup.Keys, bool) {
	if !ix.keysRead(s) {
		return dedup.Keys{}, false
	}
	if s < 0 || s >= ix.nSets {
		return dedup.Keys{}, false
	}
	at := ix.keyStrt + 8*s
	from, mid, to := le32(ix.data, at), le32(ix.data, at+4), le32(ix.data, at+8)
	numbers, ok := ix.keyList(from, mid)
	if !ok {
		return dedup.Keys{}, false
	}
	codes, ok := ix.keyList(mid, to)
	if !ok {
		return dedup.Keys{}, false
	}
	return dedup.KeysFrom(numbers, codes)
}

// keysRead reports whether memory s's keys can be read: each kind's refs
// in range and increasing (keysOf's check, without copying them out).
func (ix *wordIndex) keysRead(s int) bool {
	if s < 0 || s >= ix.nSets {
		return false
	}
	at := ix.keyStrt + 8*s
	for _, r := range [][2]int{{le32(ix.data, at), le32(ix.data, at+4)}, {le32(ix.data, at+4), le32(ix.data, at+8)}} {
		prev := -1
		for p := r[0]; p < r[1]; p++ {
			k := le32(ix.data, ix.refsAt+4*p)
			if k <= prev || k >= ix.nKeys {
				return false
			}
			prev = k
		}
	}
	return true
}

// keyList is the keys refs [from, to) name; false when one is out of range.
func (ix *wordIndex) keyList(from, to int) ([]uint64, bool) {
	if from == to {
		return nil, true
	}
	out := make([]uint64, to-from)
	for r := from; r < to; r++ {
		k := le32(ix.data, ix.refsAt+4*r)
		if k >= ix.nKeys {
			return nil, false
		}
		out[r-from] = ix.key(k)
	}
	return out, true
}
