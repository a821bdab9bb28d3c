package main

import "runtime/debug"

// shortLivedMemoryLimit is the heap a short-lived command (a hook, save,
// context, list) grows to before it collects garbage. Such a command lives
// for tens of milliseconds, and at 10,000 notes a session start allocates
// about 20 MB: the collector would spend a fifth of its time freeing memory
// that exit frees anyway. The limit keeps a huge vault from growing the heap
// without bound.
const shortLivedMemoryLimit = 256 << 20

// shortLivedGC turns the collector off up to shortLivedMemoryLimit, unless the person
// tuned it (GOGC or GOMEMLIMIT in getenv); it returns what restores the
// settings before.
func shortLivedGC(getenv func(string) string) (restore func()) {
	if getenv("GOGC") != "" || getenv("GOMEMLIMIT") != "" {
		return func() {}
	}
	limit := debug.SetMemoryLimit(shortLivedMemoryLimit)
	percent := debug.SetGCPercent(-1)
	return func() {
		debug.SetGCPercent(percent)
		debug.SetMemoryLimit(limit)
	}
}
