package scribe

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/cortexmem/cortex/atomicfile"
	"github.com/cortexmem/cortex/config"
	"github.com/cortexmem/cortex/filelock"
	"github.com/cortexmem/cortex/transcript"
)

// offsets is the state a run keeps between runs: per transcript file, how far
// it was read and the sessions it holds.
type offsets struct {
	Version int                  `json:"version"`
	Files   map[string]fileState `json:"files"`
}

type fileState struct {
	Source   transcript.SourceKind `json:"source"`
	Size     int64                 `json:"size"`
	MTime    int64                 `json:"mtime_ns"`
	Offset   int64                 `json:"offset"`
	Sessions []string              `json:"sessions"`
}

const offsetsVersion = 1

func newOffsets() *offsets {
	return &offsets{Version: offsetsVersion, Files: map[string]fileState{}}
}

// runState is a run's hold on its offsets: loaded under the lock of runs,
// which it keeps until release. Without a state folder (path empty) every
// file counts as changed and nothing is saved.
type runState struct {
	path    string // the offsets file; empty: none kept
	offsets *offsets
	lock    *filelock.Lock
}

// openState takes the lock of runs in the state folder st and loads the
// offsets of key; with no state folder, it is an empty state that is never
// saved.
func openState(ctx context.Context, st config.State, key string, timeout time.Duration) (*runState, error) {
	if st.Home == "" {
		return &runState{offsets: newOffsets()}, nil
	}
	lockPath, path := st.TranscriptLock(), st.TranscriptOffsets(key)
	for _, dir := range []string{filepath.Dir(lockPath), filepath.Dir(path)} {
		if err := atomicfile.MkdirAll(dir); err != nil {
			return nil, err
		}
	}
	lock, err := filelock.Acquire(ctx, lockPath, timeout)
	if err != nil {
		return nil, err
	}
	return &runState{path: path, offsets: loadOffsets(path), lock: lock}, nil
}

// kept says whether the state is kept between runs.
func (s *runState) kept() bool { return s.path != "" }

// release lets the next run take the lock.
func (s *runState) release() {
	if s.lock != nil {
		s.lock.Release()
	}
}

// save writes the offsets atomically.
func (s *runState) save() error {
	data, err := json.MarshalIndent(s.offsets, "", "  ")
	if err != nil {
		return err
	}
	if err := atomicfile.Write(s.path, append(data, '\n')); err != nil {
		return fmt.Errorf("save transcript offsets: %w", err)
	}
	return nil
}

// loadOffsets reads the offsets file; a missing or unreadable one is an empty
// state (it is a cache: the next run reads everything, and writes nothing the
// vault already has).
func loadOffsets(path string) *offsets {
	st := newOffsets()
	data, err := os.ReadFile(path)
	if err != nil {
		return st
	}
	var got offsets
	if err := json.Unmarshal(data, &got); err != nil || got.Version != offsetsVersion || got.Files == nil {
		return st
	}
	return &got
}
