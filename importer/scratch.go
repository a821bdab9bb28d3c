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
	sc := &scratch{f: f, buffer: scratchBuffer, window: scratchWindow}
	if os.Remove(f.Name()) != nil {
		sc.remove = true // Windows: not while it is open
	}
	return sc, nil
}

var _ memories.ScratchImporter = (*Source)(nil)

// scratchBuffer is how many bytes of encodings a scratch file gathers before
// writing them: one write per megabyte, not one per fingerprint.
const scratchBuffer = 1 << 20

// scratchWindow is how many bytes of the encodings put last a scratch keeps
// in memory besides writing them: most lookups of an import score texts
// near it (on the real-shaped benchmark corpus, 82 % of the fingerprints read
// back were among the last 4,000 put), and a read from memory costs no
// system call. It bounds what the scratch holds, whatever the import's size.
const scratchWindow = 16 << 20

// scratch is a file of encodings put one after the other, read back by
// number. The last ones are kept in memory, a megabyte a chunk, and a chunk
// is written to the file only when it leaves the window: an import whose
// encodings fit in the window writes nothing.
type scratch struct {
	f              *os.File
	remove         bool
	buffer, window int     // scratchBuffer, scratchWindow (tests make them small)
	ends           []int64 // where each encoding ends
	// chunks are the encodings put last, oldest first, none of them in the
	// file yet. Encodings never span two.
	chunks []scratchChunk
	kept   int // bytes in chunks
	// written is how many bytes are in the file: those of the chunks that
	// left the window.
	written int64
	// next is where the next chunk starts.
	next int64
}

// scratchChunk is encodings from offset at on.
type scratchChunk struct {
	at   int64
	data []byte
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
	if len(s.chunks) == 0 || len(s.last())+len(enc) > s.buffer && len(s.last()) > 0 {
		if err := s.flush(); err != nil {
			return err
		}
	}
	c := &s.chunks[len(s.chunks)-1]
	c.data = append(c.data, enc...)
	s.kept += len(enc)
	s.ends = append(s.ends, c.at+int64(len(c.data)))
	return nil
}

func (s *scratch) last() []byte {
	if len(s.chunks) == 0 {
		return nil
	}
	return s.chunks[len(s.chunks)-1].data
}

// flush ends the last chunk, writes the oldest ones past the window to the
// file and lets go of them, and starts a new chunk (reusing a dropped one's
// memory).
func (s *scratch) flush() error {
	s.next += int64(len(s.last()))
	var reuse []byte
	for len(s.chunks) > 0 && s.kept > s.window-s.buffer {
		c := s.chunks[0]
		if _, err := s.f.WriteAt(c.data, c.at); err != nil {
			return fmt.Errorf("import scratch: %w", err)
		}
		s.written = c.at + int64(len(c.data))
		s.kept -= len(c.data)
		reuse = c.data[:0]
		s.chunks[0] = scratchChunk{}
		s.chunks = s.chunks[1:]
	}
	if reuse == nil {
		reuse = make([]byte, 0, s.buffer)
	}
	s.chunks = append(s.chunks, scratchChunk{at: s.next, data: reuse})
	return nil
}

// Get implements dedup.PoolStore.
func (s *scratch) Get(i int, b []byte) ([]byte, error) {
	if i < 0 || i >= len(s.ends) {
		return b, fmt.Errorf("import scratch: get %d of %d", i, len(s.ends))
	}
	from, to := s.start(i), s.ends[i]
	for k := len(s.chunks) - 1; k >= 0; k-- {
		if c := s.chunks[k]; from >= c.at {
			return append(b, c.data[from-c.at:to-c.at]...), nil
		}
	}
	n, size := len(b), int(to-from)
	b = slices.Grow(b, size)[:n+size]
	if k, err := s.f.ReadAt(b[n:], from); k < size {
		return b[:n], fmt.Errorf("import scratch: read %d of %d bytes: %w", k, size, err)
	}
	return b, nil
}

// getString is the i-th encoding as a string: one copy of it when it is in
// memory.
func (s *scratch) getString(i int) (string, error) {
	if i < 0 || i >= len(s.ends) {
		return "", fmt.Errorf("import scratch: get %d of %d", i, len(s.ends))
	}
	from, to := s.start(i), s.ends[i]
	if k := len(s.chunks) - 1; k >= 0 && from >= s.chunks[0].at {
		for ; k >= 0; k-- {
			if c := s.chunks[k]; from >= c.at {
				return string(c.data[from-c.at : to-c.at]), nil
			}
		}
	}
	b, err := s.Get(i, nil)
	return string(b), err
}

// Close closes (and, where it was not yet, removes) the file.
func (s *scratch) Close() error {
	err := s.f.Close()
	if s.remove {
		err = errors.Join(err, os.Remove(s.f.Name()))
	}
	return err
}
