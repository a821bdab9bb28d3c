package filelock

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gofrs/flock"

	"github.com/cortexmem/cortex/memories"
)

// shortWait is how long a test lets a lock wait time out.
const shortWait = 50 * time.Millisecond

func takeLock(t *testing.T, path string, shared bool) *Lock {
	t.Helper()
	take := Acquire
	if shared {
		take = AcquireShared
	}
	l, err := take(context.Background(), path, time.Second)
	if err != nil {
		t.Fatalf("lock %s (shared %v): %v", path, shared, err)
	}
	t.Cleanup(func() { l.Release() })
	return l
}

func release(t *testing.T, l *Lock) {
	t.Helper()
	if err := l.Release(); err != nil {
		t.Fatal(err)
	}
}

// checkBusy asserts that err says the lock at path was busy for wait.
func checkBusy(t *testing.T, err error, path string, wait time.Duration) {
	t.Helper()
	if !errors.Is(err, memories.ErrBusy) {
		t.Fatalf("got %v, want an error matching memories.ErrBusy", err)
	}
	var le *LockError
	if !errors.As(err, &le) {
		t.Fatalf("got %T, want a *LockError", err)
	}
	if le.Path != path || le.Waited != wait || le.Context != nil {
		t.Errorf("got %+v, want path %s, waited %v, no context error", le, path, wait)
	}
}

func TestLockConflicts(t *testing.T) {
	tests := []struct {
		name           string
		held, wanted   bool // shared?
		wantConflicted bool
	}{
		{name: "exclusive, exclusive", held: false, wanted: false, wantConflicted: true},
		{name: "exclusive, shared", held: false, wanted: true, wantConflicted: true},
		{name: "shared, exclusive", held: true, wanted: false, wantConflicted: true},
		{name: "shared, shared", held: true, wanted: true, wantConflicted: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "lock")
			takeLock(t, path, tt.held)
			take := Acquire
			if tt.wanted {
				take = AcquireShared
			}
			start := time.Now()
			l, err := take(context.Background(), path, shortWait)
			if !tt.wantConflicted {
				if err != nil {
					t.Fatalf("second lock: %v", err)
				}
				release(t, l)
				return
			}
			checkBusy(t, err, path, shortWait)
			if waited := time.Since(start); waited < shortWait {
				t.Errorf("gave up after %v, before the %v allowed", waited, shortWait)
			}
		})
	}
}

func TestLockReleased(t *testing.T) {
	path := filepath.Join(t.TempDir(), "lock")
	held := takeLock(t, path, false)
	done := make(chan error, 1)
	go func() {
		l, err := Acquire(context.Background(), path, 10*time.Second)
		if err == nil {
			err = l.Release()
		}
		done <- err
	}()
	time.Sleep(20 * time.Millisecond)
	release(t, held)
	if err := <-done; err != nil {
		t.Errorf("a waiting Acquire after the holder let go: %v", err)
	}
	// And once free, it is free again for everyone.
	release(t, takeLock(t, path, false))
}

func TestLockCancelled(t *testing.T) {
	path := filepath.Join(t.TempDir(), "lock")
	takeLock(t, path, false)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(20*time.Millisecond, cancel)
	_, err := Acquire(ctx, path, 10*time.Second)
	var le *LockError
	if !errors.As(err, &le) || !errors.Is(le.Context, context.Canceled) {
		t.Fatalf("got %v, want a *LockError for the cancelled wait", err)
	}
	if !errors.Is(err, memories.ErrBusy) {
		t.Errorf("got %v, want it to match memories.ErrBusy", err)
	}
}

func TestTryAcquire(t *testing.T) {
	path := filepath.Join(t.TempDir(), "lock")
	l, err := TryAcquire(path)
	if err != nil || l == nil {
		t.Fatalf("TryAcquire of a free lock = %v, %v", l, err)
	}
	if l2, err := TryAcquire(path); l2 != nil || err != nil {
		t.Errorf("TryAcquire of a held lock = %v, %v; want nil, nil", l2, err)
	}
	if _, err := Acquire(context.Background(), path, shortWait); !errors.Is(err, memories.ErrBusy) {
		t.Errorf("Acquire while TryAcquire holds the lock: %v, want busy", err)
	}
	release(t, l)
	l, err = TryAcquire(path)
	if err != nil || l == nil {
		t.Fatalf("TryAcquire after release = %v, %v", l, err)
	}
	release(t, l)
}

func TestLockMissingFolder(t *testing.T) {
	path := filepath.Join(t.TempDir(), "missing", "lock")
	if _, err := Acquire(context.Background(), path, shortWait); err == nil || errors.Is(err, memories.ErrBusy) {
		t.Errorf("Acquire in a missing folder: got %v, want an error other than busy", err)
	}
}

func TestLockErrorMessage(t *testing.T) {
	tests := []struct {
		err  LockError
		want string
	}{
		{LockError{Path: "/s/write.lock", Waited: 5 * time.Second}, "another cortex process has held /s/write.lock for more than 5s; try again when it is done"},
		{LockError{Path: "/s/write.lock", Waited: time.Second, Context: context.Canceled}, "waiting for lock /s/write.lock: context canceled"},
		{LockError{Path: "/s/write.lock", Waited: 10 * time.Second, Here: true}, "this cortex process has held /s/write.lock for more than 10s, for a longer task of its own; try again when it is done"},
	}
	for _, tt := range tests {
		if got := tt.err.Error(); got != tt.want {
			t.Errorf("Error() = %q, want %q", got, tt.want)
		}
	}
}

// TestReadersLetAWaitingWriterIn: two readers that each take the shared
// lock again as soon as they let it go, half a turn apart, almost never leave
// it free, yet a writer that waits for it with AcquireAhead gets in, because
// the readers that come meanwhile let it go first; and WriterWaiting says
// when one waits.
func TestReadersLetAWaitingWriterIn(t *testing.T) {
	path := filepath.Join(t.TempDir(), "lock")
	if WriterWaiting(path) {
		t.Fatal("WriterWaiting before any writer waited")
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for r := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			time.Sleep(time.Duration(r) * 2 * time.Millisecond)
			for ctx.Err() == nil {
				l, err := AcquireShared(ctx, path, 5*time.Second)
				if err != nil {
					if ctx.Err() == nil {
						t.Errorf("a reader: %v", err)
					}
					return
				}
				time.Sleep(4 * time.Millisecond)
				if err := l.Release(); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	defer func() { cancel(); wg.Wait() }()
	time.Sleep(20 * time.Millisecond)
	waiting := make(chan bool, 1)
	go func() {
		for deadline := time.Now().Add(2 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
			if WriterWaiting(path) {
				waiting <- true
				return
			}
		}
		waiting <- false
	}()
	w, err := AcquireAhead(context.Background(), path, 2*time.Second)
	if err != nil {
		t.Fatalf("a writer among readers that never pause: %v", err)
	}
	if !<-waiting {
		t.Error("WriterWaiting never said the writer waited")
	}
	if WriterWaiting(path) {
		t.Error("WriterWaiting once the writer holds the lock")
	}
	release(t, w)
}

// TestTryAcquireSharedPassesAWaitingWriter: a second shared hold by a process
// that holds the lock shared already is taken at once, even while a writer
// waits (AcquireShared would wait for the writer, which waits for the first
// hold), and is refused without waiting while a writer holds the lock.
func TestTryAcquireSharedPassesAWaitingWriter(t *testing.T) {
	path := filepath.Join(t.TempDir(), "lock")
	first := takeLock(t, path, true)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	writer := make(chan *Lock, 1)
	go func() {
		l, _ := AcquireAhead(ctx, path, time.Minute)
		writer <- l
	}()
	for !WriterWaiting(path) {
		time.Sleep(time.Millisecond)
	}
	if _, err := AcquireShared(context.Background(), path, shortWait); !errors.Is(err, memories.ErrBusy) {
		t.Fatalf("AcquireShared while a writer waits: %v, want busy", err)
	}
	second, err := TryAcquireShared(path)
	if err != nil || second == nil {
		t.Fatalf("TryAcquireShared beside a shared hold while a writer waits = %v, %v", second, err)
	}
	release(t, first)
	release(t, second)
	w := <-writer
	if w == nil {
		t.Fatal("the writer did not get the lock once both holds were released")
	}
	if l, err := TryAcquireShared(path); l != nil || err != nil {
		t.Errorf("TryAcquireShared while a writer holds the lock = %v, %v; want nil, nil", l, err)
	}
	release(t, w)
}

// TestWriterSignalsPastAProbe: a reader's WriterWaiting holds the intent
// file exclusively for a moment. A writer that begins to wait in that moment
// must still say it waits once the moment is over: it used to give up on
// the intent and wait unseen behind readers that never paused.
func TestWriterSignalsPastAProbe(t *testing.T) {
	path := filepath.Join(t.TempDir(), "lock")
	reader := takeLock(t, path, true)
	probe := flock.New(intentPath(path))
	if ok, err := probe.TryLock(); err != nil || !ok {
		t.Fatalf("hold the intent as a probe does: %v, %v", ok, err)
	}
	writer := make(chan error, 1)
	go func() {
		l, err := AcquireAhead(context.Background(), path, 5*time.Second)
		if err == nil {
			err = l.Release()
		}
		writer <- err
	}()
	time.Sleep(20 * time.Millisecond) // the writer's first try meets the probe
	if err := probe.Close(); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(10 * time.Second); !WriterWaiting(path); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the writer never said it waits once the probe let the intent go")
		}
	}
	release(t, reader)
	if err := <-writer; err != nil {
		t.Fatalf("the writer, once the reader let go: %v", err)
	}
}

// TestAcquireUnless: a free lock is taken at once; a held one is waited for
// until unless says the wait is over (a nil lock, no error), until the
// holder lets go (the lock), or until the time allowed runs out (busy).
func TestAcquireUnless(t *testing.T) {
	never := func() bool { return false }
	t.Run("free", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "lock")
		l, err := AcquireUnless(context.Background(), path, time.Second, func() bool {
			t.Error("unless asked for a free lock")
			return true
		})
		if err != nil || l == nil {
			t.Fatalf("AcquireUnless of a free lock = %v, %v", l, err)
		}
		release(t, l)
	})
	t.Run("unless", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "lock")
		takeLock(t, path, false)
		var mu sync.Mutex
		asked, done := 0, false
		time.AfterFunc(60*time.Millisecond, func() { mu.Lock(); done = true; mu.Unlock() })
		start := time.Now()
		l, err := AcquireUnless(context.Background(), path, 10*time.Second, func() bool {
			mu.Lock()
			defer mu.Unlock()
			asked++
			return done
		})
		if l != nil || err != nil {
			t.Fatalf("AcquireUnless once unless said so = %v, %v; want no lock and no error", l, err)
		}
		if waited := time.Since(start); waited > 5*time.Second {
			t.Errorf("waited %v after unless said so", waited)
		}
		if asked < 2 {
			t.Errorf("unless was asked %d times over 60 ms, want it asked while waiting", asked)
		}
	})
	t.Run("released", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "lock")
		held := takeLock(t, path, false)
		time.AfterFunc(30*time.Millisecond, func() { held.Release() })
		l, err := AcquireUnless(context.Background(), path, 10*time.Second, never)
		if err != nil || l == nil {
			t.Fatalf("AcquireUnless after the holder let go = %v, %v", l, err)
		}
		release(t, l)
	})
	t.Run("busy", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "lock")
		takeLock(t, path, false)
		_, err := AcquireUnless(context.Background(), path, shortWait, never)
		checkBusy(t, err, path, shortWait)
	})
	t.Run("cancelled", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "lock")
		takeLock(t, path, false)
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(20*time.Millisecond, cancel)
		_, err := AcquireUnless(ctx, path, 10*time.Second, never)
		var le *LockError
		if !errors.As(err, &le) || !errors.Is(le.Context, context.Canceled) {
			t.Fatalf("got %v, want a *LockError for the cancelled wait", err)
		}
	})
}

// TestLockHeldHereSaysSo: a wait that runs out on a lock this process holds
// says so, rather than blaming another process (the MCP server's watcher
// waited for the server's own making of an index); once that hold is
// released the count is gone, and a wait on a lock held by nobody here
// says another process holds it.
func TestLockHeldHereSaysSo(t *testing.T) {
	ctx := context.Background()
	// The child of the last part: it holds the lock until told.
	if os.Getenv("FILELOCK_HOLD") != "" {
		l, err := Acquire(ctx, os.Getenv("FILELOCK_HOLD"), shortWait)
		if err != nil {
			os.Exit(2)
		}
		fmt.Println("held")
		_, _ = bufio.NewReader(os.Stdin).ReadString('\n')
		_ = l.Release()
		os.Exit(0)
	}
	path := filepath.Join(t.TempDir(), "lock")
	for _, shared := range []bool{false, true} {
		take := Acquire
		if shared {
			take = AcquireShared
		}
		l, err := take(ctx, path, shortWait)
		if err != nil {
			t.Fatal(err)
		}
		_, err = Acquire(ctx, path, shortWait)
		var le *LockError
		if !errors.As(err, &le) || !le.Here || !strings.Contains(err.Error(), "this cortex process has held") {
			t.Errorf("waiting for a lock this process holds (shared %v): %v, want it said", shared, err)
		}
		release(t, l)
		if heldHere(path) {
			t.Errorf("the lock counted as held here once released (shared %v)", shared)
		}
	}
	// Held by another process.
	cmd := exec.Command(os.Args[0], "-test.run=^TestLockHeldHereSaysSo$")
	cmd.Env = append(os.Environ(), "FILELOCK_HOLD="+path)
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = in.Close(); _ = cmd.Wait() }()
	if line, err := bufio.NewReader(out).ReadString('\n'); err != nil || line != "held\n" {
		t.Fatalf("the child did not hold the lock: %q, %v", line, err)
	}
	_, err = Acquire(ctx, path, shortWait)
	var le *LockError
	if !errors.As(err, &le) || le.Here || !strings.Contains(err.Error(), "another cortex process has held") {
		t.Errorf("waiting for a lock another process holds: %v, want it said", err)
	}
}
