package zstd

import (
	"bytes"
	"testing"
)

// TestDecode: a frame Encode made comes back; junk, a cut frame and one
// larger than MaxSize are errors, never a panic nor a huge allocation.
func TestDecode(t *testing.T) {
	text := []byte(`{"messages":[{"User":{"content":[{"Text":"hi"}]}}]}`)
	frame := Encode(text)
	huge := Encode(bytes.Repeat([]byte(" "), MaxSize+1024))
	tests := []struct {
		name    string
		src     []byte
		want    []byte
		wantErr bool
	}{
		{"round trip", frame, text, false},
		{"empty input", nil, nil, false},
		{"junk", []byte("not zstd"), nil, true},
		{"cut", frame[:len(frame)-3], nil, true},
		{"magic only", []byte{0x28, 0xb5, 0x2f, 0xfd, 0, 0}, nil, true},
		{"larger than MaxSize", huge, nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Decode(tt.src)
			if (err != nil) != tt.wantErr {
				t.Fatalf("Decode: err = %v, want error %v", err, tt.wantErr)
			}
			if !bytes.Equal(got, tt.want) {
				t.Errorf("Decode = %.80q, want %.80q", got, tt.want)
			}
		})
	}
}

// FuzzDecode: any input decodes or fails, within MaxSize.
func FuzzDecode(f *testing.F) {
	f.Add(Encode([]byte(`{"a":1}`)))
	f.Add([]byte{0x28, 0xb5, 0x2f, 0xfd, 0, 0})
	f.Fuzz(func(t *testing.T, src []byte) {
		out, err := Decode(src)
		if err == nil && len(out) > MaxSize {
			t.Fatalf("decoded %d bytes, more than MaxSize", len(out))
		}
	})
}
