package watch_test

import (
	"context"
	"errors"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/cortexmem/cortex/watch"
)

// settledLog records what a job's Settled hook was told, in order, folding
// repeats (a burst of events says false many times).
type settledLog struct {
	mu   sync.Mutex
	says []bool
}

func (l *settledLog) hook(ok bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if n := len(l.says); n == 0 || l.says[n-1] != ok {
		l.says = append(l.says, ok)
	}
}

func (l *settledLog) get() []bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]bool(nil), l.says...)
}

func (l *settledLog) last() (bool, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.says) == 0 {
		return false, false
	}
	return l.says[len(l.says)-1], true
}

// TestSettled: a job is settled after each run that succeeded while
// fsnotify follows its folders; a change unsettles it at once — before the
// debounce window ends and the job runs again — and so do a failed run,
// polling, and the watcher's end.
func TestSettled(t *testing.T) {
	tests := []struct {
		name      string
		forcePoll bool
		fail      bool
		// want is what Settled is told from the start to the end of the
		// watcher.
		want []bool
	}{
		{name: "followed", want: []bool{false, true, false, true, false}},
		{name: "polling", forcePoll: true, want: []bool{false}},
		{name: "failing job", fail: true, want: []bool{false}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			var log settledLog
			var runs atomic.Int64
			// A long debounce: the test sees the job unsettled before it
			// runs again.
			const wait = 500 * time.Millisecond
			job := watch.Job{Name: "index", Dirs: []string{dir}, Settled: log.hook, Run: func(context.Context) error {
				runs.Add(1)
				if tt.fail {
					return errors.New("disk full")
				}
				return nil
			}}
			w := watch.New(watch.Options{Jobs: []watch.Job{job}, Debounce: wait, Poll: 50 * time.Millisecond, ForcePoll: tt.forcePoll})
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() { done <- w.Run(ctx) }()
			eventually(t, "the first run", func() bool { return runs.Load() == 1 })
			if ok, _ := log.last(); ok == (tt.forcePoll || tt.fail) {
				t.Errorf("after the first run, settled is %v", ok)
			}
			write(t, filepath.Join(dir, "a.md"), "edited by hand")
			if !tt.forcePoll && !tt.fail {
				eventually(t, "the change to unsettle the job", func() bool { ok, _ := log.last(); return !ok })
				if n := runs.Load(); n != 1 {
					t.Errorf("the job ran %d times before it was unsettled, want 1 (the debounce has not passed)", n)
				}
			}
			eventually(t, "the run after the change", func() bool { return runs.Load() == 2 })
			time.Sleep(20 * time.Millisecond)
			cancel()
			if err := <-done; err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, log.get()); diff != "" {
				t.Errorf("settled (-want +got):\n%s", diff)
			}
		})
	}
}
