package store

import (
	"context"
	"errors"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/cortexmem/cortex/atomicfile"
)

// Followed is told by a watcher in this process (the MCP server's, see
// package watch) whether it follows the vault and the index has taken in
// every change it saw: while it does, reads and writes skip stat'ing every
// note (the check Options.Freshness otherwise makes once a window), since
// the watcher re-indexes a note edited in place a debounce window after the
// edit. They still look at the folders, so notes created, renamed or deleted
// are seen at once as before, and a note this process writes is in the index
// before the write returns. Any doubt — an event not yet taken in, events
// lost, the watcher polling or stopped — is said with false, and the checks
// are made as without a watcher.
//
// It is also said to other processes, through a heartbeat file in the
// vault's state folder (see Heartbeat): present and touched within the last
// heartbeatLife while the watcher says true, removed as soon as it says
// false. A command of another process — a hook above all, which would
// otherwise stat every note when it is the first command in over a second —
// trusts it as this process trusts the flag.
func (s *Store) Followed(clean bool) {
	s.followMu.Lock()
	defer s.followMu.Unlock()
	// Settled, nothing is pending; unsettled, what is is not known. The
	// count of Named calls goes on: a check that read the names before
	// this must not let go of a note named after it (namedChecked).
	s.pending = pendingNotes{known: clean, named: s.pending.named}
	s.follow(clean)
}

// follow sets the flag and the heartbeat; the caller holds followMu.
func (s *Store) follow(clean bool) {
	s.followed.Store(clean)
	if clean {
		s.touchHeartbeat()
	} else if err := os.Remove(s.heartbeatPath()); err != nil && !errors.Is(err, fs.ErrNotExist) {
		// A heartbeat that cannot be removed would say the index is
		// current when it may not be: say it, and stop touching it (it
		// is trusted for heartbeatLife at most).
		s.warn("cannot remove the watcher's heartbeat: " + err.Error())
	}
}

// Named is told by a watcher in this process, instead of Followed(false),
// the path of a change it saw and is about to take in (its SyncChanged
// gets it): until it says Followed(true), this process's reads and writes
// look at the folders and at the notes named so far, not at every note,
// once the freshness window is past. After a save of the MCP server, its
// watcher waits out a debounce window for the save's own files: a second
// save within it, as an agent makes when it saves what it learned one
// memory at a time, stat'ed every note (a tenth of a second at 10,000
// notes). A note edited in place that the watcher has not been told of
// yet is missed, as it is while the watcher says Followed(true); the
// watcher takes it in a debounce window later. What a watcher cannot name
// (events lost, a folder made or removed, a run that failed) it says with
// Followed(false), and the checks are made as without a watcher.
//
// path is absolute; a path outside the cortex folder is none of the
// index's.
func (s *Store) Named(path string) {
	s.followMu.Lock()
	defer s.followMu.Unlock()
	if s.pending.known {
		if rel, ok := s.v.Rel(path); ok {
			if s.pending.notes == nil {
				s.pending.notes = map[string]uint64{}
			}
			s.pending.named++
			s.pending.notes[rel] = s.pending.named
		}
	}
	s.follow(false)
}

// pendingNotes are the notes a watcher in this process named since it was
// last settled, each with the count of Named calls at its latest (named);
// known is false when it cannot say (see Named).
type pendingNotes struct {
	known bool
	notes map[string]uint64
	named uint64
}

// pendingNamed returns the notes a watcher running in this process named
// since it was last settled, sorted, and whether they are all that may have
// changed in place (see Named); at is the count of Named calls when they
// were read, for namedChecked.
func (s *Store) pendingNamed() (notes []string, at uint64, ok bool) {
	if !s.watching.Load() {
		return nil, 0, false
	}
	s.followMu.Lock()
	defer s.followMu.Unlock()
	if !s.pending.known {
		return nil, 0, false
	}
	return slices.Sorted(maps.Keys(s.pending.notes)), s.pending.named, true
}

// namedChecked takes out of the pending notes those a check found as the
// catalog has them (clean), unless the watcher named them again after at
// (pendingNamed's): an edit after the check is an event the watcher names
// anew. Until the watcher settled, every read and write stat'ed every note
// it had named, the saves of the MCP server's own among them: in a run of
// saves back to back, each save stat'ed the notes of all the saves before
// it (about 16 µs a note; 0.6 ms by the 40th save).
func (s *Store) namedChecked(clean []string, at uint64) {
	if len(clean) == 0 {
		return
	}
	s.followMu.Lock()
	defer s.followMu.Unlock()
	for _, p := range clean {
		if n, ok := s.pending.notes[p]; ok && n <= at {
			delete(s.pending.notes, p)
		}
	}
}

// Watching is told by a watcher in this process that it runs (true) and
// that it stopped (false): one that re-indexes whatever it sees change, at
// once or after events were lost. While it runs, this process's background
// catch-up (CatchUpInBackground) leaves the check of every note to it, even
// while it is not settled (Followed false, its re-index of the latest
// change to come).
func (s *Store) Watching(on bool) { s.watching.Store(on) }

// IsFollowed reports what a watcher last told Followed: for tests and the
// benchmark, which wait for the watcher's first re-index.
func (s *Store) IsFollowed() bool { return s.followed.Load() }

// Timing of the heartbeat: a command trusts one touched less than
// heartbeatLife ago, and the watcher's process touches it every
// heartbeatEvery while its watcher says the index is current. A process
// killed while it said so is trusted heartbeatLife at most — as long as a
// full check is trusted by default (config.DefaultFreshness).
const (
	heartbeatLife  = time.Second
	heartbeatEvery = heartbeatLife / 4
	heartbeatFile  = "followed"
)

func (s *Store) heartbeatPath() string { return filepath.Join(s.vstate.Dir, heartbeatFile) }

// Heartbeat touches the heartbeat file every heartbeatEvery while a watcher
// says the index is current (Followed), until ctx ends: run it beside the
// watcher whose Settled is Followed.
func (s *Store) Heartbeat(ctx context.Context) {
	t := time.NewTicker(heartbeatEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			s.followMu.Lock()
			if s.followed.Load() {
				s.touchHeartbeat()
			}
			s.followMu.Unlock()
		}
	}
}

// touchHeartbeat sets the heartbeat's time to now, creating it when
// missing. It is a hint: failures leave commands to check the notes.
func (s *Store) touchHeartbeat() {
	p := s.heartbeatPath()
	now := s.now()
	if err := os.Chtimes(p, now, now); errors.Is(err, fs.ErrNotExist) {
		if f, err := os.OpenFile(p, os.O_CREATE|os.O_WRONLY, atomicfile.FilePerm); err == nil {
			_ = f.Close()
			_ = os.Chtimes(p, now, now)
		}
	}
}

// followedElsewhere reports whether a watcher, in this process or another,
// said the index holds every change it saw less than heartbeatLife before
// now.
func (s *Store) followedElsewhere(now time.Time) bool {
	fi, err := os.Stat(s.heartbeatPath())
	if err != nil {
		return false
	}
	age := now.Sub(fi.ModTime())
	return age < heartbeatLife && age > -heartbeatLife
}
