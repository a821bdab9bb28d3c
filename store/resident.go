package store

import (
	"context"
	"sync"
	"time"

	"github.com/cortexmem/cortex/filelock"
	"github.com/cortexmem/cortex/index"
	"github.com/cortexmem/cortex/memories"
)

// Linger is how long a resident store (Options.Resident) keeps the index open
// after a read, holding the shared index lock: calls that follow one another
// within it reuse the open index. A writer in another process waits at most
// this long for its moment of exclusive access, or to the end of the call
// under way when calls come back to back (see lingerLocked); a writer in this
// process closes the index first.
const Linger = 200 * time.Millisecond

// maxCachedNotes bounds the parsed notes a resident store keeps.
const maxCachedNotes = 50000

// resident is what a long-running process (the MCP server) keeps between
// reads: the loaded catalog while its files are unchanged, the open
// read-only index while reads follow each other closely, and parsed notes
// while their files are unchanged. A one-shot command keeps nothing.
type resident struct {
	mu    sync.Mutex
	gen   string
	stamp index.Stamp
	// ptr is the index's pointer file as the last read saw it.
	ptr   index.Pointer
	cat   *index.Catalog
	lock  *filelock.Lock // the shared index lock, while lingering
	b     *index.Bleve   // open under lock
	timer *time.Timer
	// notesMu guards notes, which writers use too (see Store.owedNote)
	// without holding mu.
	notesMu sync.Mutex
	notes   map[string]cachedNote
}

type cachedNote struct {
	size, mtime int64
	hash        uint64
	m           *memories.Memory
}

// viewResident is View for a resident store. It returns handled false when the
// vault needs a sync first (or anything is unusual), for View to do it the
// ordinary way.
func (s *Store) viewResident(ctx context.Context, fn func(memories.Snapshot) error) (handled bool, err error) {
	var settle func()
	handled, err = s.viewResidentLocked(ctx, fn, &settle)
	if settle != nil {
		settle() // after the resident state is unlocked: settling writes
	}
	return handled, err
}

func (s *Store) viewResidentLocked(ctx context.Context, fn func(memories.Snapshot) error, settle *func()) (handled bool, err error) {
	r := s.res
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.timer != nil {
		r.timer.Stop()
	}
	if r.lock == nil {
		if r.lock, err = s.lockIndex(ctx, true); err != nil {
			return true, err
		}
	}
	gen, err := s.idx.CurrentSince(&r.ptr)
	if err != nil {
		r.dropLocked()
		return false, nil
	}
	stamp, err := index.CatalogStamp(gen)
	if err != nil {
		r.dropLocked()
		return false, nil
	}
	if r.cat == nil || gen != r.gen || !stamp.Equal(r.stamp) {
		// The lock stays: the read is answered under it.
		r.closeBleveLocked()
		if r.cat != nil {
			_ = r.cat.Close()
			r.cat = nil
		}
		g, cat, err := s.load()
		if err != nil {
			r.dropLocked()
			return false, nil
		}
		// The catalog may have changed between the stamp and the load:
		// stamp it again after, and trust it only if both agree.
		after, err := index.CatalogStamp(g)
		if err != nil || g != gen || !after.Equal(stamp) {
			_ = cat.Close()
			r.dropLocked()
			return false, nil
		}
		r.gen, r.stamp, r.cat = gen, stamp, cat
	}
	scan, err := s.scan(gen, r.cat, false, false)
	if err != nil || !scan.Clean() || len(scan.Temps) > 0 || r.cat.HasDeferred() {
		// Something to index or clean: the ordinary way does it, with the
		// catalog kept here while its files are unchanged (see takeKept).
		r.closeIndexLocked()
		if err != nil {
			r.dropLocked()
		}
		return false, nil
	}
	if scan.full && scan.Unsettled > 0 {
		// Clean, with notes too recent to trust by their times alone: record
		// what the check saw once the answer is given, as View does.
		writtenAt := r.cat.WrittenAt
		*settle = func() { s.settle(ctx, gen, writtenAt, scan) }
	}
	snap := &snapshot{s: s, cat: r.cat, gen: gen, b: r.b, resident: r}
	err = fn(snap)
	r.b = snap.b
	if err != nil && needsRebuild(err) {
		r.dropLocked()
		return false, nil
	}
	r.lingerLocked(s)
	return true, err
}

// withIndex runs fn on the index of gen that the resident holds open,
// opening it when the resident holds none, and reports whether it did: a
// writer of this process, or a read that is not the resident's own (View's
// ordinary way), searches it rather than opening the index again. The
// resident's shared lock keeps other processes from changing the index
// meanwhile; a writer of this process drops the resident before it does
// (Store.lockIndex).
//
// held says the caller holds the shared index lock already (a read). The
// resident's own hold is then taken at once, beside the caller's: waiting
// for a writer that waits for the index lock (filelock.AcquireAhead), as a
// new reader does, would wait for a writer that waits for the caller, until
// the lock timeout.
func (r *resident) withIndex(ctx context.Context, s *Store, gen string, held bool, fn func(*index.Bleve) error) (bool, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.timer != nil {
		r.timer.Stop()
	}
	if r.b == nil && (r.cat == nil || r.gen == gen) {
		// Open it for the calls that follow, as a read does.
		if r.lock == nil {
			var l *filelock.Lock
			var err error
			if held {
				l, err = filelock.TryAcquireShared(s.vstate.IndexLock())
			} else {
				l, err = s.lockIndex(ctx, true)
			}
			if err != nil || l == nil {
				return false, nil
			}
			r.lock = l
		}
		b, err := index.OpenGeneration(gen, true)
		if err != nil {
			r.dropLocked()
			return false, nil
		}
		r.b, r.gen = b, gen
	}
	if r.b == nil || r.lock == nil || r.gen != gen {
		r.lingerLocked(s)
		return false, nil
	}
	err := fn(r.b)
	r.lingerLocked(s)
	return true, err
}

// lingerLocked keeps the index open for the calls that follow, for Linger,
// unless a writer of another process waits for the index lock
// (filelock.AcquireAhead): then it lets the lock go at once. Calls that come
// back to back would otherwise keep the writer out for as long as they come.
func (r *resident) lingerLocked(s *Store) {
	if r.lock != nil && filelock.WriterWaiting(s.vstate.IndexLock()) {
		r.closeIndexLocked()
		return
	}
	r.timer = time.AfterFunc(Linger, r.linger)
}

// linger ends a linger: it closes the index and releases the shared lock,
// which would keep other processes' writers waiting, and keeps the catalog,
// which is checked against its files before every use.
func (r *resident) linger() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.timer = nil
	r.closeIndexLocked()
}

// drop closes the index, releases the lock and forgets the catalog.
func (r *resident) drop() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.dropLocked()
}

func (r *resident) dropLocked() {
	if r.timer != nil {
		r.timer.Stop()
		r.timer = nil
	}
	r.closeIndexLocked()
	if r.cat != nil {
		_ = r.cat.Close()
		r.cat = nil
	}
	r.gen, r.stamp, r.ptr = "", index.Stamp{}, index.Pointer{}
}

// closeIndexLocked closes the open index and releases the shared lock.
func (r *resident) closeIndexLocked() {
	r.closeBleveLocked()
	if r.lock != nil {
		_ = r.lock.Release()
		r.lock = nil
	}
}

// closeBleveLocked closes the open index, keeping the lock.
func (r *resident) closeBleveLocked() {
	if r.b != nil {
		_ = r.b.Close()
		r.b = nil
	}
}

// note returns the parsed note at path when the catalog's record of it
// matches what was parsed, a copy the caller may change.
func (r *resident) note(rec *index.Record) *memories.Memory {
	r.notesMu.Lock()
	defer r.notesMu.Unlock()
	c, ok := r.notes[rec.Path]
	if !ok || c.size != rec.Size || c.mtime != rec.MTime || c.hash != rec.Hash {
		return nil
	}
	return c.m.Clone()
}

// text is the title and body of the note note would return, without the
// copy: strings are never changed in place, and passage scoring reads the
// text of twenty candidates a recall, most of which it does not show.
func (r *resident) text(rec *index.Record) (title, body string, ok bool) {
	r.notesMu.Lock()
	defer r.notesMu.Unlock()
	c, ok := r.notes[rec.Path]
	if !ok || c.size != rec.Size || c.mtime != rec.MTime || c.hash != rec.Hash {
		return "", "", false
	}
	return c.m.Title, c.m.Body, true
}

func (r *resident) keep(rec *index.Record, m *memories.Memory) {
	r.notesMu.Lock()
	defer r.notesMu.Unlock()
	if r.notes == nil || len(r.notes) >= maxCachedNotes {
		r.notes = map[string]cachedNote{}
	}
	r.notes[rec.Path] = cachedNote{size: rec.Size, mtime: rec.MTime, hash: rec.Hash, m: m.Clone()}
}

// DropResident takes the pages of the files a resident store keeps mapped
// out of the process's resident memory: the segments of the indexes open
// (index.DropResident) and the word indexes its saves read (see
// keptIndexes.dropResident). They stay in the page cache; what is read next
// is mapped again from there. A server calls it when its resident memory
// nears its budget (wiring.Trimmer), during a call too: it takes no lock a
// read or a save holds.
func (s *Store) DropResident() {
	s.words.dropResident()
	index.DropResident()
}
