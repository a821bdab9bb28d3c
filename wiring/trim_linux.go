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
	return parseStatm(b, int64(os.Getpagesize()))
}

// parseStatm reads statm's second and third fields (resident and shared
// pages) as bytes of pages of page bytes; false when they are not there.
func parseStatm(b []byte, page int64) (rss, file int64, ok bool) {
	f := bytes.Fields(b)
	if len(f) < 3 {
		return 0, 0, false
	}
	r, err1 := strconv.ParseInt(string(f[1]), 10, 64)
	s, err2 := strconv.ParseInt(string(f[2]), 10, 64)
	if err1 != nil || err2 != nil || r < 0 || s < 0 {
		return 0, 0, false
	}
	return r * page, s * page, true
}
