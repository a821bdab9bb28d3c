package transcripts

import (
	"context"
	"errors"
	"time"

	"github.com/cortexmem/cortex/index"
	"github.com/cortexmem/cortex/transcript"
)

// Health is the state of the transcript index, for cortex doctor.
type Health struct {
	Dir string `json:"dir"`
	// Sync is what bringing the index up to date did first.
	Sync *SyncReport `json:"sync"`
	// Files and Exchanges are what the manifest says the index holds;
	// Documents what the full-text index holds.
	Files     int    `json:"files"`
	Exchanges int    `json:"exchanges"`
	Documents uint64 `json:"documents"`
	// Pending counts the transcripts changed since the index was brought
	// up to date (another process was updating it).
	Pending int       `json:"pending"`
	Synced  time.Time `json:"synced,omitzero"`
	// Rebuilt says why the index was rebuilt during the check.
	Rebuilt    string            `json:"rebuilt,omitempty"`
	Unreadable []transcript.Skip `json:"unreadable"`
}

// InStep reports whether the index holds every exchange of every transcript
// found, as they are on disk.
func (h *Health) InStep() bool { return uint64(h.Exchanges) == h.Documents && h.Pending == 0 }

// Check brings the index up to date, then verifies that the full-text index
// holds as many documents as the transcripts make; when it does not, the
// index is rebuilt from the transcripts and checked again.
func (s *Service) Check(ctx context.Context) (*Health, error) {
	h := &Health{Dir: s.o.Dir}
	rep, err := s.sync(ctx, true)
	if err != nil {
		return nil, err
	}
	h.Sync = rep
	h.Rebuilt = rep.Rebuilt
	for attempt := 0; ; attempt++ {
		if err := s.measure(ctx, h); err != nil {
			return nil, err
		}
		if h.InStep() || attempt > 0 || rep.Busy {
			return h, nil
		}
		if _, err := s.Rebuild(ctx); err != nil {
			return nil, err
		}
		h.Rebuilt = "the full-text index did not hold every exchange"
	}
}

// measure fills h from the manifest, the transcripts and the index.
func (s *Service) measure(ctx context.Context, h *Health) error {
	_, m, err := s.load()
	if err != nil {
		return err
	}
	h.Files, h.Exchanges, h.Unreadable = 0, 0, []transcript.Skip{}
	for _, p := range m.paths() {
		e := m.Files[p]
		if e.Err != "" {
			h.Unreadable = append(h.Unreadable, transcript.Skip{Path: e.Path, Reason: e.Err})
			continue
		}
		h.Files++
		h.Exchanges += e.Docs
	}
	if m.Synced > 0 {
		h.Synced = time.Unix(0, m.Synced).UTC()
	}
	ts, _, err := s.targets()
	if err != nil {
		return err
	}
	c := diff(m, ts)
	h.Pending = len(c.read) + len(c.removed)
	err = s.readIndex(ctx, func(idx *index.TranscriptIndex) error {
		n, err := idx.DocCount()
		h.Documents = n
		return err
	})
	var ce *index.CorruptError
	if errors.As(err, &ce) {
		h.Documents = 0
		return nil
	}
	return err
}
