package wiring

import "testing"

// TestParseStatm: statm's resident and shared pages, in bytes; anything
// else is not read as memory.
func TestParseStatm(t *testing.T) {
	tests := []struct {
		in        string
		rss, file int64
		ok        bool
	}{
		{"1000 300 120 50 0 400 0\n", 300 * 4096, 120 * 4096, true},
		{"1000 300", 0, 0, false},
		{"", 0, 0, false},
		{"1000 x 120 50 0 400 0", 0, 0, false},
		{"1000 300 -1 50 0 400 0", 0, 0, false},
	}
	for _, tt := range tests {
		rss, file, ok := parseStatm([]byte(tt.in), 4096)
		if rss != tt.rss || file != tt.file || ok != tt.ok {
			t.Errorf("parseStatm(%q) = %d, %d, %v; want %d, %d, %v", tt.in, rss, file, ok, tt.rss, tt.file, tt.ok)
		}
	}
}
