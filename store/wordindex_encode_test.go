package store

import (
	"bytes"
	"encoding/binary"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/cortexmem/cortex/dedup"
)

// randomKeys are keys of up to a dozen numbers and code tokens, from a
// small vocabulary so that memories share some.
func randomKeys(r *rand.Rand) dedup.Keys {
	var lists [2][]uint64
	for i := range lists {
		for range r.IntN(7) {
			lists[i] = append(lists[i], uint64(r.IntN(40))*0x2545f4914f6cdd1d)
		}
		slices.Sort(lists[i])
		lists[i] = slices.Compact(lists[i])
	}
	return mustKeys(lists[0], lists[1])
}

// checkKeys fails unless the index data gives each kept memory (in order)
// the keys it was made with.
func checkKeys(t *testing.T, trial int, data []byte, keys []dedup.Keys, kept []bool) {
	t.Helper()
	ix, ok := parseWordIndex(data)
	if !ok {
		t.Fatalf("trial %d: the index made does not read back", trial)
	}
	s := 0
	for j := range kept {
		if !kept[j] {
			continue
		}
		got, ok := ix.keysOf(s)
		if !ok || !slices.Equal(got.Numbers(), keys[j].Numbers()) || !slices.Equal(got.Codes(), keys[j].Codes()) {
			t.Fatalf("trial %d: memory %d has keys %v %v (%v), made with %v %v", trial, s, got.Numbers(), got.Codes(), ok, keys[j].Numbers(), keys[j].Codes())
		}
		s++
	}
	if s != ix.nSets {
		t.Fatalf("trial %d: %d sets, want %d", trial, ix.nSets, s)
	}
}

// TestEncodeWordIndexAsByMap: the word index made with each word numbered
// once is, byte for byte, the one made by looking every posting's word up
// in a map (encodeWordIndexByMap, the way it was made before), over random
// sets of random sizes, some memories left out and some stale.
func TestEncodeWordIndexAsByMap(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for trial := range 300 {
		n := r.IntN(60)
		vocab := 1 + r.IntN(400)
		bases := make([]int, n)
		hashes := make([]uint64, n)
		sets := make([][]uint64, n)
		keys := make([]dedup.Keys, n)
		kept := make([]bool, n)
		var stale []int
		for j := range n {
			keys[j] = randomKeys(r)
			bases[j] = 2*j + r.IntN(2)
			hashes[j] = r.Uint64()
			kept[j] = r.IntN(8) != 0
			if !kept[j] {
				stale = append(stale, bases[j])
			}
			var set []uint64
			for range r.IntN(80) {
				set = append(set, uint64(r.IntN(vocab))*0x9e3779b97f4a7c15)
			}
			slices.Sort(set)
			sets[j] = slices.Compact(set)
		}
		got := encodeWordIndex(uint64(trial), bases, hashes, sets, keys, kept, stale)
		want := encodeWordIndexByMap(uint64(trial), bases, hashes, sets, keys, kept, stale)
		if !bytes.Equal(got, want) {
			t.Fatalf("trial %d: %d bytes, want %d, or other bytes", trial, len(got), len(want))
		}
		checkKeys(t, trial, got, keys, kept)
	}
}

// encodeWordIndexByMap is encodeWordIndex as it was made before: each
// posting's word looked up in a map of the words' places.
func encodeWordIndexByMap(base uint64, bases []int, hashes []uint64, sets [][]uint64, keys []dedup.Keys, kept []bool, stale []int) []byte {
	// Each word's list is filled in memory order, so it increases; the
	// words are counted first to place the lists (a sort of every posting
	// cost five times as much).
	var nSets, total int
	lens := map[uint64]int{}
	for j := range bases {
		if kept[j] {
			nSets++
			total += len(sets[j])
			for _, w := range sets[j] {
				lens[w]++
			}
		}
	}
	words := make([]uint64, 0, len(lens))
	for w := range lens {
		words = append(words, w)
	}
	slices.Sort(words)
	b := make([]byte, 0, wordIndexFixed+16*nSets+4*len(stale)+12*len(words)+4*total+8)
	b = append(b, wordIndexHeader...)
	b = binary.LittleEndian.AppendUint64(b, probeHash())
	b = binary.LittleEndian.AppendUint64(b, base)
	counts := len(b)
	b = append(b, make([]byte, 24)...)
	for j, i := range bases {
		if kept[j] {
			b = binary.LittleEndian.AppendUint32(b, uint32(i))
			b = binary.LittleEndian.AppendUint32(b, uint32(len(sets[j])))
			b = binary.LittleEndian.AppendUint64(b, hashes[j])
		}
	}
	for _, i := range stale {
		b = binary.LittleEndian.AppendUint32(b, uint32(i))
	}
	for _, w := range words {
		b = binary.LittleEndian.AppendUint64(b, w)
	}
	// lens becomes each word's next place in postings.
	at := 0
	for _, w := range words {
		b = binary.LittleEndian.AppendUint32(b, uint32(at))
		at, lens[w] = at+lens[w], at
	}
	b = binary.LittleEndian.AppendUint32(b, uint32(total))
	posts := len(b)
	b = append(b, make([]byte, 4*total)...)
	s := 0
	for j := range bases {
		if !kept[j] {
			continue
		}
		for _, w := range sets[j] {
			binary.LittleEndian.PutUint32(b[posts+4*lens[w]:], uint32(s))
			lens[w]++
		}
		s++
	}
	le := binary.LittleEndian
	le.PutUint32(b[counts:], uint32(nSets))
	le.PutUint32(b[counts+4:], uint32(len(stale)))
	le.PutUint32(b[counts+8:], uint32(len(words)))
	le.PutUint32(b[counts+12:], uint32(total))
	return appendKeys(b, counts, keys, kept)
}

// TestEncodeCarriedAsEncode: the word index made with some sets carried
// from an earlier index (as the places of their words there) is, byte for
// byte, encodeWordIndex of the same sets, over random earlier indexes and
// random mixes of carried sets, sets with words the earlier index lacks,
// memories left out and stale ones.
func TestEncodeCarriedAsEncode(t *testing.T) {
	defer func(n int) { spillAt = n }(spillAt)
	spillAt = 7 // written a few bytes at a time
	r := rand.New(rand.NewPCG(5, 6))
	randomSet := func(vocab int) []uint64 {
		var set []uint64
		for range r.IntN(60) {
			set = append(set, uint64(r.IntN(vocab))*0x9e3779b97f4a7c15)
		}
		slices.Sort(set)
		return slices.Compact(set)
	}
	for trial := range 200 {
		vocab := 1 + r.IntN(300)
		nPrev := r.IntN(40)
		prevSets := make([][]uint64, nPrev)
		prevBases := make([]int, nPrev)
		prevHashes := make([]uint64, nPrev)
		prevKept := make([]bool, nPrev)
		prevKeys := make([]dedup.Keys, nPrev)
		for s := range nPrev {
			prevSets[s], prevBases[s], prevHashes[s], prevKept[s] = randomSet(vocab), s, r.Uint64(), true
			prevKeys[s] = randomKeys(r)
		}
		prev, ok := parseWordIndex(encodeWordIndex(1, prevBases, prevHashes, prevSets, prevKeys, prevKept, nil))
		if !ok {
			t.Fatal("an earlier index that does not read back")
		}
		if bad := prev.badSets(); slices.Contains(bad, true) {
			t.Fatalf("trial %d: sound sets found bad: %v", trial, bad)
		}
		if got := setsFromLists(prev); !slices.EqualFunc(got, prevSets, slices.Equal) {
			t.Fatalf("trial %d: the sets the lists make up are %v, want %v", trial, got, prevSets)
		}
		n := r.IntN(50)
		bases := make([]int, n)
		hashes := make([]uint64, n)
		sets := make([][]uint64, n)
		from := make([]int, n)
		keys := make([]dedup.Keys, n)
		kept := make([]bool, n)
		var stale []int
		for j := range n {
			from[j] = -1
			bases[j], hashes[j] = 2*j+r.IntN(2), r.Uint64()
			kept[j] = r.IntN(8) != 0
			if !kept[j] {
				stale = append(stale, bases[j])
				continue
			}
			if nPrev > 0 && r.IntN(3) != 0 {
				s := r.IntN(nPrev)
				sets[j], from[j] = prevSets[s], s
				// Carried keys are the earlier index's, as carryWordIndex
				// takes them.
				if keys[j], ok = prev.keysOf(s); !ok {
					t.Fatalf("trial %d: the earlier index's keys of set %d do not read", trial, s)
				}
				continue
			}
			sets[j], keys[j] = randomSet(vocab+50), randomKeys(r) // some words prev lacks
		}
		want := encodeWordIndex(uint64(trial), bases, hashes, sets, keys, kept, stale)
		checkKeys(t, trial, want, keys, kept)
		for j := range from {
			if from[j] >= 0 {
				// The carried sets and keys are given by the earlier set alone.
				sets[j], keys[j] = nil, dedup.Keys{}
			}
		}
		got := encodeCarriedWordIndex(uint64(trial), bases, hashes, sets, from, keys, kept, stale, prev)
		if !bytes.Equal(got, want) {
			t.Fatalf("trial %d: %d bytes, want %d, or other bytes", trial, len(got), len(want))
		}
		// Written to a file as made, a few bytes at a time: the same
		// bytes, and the checksum they end with.
		var file bytes.Buffer
		iw := &indexWriter{w: &file}
		writeCarriedWordIndex(iw, uint64(trial), bases, hashes, sets, from, keys, kept, stale, prev)
		sum, err := iw.finish()
		if err != nil || !bytes.Equal(file.Bytes(), want) || sum != binary.LittleEndian.Uint32(want[len(want)-4:]) {
			t.Fatalf("trial %d: written, %d bytes (error %v, sum %x), want %d", trial, file.Len(), err, sum, len(want))
		}
	}
}

// setsFromLists is each memory's set of ix as its words' lists make it up
// (the postings count reads), what a set carried from ix is.
func setsFromLists(ix *wordIndex) [][]uint64 {
	sets := make([][]uint64, ix.nSets)
	ix.eachPosting(func(w, s int) { sets[s] = append(sets[s], ix.word(w)) })
	return sets
}
