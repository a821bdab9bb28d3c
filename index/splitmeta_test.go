package index

import (
	"encoding/binary"
	"strings"
	"testing"
)

// TestSplitMetaBounds checks the one-byte length path of splitMeta against
// the general varint path: same fields for whole records, errShortMeta for
// a record cut anywhere or whose field length runs past its end.
func TestSplitMetaBounds(t *testing.T) {
	var b []byte
	for i := 0; i < 11; i++ {
		f := strings.Repeat(string(rune('a'+i)), i*30) // 0..300 bytes: one- and two-byte lengths
		b = binary.AppendUvarint(b, uint64(len(f)))
		b = append(b, f...)
	}
	for _, v := range []int64{5, -7, 1 << 40} {
		b = binary.AppendVarint(b, v)
	}
	s, nums, err := splitMeta(string(b))
	if err != nil {
		t.Fatal(err)
	}
	for i := range s {
		if want := strings.Repeat(string(rune('a'+i)), i*30); s[i] != want {
			t.Fatalf("field %d = %q, want %q", i, s[i], want)
		}
	}
	if nums != [3]int64{5, -7, 1 << 40} {
		t.Fatalf("nums = %v", nums)
	}
	for n := 0; n < len(b); n++ {
		if _, _, err := splitMeta(string(b[:n])); err != errShortMeta {
			t.Fatalf("cut at %d: err = %v, want errShortMeta", n, err)
		}
	}
	// A one-byte length equal to what is left runs one byte past the end.
	if _, _, err := splitMeta("\x03ab\x00"); err != errShortMeta {
		t.Fatalf("overlong field: err = %v, want errShortMeta", err)
	}
}
