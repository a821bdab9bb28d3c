package access

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/cortexmem/cortex/config"
	"github.com/cortexmem/cortex/filelock"
	"github.com/cortexmem/cortex/memories"
)

// fill records n accesses spread over five memories and three sources.
func fill(t *testing.T, l *Log, from, n int) {
	t.Helper()
	for i := from; i < from+n; i++ {
		put(t, l, acc(i%5, []string{memories.AccessRecall, memories.AccessContext, "x"}[i%3], i))
	}
}

// TestCompactFoldsWithoutTheLock: compaction decodes the log before it takes
// the lock (a writer can take it meanwhile), and the lines a writer appends
// then are folded in under the lock: nothing is lost.
func TestCompactFoldsWithoutTheLock(t *testing.T) {
	dir := t.TempDir()
	st := config.State{Home: dir}
	l := Open(Options{State: st})
	other := Open(Options{State: st}) // another process's log
	fill(t, l, 0, 200)
	l.afterFold = func() {
		lk, err := filelock.TryAcquire(st.AccessLock())
		if err != nil || lk == nil {
			t.Errorf("the lock is held while the log is folded (%v)", err)
		} else if err := lk.Release(); err != nil {
			t.Error(err)
		}
		fill(t, other, 200, 40)
	}
	if err := l.Compact(context.Background()); err != nil {
		t.Fatal(err)
	}
	ref := Open(Options{State: config.State{Home: t.TempDir()}})
	fill(t, ref, 0, 240)
	want := stats(t, ref)
	if diff := cmp.Diff(want, stats(t, other)); diff != "" {
		t.Errorf("after compaction (-want +got):\n%s", diff)
	}
	if size := fileSize(t, st.AccessLog()); size > 2000 {
		t.Errorf("log is %d bytes after compaction: not compacted", size)
	}
}

// TestCompactYieldsToAnotherCompaction: when another process compacts the
// log between this compaction's fold and its lock, this one writes nothing
// (its fold is of a log that is gone) and no access is counted twice.
func TestCompactYieldsToAnotherCompaction(t *testing.T) {
	dir := t.TempDir()
	st := config.State{Home: dir}
	l := Open(Options{State: st})
	other := Open(Options{State: st})
	fill(t, l, 0, 200)
	l.afterFold = func() {
		if err := other.Compact(context.Background()); err != nil {
			t.Error(err)
		}
		fill(t, other, 200, 10)
	}
	ran, err := l.compact(context.Background(), true)
	if err != nil {
		t.Fatal(err)
	}
	if ran {
		t.Error("compacted a log another process had compacted meanwhile")
	}
	ref := Open(Options{State: config.State{Home: t.TempDir()}})
	fill(t, ref, 0, 210)
	_ = os.Remove(st.AccessIndex())
	if diff := cmp.Diff(stats(t, ref), stats(t, Open(Options{State: st}))); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestCompactAside: with CompactAside, the Record that finds the log too
// big returns at once while the compaction runs on its own goroutine; one
// compaction runs at a time; the log ends compacted with every access.
func TestCompactAside(t *testing.T) {
	dir := t.TempDir()
	st := config.State{Home: dir}
	l := Open(Options{State: st, CompactAbove: 4000, CompactAside: true, Warn: func(msg string) { t.Errorf("warned: %s", msg) }})
	release := make(chan struct{})
	started := make(chan struct{}, 10)
	l.afterFold = func() {
		started <- struct{}{}
		<-release
	}
	fill(t, l, 0, 60) // well past 4,000 bytes: the first crossing starts it
	select {
	case <-started:
	case <-time.After(10 * time.Second):
		t.Fatal("no compaction started")
	}
	fill(t, l, 60, 20) // Records go on while it waits; none starts another
	if len(started) != 0 {
		t.Errorf("%d more compactions started while one ran", len(started))
	}
	close(release)
	for deadline := time.Now().Add(10 * time.Second); l.compacting.Load(); {
		if time.Now().After(deadline) {
			t.Fatal("the compaction never ended")
		}
		time.Sleep(time.Millisecond)
	}
	ref := Open(Options{State: config.State{Home: t.TempDir()}})
	fill(t, ref, 0, 80)
	if diff := cmp.Diff(stats(t, ref), stats(t, l)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if size := fileSize(t, st.AccessLog()); size > 4000 {
		t.Errorf("log is %d bytes: not compacted", size)
	}
}

// TestCompactAsideWarns: a compaction run aside that fails says so through
// Warn (nobody waits for its error), and the next crossing tries again.
func TestCompactAsideWarns(t *testing.T) {
	dir := t.TempDir()
	st := config.State{Home: dir}
	warned := make(chan string, 10)
	l := Open(Options{State: st, CompactAbove: 4000, CompactAside: true, Warn: func(msg string) { warned <- msg }})
	// The cache cannot be written where a folder stands.
	if err := os.MkdirAll(filepath.Join(st.AccessIndex(), "x"), 0o700); err != nil {
		t.Fatal(err)
	}
	fill(t, l, 0, 60)
	select {
	case msg := <-warned:
		if !strings.Contains(msg, "access cache") {
			t.Errorf("warned %q, want the cache's error", msg)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a failed compaction warned of nothing")
	}
	for deadline := time.Now().Add(10 * time.Second); l.compacting.Load(); {
		if time.Now().After(deadline) {
			t.Fatal("the compaction never ended")
		}
		time.Sleep(time.Millisecond)
	}
	if err := os.RemoveAll(st.AccessIndex()); err != nil {
		t.Fatal(err)
	}
	fill(t, l, 60, 60)
	for deadline := time.Now().Add(10 * time.Second); ; {
		if _, err := os.Stat(st.AccessIndex()); err == nil && !l.compacting.Load() {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no compaction after the failed one")
		}
		time.Sleep(time.Millisecond)
	}
}
