package wiring

import (
	"bytes"
	"os"
	"strconv"
)

// residentMemory reads /proc/self/statm: the resident pages, and the
// resident pages that are shared (mapped from files), in bytes.
func residentMemory() (rss, file int64, ok bool) {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0, 0, false
	}
	f := bytes.Fields(b)
	if len(f) < 3 {
		return 0, 0, false
	}
	r, err1 := strconv.ParseInt(string(f[1]), 10, 64)
	s, err2 := strconv.ParseInt(string(f[2]), 10, 64)
	if err1 != nil || err2 != nil {
		return 0, 0, false
	}
	page := int64(os.Getpagesize())
	return r * page, s * page, true
}
