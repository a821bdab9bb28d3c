package inbox

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/cortexmem/cortex/atomicfile"
	"github.com/cortexmem/cortex/filelock"
)

// The consumer's side of the inbox: what normalize, its one reader, does with
// the event files. Everything here expects the caller to hold the lock of
// Lock for the whole pass.

// Lock takes normalize's lock, waiting at most wait for a pass that holds
// it. A lock still held after that is a *vault.LockError (memories.ErrBusy).
func (b *Inbox) Lock(ctx context.Context, wait time.Duration) (*filelock.Lock, error) {
	if err := atomicfile.MkdirAll(b.dir); err != nil {
		return nil, fmt.Errorf("inbox %s: %w", b.dir, err)
	}
	return filelock.Acquire(ctx, b.LockPath(), wait)
}

// PendingEvents lists the names of the events waiting in pending/, oldest
// first (the order they arrived in).
func (b *Inbox) PendingEvents() ([]string, error) { return b.pendingNames() }

// ReadPending reads the pending event file name. A file that is gone (a
// person removed it) is fs.ErrNotExist.
func (b *Inbox) ReadPending(name string) ([]byte, error) {
	if err := checkName(name); err != nil {
		return nil, err
	}
	return os.ReadFile(filepath.Join(b.Pending(), name))
}

// MarkProcessed moves the pending event name into processed/: consumed,
// never read again. The move is a rename, made durable before it returns.
func (b *Inbox) MarkProcessed(name string) error {
	return b.move(name, b.Processed())
}

// MarkFailed writes why the pending event name could not be used beside
// where it goes — failed/<id>.error, written first, so that an event in
// failed/ always has its reason — then moves the event into failed/.
func (b *Inbox) MarkFailed(name, reason string) error {
	if err := checkName(name); err != nil {
		return err
	}
	dir := b.Failed()
	if err := atomicfile.MkdirAll(dir); err != nil {
		return fmt.Errorf("inbox %s: %w", dir, err)
	}
	reason = strings.TrimRight(reason, "\n") + "\n"
	if err := atomicfile.Write(filepath.Join(dir, IDOf(name)+ErrorSuffix), []byte(reason)); err != nil {
		return fmt.Errorf("inbox: %w", err)
	}
	return b.move(name, dir)
}

// move renames pending/name into dir and flushes both folders.
func (b *Inbox) move(name, dir string) error {
	if err := checkName(name); err != nil {
		return err
	}
	if err := atomicfile.MkdirAll(dir); err != nil {
		return fmt.Errorf("inbox %s: %w", dir, err)
	}
	from, to := filepath.Join(b.Pending(), name), filepath.Join(dir, name)
	if err := os.Rename(from, to); err != nil {
		return fmt.Errorf("inbox: move %s: %w", name, err)
	}
	if err := atomicfile.SyncDir(dir); err != nil {
		return err
	}
	return atomicfile.SyncDir(b.Pending())
}

// PruneProcessed removes the processed events captured before cutoff (their
// ids say when) and returns how many it removed. Failed events are never
// removed: a person has to look at them.
func (b *Inbox) PruneProcessed(cutoff time.Time) (int, error) {
	names, err := eventNames(b.Processed())
	if err != nil {
		return 0, err
	}
	n := 0
	for _, name := range names {
		t, ok := idTime(IDOf(name))
		if !ok || !t.Before(cutoff) {
			continue
		}
		if err := os.Remove(filepath.Join(b.Processed(), name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return n, fmt.Errorf("inbox: prune %s: %w", name, err)
		}
		n++
	}
	return n, nil
}

// PendingTempAge is how old a capture's hidden temporary file in pending/
// must be before a sweep removes it: a capture writes and links its file in
// milliseconds, so one older than this was left by a capture that died.
const PendingTempAge = 10 * time.Minute

// SweepTemps removes the temporary files that writers killed mid-write left
// in the inbox and returns how many it removed: in processed/ and failed/
// every one (only normalize writes there, under the lock its caller holds),
// in pending/ those of captures older than PendingTempAge at now (a capture
// takes no lock, so a younger one may be a capture still writing). Events
// and every other file are left alone.
func (b *Inbox) SweepTemps(now time.Time) (int, error) {
	n := 0
	for _, dir := range []string{b.Processed(), b.Failed(), b.Pending()} {
		ents, err := os.ReadDir(dir)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return n, fmt.Errorf("inbox: %w", err)
		}
		for _, e := range ents {
			name := e.Name()
			if !e.Type().IsRegular() {
				continue
			}
			if dir == b.Pending() {
				if !isCaptureTemp(name) {
					continue
				}
				fi, err := e.Info()
				if err != nil || now.Sub(fi.ModTime()) < PendingTempAge {
					continue
				}
			} else if !atomicfile.IsTemp(name) {
				continue
			}
			if err := os.Remove(filepath.Join(dir, name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return n, fmt.Errorf("inbox: sweep %s: %w", name, err)
			}
			n++
		}
	}
	return n, nil
}

// isCaptureTemp reports whether name is the hidden temporary file of a
// capture (Inbox.create): atomicfile's (".<event name>.cortex-tmp-<tag>"),
// made where the file system has no files without a name, or
// ".<event name>.tmp-<random>", as captures named theirs before.
func isCaptureTemp(name string) bool {
	return strings.HasPrefix(name, ".") &&
		(strings.Contains(name, eventSuffix+".tmp-") || atomicfile.IsTemp(name) && strings.Contains(name, eventSuffix+"."))
}

// checkName refuses a name that is not an event file of the folder itself.
func checkName(name string) error {
	if name == "" || strings.ContainsAny(name, `/\`) || strings.HasPrefix(name, ".") || !strings.HasSuffix(name, eventSuffix) {
		return fmt.Errorf("inbox: %q is not an event file name", name)
	}
	return nil
}
