package opencode

import (
	"testing"
	"time"
)

// TestMillis checks millis's digit-by-digit form against time.Format's on
// the edges of its range and of each field.
func TestMillis(t *testing.T) {
	for _, ms := range []int64{1, 999, 1000, 59_999, 951_782_400_000, 1_767_225_599_999, 1_767_225_600_000,
		1_700_000_000_123, 253_402_300_799_999, 253_402_300_800_000, 1e15} {
		want := time.UnixMilli(ms).UTC().Format(millisLayout)
		if got := millis(ms); got != want {
			t.Errorf("millis(%d) = %q, want %q", ms, got, want)
		}
	}
	for _, ms := range []int64{0, -1, 1e15 + 1} {
		if got := millis(ms); got != "" {
			t.Errorf("millis(%d) = %q, want none", ms, got)
		}
	}
}
