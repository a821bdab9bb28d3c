package store

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unsafe"
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
		mapped, done, ok, err := readMapped(p)
		if err != nil || !ok {
			t.Fatalf("not mapped: %v", err)
		}
		var parsed bool
		if kept {
			_, parsed = parseKeptWordIndex(mapped)
		} else {
			_, parsed = parseWordIndex(mapped)
		}
		if !parsed {
			t.Fatal("the index does not parse")
		}
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
