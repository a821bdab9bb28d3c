package store

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/cortexmem/cortex/dedup"
	"github.com/cortexmem/cortex/index"
	"github.com/cortexmem/cortex/memories"
)

// testKeys are keys for the four memories the word index fuzz starts from.
var testKeys = []dedup.Keys{mustKeys([]uint64{4, 8}, []uint64{5}), mustKeys(nil, []uint64{8, 11}), {}, mustKeys([]uint64{1}, nil)}

// mustKeys is dedup.KeysFrom of sets known to increase.
func mustKeys(numbers, codes []uint64) dedup.Keys {
	k, ok := dedup.KeysFrom(numbers, codes)
	if !ok {
		panic("keys that do not increase")
	}
	return k
}

// FuzzReadWords: a word-set file of any bytes is read without a panic, and
// what is read of it is written back as the same sets.
func FuzzReadWords(f *testing.F) {
	m := map[string]wordEntry{"a.md": {hash: 1, words: []uint64{2, 3}, keys: mustKeys([]uint64{6}, []uint64{7, 9})}, "b/c.md": {hash: 4}}
	head := append([]byte(wordsHeader), make([]byte, 8)...)
	whole := encodeWords(append([]byte(nil), head...), m, []string{"a.md", "b/c.md"})
	f.Add(whole)
	f.Add(whole[:len(whole)-3])
	f.Add(head)
	f.Add([]byte(wordsHeader + "\x00\x01"))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) >= len(head) {
			// The probe's hash as this build makes it, so that blocks are read.
			copy(data[len(wordsHeader):], probeBytes())
		}
		p := filepath.Join(dir, "x.words")
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
		wf := readWords(p)
		if wf.size > int64(len(data)) || len(wf.m) > wf.records {
			t.Fatalf("read %d bytes and %d sets of %d records from %d bytes", wf.size, len(wf.m), wf.records, len(data))
		}
		paths := make([]string, 0, len(wf.m))
		for p := range wf.m {
			paths = append(paths, p)
		}
		again := map[string]wordEntry{}
		if _, ok := decodeWords(encodeWords(nil, wf.m, paths)[8:], again); !ok {
			t.Fatal("the sets read do not decode once written")
		}
		if diff := cmp.Diff(wf.m, again, cmp.AllowUnexported(wordEntry{}, dedup.Keys{})); diff != "" {
			t.Errorf("written and read again (-read +again):\n%s", diff)
		}
	})
}

// FuzzWordIndex: a word index file of any bytes is read without a panic or
// is refused; one that is read counts as the sets its lists make up. The
// checksum is set right before reading, so that what it guards (counts,
// offsets, the words' order, postings) is tried too.
func FuzzWordIndex(f *testing.F) {
	sets := [][]uint64{{2, 3, 9}, {3}, {1, 2, 3, 4, 9}, nil}
	whole := encodeWordIndex(7, []int{0, 2, 5, 6}, []uint64{1, 2, 3, 4}, sets, testKeys, []bool{true, true, true, false}, []int{6})
	f.Add(whole, uint64(3))
	f.Add(whole[:len(whole)-5], uint64(9))
	f.Add([]byte(wordIndexHeader), uint64(0))
	f.Add(encodeWordIndex(1, nil, nil, nil, nil, nil, nil), uint64(1))
	f.Fuzz(func(t *testing.T, data []byte, word uint64) {
		data = slices.Clone(data)
		if len(data) >= wordIndexFixed+4 {
			// This build's probe, and the checksum of what precedes it.
			copy(data[len(wordIndexHeader):], probeBytes())
			binary.LittleEndian.PutUint32(data[len(data)-4:], crc32.ChecksumIEEE(data[:len(data)-4]))
		}
		ix, ok := parseWordIndex(data)
		if !ok {
			return
		}
		_ = ix.fits(1<<20, func(int) uint64 { return 0 })
		_ = ix.staleList()
		// A memory's keys are given only as keys of the file, each kind
		// increasing, its refs in their range.
		for s := range ix.nSets {
			k, ok := ix.keysOf(s)
			if !ok {
				continue
			}
			at := ix.keyStrt + 8*s
			from, mid, to := le32(ix.data, at), le32(ix.data, at+4), le32(ix.data, at+8)
			if len(k.Numbers()) != mid-from || len(k.Codes()) != to-mid {
				t.Fatalf("memory %d: keys %v %v from refs %d, %d, %d", s, k.Numbers(), k.Codes(), from, mid, to)
			}
			for _, list := range [][]uint64{k.Numbers(), k.Codes()} {
				for i, h := range list {
					if i > 0 && h <= list[i-1] {
						t.Fatalf("memory %d: keys %v do not increase", s, list)
					}
					held := false
					for kk := range ix.nKeys {
						held = held || ix.key(kk) == h
					}
					if !held {
						t.Fatalf("memory %d: key %x is not in the file's keys", s, h)
					}
				}
			}
		}
		// The sets the lists make up, and their counts for words.
		made := make([][]uint64, ix.nSets)
		for w := 0; w < ix.nWords; w++ {
			from, to := le32(ix.data, ix.strt+4*w), le32(ix.data, ix.strt+4*w+4)
			// A posting not above the one before it is skipped, as count skips it.
			prev := -1
			for p := from; p < to; p++ {
				if s := le32(ix.data, ix.postsAt+4*p); s > prev && s < ix.nSets {
					made[s] = append(made[s], ix.word(w))
					prev = s
				}
			}
		}
		words := []uint64{word}
		if ix.nWords > 0 {
			words = append(words, ix.word(0), ix.word(ix.nWords-1))
			slices.Sort(words)
			words = slices.Compact(words)
		}
		counts := make([]uint32, ix.nSets)
		ix.count(words, counts)
		// The sets carried to a new base: those whose postings add up to
		// their sizes, as the lists make them up.
		bad := ix.badSets()
		carried := setsFromLists(ix)
		sizes := 0
		for s := range ix.nSets {
			_, n := ix.set(s)
			sizes += n
		}
		for s := range made {
			if _, n := ix.set(s); bad[s] != (sizes > ix.nPost || len(made[s]) != n) {
				t.Fatalf("set %d of size %d, %d words in the lists: bad %v", s, n, len(made[s]), bad[s])
			}
			if !bad[s] && !slices.Equal(carried[s], made[s]) {
				t.Fatalf("set %d carried as %v, its lists make up %v", s, carried[s], made[s])
			}
		}
		// The near counts, walked and over planes (every word a bit),
		// return memories in order; over planes each with its whole count
		// (the walk searches its last lists as sorted, which a damaged
		// file's may not be).
		defer func(m int) { planeMinList = m }(planeMinList)
		planeMinList = 1
		th := dedup.DefaultThresholds()
		near := memories.NearWords{Duplicate: th.Duplicate, Related: th.Related, Top: 2}
		for _, planes := range []bool{false, true} {
			nearCounts := make([]uint32, ix.nSets)
			floor := th.Related
			var live []int
			if p := ix.makePlanes(); planes && p != nil {
				live = ix.countNearPlanes(p, words, nearCounts, near, func(int) bool { return false }, &floor)
			} else if !planes {
				live = ix.countNear(words, nearCounts, near, func(int) bool { return false }, &floor)
			}
			for i, s := range live {
				if s < 0 || s >= ix.nSets || i > 0 && s <= live[i-1] {
					t.Fatalf("planes %v: near counts returned %v", planes, live)
				}
				if planes && nearCounts[s] != counts[s] {
					t.Fatalf("planes %v: set %d near-counted %d, counted %d", planes, s, nearCounts[s], counts[s])
				}
			}
		}
		for s := range made {
			_, _ = ix.set(s)
			want := 0
			for _, w := range words {
				if slices.Contains(made[s], w) {
					want++
				}
			}
			if int(counts[s]) != want {
				t.Fatalf("set %d: counted %d of %v, its lists hold %d of them", s, counts[s], words, want)
			}
		}
	})
}

// TestWordIndexFitsOnlyItsBase: an index is used only while every memory
// it numbers is in the base with the bytes its set was made from, whatever
// the base's id says.
func TestWordIndexFitsOnlyItsBase(t *testing.T) {
	ix, ok := parseWordIndex(encodeWordIndex(7, []int{0, 4}, []uint64{10, 14}, [][]uint64{{1, 2}, {2}}, nil, []bool{true, true}, []int{3}))
	if !ok {
		t.Fatal("an index made does not read back")
	}
	for _, tc := range []struct {
		name    string
		baseLen int
		hashes  []uint64
		want    bool
	}{
		{"its base", 5, []uint64{10, 0, 0, 0, 14}, true},
		{"a note with other bytes", 5, []uint64{10, 0, 0, 0, 15}, false},
		{"a shorter base", 4, []uint64{10, 0, 0, 0}, false},
		{"a stale memory past the base", 3, []uint64{10, 0, 0}, false},
	} {
		if got := ix.fits(tc.baseLen, func(i int) uint64 { return tc.hashes[i] }); got != tc.want {
			t.Errorf("%s: fits %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestVersion1WordFilesAreNotRead: word files of version 1, which hold no
// keys, are never read as version 2 ones, however well formed: a word index
// is refused (and made again), and a word-set file reads as empty and torn
// (rewritten, its notes read again).
func TestVersion1WordFilesAreNotRead(t *testing.T) {
	sets := [][]uint64{{2, 3, 9}, {3}}
	data := encodeWordIndex(7, []int{0, 2}, []uint64{1, 2}, sets, testKeys[:2], []bool{true, true}, nil)
	if _, ok := parseWordIndex(data); !ok {
		t.Fatal("a version 2 index does not read")
	}
	old := slices.Clone(data)
	copy(old, "cortex dedup index 1\n")
	binary.LittleEndian.PutUint32(old[len(old)-4:], crc32.ChecksumIEEE(old[:len(old)-4]))
	if _, ok := parseWordIndex(old); ok {
		t.Fatal("a version 1 header read as a version 2 index")
	}
	m := map[string]wordEntry{"a.md": {hash: 1, words: []uint64{2, 3}, keys: testKeys[0]}}
	head := append([]byte("cortex dedup words 1\n"), probeBytes()...)
	p := filepath.Join(t.TempDir(), "x.words")
	if err := os.WriteFile(p, encodeWords(head, m, []string{"a.md"}), 0o600); err != nil {
		t.Fatal(err)
	}
	if wf := readWords(p); len(wf.m) != 0 || !wf.torn {
		t.Fatalf("a version 1 word-set file read as %d sets (torn %v), want none, torn", len(wf.m), wf.torn)
	}
}

// TestWordIndexFitsBaseRemembered: a kept index checked against one base is
// not checked again against it (no hash of the base is looked up), and is
// checked against any other base, whose hashes decide.
func TestWordIndexFitsBaseRemembered(t *testing.T) {
	ix, ok := parseWordIndex(encodeWordIndex(7, []int{0, 1}, []uint64{10, 14}, [][]uint64{{1, 2}, {2}}, nil, []bool{true, true}, nil))
	if !ok {
		t.Fatal("an index made does not read back")
	}
	// A catalog whose base holds two notes with these hashes, written
	// to and read back from a folder of its own.
	base := func(hashes ...uint64) *index.Catalog {
		dir := t.TempDir()
		c := index.NewCatalog(index.Schema)
		recs := map[string]*index.Record{}
		for i, h := range hashes {
			p := fmt.Sprintf("memories/p/n%d.md", i)
			recs[p] = &index.Record{Entry: memories.Entry{Path: p, ID: fmt.Sprintf("id%d", i), Project: "p", Title: "t"}, Hash: h}
		}
		c.Put(recs)
		if err := c.Write(dir, nil, time.Now()); err != nil {
			t.Fatal(err)
		}
		loaded, err := index.LoadCatalog(dir)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = loaded.Close() })
		return loaded
	}
	fitsBase := func(c *index.Catalog) (fits bool, looked int) {
		fits = ix.fitsBase(c.BaseToken(), c.BaseLen(), func(i int) uint64 { looked++; return c.BaseHash(i) })
		return fits, looked
	}
	a, other := base(10, 14), base(10, 15)
	if fits, looked := fitsBase(a); !fits || looked != 2 {
		t.Fatalf("first check against its base: fits %v after %d look-ups; want true after 2", fits, looked)
	}
	if fits, looked := fitsBase(a); !fits || looked != 0 {
		t.Fatalf("second check against the same base: fits %v after %d look-ups; want true, remembered", fits, looked)
	}
	if fits, looked := fitsBase(other); fits || looked == 0 {
		t.Fatalf("check against a base with a note of other bytes: fits %v after %d look-ups; want false, checked", fits, looked)
	}
	if fits, looked := fitsBase(base(10, 14)); !fits || looked != 2 {
		t.Fatalf("check against another base with the same hashes: fits %v after %d look-ups; want true, checked", fits, looked)
	}
}

// TestWordFileWrittenInBlocks: a word file rewritten whole is written a
// block at a time (writeWordBlocks), and reads back as the sets it was
// written from; a tear in its last block loses that block's sets only.
func TestWordFileWrittenInBlocks(t *testing.T) {
	m := map[string]wordEntry{}
	var paths []string
	for i := range 300 {
		p := fmt.Sprintf("project/note-%03d.md", i)
		words := make([]uint64, i%40)
		for k := range words {
			words[k] = uint64(i*100 + k)
		}
		e := wordEntry{hash: uint64(i) * 7919, words: words}
		if i%3 == 0 {
			e.keys = mustKeys([]uint64{uint64(i)}, []uint64{uint64(i) + 1})
		}
		m[p] = e
		paths = append(paths, p)
	}
	// One record is larger than the bound: it makes a block of its own.
	big := make([]uint64, 1000)
	for k := range big {
		big[k] = uint64(k)
	}
	m["project/big.md"] = wordEntry{hash: 1, words: big}
	paths = append(paths, "project/big.md")
	slices.Sort(paths)

	dir := t.TempDir()
	p := filepath.Join(dir, "x.words")
	var file []byte
	for _, limit := range []int{1 << 20, 2048} {
		f, err := os.Create(p)
		if err != nil {
			t.Fatal(err)
		}
		size, err := writeWordBlocks(f, m, paths, limit)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			t.Fatal(err)
		}
		wf := readWords(p)
		if wf.torn || wf.size != size || wf.records != len(paths) {
			t.Fatalf("limit %d: read torn=%v, %d of %d bytes, %d records; want %d", limit, wf.torn, wf.size, size, wf.records, len(paths))
		}
		if diff := cmp.Diff(m, wf.m, cmp.AllowUnexported(wordEntry{}, dedup.Keys{})); diff != "" {
			t.Fatalf("limit %d: read back (-written +read):\n%s", limit, diff)
		}
		if file, err = os.ReadFile(p); err != nil {
			t.Fatal(err)
		}
		blocks, over := 0, 0
		for off := len(wordsHeader) + 8; off < len(file); off += 8 + int(binary.LittleEndian.Uint32(file[off:])) {
			if 8+int(binary.LittleEndian.Uint32(file[off:])) > limit {
				over++ // only the big record's own block may be
			}
			blocks++
		}
		if over > 1 {
			t.Errorf("limit %d: %d blocks over it, want the big record's alone", limit, over)
		}
		if want := 1; limit == 1<<20 && blocks != want {
			t.Errorf("limit %d: %d blocks, want %d", limit, blocks, want)
		}
		if limit == 2048 && blocks < 10 {
			t.Errorf("limit %d: %d blocks, want many", limit, blocks)
		}
	}
	// Torn in its last block: the blocks before it are read.
	if err := os.WriteFile(p, file[:len(file)-5], 0o600); err != nil {
		t.Fatal(err)
	}
	wf := readWords(p)
	if !wf.torn || len(wf.m) == 0 || len(wf.m) >= len(paths) {
		t.Errorf("a torn last block: torn=%v, %d of %d sets read", wf.torn, len(wf.m), len(paths))
	}
	for path, e := range wf.m {
		if diff := cmp.Diff(m[path], e, cmp.AllowUnexported(wordEntry{}, dedup.Keys{})); diff != "" {
			t.Errorf("%s read from a torn file (-written +read):\n%s", path, diff)
		}
	}
}
