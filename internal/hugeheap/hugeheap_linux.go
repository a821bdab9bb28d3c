//go:build linux

package hugeheap

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// hugePage is the size of a transparent huge page on the platforms Go
// supports Linux on with 4 KiB pages; the ranges advised are rounded to it,
// which also keeps them inside the runtime's own mappings (its chunks and
// arenas are aligned to larger powers of two).
const hugePage = 2 << 20

// sink keeps the probe allocation on the heap.
var sink *[64]byte

// Prepare advises the heap arena the runtime is allocating from and, when
// reserve is at least a chunk, maps about reserve bytes more of heap and
// advises them too, then frees them with a garbage collection (a few
// milliseconds where page faults are slow: worth it only for a command that
// will use that much). The reserve is capped at a quarter of the machine's
// memory, so that mapping it never fails for lack of it.
//
// It returns what it advised; an error means some of it was refused (the
// kernel has no transparent huge pages, say), which changes nothing else.
func Prepare(reserve int64) (Advice, error) {
	sink = new([64]byte)
	p := uintptr(unsafe.Pointer(sink))
	sink = nil
	lo := p &^ (arena - 1)
	ranges := [][2]uintptr{{lo, lo + arena}}
	reserve = capReserve(reserve, memory())
	if reserve >= chunk {
		ranges = append(ranges, mapRoom(reserve))
	}
	var first error
	for _, r := range ranges {
		if err := madvise(r[0], r[1]-r[0], unix.MADV_HUGEPAGE); err != nil && first == nil {
			first = fmt.Errorf("hugeheap: advise %#x-%#x: %w", r[0], r[1], err)
		}
	}
	if len(ranges) > 1 {
		runtime.GC() // frees the room for what comes next
	}
	return Advice{Ranges: ranges}, first
}

// capReserve is the reserve Prepare maps on a machine with mem bytes of
// memory: at most a quarter of it.
func capReserve(reserve, mem int64) int64 { return min(reserve, mem/4) }

// mapRoom has the runtime map n bytes of heap, as one allocation it returns
// unreferenced, and returns its address range rounded out to huge pages.
// The allocation is never written: the runtime knows fresh memory is zero.
func mapRoom(n int64) [2]uintptr {
	room := make([]byte, n)
	b := uintptr(unsafe.Pointer(unsafe.SliceData(room)))
	return [2]uintptr{b &^ (hugePage - 1), (b + uintptr(n) + hugePage - 1) &^ (hugePage - 1)}
}

// madvise is the system call on an address range the runtime mapped: it is
// never turned into a pointer, as the range may hold pages not yet in use.
func madvise(addr, n uintptr, advice int) error {
	if _, _, e := unix.Syscall(unix.SYS_MADVISE, addr, n, uintptr(advice)); e != 0 {
		return e
	}
	return nil
}

// memory is the machine's RAM in bytes, or 1 GiB if the kernel does not say.
func memory() int64 {
	var si unix.Sysinfo_t
	if unix.Sysinfo(&si) != nil || si.Totalram == 0 {
		return 1 << 30
	}
	unit := int64(si.Unit)
	if unit == 0 {
		unit = 1
	}
	return int64(si.Totalram) * unit
}

// probePages is how many fresh small pages SmallFault writes at most.
const probePages = 4

// SmallFault is what the first write to a fresh small page of memory costs
// here: the least of up to probePages such writes, to the pages of a
// mapping it makes for them and advises against huge pages (so that where
// huge pages are always on, it still measures small ones), stopping at the
// first below slowFault, which a slow machine cannot give. Only a write
// interrupted or delayed makes one dearer than it is, and the least of a
// few leaves that out. A machine of cheap faults pays one, a few
// microseconds with the mapping's system calls.
func SmallFault() (time.Duration, error) {
	size := os.Getpagesize()
	mem, err := unix.Mmap(-1, 0, probePages*size, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	if err != nil {
		return 0, fmt.Errorf("hugeheap: map the probe's pages: %w", err)
	}
	defer unix.Munmap(mem)
	// EINVAL: a kernel without huge pages, whose pages are all small.
	if err := unix.Madvise(mem, unix.MADV_NOHUGEPAGE); err != nil && !errors.Is(err, unix.EINVAL) {
		return 0, fmt.Errorf("hugeheap: advise the probe's pages: %w", err)
	}
	least := time.Duration(-1)
	for i := range probePages {
		start := time.Now()
		mem[i*size] = 1
		took := time.Since(start)
		if least < 0 || took < least {
			least = took
		}
		if least < slowFault {
			break
		}
	}
	return least, nil
}
