// Package procmem reads what Linux says of this process's memory, for the
// tests that hold a long-lived process's mapped files to a budget.
package procmem

import (
	"bufio"
	"fmt"
	"os"
	"strings"
)

// MappedKB is the resident memory, in kB, of this process's mappings of
// files whose path starts with prefix and ends with suffix, as
// /proc/self/smaps says; an error where there is none (not Linux).
func MappedKB(prefix, suffix string) (int, error) {
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		return 0, err
	}
	defer f.Close()
	in, kb := false, 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		// A mapping's first line: address range, permissions, offset,
		// device, inode and, for a file, its path.
		if fs := strings.Fields(line); len(fs) >= 5 && strings.Contains(fs[0], "-") && !strings.HasSuffix(fs[0], ":") {
			in = len(fs) >= 6 && strings.HasPrefix(fs[5], prefix) && strings.HasSuffix(fs[5], suffix)
			continue
		}
		if in && strings.HasPrefix(line, "Rss:") {
			var n int
			if _, err := fmt.Sscanf(line, "Rss: %d kB", &n); err != nil {
				return 0, fmt.Errorf("smaps: %q: %w", line, err)
			}
			kb += n
		}
	}
	return kb, sc.Err()
}
