package atomicfile

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"testing/iotest"
)

// TestReadSized: whatever size it is told, ReadSized reads to the end (a
// reader giving a byte at a time included), stops after limit+1 bytes when
// limit is above 0, and returns a read's error.
func TestReadSized(t *testing.T) {
	text := strings.Repeat("é and x\n", 300)
	for _, size := range []int64{int64(len(text)), 0, -1, 10, int64(len(text)) + 5} {
		for _, limit := range []int64{0, 100, int64(len(text)), int64(len(text)) + 1} {
			got, err := ReadSized(iotest.OneByteReader(strings.NewReader(text)), size, limit)
			want := text
			if limit > 0 && int64(len(text)) > limit+1 {
				want = text[:limit+1]
			}
			if err != nil || string(got) != want {
				t.Errorf("size %d, limit %d: %d bytes (%v), want %d", size, limit, len(got), err, len(want))
			}
		}
	}
	boom := errors.New("boom")
	if got, err := ReadSized(iotest.ErrReader(boom), 10, 0); err != boom || got != nil {
		t.Errorf("a failing read: %q, %v", got, err)
	}
	if got, _ := ReadSized(bytes.NewReader(nil), 0, 0); len(got) != 0 {
		t.Errorf("an empty reader: %q", got)
	}
}
