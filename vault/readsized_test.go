package vault

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// TestReadSizedReadsAll checks readSized against io.ReadAll of the same
// limit, for a size right, too small (the file grew), too large (it shrank)
// and beyond MaxNoteBytes, with a reader that gives a few bytes at a time.
func TestReadSizedReadsAll(t *testing.T) {
	text := bytes.Repeat([]byte("a note's line\n"), 700)
	big := bytes.Repeat([]byte{'x'}, MaxNoteBytes+100)
	for _, tc := range []struct {
		name string
		data []byte
		size int64
	}{
		{"size right", text, int64(len(text))},
		{"grew", text, 100},
		{"shrank", text, int64(len(text)) * 2},
		{"empty", nil, 0},
		{"empty, said to have bytes", nil, 10},
		{"beyond the limit", big, int64(len(big))},
		{"beyond the limit, said to be small", big, 10},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want, err := io.ReadAll(io.LimitReader(bytes.NewReader(tc.data), MaxNoteBytes+1))
			if err != nil {
				t.Fatal(err)
			}
			got, err := readSized(io.LimitReader(&trickle{r: bytes.NewReader(tc.data)}, MaxNoteBytes+100), tc.size)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("read %d bytes, want %d", len(got), len(want))
			}
		})
	}
}

// trickle gives at most 777 bytes a read.
type trickle struct{ r io.Reader }

func (t *trickle) Read(p []byte) (int, error) { return t.r.Read(p[:min(len(p), 777)]) }

// TestReadRawAllocatesTheNoteOnce: reading a note of documentation length
// makes one buffer of its size, not a buffer grown from 512 bytes (eight
// allocations, each copied and cleared, for 10 kB).
func TestReadRawAllocatesTheNoteOnce(t *testing.T) {
	if raceEnabled {
		t.Skip("allocations are not counted under the race detector")
	}
	root := t.TempDir()
	v, err := New(root, "cortex")
	if err != nil {
		t.Fatal(err)
	}
	data := bytes.Repeat([]byte("a note's line\n"), 700)
	rel := "memories/p/note.md"
	if err := os.MkdirAll(filepath.Join(root, "cortex", "memories", "p"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "cortex", filepath.FromSlash(rel)), data, 0o644); err != nil {
		t.Fatal(err)
	}
	got, _, err := v.ReadRaw(rel)
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("ReadRaw = %d bytes, %v; want the %d written", len(got), err, len(data))
	}
	var large int
	allocs := testing.AllocsPerRun(20, func() {
		b, _, _ := v.ReadRaw(rel)
		if cap(b) >= 512 {
			large++
		}
	})
	if large != 21 {
		t.Fatalf("%d of 21 reads gave the note", large)
	}
	// Opening and closing the file: the path, the os.File and its
	// finaliser; one buffer for the bytes.
	if base := openAllocs(t, v, rel); allocs > base+1 {
		t.Errorf("ReadRaw made %.0f allocations, %.0f of them opening the note: the bytes took more than one", allocs, base)
	}
}

// openAllocs is what opening, stating and closing the note at rel allocates.
func openAllocs(t *testing.T, v *Vault, rel string) float64 {
	t.Helper()
	return testing.AllocsPerRun(20, func() {
		f, _, err := v.openNote(v.Abs(rel), v.VaultPath(rel))
		if err != nil {
			t.Fatal(err)
		}
		_, _ = f.Stat()
		_ = f.Close()
	})
}
