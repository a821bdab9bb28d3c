package main

import (
	"strings"

	"github.com/cortexmem/cortex/internal/hugeheap"
)

// heapRoom is the heap, in bytes, a command that grows a large one is given
// room for up front: a rebuild of 10,000 real-shaped notes peaks near
// 500 MB, an import somewhat lower, a server at 100,000 notes near 130 MB;
// list and status decode every entry (megabytes at 10,000 notes). The room
// is address space, not memory: what is not used is never touched. Its one
// garbage collection costs more than it saves in a command of a few
// megabytes of heap (recall, save and context measured slower with it).
var heapRoom = map[string]int64{
	"reindex": 512 << 20,
	"import":  512 << 20,
	"eval":    512 << 20,
	"demo":    256 << 20,
	"scribe":  256 << 20,
	"mcp":     hugeheap.ServerRoom,
	"watch":   hugeheap.ServerRoom,
	"list":    64 << 20,
	"status":  64 << 20,
}

// prepareHeap asks for huge pages for the heap (internal/hugeheap) with the
// room the command named by args needs, where small pages are slow
// (hugeheap.Wanted): page faults were most of a short command's time on
// virtual machines where each costs 25–50 µs, and seconds of a rebuild.
// Only a hint to the kernel: an error changes nothing, and is not worth a
// word.
func prepareHeap(args []string, getenv func(string) string) {
	if !hugeheap.Wanted(getenv) {
		return
	}
	_, _ = hugeheap.Prepare(heapRoom[commandName(args)])
}

// commandName is the command args run: the first that is neither a flag nor
// the value of one of the root's flags that take one.
func commandName(args []string) string {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return ""
		case a == "--vault" || a == "--home" || a == "--config":
			i++ // its value
		case strings.HasPrefix(a, "-"):
		default:
			return a
		}
	}
	return ""
}
