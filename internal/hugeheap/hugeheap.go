// Package hugeheap asks the kernel to back the Go heap with transparent huge
// pages.
//
// The first write to a page of fresh memory costs a page fault. On bare
// metal that is about a microsecond for 4 KiB; in the sandboxed virtual
// machines agents increasingly run in (Firecracker and the like) it was
// measured at 25–50 µs, which made page faults most of a short command's
// time and seconds of a rebuild: a recall touches about 4 MiB of heap (900
// faults), a rebuild of 10,000 notes 135,000 faults. A 2 MiB huge page costs
// one fault of 0.15–0.4 ms there, a hundredth of the 512 small ones it
// replaces.
//
// Where transparent huge pages are on only for memory that asks for them
// (the "madvise" setting, the default of most distributions), the Go
// runtime does not ask for its heap. Prepare does, for the heap mapped so
// far and, when given a reserve, for that much more: the runtime maps the
// heap 4 MiB at a time as it grows, and each new mapping is a fresh one that
// does not inherit the advice, so the room a long command will use is
// mapped up front (as one allocation that is freed at once; it is never
// touched, so it costs no memory) and advised while it is empty.
//
// The advice is only a hint: with huge pages off, or on an older kernel,
// nothing changes, and where they are always on it changes nothing either.
//
// It is asked only where small pages are slow (Wanted). On another 2-core
// VM (a guest whose memory balloon gives the host back the large free
// blocks the guest does not use), the first write to a 4 KiB page cost
// 1.6–1.9 µs, and a huge page 0.3 ms when its 2 MiB had been used lately,
// but 6 ms (12 µs per 4 KiB) when it came from a block the host had taken
// back, which a huge page, being a large block, often does and a small
// page seldom does. There the advice made a rebuild of 10,000 real-shaped
// notes slower (median 3.41 s against 3.16 s, with three times the system
// time) and a recall too. A few microseconds of measuring tell the two
// kinds of machine apart: where a small page's first write is cheap, huge
// pages can spare little and may cost much, and the heap is left as the
// runtime maps it; bare metal is of that kind too.
package hugeheap

import (
	"strings"
	"time"
)

// chunk is how much heap the Go runtime maps at a time (its palloc chunk).
const chunk = 4 << 20

// arena is the size and alignment of the runtime's heap arenas on 64-bit
// Linux: the address space it reserves for the heap and maps chunk by
// chunk. Advice for a whole arena touches no other mapping; the part not
// yet mapped keeps none of it once mapped.
const arena = 64 << 20

// ServerRoom is the room a cortex process that serves prepares (`cortex
// mcp`, `cortex watch`; cortex-bench for its rows that run the server's code
// in its own process): a server at 100,000 notes peaks near 130 MB.
const ServerRoom = 128 << 20

// EnvHugePages set to "off" keeps the heap on the kernel's default pages,
// and set to "on" asks for huge pages without measuring (Wanted).
const EnvHugePages = "CORTEX_HUGEPAGES"

// slowFault is the cost of a small page's first write from which the heap
// asks for huge pages: several times what it is where they do not pay (see
// the package comment), a fraction of what it is where they do.
const slowFault = 8 * time.Microsecond

// Wanted says whether a process should ask for huge pages (Prepare):
// CORTEX_HUGEPAGES=on asks, CORTEX_HUGEPAGES=off or GODEBUG=disablethp=1
// does not; otherwise it asks where the first write to a small page costs
// slowFault or more (SmallFault), and not where that cannot be measured.
func Wanted(getenv func(string) string) bool {
	return wanted(getenv, SmallFault)
}

// wanted is Wanted with probe measuring a small page's first write.
func wanted(getenv func(string) string, probe func() (time.Duration, error)) bool {
	if !allowed(getenv) {
		return false
	}
	if strings.EqualFold(strings.TrimSpace(getenv(EnvHugePages)), "on") {
		return true
	}
	cost, err := probe()
	return err == nil && cost >= slowFault
}

// allowed says whether the environment lets the heap ask for huge pages:
// not with CORTEX_HUGEPAGES=off, nor with the Go runtime's own
// GODEBUG=disablethp=1.
func allowed(getenv func(string) string) bool {
	if strings.EqualFold(strings.TrimSpace(getenv(EnvHugePages)), "off") {
		return false
	}
	for _, kv := range strings.Split(getenv("GODEBUG"), ",") {
		if strings.TrimSpace(kv) == "disablethp=1" {
			return false
		}
	}
	return true
}

// Advice is what Prepare asked of the kernel: the address ranges it
// advised. It is empty where the platform has no such advice.
type Advice struct {
	Ranges [][2]uintptr
}
