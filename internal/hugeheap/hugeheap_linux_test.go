//go:build linux

package hugeheap

import (
	"bufio"
	"errors"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// vma is one mapping of /proc/self/smaps: its range, whether it can be
// written (memory in use, not address space the runtime reserved) and
// whether it is advised for huge pages ("hg" in its VmFlags).
type vma struct {
	lo, hi     uintptr
	rw, hg, nh bool
}

func mappings(t *testing.T) []vma {
	t.Helper()
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Skipf("no /proc/self/smaps: %v", err)
	}
	defer f.Close()
	var out []vma
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if fields := strings.Fields(line); len(fields) > 0 && strings.Contains(fields[0], "-") && !strings.HasSuffix(fields[0], ":") {
			a, b, _ := strings.Cut(fields[0], "-")
			lo, err1 := strconv.ParseUint(a, 16, 64)
			hi, err2 := strconv.ParseUint(b, 16, 64)
			if err1 == nil && err2 == nil {
				rw := len(fields) > 1 && strings.HasPrefix(fields[1], "rw")
				out = append(out, vma{lo: uintptr(lo), hi: uintptr(hi), rw: rw})
			}
			continue
		}
		if rest, ok := strings.CutPrefix(line, "VmFlags:"); ok && len(out) > 0 {
			for _, fl := range strings.Fields(rest) {
				switch fl {
				case "hg":
					out[len(out)-1].hg = true
				case "nh":
					out[len(out)-1].nh = true
				}
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// advised says whether the mapping holding addr is advised for huge pages.
func advised(vmas []vma, addr uintptr) (found, hg bool) {
	for _, m := range vmas {
		if m.lo <= addr && addr < m.hi {
			return true, m.hg
		}
	}
	return false, false
}

// inUse says whether addr is in a mapping of vmas that can be written.
func inUse(vmas []vma, addr uintptr) bool {
	for _, m := range vmas {
		if m.lo <= addr && addr < m.hi {
			return m.rw
		}
	}
	return false
}

func prepare(t *testing.T, reserve int64) Advice {
	t.Helper()
	adv, err := Prepare(reserve)
	if errors.Is(err, unix.EINVAL) {
		t.Skipf("the kernel takes no huge page advice: %v", err)
	}
	// ENOMEM: part of a range was not mapped, which the advice skips.
	if err != nil && !errors.Is(err, unix.ENOMEM) {
		t.Fatal(err)
	}
	return adv
}

// TestPrepareAdvisesTheHeap: every page of the range Prepare names that
// held memory when it was called is advised, and the heap allocates from
// that arena. (A chunk the runtime maps afterwards, for the test's own
// allocations, is a mapping of its own without the advice, as the package
// says; so is where a heap that started near the arena's end goes on.)
func TestPrepareAdvisesTheHeap(t *testing.T) {
	before := mappings(t)
	adv := prepare(t, 0)
	if len(adv.Ranges) != 1 {
		t.Fatalf("Prepare(0) advised %d ranges, want the heap's arena", len(adv.Ranges))
	}
	vmas := mappings(t)
	checkAdvised(t, vmas, adv.Ranges, func(a uintptr) bool { return inUse(before, a) })
	r := adv.Ranges[0]
	if r[1]-r[0] != arena || r[0]%arena != 0 {
		t.Errorf("range %#x-%#x is not one aligned arena", r[0], r[1])
	}
	p := uintptr(unsafe.Pointer(new([64]byte)))
	if p < r[0] || p >= r[1]+arena {
		t.Errorf("a new allocation at %#x is neither in the advised arena %#x-%#x nor in the next", p, r[0], r[1])
	}
}

// checkAdvised requires every page of ranges that need says must be
// advised to be in an advised mapping, and at least one to be.
func checkAdvised(t *testing.T, vmas []vma, ranges [][2]uintptr, need func(uintptr) bool) {
	t.Helper()
	for _, r := range ranges {
		mapped := 0
		for a := r[0]; a < r[1]; a += 4096 {
			found, hg := advised(vmas, a)
			if !found || !need(a) {
				continue
			}
			mapped++
			if !hg {
				t.Fatalf("page %#x of advised range %#x-%#x is in a mapping without huge page advice", a, r[0], r[1])
			}
		}
		if mapped == 0 {
			t.Errorf("no page of range %#x-%#x that must be advised is mapped", r[0], r[1])
		}
	}
}

// TestPrepareReservesRoomItFrees: with a reserve, the room is advised, no
// longer held once Prepare returns, and what is allocated next goes into
// advised memory.
func TestPrepareReservesRoomItFrees(t *testing.T) {
	const reserve = 64 << 20
	if memory()/4 < reserve {
		t.Skip("too little memory for the reserve")
	}
	before := mappings(t)
	adv := prepare(t, reserve)
	if len(adv.Ranges) != 2 {
		t.Fatalf("Prepare(%d) advised %d ranges, want the chunk and the room", reserve, len(adv.Ranges))
	}
	if r := adv.Ranges[1]; r[1]-r[0] < reserve {
		t.Errorf("room %#x-%#x is smaller than %d bytes", r[0], r[1], reserve)
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	if ms.HeapAlloc >= reserve {
		t.Errorf("%d bytes of heap in use after Prepare: the room is still held", ms.HeapAlloc)
	}
	// The room's pages are advised but for its ends, rounded out to huge
	// pages, which may be chunks mapped since; of the arena, the pages that
	// held memory before.
	room := adv.Ranges[1]
	need := func(a uintptr) bool {
		return room[0]+hugePage <= a && a < room[1]-hugePage || inUse(before, a)
	}
	vmas := mappings(t)
	checkAdvised(t, vmas, adv.Ranges, need)
	// A large allocation takes free pages of the heap, which are now the
	// advised ones.
	next := make([]byte, 8<<20)
	addr := uintptr(unsafe.Pointer(unsafe.SliceData(next)))
	if found, hg := advised(mappings(t), addr); !found || !hg {
		t.Errorf("an 8 MiB allocation after Prepare is at %#x, not in advised memory (mapped %v)", addr, found)
	}
	runtime.KeepAlive(next)
}

// TestCapReserve: the room is at most a quarter of the memory.
func TestCapReserve(t *testing.T) {
	for _, c := range []struct{ reserve, mem, want int64 }{
		{512 << 20, 16 << 30, 512 << 20},
		{512 << 20, 1 << 30, 256 << 20},
		{0, 1 << 30, 0},
	} {
		if got := capReserve(c.reserve, c.mem); got != c.want {
			t.Errorf("capReserve(%d, %d) = %d, want %d", c.reserve, c.mem, got, c.want)
		}
	}
}

// TestSmallFault: the probe measures a write, which takes some time and
// far less than a second, and unmaps what it mapped: its pages are advised
// against huge pages ("nh"), and the memory in such mappings does not grow
// by what the probes mapped. (Counted in bytes, not mappings: leaked probe
// mappings side by side would merge into one.)
func TestSmallFault(t *testing.T) {
	noHuge := func() uintptr {
		var n uintptr
		for _, m := range mappings(t) {
			if m.nh {
				n += m.hi - m.lo
			}
		}
		return n
	}
	const probes = 32
	before := noHuge()
	for range probes {
		d, err := SmallFault()
		if err != nil {
			t.Fatal(err)
		}
		if d <= 0 || d >= time.Second {
			t.Errorf("SmallFault() = %v, want a positive time under a second", d)
		}
	}
	probe := uintptr(probePages * os.Getpagesize())
	if grown := noHuge() - min(noHuge(), before); grown >= probes/4*probe {
		t.Errorf("mappings advised against huge pages grew by %d bytes over %d probes of %d bytes: the probes' mappings stay", grown, probes, probe)
	}
}
