// Package filelock provides the locks cortex's processes share: exclusive or
// shared locks on lock files, taken within a time limit. The operating system
// releases a lock when its process dies, so a crash never leaves one held.
//
// A wait that runs out matches memories.ErrBusy, the domain's sentinel for a
// busy lock: the error maps of the CLI and the MCP server then tell a person
// to try again rather than report a failure. That sentinel is all it takes
// from the rest of cortex.
package filelock

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/gofrs/flock"

	"github.com/cortexmem/cortex/atomicfile"
	"github.com/cortexmem/cortex/memories"
)

// lockRetry is how often a waiting process tries the lock again.
const lockRetry = 3 * time.Millisecond

// Lock is an exclusive lock between processes on a lock file. The operating
// system releases it when the process dies, so a crash never leaves it held.
type Lock struct {
	f *flock.Flock
}

// LockError says that a lock was not free within the time allowed.
type LockError struct {
	Path    string
	Waited  time.Duration
	Context error // set when the wait was cancelled rather than timed out
	// Here is set when this process held the lock itself when the wait
	// ran out: a long task of its own (the MCP server making an index),
	// not another process.
	Here bool
}

func (e *LockError) Error() string {
	if e.Context != nil {
		return fmt.Sprintf("waiting for lock %s: %v", e.Path, e.Context)
	}
	if e.Here {
		return fmt.Sprintf("this cortex process has held %s for more than %s, for a longer task of its own; try again when it is done", e.Path, e.Waited)
	}
	return fmt.Sprintf("another cortex process has held %s for more than %s; try again when it is done", e.Path, e.Waited)
}

// holds counts the locks this process holds, by path, so that a wait that
// runs out can tell its own holder from another process's: the server's
// watcher once warned of "another cortex process" while the server itself
// made its duplicate check's indexes.
var holds = struct {
	sync.Mutex
	n map[string]int
}{n: map[string]int{}}

// held is the Lock of f, now held, counted in holds.
func held(f *flock.Flock) *Lock {
	holds.Lock()
	holds.n[f.Path()]++
	holds.Unlock()
	return &Lock{f: f}
}

// heldHere reports whether this process holds a lock on path.
func heldHere(path string) bool {
	holds.Lock()
	defer holds.Unlock()
	return holds.n[path] > 0
}

// Unwrap makes errors.Is(err, memories.ErrBusy) true.
func (e *LockError) Unwrap() error { return memories.ErrBusy }

// Acquire takes the lock on path exclusively, waiting at most timeout.
func Acquire(ctx context.Context, path string, timeout time.Duration) (*Lock, error) {
	return acquire(ctx, path, timeout, false)
}

// AcquireShared takes the lock on path shared with other readers, waiting at most
// timeout for an exclusive holder to let go, and for a writer that waits for
// it (see AcquireAhead) to have had its turn.
func AcquireShared(ctx context.Context, path string, timeout time.Duration) (*Lock, error) {
	return acquire(ctx, path, timeout, true)
}

// AcquireAhead is Acquire for a lock that readers share (AcquireShared): a
// writer that has to wait for it says so, by holding the lock's intent file
// shared while it waits, and the readers let it go first. Readers come and go
// all the time, so without that a writer polling for its turn could wait for
// the one moment no reader holds the lock for as long as they keep coming: a
// server answering recalls back to back kept a save out for a minute.
func AcquireAhead(ctx context.Context, path string, timeout time.Duration) (*Lock, error) {
	f, l, err := tryLock(path)
	if l != nil || err != nil {
		return l, err
	}
	// The intent is taken again at every try until it is held: a reader's
	// WriterWaiting holds it exclusively for a moment to look, and a writer
	// that gave up on its first refusal waited unseen behind readers that
	// never paused, until its timeout.
	intent := flock.New(intentPath(path), flock.SetPermissions(atomicfile.FilePerm))
	defer intent.Close()
	signal := true
	return wait(ctx, f, path, timeout, func(ctx context.Context, retry time.Duration) (bool, error) {
		for {
			if signal {
				ok, err := intent.TryRLock()
				// Once held it stays held; without it (an unwritable
				// folder) the writer only waits as before.
				signal = err == nil && !ok
			}
			if ok, err := f.TryLock(); ok || err != nil {
				return ok, err
			}
			select {
			case <-ctx.Done():
				return false, ctx.Err()
			case <-time.After(retry):
			}
		}
	})
}

// AcquireUnless is Acquire for a process that waits for the lock only to
// do work another process may do while it holds it: it stops waiting, and
// returns a nil lock and no error, as soon as unless reports true, which it
// is asked every unlessEvery while the lock is held by another. A reader
// that needs the index caught up with the vault waits so: the writer that
// holds the lock may publish that catch-up and go on with other work for
// seconds.
func AcquireUnless(ctx context.Context, path string, timeout time.Duration, unless func() bool) (*Lock, error) {
	f, l, err := tryLock(path)
	if l != nil || err != nil {
		return l, err
	}
	gaveUp := false
	l, err = wait(ctx, f, path, timeout, func(ctx context.Context, retry time.Duration) (bool, error) {
		ask := time.Now().Add(unlessEvery)
		for {
			if ok, err := f.TryLock(); ok || err != nil {
				return ok, err
			}
			if now := time.Now(); !now.Before(ask) {
				if unless() {
					gaveUp = true
					return false, nil
				}
				ask = now.Add(unlessEvery)
			}
			select {
			case <-ctx.Done():
				return false, ctx.Err()
			case <-time.After(retry):
			}
		}
	})
	if gaveUp {
		return nil, nil
	}
	return l, err
}

// unlessEvery is how often AcquireUnless asks whether it may stop waiting.
const unlessEvery = 20 * time.Millisecond

// WriterWaiting reports whether a writer waits for the lock on path
// (AcquireAhead): a reader that holds it shared, and would go on holding it,
// lets it go instead.
//
// A resident reader asks after every call (store's linger), so it is made
// of as few system calls as the platform allows (intentHeld).
func WriterWaiting(path string) bool {
	return intentHeld(intentPath(path))
}

// intentPath is the file a writer waiting for the lock on path holds shared.
func intentPath(path string) string { return path + ".intent" }

func acquire(ctx context.Context, path string, timeout time.Duration, shared bool) (*Lock, error) {
	f := flock.New(path, flock.SetPermissions(atomicfile.FilePerm))
	try, waitFor := f.TryLock, f.TryLockContext
	if shared {
		try, waitFor = f.TryRLock, f.TryRLockContext
		if WriterWaiting(path) {
			// Let the waiting writer in first: wait for it to stop
			// waiting, then for it to be done, as for any writer.
			return wait(ctx, f, path, timeout, func(ctx context.Context, retry time.Duration) (bool, error) {
				for WriterWaiting(path) {
					select {
					case <-ctx.Done():
						return false, ctx.Err()
					case <-time.After(retry):
					}
				}
				return f.TryRLockContext(ctx, retry)
			})
		}
	}
	ok, err := try()
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	if ok {
		return held(f), nil
	}
	return wait(ctx, f, path, timeout, waitFor)
}

// wait takes the lock with waitFor, trying every lockRetry for at most
// timeout.
func wait(ctx context.Context, f *flock.Flock, path string, timeout time.Duration, waitFor func(context.Context, time.Duration) (bool, error)) (*Lock, error) {
	wctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	ok, err := waitFor(wctx, lockRetry)
	if ok {
		return held(f), nil
	}
	if ctx.Err() != nil {
		return nil, &LockError{Path: path, Waited: timeout, Context: ctx.Err()}
	}
	if err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	return nil, &LockError{Path: path, Waited: timeout, Here: heldHere(path)}
}

// TryAcquire takes the lock on path if it is free, without waiting; nil when it
// is not.
func TryAcquire(path string) (*Lock, error) {
	_, l, err := tryLock(path)
	return l, err
}

// tryLock takes the lock on path exclusively if it is free, returning the
// lock, or nil and the file lock to wait on.
func tryLock(path string) (*flock.Flock, *Lock, error) {
	f := flock.New(path, flock.SetPermissions(atomicfile.FilePerm))
	ok, err := f.TryLock()
	if err != nil {
		return nil, nil, fmt.Errorf("lock %s: %w", path, err)
	}
	if ok {
		return f, held(f), nil
	}
	return f, nil, nil
}

// TryAcquireShared takes the lock on path shared if no one holds it
// exclusively, without waiting, and without letting a waiting writer go
// first: it is for a process that holds the lock shared already (by another
// file) and wants a second hold that outlives the first. Deferring to the
// writer there would wait for a writer that waits for the caller. Nil when
// the lock is held exclusively.
func TryAcquireShared(path string) (*Lock, error) {
	f := flock.New(path, flock.SetPermissions(atomicfile.FilePerm))
	ok, err := f.TryRLock()
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	if !ok {
		return nil, nil
	}
	return held(f), nil
}

// Release gives the lock up.
func (l *Lock) Release() error {
	if err := l.f.Unlock(); err != nil {
		return fmt.Errorf("unlock %s: %w", l.f.Path(), err)
	}
	holds.Lock()
	if holds.n[l.f.Path()]--; holds.n[l.f.Path()] <= 0 {
		delete(holds.n, l.f.Path())
	}
	holds.Unlock()
	return nil
}
