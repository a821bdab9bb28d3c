package store

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unsafe"

	"github.com/google/go-cmp/cmp"

	"github.com/cortexmem/cortex/dedup"
	"github.com/cortexmem/cortex/memories"
)

// mappingRSS is the resident size, in kB, of the mapping of this process
// that holds address at, as /proc/self/smaps says.
func mappingRSS(t *testing.T, at uintptr) int {
	t.Helper()
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Skipf("no smaps: %v", err)
	}
	defer f.Close()
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		var lo, hi uintptr
		if n, _ := fmt.Sscanf(line, "%x-%x ", &lo, &hi); n == 2 {
			in = lo <= at && at < hi
			continue
		}
		var kb int
		if in && strings.HasPrefix(line, "Rss:") {
			if _, err := fmt.Sscanf(line, "Rss: %d kB", &kb); err != nil {
				t.Fatal(err)
			}
			return kb
		}
	}
	t.Fatalf("no mapping holds %x", at)
	return 0
}

// TestKeptWordIndexLeavesNoPagesResident: checking a kept index leaves
// none of its pages in the process's resident memory (they are in the page
// cache), where reading it whole would have left all of them.
func TestKeptWordIndexLeavesNoPagesResident(t *testing.T) {
	sets := make([][]uint64, 2000)
	bases, hashes, kept := make([]int, len(sets)), make([]uint64, len(sets)), make([]bool, len(sets))
	for j := range sets {
		bases[j], hashes[j], kept[j] = j, uint64(j), true
		for w := range 200 {
			sets[j] = append(sets[j], uint64(j*7+w*13))
		}
	}
	data := encodeWordIndex(3, bases, hashes, sets, nil, kept, nil)
	p := filepath.Join(t.TempDir(), "x.index")
	if err := os.WriteFile(p, data, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, kept := range []bool{false, true} {
		_, mapped, done := mapTestIndex(t, p, kept)
		rss := mappingRSS(t, uintptr(unsafe.Pointer(&mapped[0])))
		size := len(mapped) / 1024
		switch {
		case kept && rss > 64:
			t.Errorf("a kept index of %d kB left %d kB resident", size, rss)
		case !kept && rss < size/2:
			t.Errorf("an index read whole left %d of %d kB resident: the test cannot see pages", rss, size)
		}
		done()
	}
}

// TestKeptWordIndexWalksStayWithinBudget: the walks of a kept index leave
// at most keptWalkBudget of its postings resident (and a large page more,
// the kernel's unit), however many lists they read, and count as the
// index read whole counts; an index not kept keeps what it read.
func TestKeptWordIndexWalksStayWithinBudget(t *testing.T) {
	defer func(b, c int) { keptWalkBudget, walkChunk = b, c }(keptWalkBudget, walkChunk)
	// The near walk, not the planes a kept index counts over (whose counts
	// are exact for every memory, where the walk's may be short for those
	// it leaves out: TestNearCountsOverPlanes).
	defer func(m int) { planeMaxSets = m }(planeMaxSets)
	planeMaxSets = 0
	walkChunk = 256 << 10
	keptWalkBudget = 2 * walkChunk
	const words = 1000
	ti := newTestIndex(t, 4000, words, 4)
	sets, data, p := ti.sets, ti.data, ti.path
	all := make([]uint64, words)
	for w := range all {
		all[w] = uint64(w)
	}
	want := make([]uint32, len(sets))
	for j := range sets {
		want[j] = uint32(len(sets[j]))
	}
	// kB: the budget's chunks, each in a large page of the kernel's (up to
	// 2 MB), and the rest of the file.
	limit := (keptWalkBudget/walkChunk*(2<<20) + 1<<20) / 1024
	if len(data) < 2*limit*1024 {
		t.Fatalf("an index of %d bytes: want twice the %d kB it may leave resident", len(data), limit)
	}
	th := dedup.DefaultThresholds()
	near := memories.NearWords{Duplicate: th.Duplicate, Related: th.Related, Top: 4}
	// The near walk of a memory that has every word: the lists are walked
	// whole, then searched for the memories that can still matter.
	nearOf := func(ix *wordIndex) ([]int, []uint32) {
		counts := make([]uint32, ix.nSets)
		floor := th.Related
		live := ix.countNear(all, counts, near, func(int) bool { return false }, &floor)
		return live, counts
	}
	plain, ok := parseWordIndex(data)
	if !ok {
		t.Fatal("the index does not parse")
	}
	wantLive, wantNear := nearOf(plain)
	for _, c := range []struct {
		name       string
		keep, near bool
	}{{"count", false, false}, {"count", true, false}, {"near", false, true}, {"near", true, true}} {
		keep := c.keep
		mapped, done, ok, err := readMapped(p)
		if err != nil || !ok {
			t.Fatalf("not mapped: %v", err)
		}
		ix, parsed := parseKeptWordIndex(mapped, checksumDropping)
		if !parsed {
			t.Fatal("the index does not parse")
		}
		if !keep {
			ix.walks = nil // as a kept index read before this budget
		}
		if c.near {
			live, counts := nearOf(ix)
			if diff := cmp.Diff(wantNear, counts); diff != "" || !slices.Equal(live, wantLive) {
				t.Errorf("%s, kept %v: near counts (-want +got):\n%s\nlive %v, want %v", c.name, keep, diff, live, wantLive)
			}
		} else {
			counts := make([]uint32, ix.nSets)
			ix.count(all, counts)
			if diff := cmp.Diff(want, counts); diff != "" {
				t.Errorf("%s, kept %v: counts (-want +got):\n%s", c.name, keep, diff)
			}
		}
		// Every list is read, whole or in part: the postings' chunks are
		// all noted, and the pages dropped once a budget's worth was.
		if least := 4*ix.nPost/keptWalkBudget - 1; keep && ix.walks.drops < least {
			t.Errorf("%s: the pages were dropped %d times over %d bytes of postings, want at least %d", c.name, ix.walks.drops, 4*ix.nPost, least)
		}
		rss := mappingRSS(t, uintptr(unsafe.Pointer(&mapped[0])))
		switch {
		case keep && rss > limit:
			t.Errorf("%s: walks of a kept index of %d kB left %d kB resident, over %d", c.name, len(mapped)/1024, rss, limit)
		case !keep && rss <= limit:
			t.Errorf("%s: walks that drop nothing left %d kB of %d resident: the test cannot see pages", c.name, rss, len(mapped)/1024)
		}
		done()
	}
}

// TestCarryDropsTheEarlierIndexBehind: carrying every set of a kept index
// to a new one reads all its postings, and leaves at most a chunk of them
// (and a large page of the kernel's) resident, where an index not kept
// keeps what was read (which shows that the test sees pages).
func TestCarryDropsTheEarlierIndexBehind(t *testing.T) {
	defer func(c int) { dropChunk = c }(dropChunk)
	dropChunk = 256 << 10
	ti := newTestIndex(t, 5000, 800, 3)
	sets, bases, hashes, kept, data, p := ti.sets, ti.bases, ti.hashes, ti.kept, ti.data, ti.path
	from := make([]int, len(sets))
	for j := range from {
		from[j] = j
	}
	limit := (dropChunk + 2<<20 + 1<<20) / 1024
	if len(data) < 2*limit*1024 {
		t.Fatalf("an index of %d bytes: want twice the %d kB it may leave resident", len(data), limit)
	}
	for _, keep := range []bool{false, true} {
		prev, mapped, done := mapTestIndex(t, p, keep)
		var out bytes.Buffer
		iw := &indexWriter{w: &out}
		writeCarriedWordIndex(iw, 4, bases, hashes, make([][]uint64, len(sets)), from, nil, kept, nil, prev)
		if _, err := iw.finish(); err != nil {
			t.Fatal(err)
		}
		rss := mappingRSS(t, uintptr(unsafe.Pointer(&mapped[0])))
		size := len(mapped) / 1024
		switch {
		case keep && rss > limit:
			t.Errorf("carrying a kept index of %d kB left %d kB of it resident, want at most %d", size, rss, limit)
		case !keep && rss < size/2:
			t.Errorf("carrying an index not kept left %d of %d kB resident: the test cannot see pages", rss, size)
		}
		if want := encodeWordIndex(4, bases, hashes, sets, nil, kept, nil); !bytes.Equal(out.Bytes(), want) {
			t.Errorf("the carried index (%d bytes) is not the one made (%d bytes)", out.Len(), len(want))
		}
		done()
	}
}

// testIndex is a word index of n memories written to a file: memory j has
// the words w below words but those with (j+w)%skip == 0.
type testIndex struct {
	sets   [][]uint64
	bases  []int
	hashes []uint64
	kept   []bool
	data   []byte
	path   string
}

func newTestIndex(t *testing.T, n, words, skip int) testIndex {
	t.Helper()
	ti := testIndex{sets: make([][]uint64, n), bases: make([]int, n), hashes: make([]uint64, n), kept: make([]bool, n)}
	for j := range n {
		ti.bases[j], ti.hashes[j], ti.kept[j] = j, uint64(j), true
		for w := range words {
			if (j+w)%skip != 0 {
				ti.sets[j] = append(ti.sets[j], uint64(w))
			}
		}
	}
	ti.data = encodeWordIndex(3, ti.bases, ti.hashes, ti.sets, nil, ti.kept, nil)
	ti.path = filepath.Join(t.TempDir(), "x.index")
	if err := os.WriteFile(ti.path, ti.data, 0o600); err != nil {
		t.Fatal(err)
	}
	return ti
}

// mapTestIndex maps the word index file at p and parses it, as a resident
// store keeps it when kept is set (its pages dropped once checked); done
// unmaps it.
func mapTestIndex(t *testing.T, p string, kept bool) (ix *wordIndex, mapped []byte, done func()) {
	t.Helper()
	mapped, done, ok, err := readMapped(p)
	if err != nil || !ok {
		t.Fatalf("not mapped: %v", err)
	}
	if kept {
		ix, ok = parseKeptWordIndex(mapped, checksumDropping)
	} else {
		ix, ok = parseWordIndex(mapped)
	}
	if !ok {
		t.Fatal("the index does not parse")
	}
	return ix, mapped, done
}
