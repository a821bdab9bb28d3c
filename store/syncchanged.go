package store

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"

	"github.com/cortexmem/cortex/index"
	"github.com/cortexmem/cortex/vault"
)

// SyncChanged is Sync for a caller that knows which files may have changed
// since the index last looked at the vault — a watcher, from its events:
// paths, absolute. The folders are checked as every command checks them
// (a note created, deleted or renamed changes its folder's time), and of
// the notes the index knows only those paths name are stat'ed, where Sync
// stats every note. The MCP server's watcher runs it after every change it
// sees, its own saves' included: at 100,000 notes Sync's stat of every note
// held the write lock for about a second of CPU each time, and saves waited
// behind it.
//
// Its report leaves Notes at 0: counting the readable notes is a pass over
// the catalog (55 ms at 100,000 notes) that its caller, a watcher, does not
// need.
//
// It is only as complete as the paths: a caller that may have missed a
// change (lost events, a folder that appeared before it was watched) syncs
// with Sync instead.
func (s *Store) SyncChanged(ctx context.Context, paths []string) (*SyncReport, error) {
	named := make([]string, 0, len(paths))
	for _, p := range paths {
		if rel, ok := s.v.Rel(p); ok {
			named = append(named, rel)
		}
	}
	return s.sync(ctx, false, named...)
}

// statNamed adds to res what stat'ing the named notes the catalog knows
// finds, as a scan that stats every note would (vault.ScanOptions.StatNotes):
// a note gone (or no longer a file) is removed, one whose size or time
// differs from its record changed, one too recent to trust on its time
// suspect. Names the catalog does not know — new notes, folders, temporary
// and other files — are left to the folders' check, as are notes the scan
// reported already. A note is too recent as the scan's opts say: a fine
// time of the last save's note is, an earlier save's is not, where the
// 2-second margin of coarse times had the server's saves back to back
// read and hash again every note saved in the last two seconds (the
// watcher names each until it settles): about 16 µs a note of a real
// vault, 0.3 ms for the 20th save in a row and 1.6 ms for the 100th. It
// returns the named notes it found as their records say (clean).
func (s *Store) statNamed(cat *index.Catalog, opts vault.ScanOptions, res *vault.ScanResult, named []string) (clean []string, _ error) {
	seen := make(map[string]bool, len(res.Changed)+len(res.Suspect)+len(res.Removed))
	for _, f := range res.Changed {
		seen[f.Path] = true
	}
	for _, f := range res.Suspect {
		seen[f.Path] = true
	}
	for _, p := range res.Removed {
		seen[p] = true
	}
	fine := map[string]bool{} // by folder: whether it keeps fine times
	for _, p := range named {
		if seen[p] {
			continue
		}
		seen[p] = true
		r, err := cat.Get(p)
		if err != nil {
			return nil, err
		}
		if r == nil {
			continue
		}
		fi, err := os.Stat(s.v.Abs(p))
		switch {
		case err != nil && !errors.Is(err, fs.ErrNotExist):
			res.Problems = append(res.Problems, fmt.Errorf("stat %s: %w", p, err))
		case err != nil || !fi.Mode().IsRegular():
			res.Removed = append(res.Removed, p)
		case fi.Size() != r.Size || fi.ModTime().UnixNano() != r.MTime:
			res.Changed = append(res.Changed, vault.FileStat{Path: p, Size: fi.Size(), MTime: fi.ModTime().UnixNano()})
		case opts.Racy(fi.ModTime().UnixNano(), func() bool { return fineFolder(fine, s.v.Abs(path.Dir(p))) }):
			res.Suspect = append(res.Suspect, vault.FileStat{Path: p, Size: fi.Size(), MTime: fi.ModTime().UnixNano()})
		default:
			clean = append(clean, p)
		}
	}
	return clean, nil
}

// fineFolder is vault.FineTimes(dir), asked once per folder of a call
// (known caches the answers).
func fineFolder(known map[string]bool, dir string) bool {
	fine, ok := known[dir]
	if !ok {
		fine = vault.FineTimes(dir)
		known[dir] = fine
	}
	return fine
}
