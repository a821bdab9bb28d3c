// Package watch is cortex's one optional long-running process (SPEC §4.14;
// `cortex watch`): it watches folders with fsnotify and, once a burst of
// changes has been quiet for a debounce window, runs the job each folder
// has — re-index the vault's notes, read agents' transcripts into notes,
// normalize the inbox.
//
// The watcher survives what folders go through: an editor's save by rename
// (a new file renamed over the note), a sync tool's bursts (thousands of
// events become one run), folders created and deleted (a new folder is
// watched as it appears; a deleted root is watched for again through its
// nearest existing parent), a kernel queue that overflows (every job runs),
// and the system's watches running out (it polls instead, and says so).
// Every job runs once when the watcher starts, so nothing changed while it
// was not running is missed; the jobs are idempotent (the index syncs to the
// vault, normalize and the transcript runner keep their own progress), so a
// watcher killed and started again does nothing twice.
//
// One watcher per vault: Run holds a lock for its lifetime and refuses to
// start when another holds it. It waits on channels and timers only — no
// loop spins — and returns when its context ends (SIGINT, SIGTERM).
//
// Nothing requires the watcher: every command brings the index up to date
// on its own before it answers.
package watch

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/cortexmem/cortex/filelock"
)

// Job is what runs when one of its folders changed.
type Job struct {
	// Name says what the job does, for the log.
	Name string
	// Dirs are the folders the job watches, with everything below them.
	Dirs []string
	// Match, when set, says whether a change to a path concerns the job
	// (the inbox's job ignores events leaving pending/); nil takes every
	// change.
	Match func(path string, op fsnotify.Op) bool
	Run   func(ctx context.Context) error
	// RunChanged, when set, runs instead of Run when the watcher knows
	// every path that changed since the job last ran: the paths of the
	// events that concern the job, each once, sorted. Run still runs
	// first, after events were lost, once a folder appears or goes (what
	// it holds changed too), past maxChanged paths, after a run that
	// failed, and while the watcher polls.
	RunChanged func(ctx context.Context, paths []string) error
	// Settled, when set, is told whether the job's folders are known to be
	// as its last run left them: true after a run that succeeded while
	// fsnotify follows the folders (the watcher does not poll) with no
	// event waiting; false as soon as an event concerning the job arrives,
	// events are lost, the watcher falls back to polling, or it stops. A
	// process that reads what the job keeps up to date (the MCP server's
	// index) may skip its own checks while the job is settled.
	Settled func(bool)
	// Named, when set beside RunChanged and Settled, is told instead of
	// Settled(false) the path of an event concerning the job that its next
	// RunChanged will get: the job is not settled, but only those paths
	// changed. Settled(false) still says when the paths are not known (the
	// next run is Run) and Settled(true) that every path named was taken
	// in. A process that reads what the job keeps up to date may then look
	// at the paths named instead of all its files.
	Named func(path string)
}

// Options configure a watcher.
type Options struct {
	Jobs []Job
	// Lock is the file whose lock keeps a second watcher of the vault out.
	Lock string
	// Debounce is how long changes must be quiet before the jobs run.
	Debounce time.Duration
	// Poll is how often the folders are looked at when fsnotify cannot
	// watch them (the system's watches ran out).
	Poll time.Duration
	// Log receives what the watcher does; nil drops it.
	Log func(string)
	// ForcePoll polls from the start (tests of the fallback).
	ForcePoll bool
}

// ErrRunning is returned when another watcher holds the vault's lock.
var ErrRunning = errors.New("another cortex watch is running on this vault")

// Watcher watches folders and runs their jobs.
type Watcher struct {
	o   Options
	fsw *fsnotify.Watcher
	// watched are the folders fsnotify watches; pending the roots that do
	// not exist yet, watched through an ancestor.
	watched map[string]bool
	polling bool
	// dirty are the jobs to run when the debounce fires; for each, changed
	// holds the paths its events named, unless whole says it must look at
	// all its folders.
	dirty   map[int]bool
	changed map[int]map[string]bool
	whole   map[int]bool
	runs    map[string]int
	mu      sync.Mutex
}

// New returns a watcher; Run starts it.
func New(o Options) *Watcher {
	if o.Debounce <= 0 {
		o.Debounce = 300 * time.Millisecond
	}
	if o.Poll <= 0 {
		o.Poll = 2 * time.Second
	}
	if o.Log == nil {
		o.Log = func(string) {}
	}
	return &Watcher{o: o, watched: map[string]bool{}, dirty: map[int]bool{}, changed: map[int]map[string]bool{}, whole: map[int]bool{}, runs: map[string]int{}}
}

// Runs says how often each job ran, by name: for tests and the report at
// the end.
func (w *Watcher) Runs() map[string]int {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := make(map[string]int, len(w.runs))
	for k, v := range w.runs {
		out[k] = v
	}
	return out
}

// Run watches until ctx ends. It runs every job once first, then each job
// whose folders changed, a debounce window after the last change.
func (w *Watcher) Run(ctx context.Context) error {
	if w.o.Lock != "" {
		if err := os.MkdirAll(filepath.Dir(w.o.Lock), 0o700); err != nil {
			return fmt.Errorf("watch: %w", err)
		}
		l, err := filelock.TryAcquire(w.o.Lock)
		if err != nil {
			return fmt.Errorf("watch: %w", err)
		}
		if l == nil {
			return fmt.Errorf("%w (lock %s)", ErrRunning, w.o.Lock)
		}
		defer l.Release()
	}
	// Whatever ends the watch, nothing follows the folders any more.
	defer w.unsettle()
	if !w.o.ForcePoll {
		fsw, err := fsnotify.NewBufferedWatcher(4096)
		if err != nil {
			w.startPolling(err)
		} else {
			w.fsw = fsw
			defer fsw.Close()
			for i := range w.o.Jobs {
				for _, d := range w.o.Jobs[i].Dirs {
					if err := w.addTree(d); err != nil {
						w.startPolling(err)
					}
				}
			}
		}
	} else {
		w.startPolling(errors.New("asked to poll"))
	}
	if !w.polling {
		w.o.Log(fmt.Sprintf("watching %d %s", len(w.watched), plural(len(w.watched), "folder", "folders")))
	}
	for i := range w.o.Jobs {
		w.markDirty(i)
	}
	w.runDirty(ctx)

	var events chan fsnotify.Event
	var errs chan error
	if w.fsw != nil && !w.polling {
		events, errs = w.fsw.Events, w.fsw.Errors
	}
	debounce := time.NewTimer(time.Hour)
	debounce.Stop()
	var poll <-chan time.Time
	var snap map[int]uint64
	if w.polling {
		t := time.NewTicker(w.o.Poll)
		defer t.Stop()
		poll = t.C
		snap = w.fingerprints()
	}
	for {
		select {
		case <-ctx.Done():
			w.o.Log("stopped")
			return nil
		case ev, ok := <-events:
			if !ok {
				events = nil
				continue
			}
			if w.handle(ev) {
				debounce.Reset(w.o.Debounce)
			}
		case err, ok := <-errs:
			if !ok {
				errs = nil
				continue
			}
			if errors.Is(err, fsnotify.ErrEventOverflow) {
				// Events were lost: every job runs.
				w.o.Log("the system's event queue overflowed: running every job")
				for i := range w.o.Jobs {
					w.markDirty(i)
				}
				debounce.Reset(w.o.Debounce)
				continue
			}
			w.o.Log("watch error: " + err.Error())
		case <-debounce.C:
			for _, i := range w.rearm() {
				w.markDirty(i)
			}
			w.runDirty(ctx)
		case <-poll:
			now := w.fingerprints()
			for i := range w.o.Jobs {
				if now[i] != snap[i] {
					w.markDirty(i)
				}
			}
			snap = now
			w.runDirty(ctx)
		}
	}
}

// startPolling switches to polling, saying why.
func (w *Watcher) startPolling(why error) {
	if w.polling {
		return
	}
	w.polling = true
	w.unsettle()
	msg := why.Error()
	if errors.Is(why, syscall.ENOSPC) || errors.Is(why, syscall.EMFILE) {
		msg = "the system's file watches ran out (raise fs.inotify.max_user_watches)"
	}
	w.o.Log(fmt.Sprintf("cannot watch with fsnotify (%s): polling every %s instead", msg, w.o.Poll))
}

// handle marks the jobs an event concerns and watches new folders; it
// reports whether a job became dirty.
func (w *Watcher) handle(ev fsnotify.Event) bool {
	// A folder that appears, goes or moves changes what it holds too: the
	// jobs look at all their folders then.
	folder := false
	if ev.Op.Has(fsnotify.Create) {
		if fi, err := os.Lstat(ev.Name); err == nil && fi.IsDir() && !hidden(filepath.Base(ev.Name)) {
			folder = true
			switch {
			case w.inRoots(ev.Name):
				// A folder appeared in a root (or a root was created):
				// watch it; what it holds counts as changed.
				if err := w.addTree(ev.Name); err != nil {
					w.startPolling(err)
				}
			case w.aboveRoots(ev.Name):
				// A folder on the way to a root that did not exist: watch
				// closer to it, and the root itself once it is there, what
				// it holds already counting as changed.
				for _, i := range w.rearm() {
					w.markDirty(i)
				}
				return len(w.dirty) > 0
			}
		}
	}
	if ev.Op.Has(fsnotify.Remove) || ev.Op.Has(fsnotify.Rename) {
		if w.watched[ev.Name] {
			delete(w.watched, ev.Name)
			folder = true
		}
	}
	if hidden(filepath.Base(ev.Name)) && !ev.Op.Has(fsnotify.Rename) {
		// A dot-file is an editor's or cortex's own temp file: the rename
		// that replaces the note is the change that counts.
		return false
	}
	any := false
	for i, j := range w.o.Jobs {
		if !under(ev.Name, j.Dirs) {
			continue
		}
		if j.Match != nil && !j.Match(ev.Name, ev.Op) {
			continue
		}
		if folder {
			w.markDirty(i)
		} else {
			w.markChanged(i, ev.Name)
		}
		any = true
	}
	return any
}

// maxChanged bounds the paths kept for a job's next run: past it, the job
// looks at all its folders (Run), which costs less than going through that
// many paths one by one.
const maxChanged = 4096

// rearm watches again the roots that were deleted and have come back, or
// their nearest existing parent until they do; it returns the jobs whose
// roots it watches again.
func (w *Watcher) rearm() []int {
	if w.fsw == nil || w.polling {
		return nil
	}
	var back []int
	for i, j := range w.o.Jobs {
		for _, d := range j.Dirs {
			if w.watched[d] {
				continue
			}
			if err := w.addTree(d); err != nil {
				w.startPolling(err)
			}
			if w.watched[d] {
				back = append(back, i)
			}
		}
	}
	return back
}

// addTree watches dir and every folder below it, or, when dir does not
// exist, its nearest existing parent (to see it appear).
func (w *Watcher) addTree(dir string) error {
	if w.fsw == nil || w.polling {
		return nil
	}
	if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
		for p := filepath.Dir(dir); ; p = filepath.Dir(p) {
			if _, err := os.Stat(p); err == nil {
				if !w.watched[p] {
					if err := w.fsw.Add(p); err != nil {
						return err
					}
					w.watched[p] = true
					// A folder made below p before its watch began sends
					// no event: look again.
					if next := childOnPath(p, dir); next != "" {
						if _, err := os.Stat(next); err == nil {
							return w.addTree(dir)
						}
					}
				}
				return nil
			}
			if p == filepath.Dir(p) {
				return nil
			}
		}
	}
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil // gone while we walked
			}
			return err
		}
		if !d.IsDir() {
			return nil
		}
		if p != dir && hidden(d.Name()) {
			return filepath.SkipDir
		}
		if w.watched[p] {
			return nil
		}
		if err := w.fsw.Add(p); err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		w.watched[p] = true
		return nil
	})
}

// runDirty runs the dirty jobs, in their order. A job that fails is
// logged; the watcher goes on.
func (w *Watcher) runDirty(ctx context.Context) {
	for i, j := range w.o.Jobs {
		if !w.dirty[i] || ctx.Err() != nil {
			continue
		}
		delete(w.dirty, i)
		paths, whole := slices.Sorted(maps.Keys(w.changed[i])), w.whole[i]
		delete(w.changed, i)
		delete(w.whole, i)
		start := time.Now()
		var err error
		if j.RunChanged != nil && !whole {
			err = j.RunChanged(ctx, paths)
		} else {
			err = j.Run(ctx)
		}
		if err != nil {
			// What the failed run was to look at is not lost: the next
			// one looks at all the folders, and until then no path named
			// is known to be all that changed.
			w.whole[i] = true
			if j.Settled != nil {
				j.Settled(false)
			}
		}
		w.mu.Lock()
		w.runs[j.Name]++
		w.mu.Unlock()
		if err != nil && ctx.Err() == nil {
			w.o.Log(fmt.Sprintf("%s failed: %v", j.Name, err))
			continue
		}
		if err == nil && j.Settled != nil && w.following() && !w.dirty[i] {
			j.Settled(true)
		}
		w.o.Log(fmt.Sprintf("%s (%s)", j.Name, time.Since(start).Round(time.Millisecond)))
	}
}

// markDirty marks job i to run when the debounce fires, over all its
// folders, and tells it at once that its folders changed.
func (w *Watcher) markDirty(i int) {
	w.dirty[i] = true
	w.whole[i] = true
	delete(w.changed, i)
	if s := w.o.Jobs[i].Settled; s != nil {
		s(false)
	}
}

// markChanged marks job i to run when the debounce fires because path
// changed, and tells it at once that its folders changed.
func (w *Watcher) markChanged(i int, path string) {
	if w.whole[i] || len(w.changed[i]) >= maxChanged {
		w.markDirty(i)
		return
	}
	w.dirty[i] = true
	if w.changed[i] == nil {
		w.changed[i] = map[string]bool{}
	}
	w.changed[i][path] = true
	j := w.o.Jobs[i]
	switch {
	case j.Named != nil && j.RunChanged != nil:
		j.Named(path)
	case j.Settled != nil:
		j.Settled(false)
	}
}

// unsettle tells every job that nothing follows its folders for now.
func (w *Watcher) unsettle() {
	for _, j := range w.o.Jobs {
		if j.Settled != nil {
			j.Settled(false)
		}
	}
}

// following reports whether fsnotify follows the folders with no event
// waiting to be handled: events that came while a job ran are still in the
// queue, and the job is not settled until they are handled.
func (w *Watcher) following() bool {
	return w.fsw != nil && !w.polling && len(w.fsw.Events) == 0 && len(w.fsw.Errors) == 0
}

// fingerprints sum up each job's folders — every file's path, size and
// modification time — for polling.
func (w *Watcher) fingerprints() map[int]uint64 {
	out := map[int]uint64{}
	for i, j := range w.o.Jobs {
		h := fnv.New64a()
		for _, d := range j.Dirs {
			_ = filepath.WalkDir(d, func(p string, e fs.DirEntry, err error) error {
				if err != nil {
					return nil
				}
				if p != d && hidden(e.Name()) {
					if e.IsDir() {
						return filepath.SkipDir
					}
					return nil
				}
				if e.IsDir() {
					return nil
				}
				fi, err := e.Info()
				if err != nil {
					return nil
				}
				// WalkDir goes in lexical order: the sum is stable.
				fmt.Fprintf(h, "%s\x00%d\x00%d\n", p, fi.Size(), fi.ModTime().UnixNano())
				return nil
			})
		}
		out[i] = h.Sum64()
	}
	return out
}

func (w *Watcher) inRoots(p string) bool {
	for _, j := range w.o.Jobs {
		if under(p, j.Dirs) {
			return true
		}
	}
	return false
}

// aboveRoots reports whether p is a parent of a root.
func (w *Watcher) aboveRoots(p string) bool {
	for _, j := range w.o.Jobs {
		for _, d := range j.Dirs {
			if strings.HasPrefix(d, p+string(filepath.Separator)) {
				return true
			}
		}
	}
	return false
}

// childOnPath is the folder right below parent on the way to dir.
func childOnPath(parent, dir string) string {
	rel, err := filepath.Rel(parent, dir)
	if err != nil || rel == "." || strings.HasPrefix(rel, "..") {
		return ""
	}
	first, _, _ := strings.Cut(rel, string(filepath.Separator))
	return filepath.Join(parent, first)
}

// hidden reports whether a name is a dot-file or dot-folder (.obsidian,
// .git, .trash, temp files).
func hidden(name string) bool { return strings.HasPrefix(name, ".") }

// under reports whether p is one of dirs or below one.
func under(p string, dirs []string) bool {
	for _, d := range dirs {
		if p == d || strings.HasPrefix(p, d+string(filepath.Separator)) {
			return true
		}
	}
	return false
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
