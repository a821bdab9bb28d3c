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
}

func (e *LockError) Error() string {
	if e.Context != nil {
		return fmt.Sprintf("waiting for lock %s: %v", e.Path, e.Context)
	}
	return fmt.Sprintf("another cortex process has held %s for more than %s; try again when it is done", e.Path, e.Waited)
}

// Unwrap makes errors.Is(err, memories.ErrBusy) true.
func (e *LockError) Unwrap() error { return memories.ErrBusy }

// Acquire takes the lock on path exclusively, waiting at most timeout.
func Acquire(ctx context.Context, path string, timeout time.Duration) (*Lock, error) {
	return acquire(ctx, path, timeout, false)
}

// AcquireShared takes the lock on path shared with other readers, waiting at most
// timeout for an exclusive holder to let go.
func AcquireShared(ctx context.Context, path string, timeout time.Duration) (*Lock, error) {
	return acquire(ctx, path, timeout, true)
}

func acquire(ctx context.Context, path string, timeout time.Duration, shared bool) (*Lock, error) {
	f := flock.New(path, flock.SetPermissions(atomicfile.FilePerm))
	try, wait := f.TryLock, f.TryLockContext
	if shared {
		try, wait = f.TryRLock, f.TryRLockContext
	}
	ok, err := try()
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	if ok {
		return &Lock{f: f}, nil
	}
	wctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	ok, err = wait(wctx, lockRetry)
	if ok {
		return &Lock{f: f}, nil
	}
	if ctx.Err() != nil {
		return nil, &LockError{Path: path, Waited: timeout, Context: ctx.Err()}
	}
	if err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	return nil, &LockError{Path: path, Waited: timeout}
}

// TryAcquire takes the lock on path if it is free, without waiting; nil when it
// is not.
func TryAcquire(path string) (*Lock, error) {
	f := flock.New(path, flock.SetPermissions(atomicfile.FilePerm))
	ok, err := f.TryLock()
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	if !ok {
		return nil, nil
	}
	return &Lock{f: f}, nil
}

// Release gives the lock up.
func (l *Lock) Release() error {
	if err := l.f.Unlock(); err != nil {
		return fmt.Errorf("unlock %s: %w", l.f.Path(), err)
	}
	return nil
}
