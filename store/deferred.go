package store

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sort"
	"time"

	"github.com/cortexmem/cortex/index"
	"github.com/cortexmem/cortex/memories"
	"github.com/cortexmem/cortex/vault"
)

// catchUpError is a failure to bring the full-text index up to date after
// the catalog took the changes: the work stays owed in the catalog's journal
// (index.Deferred), so nothing is lost and the next command tries again.
type catchUpError struct{ err error }

func (e *catchUpError) Error() string {
	return fmt.Sprintf("the full-text index is left behind the notes for now (the next command catches it up): %v", e.err)
}

func (e *catchUpError) Unwrap() error { return e.err }

// deferredOf is the index work docs describe, as the catalog records it: the
// notes to index (by path) and the ids to delete.
func deferredOf(docs []index.Doc) index.Deferred {
	var d index.Deferred
	for _, doc := range docs {
		switch {
		case doc.Deleted:
			d.IDs = append(d.IDs, doc.ID)
		case doc.Memory != nil:
			d.Paths = append(d.Paths, doc.Memory.Path)
		}
	}
	return d
}

// deferredDocs turns owed work into index operations joined with docs, a
// batch's own: deletes first (an id may have moved to another note), then
// each owed note as cat, the catalog with the batch's records, holds it
// now, read again from the vault. Notes the batch changes (recs) are the
// batch's to index.
func (s *Store) deferredDocs(cat *index.Catalog, owed index.Deferred, recs map[string]*index.Record, docs []index.Doc) ([]index.Doc, error) {
	dels := map[string]bool{}
	for _, id := range owed.IDs {
		dels[id] = true
	}
	var adds []index.Doc
	for _, d := range docs {
		if d.Deleted {
			dels[d.ID] = true
		} else {
			adds = append(adds, d)
		}
	}
	owedAdds, err := s.owedNotes(cat, owed.Paths, recs)
	if err != nil {
		return nil, err
	}
	out := make([]index.Doc, 0, len(dels)+len(adds)+len(owedAdds))
	for id := range dels {
		out = append(out, index.Doc{ID: id, Deleted: true})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	out = append(out, owedAdds...)
	return append(out, adds...), nil
}

// owedNotes reads the notes at paths as the catalog records them, under the
// record's id, skipping the paths in skip and those the catalog no longer
// holds readable. A note changed on disk since is indexed as it reads now;
// its record still has the old size and time, so the next check indexes it
// afresh.
func (s *Store) owedNotes(cat *index.Catalog, paths []string, skip map[string]*index.Record) ([]index.Doc, error) {
	var out []index.Doc
	for _, p := range paths {
		if _, ok := skip[p]; ok {
			continue
		}
		r, err := cat.Get(p)
		if err != nil {
			return nil, err
		}
		if r == nil || r.Broken != "" {
			continue
		}
		if m := s.owedNote(r); m != nil {
			m.ID = r.ID
			out = append(out, index.Doc{ID: r.ID, Memory: m})
			continue
		}
		_, m, err := s.readNote(vault.FileStat{Path: p})
		if errors.Is(err, fs.ErrNotExist) {
			continue // gone: the next check removes it
		}
		if err != nil {
			return nil, err
		}
		if m == nil {
			continue // unreadable now: the next check records it
		}
		m.ID = r.ID
		out = append(out, index.Doc{ID: r.ID, Memory: m})
	}
	return out, nil
}

// owedNote is the note of rec as a resident store's writer parsed it when
// it wrote it, while the file is as the record says (size and time): the
// notes a run of saves leaves owed are matched by every search of the saves
// that follow, until a catch-up, and reading them all again for each one
// cost a resident save more than its own note. Nil when the store keeps no
// notes or the file changed since.
func (s *Store) owedNote(rec *index.Record) *memories.Memory {
	if s.res == nil {
		return nil
	}
	fi, err := os.Lstat(s.v.Abs(rec.Path))
	if err != nil || !fi.Mode().IsRegular() || fi.Size() != rec.Size || fi.ModTime().UnixNano() != rec.MTime {
		return nil
	}
	return s.res.note(rec)
}

// deferredIndex is what a snapshot searches besides the index on disk while
// index work is owed: the owed notes, read from the vault, and the ids whose
// documents on disk are out of date (deleted, or owed a new version).
type deferredIndex struct {
	docs   []index.Doc
	hidden map[string]bool
}

// openDeferred reads the owed notes of cat.
func (s *Store) openDeferred(cat *index.Catalog) (*deferredIndex, error) {
	owed := cat.Deferred()
	d := &deferredIndex{hidden: map[string]bool{}}
	for _, id := range owed.IDs {
		d.hidden[id] = true
	}
	docs, err := s.owedNotes(cat, owed.Paths, nil)
	if err != nil {
		return nil, err
	}
	for _, doc := range docs {
		d.hidden[doc.ID] = true
	}
	d.docs = docs
	return d, nil
}

// search runs req on the index on disk, b, and on the owed notes: the hits
// on disk that are not out of date (at most req.Size), then those of the
// owed notes (at most req.Size more, see index.Bleve.SearchDocs). The owed
// notes' hits follow rather than being ranked among the others, since
// their scores cannot be compared: a check for similar memories must see
// them all.
func (d *deferredIndex) search(ctx context.Context, b *index.Bleve, req memories.SearchRequest) ([]index.Match, error) {
	wide := req
	wide.Size = req.Size + len(d.hidden)
	// The owed notes' hits are added to the index's: too few there may
	// be enough with them.
	wide.AtLeast = 0
	onDisk, err := b.Search(ctx, wide)
	if err != nil {
		return nil, err
	}
	out := make([]index.Match, 0, req.Size)
	for _, m := range onDisk {
		if !d.hidden[m.ID] && len(out) < req.Size {
			out = append(out, m)
		}
	}
	return append(out, b.SearchDocs(d.docs, req)...), nil
}

// catchUpDelay is how long after a save a background catch-up (see
// CatchUpInBackground) waits for more saves before it does their index work
// in one batch.
const catchUpDelay = 50 * time.Millisecond

// CatchUpInBackground does, in a goroutine, the index work this process's
// saves leave owed, shortly after them: for a long-running process (the MCP
// server), whose next recall then finds the index up to date instead of
// doing that work before it answers. It stops when ctx is done; the channel
// it returns is closed once the goroutine has stopped. Failures are passed
// to warn: the work stays owed, and the next reader does it.
func (s *Store) CatchUpInBackground(ctx context.Context, warn func(string)) <-chan struct{} {
	owed := make(chan struct{}, 1)
	s.owed.Store(&owed)
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer s.owed.Store(nil)
		for {
			select {
			case <-ctx.Done():
				return
			case <-owed:
			}
			// More saves within the delay join the same batch.
			t := time.NewTimer(catchUpDelay)
			for waiting := true; waiting; {
				select {
				case <-ctx.Done():
					t.Stop()
					return
				case <-owed:
					t.Reset(catchUpDelay)
				case <-t.C:
					waiting = false
				}
			}
			if err := s.catchUp(ctx); err != nil && ctx.Err() == nil {
				warn(fmt.Sprintf("the full-text index is left behind the notes for now: %v", err))
			}
		}
	}()
	return done
}

// signalOwed tells a background catch-up, if one runs, that work is owed.
func (s *Store) signalOwed() {
	if ch := s.owed.Load(); ch != nil {
		select {
		case *ch <- struct{}{}:
		default: // one is pending already
		}
	}
}
