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
package hugeheap

import "strings"

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

// EnvHugePages set to "off" keeps the heap on the kernel's default pages.
const EnvHugePages = "CORTEX_HUGEPAGES"

// Allowed says whether the environment lets the heap ask for huge pages:
// not with CORTEX_HUGEPAGES=off, nor with the Go runtime's own
// GODEBUG=disablethp=1.
func Allowed(getenv func(string) string) bool {
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
