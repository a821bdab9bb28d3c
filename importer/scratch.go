package importer

import (
	"errors"
	"fmt"
	"os"
	"slices"

	"github.com/cortexmem/cortex/memories"
)

// Scratch implements memories.ScratchImporter: a temporary file in
// Options.ScratchDir (the system's temporary folder when unset) that holds an
// import's pooled fingerprints. The file is removed as soon as it is open
// where the system allows it (so that a killed import leaves nothing behind),
// else when the import closes it.
func (s *Source) Scratch() (memories.ImportScratch, error) {
	f, err := os.CreateTemp(s.Options.ScratchDir, "cortex-import-*.tmp")
	if err != nil {
		return nil, fmt.Errorf("open import scratch file: %w", err)
	}
	sc := &scratch{f: f}
	if os.Remove(f.Name()) != nil {
		sc.remove = true // Windows: not while it is open
	}
	return sc, nil
}

var _ memories.ScratchImporter = (*Source)(nil)

// scratchBuffer is how many bytes of encodings a scratch file gathers before
// writing them: one write per megabyte, not one per fingerprint.
const scratchBuffer = 1 << 20

// scratch is a file of encodings put one after the other, read back by
// number. The encodings not yet written stay in buf.
type scratch struct {
	f      *os.File
	remove bool
	ends   []int64 // where each encoding ends
	buf    []byte  // the encodings after the written ones
	// written is how many bytes are in the file.
	written int64
}

func (s *scratch) start(i int) int64 {
	if i == 0 {
		return 0
	}
	return s.ends[i-1]
}

// Put implements dedup.PoolStore.
func (s *scratch) Put(i int, enc []byte) error {
	if i != len(s.ends) {
		return fmt.Errorf("import scratch: put %d, want %d", i, len(s.ends))
	}
	if len(s.buf)+len(enc) > scratchBuffer && len(s.buf) > 0 {
		if err := s.flush(); err != nil {
			return err
		}
	}
	s.buf = append(s.buf, enc...)
	s.ends = append(s.ends, s.written+int64(len(s.buf)))
	return nil
}

func (s *scratch) flush() error {
	if _, err := s.f.WriteAt(s.buf, s.written); err != nil {
		return fmt.Errorf("import scratch: %w", err)
	}
	s.written += int64(len(s.buf))
	s.buf = s.buf[:0]
	return nil
}

// Get implements dedup.PoolStore.
func (s *scratch) Get(i int, b []byte) ([]byte, error) {
	if i < 0 || i >= len(s.ends) {
		return b, fmt.Errorf("import scratch: get %d of %d", i, len(s.ends))
	}
	from, to := s.start(i), s.ends[i]
	if from >= s.written { // still in the buffer
		return append(b, s.buf[from-s.written:to-s.written]...), nil
	}
	n, size := len(b), int(to-from)
	b = slices.Grow(b, size)[:n+size]
	if k, err := s.f.ReadAt(b[n:], from); k < size {
		return b[:n], fmt.Errorf("import scratch: read %d of %d bytes: %w", k, size, err)
	}
	return b, nil
}

// Close closes (and, where it was not yet, removes) the file.
func (s *scratch) Close() error {
	err := s.f.Close()
	if s.remove {
		err = errors.Join(err, os.Remove(s.f.Name()))
	}
	return err
}
