package watch_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/cortexmem/cortex/watch"
)

const debounce = 50 * time.Millisecond

// running starts a watcher of jobs in the background and stops it at the
// end of the test, checking that it stops cleanly and promptly.
func running(t *testing.T, o watch.Options) *watch.Watcher {
	t.Helper()
	if o.Debounce == 0 {
		o.Debounce = debounce
	}
	if o.Poll == 0 {
		o.Poll = 50 * time.Millisecond
	}
	w := watch.New(o)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- w.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("run: %v", err)
			}
		case <-time.After(5 * time.Second):
			t.Error("the watcher did not stop within 5s of its context ending")
		}
	})
	return w
}

// counting is a job that counts its runs.
type counting struct{ n atomic.Int64 }

func (c *counting) job(name string, dirs ...string) watch.Job {
	return watch.Job{Name: name, Dirs: dirs, Run: func(context.Context) error { c.n.Add(1); return nil }}
}

// eventually waits for cond, up to 10s.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// settle waits until n has not changed for a few debounce windows, and
// returns it.
func settle(n *atomic.Int64) int64 { return settled(n.Load) }

// settled waits until count has not changed for a few debounce windows
// (events may come late on a busy machine), and returns it.
func settled[N comparable](count func() N) N {
	last := count()
	for {
		time.Sleep(4 * debounce)
		if now := count(); now == last {
			return now
		} else {
			last = now
		}
	}
}

func write(t *testing.T, p, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestChangesRunTheJob: the job runs once at the start, then once per
// burst of changes — a create, an edit, an editor's save by rename, a
// rename, a delete, a note in a new folder — and not for changes
// elsewhere.
func TestChangesRunTheJob(t *testing.T) {
	root := t.TempDir()
	vault, other := filepath.Join(root, "vault"), filepath.Join(root, "other")
	write(t, filepath.Join(vault, "a.md"), "a")
	write(t, filepath.Join(other, "x.md"), "x")
	var c counting
	running(t, watch.Options{Jobs: []watch.Job{c.job("index", vault)}})
	eventually(t, "the first run", func() bool { return c.n.Load() == 1 })
	steps := []struct {
		name string
		do   func()
	}{
		{"create", func() { write(t, filepath.Join(vault, "b.md"), "b") }},
		{"edit", func() { write(t, filepath.Join(vault, "a.md"), "a2") }},
		{"save by rename", func() {
			write(t, filepath.Join(vault, ".a.md.tmp"), "a3")
			if err := os.Rename(filepath.Join(vault, ".a.md.tmp"), filepath.Join(vault, "a.md")); err != nil {
				t.Fatal(err)
			}
		}},
		{"rename", func() {
			if err := os.Rename(filepath.Join(vault, "b.md"), filepath.Join(vault, "c.md")); err != nil {
				t.Fatal(err)
			}
		}},
		{"delete", func() {
			if err := os.Remove(filepath.Join(vault, "c.md")); err != nil {
				t.Fatal(err)
			}
		}},
		{"new folder", func() { write(t, filepath.Join(vault, "sub", "deep", "d.md"), "d") }},
		{"in the new folder", func() { write(t, filepath.Join(vault, "sub", "deep", "e.md"), "e") }},
	}
	for _, s := range steps {
		before := settle(&c.n)
		s.do()
		eventually(t, s.name+" to run the job", func() bool { return c.n.Load() > before })
	}
	before := settle(&c.n)
	write(t, filepath.Join(other, "y.md"), "y")
	write(t, filepath.Join(vault, ".obsidian", "workspace.json"), "{}")
	if got := settle(&c.n); got != before {
		t.Errorf("changes outside the job's folders ran it (%d → %d)", before, got)
	}
}

// TestBurst: 10,000 file events in a burst run the job a few times, not
// thousands.
func TestBurst(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 10,000 files")
	}
	dir := t.TempDir()
	var c counting
	running(t, watch.Options{Jobs: []watch.Job{c.job("index", dir)}, Debounce: 200 * time.Millisecond})
	eventually(t, "the first run", func() bool { return c.n.Load() == 1 })
	for i := range 5000 {
		p := filepath.Join(dir, fmt.Sprintf("n%05d.md", i))
		write(t, p, "x") // create + write: two events or more each
	}
	eventually(t, "the burst to run the job", func() bool { return c.n.Load() > 1 })
	time.Sleep(time.Second)
	if n := c.n.Load(); n > 6 {
		t.Errorf("a burst of 10,000 events ran the job %d times", n)
	}
}

// TestRootDeletedAndRecreated: the watched folder deleted and made again is
// watched again.
func TestRootDeletedAndRecreated(t *testing.T) {
	root := t.TempDir()
	inbox := filepath.Join(root, "state", "inbox", "pending")
	var c counting
	running(t, watch.Options{Jobs: []watch.Job{c.job("normalize", inbox)}})
	eventually(t, "the first run", func() bool { return c.n.Load() == 1 })
	// The folder did not exist: it appears.
	write(t, filepath.Join(inbox, "e1.md"), "e1")
	eventually(t, "the new folder's file to run the job", func() bool { return c.n.Load() >= 2 })
	before := settle(&c.n)
	if err := os.RemoveAll(filepath.Join(root, "state")); err != nil {
		t.Fatal(err)
	}
	time.Sleep(4 * debounce)
	write(t, filepath.Join(inbox, "e2.md"), "e2")
	eventually(t, "the recreated folder's file to run the job", func() bool { return c.n.Load() > before })
	before = settle(&c.n)
	write(t, filepath.Join(inbox, "e3.md"), "e3")
	eventually(t, "a later file in the recreated folder", func() bool { return c.n.Load() > before })
}

// TestMatch: a job whose Match refuses an event is not run for it.
func TestMatch(t *testing.T) {
	dir := t.TempDir()
	var c counting
	j := c.job("normalize", dir)
	j.Match = func(p string, op fsnotify.Op) bool { return op.Has(fsnotify.Create) || op.Has(fsnotify.Write) }
	running(t, watch.Options{Jobs: []watch.Job{j}})
	eventually(t, "the first run", func() bool { return c.n.Load() == 1 })
	write(t, filepath.Join(dir, "e.md"), "e")
	eventually(t, "a create", func() bool { return c.n.Load() >= 2 })
	before := settle(&c.n)
	if err := os.Remove(filepath.Join(dir, "e.md")); err != nil {
		t.Fatal(err)
	}
	if got := settle(&c.n); got != before {
		t.Errorf("a remove ran the job")
	}
}

// TestOneWatcherPerVault: a second watcher of the lock is refused.
func TestOneWatcherPerVault(t *testing.T) {
	dir := t.TempDir()
	lock := filepath.Join(dir, "state", "watch.lock")
	var c counting
	running(t, watch.Options{Jobs: []watch.Job{c.job("index", dir)}, Lock: lock})
	eventually(t, "the first run", func() bool { return c.n.Load() == 1 })
	err := watch.New(watch.Options{Jobs: []watch.Job{c.job("index", dir)}, Lock: lock}).Run(context.Background())
	if !errors.Is(err, watch.ErrRunning) {
		t.Errorf("second watcher: %v, want ErrRunning", err)
	}
}

// TestPolling: when fsnotify cannot be used the watcher polls, says so,
// and still sees changes.
func TestPolling(t *testing.T) {
	dir := t.TempDir()
	var c counting
	var mu sync.Mutex
	var logs []string
	running(t, watch.Options{Jobs: []watch.Job{c.job("index", dir)}, ForcePoll: true, Log: func(m string) {
		mu.Lock()
		logs = append(logs, m)
		mu.Unlock()
	}})
	eventually(t, "the first run", func() bool { return c.n.Load() == 1 })
	write(t, filepath.Join(dir, "a.md"), "a")
	eventually(t, "a poll to see the change", func() bool { return c.n.Load() >= 2 })
	mu.Lock()
	defer mu.Unlock()
	if len(logs) == 0 || logs[0] != "cannot watch with fsnotify (asked to poll): polling every 50ms instead" {
		t.Errorf("logs %q", logs)
	}
}

// TestFailingJob: a job that fails is logged and the watcher goes on.
func TestFailingJob(t *testing.T) {
	dir := t.TempDir()
	var n atomic.Int64
	var mu sync.Mutex
	var logs []string
	running(t, watch.Options{Jobs: []watch.Job{{Name: "index", Dirs: []string{dir}, Run: func(context.Context) error {
		n.Add(1)
		return errors.New("disk full")
	}}}, Log: func(m string) { mu.Lock(); logs = append(logs, m); mu.Unlock() }})
	eventually(t, "the first run", func() bool { return n.Load() == 1 })
	write(t, filepath.Join(dir, "a.md"), "a")
	eventually(t, "a second run", func() bool { return n.Load() == 2 })
	mu.Lock()
	defer mu.Unlock()
	if len(logs) < 3 || logs[0] != "watching 1 folder" || logs[1] != "index failed: disk full" {
		t.Errorf("logs %q", logs)
	}
}

// changes is a job with RunChanged that records each run: "all" for Run,
// else the paths, relative to dir.
type changes struct {
	mu       sync.Mutex
	runs     []string
	fail     bool // the next RunChanged fails
	failedAt int  // the run that failed, -1 before
}

func (c *changes) job(dir string) watch.Job {
	return watch.Job{Name: "index", Dirs: []string{dir},
		Run: func(context.Context) error { c.add("all"); return nil },
		RunChanged: func(_ context.Context, paths []string) error {
			var rel []string
			for _, p := range paths {
				r, err := filepath.Rel(dir, p)
				if err != nil {
					return err
				}
				rel = append(rel, filepath.ToSlash(r))
			}
			c.add(fmt.Sprint(rel))
			c.mu.Lock()
			defer c.mu.Unlock()
			if c.fail {
				c.fail, c.failedAt = false, len(c.runs)-1
				return errors.New("disk full")
			}
			return nil
		}}
}

func (c *changes) add(run string) {
	c.mu.Lock()
	c.runs = append(c.runs, run)
	c.mu.Unlock()
}

func (c *changes) last(n int) []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.runs) < n {
		return nil
	}
	return slices.Clone(c.runs[len(c.runs)-n:])
}

func (c *changes) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.runs)
}

// TestRunChangedGetsThePaths: after its first run, a job with RunChanged
// is given the paths of the files that changed, each once and sorted —
// edits, a save by rename (the temp file's name too), a delete — and runs
// whole (Run) when a folder appears or goes, and after a RunChanged that
// failed.
func TestRunChangedGetsThePaths(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "a.md"), "a")
	write(t, filepath.Join(dir, "b.md"), "b")
	write(t, filepath.Join(dir, "old", "x.md"), "x")
	c := &changes{failedAt: -1}
	running(t, watch.Options{Jobs: []watch.Job{c.job(dir)}})
	eventually(t, "the first run", func() bool { return c.count() == 1 })
	if got := c.last(1); got[0] != "all" {
		t.Fatalf("the first run was %q, want Run", got)
	}
	steps := []struct {
		name string
		do   func()
		want string
	}{
		{"two edits", func() {
			write(t, filepath.Join(dir, "b.md"), "b2")
			write(t, filepath.Join(dir, "a.md"), "a2")
		}, "[a.md b.md]"},
		{"a save by rename", func() {
			write(t, filepath.Join(dir, ".a.md.tmp"), "a3")
			if err := os.Rename(filepath.Join(dir, ".a.md.tmp"), filepath.Join(dir, "a.md")); err != nil {
				t.Fatal(err)
			}
		}, "[.a.md.tmp a.md]"},
		{"a delete", func() {
			if err := os.Remove(filepath.Join(dir, "b.md")); err != nil {
				t.Fatal(err)
			}
		}, "[b.md]"},
		{"a new folder", func() { write(t, filepath.Join(dir, "sub", "c.md"), "c") }, "all"},
		{"in the new folder", func() { write(t, filepath.Join(dir, "sub", "c.md"), "c2") }, "[sub/c.md]"},
		{"a folder removed", func() {
			if err := os.RemoveAll(filepath.Join(dir, "old")); err != nil {
				t.Fatal(err)
			}
		}, "all"},
	}
	quiet := func() int { return settled(c.count) }
	for _, s := range steps {
		before := quiet()
		s.do()
		eventually(t, s.name+" to run the job", func() bool { return c.count() > before })
		got := c.last(quiet() - before)
		if !slices.Contains(got, s.want) {
			t.Errorf("%s: runs %q, want one %s", s.name, got, s.want)
		}
	}
	quiet()
	c.mu.Lock()
	c.fail = true
	c.mu.Unlock()
	write(t, filepath.Join(dir, "a.md"), "a4")
	eventually(t, "the failing run", func() bool { c.mu.Lock(); defer c.mu.Unlock(); return c.failedAt >= 0 })
	c.mu.Lock()
	failed := c.failedAt
	c.mu.Unlock()
	write(t, filepath.Join(dir, "a.md"), "a5")
	eventually(t, "the run after it", func() bool { return c.count() > failed+1 })
	c.mu.Lock()
	next := c.runs[failed+1]
	c.mu.Unlock()
	if next != "all" {
		t.Errorf("the run after a failed RunChanged was %q, want all", next)
	}
}

// TestNamedTellsThePaths: a job with Named is told the path of each event
// its next RunChanged will get instead of Settled(false), and Settled(true)
// once the run took them in; what the watcher cannot name — a folder made,
// a RunChanged that failed — is still Settled(false).
func TestNamedTellsThePaths(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "a.md"), "a")
	c := &changes{failedAt: -1}
	var mu sync.Mutex
	var told []string
	j := c.job(dir)
	j.Settled = func(clean bool) {
		mu.Lock()
		defer mu.Unlock()
		told = append(told, fmt.Sprint("settled ", clean))
	}
	j.Named = func(path string) {
		mu.Lock()
		defer mu.Unlock()
		rel, err := filepath.Rel(dir, path)
		if err != nil {
			t.Error(err)
		}
		told = append(told, "named "+filepath.ToSlash(rel))
	}
	since := func() func() []string {
		mu.Lock()
		n := len(told)
		mu.Unlock()
		return func() []string {
			mu.Lock()
			defer mu.Unlock()
			return slices.Clone(told[n:])
		}
	}
	running(t, watch.Options{Jobs: []watch.Job{j}})
	eventually(t, "the first run", func() bool { return c.count() == 1 })
	settled(c.count)

	got := since()
	write(t, filepath.Join(dir, "a.md"), "a2")
	eventually(t, "the edit's run", func() bool { return slices.Contains(got(), "settled true") })
	if g := slices.Compact(got()); !slices.Equal(g, []string{"named a.md", "settled true"}) {
		t.Errorf("an edit told %q, want it named, then settled", g)
	}

	got = since()
	write(t, filepath.Join(dir, "sub", "b.md"), "b")
	eventually(t, "the new folder's run", func() bool { return slices.Contains(got(), "settled true") })
	if g := got(); len(g) == 0 || g[0] != "settled false" {
		t.Errorf("a new folder told %q, want settled false first", g)
	}
	settled(c.count)

	got = since()
	c.mu.Lock()
	c.fail = true
	c.mu.Unlock()
	write(t, filepath.Join(dir, "a.md"), "a3")
	eventually(t, "the failing run", func() bool { c.mu.Lock(); defer c.mu.Unlock(); return c.failedAt >= 0 })
	settled(c.count)
	if g := got(); !slices.Contains(g, "settled false") || slices.Contains(g, "settled true") {
		t.Errorf("a failed RunChanged told %q, want settled false and not settled true", g)
	}
}
