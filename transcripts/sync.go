package transcripts

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/cortexmem/cortex/adapters"
	"github.com/cortexmem/cortex/atomicfile"
	"github.com/cortexmem/cortex/filelock"
	"github.com/cortexmem/cortex/index"
	"github.com/cortexmem/cortex/pipeline"
	"github.com/cortexmem/cortex/scribe"
	"github.com/cortexmem/cortex/transcript"
)

// Options configure a Service.
type Options struct {
	// Dir is the transcript index's folder in the state folder (never in a
	// vault).
	Dir string
	// Selection is what to index: every transcript discovery finds in its
	// Env (All), or named files. Only what it selects stays in the index.
	Selection scribe.Selection
	// Redact rewrites every text before it is kept: the credential rules
	// (pipeline.Pipeline.RedactText); the default pipeline's when nil.
	Redact func(string) string
	// LockTimeout bounds every wait for a lock.
	LockTimeout time.Duration
	// Now is the clock; time.Now when nil.
	Now func() time.Time
	// Progress, when set, hears how many transcripts a long sync has read
	// of how many.
	Progress func(read, total int)
	// Freshness is how long after a full check of the transcripts (every
	// one discovery finds, stat'ed) a sync may check only those written
	// lately, which agents are appending to: new transcripts, and changes
	// to ones untouched for days, are seen by the first sync at least
	// Freshness after the last full check. 0 checks every transcript every
	// time.
	Freshness time.Duration
}

// Service is the transcript index of one state folder.
type Service struct {
	o Options
	// buildDocs and buildBytes bound a batch of a whole build.
	buildDocs, buildBytes int
}

// New returns the service; nothing is read or written until it is used.
func New(o Options) *Service {
	if o.Redact == nil {
		o.Redact = pipeline.New().RedactText
	}
	if o.LockTimeout <= 0 {
		o.LockTimeout = 10 * time.Second
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if !o.Selection.All && len(o.Selection.Paths) == 0 {
		o.Selection.All = true
	}
	return &Service{o: o, buildDocs: buildDocs, buildBytes: buildBytes}
}

// Dir is the index's folder.
func (s *Service) Dir() string { return s.o.Dir }

// SyncReport says what bringing the index up to date did.
type SyncReport struct {
	// Files is how many transcripts the index holds afterwards, Exchanges
	// how many documents.
	Files     int `json:"files"`
	Exchanges int `json:"exchanges"`
	// Read counts the transcripts read: New for the first time, Appended
	// from where the last read stopped, Reread again whole (rewritten,
	// replaced, or records reaching back); Removed the transcripts gone.
	Read     int `json:"read"`
	New      int `json:"new"`
	Appended int `json:"appended"`
	Reread   int `json:"reread"`
	Removed  int `json:"removed"`
	// Indexed counts documents written, Deleted documents removed,
	// Messages the conversation's messages read (the person's and the
	// agent's turns, tool calls and tool results).
	Indexed  int `json:"indexed"`
	Deleted  int `json:"deleted"`
	Messages int `json:"messages"`
	// Rebuilt says why the whole index was built anew, when it was.
	Rebuilt string `json:"rebuilt,omitempty"`
	// Busy is set when another process was updating the index: searches
	// answered from it as it stood.
	Busy bool `json:"busy,omitempty"`
	// Quick is set when only the transcripts written lately were checked
	// (a full check was made less than Freshness ago).
	Quick bool `json:"quick,omitempty"`
	// Unreadable are the transcripts that could not be read, and why;
	// Skipped what discovery passed over, and why.
	Unreadable []transcript.Skip `json:"unreadable,omitempty"`
	Skipped    []transcript.Skip `json:"skipped,omitempty"`
	Took       time.Duration     `json:"took_ns"`
}

// target is a transcript to index and what is known of it now.
type target struct {
	scribe.File
	info os.FileInfo
}

// targets are the transcripts the selection names, stat'ed, sorted by path.
func (s *Service) targets() ([]target, []transcript.Skip, error) {
	files, skipped, err := scribe.Select(s.o.Selection)
	if err != nil {
		return nil, nil, err
	}
	out := make([]target, 0, len(files))
	for _, f := range files {
		fi, err := statTranscript(f.Path, f.Adapter)
		if err != nil {
			skipped = append(skipped, transcript.Skip{Path: f.Path, Reason: err.Error()})
			continue
		}
		out = append(out, target{File: f, info: fi})
	}
	slices.SortFunc(out, func(a, b target) int {
		switch {
		case a.Path < b.Path:
			return -1
		case a.Path > b.Path:
			return 1
		}
		return 0
	})
	out = slices.CompactFunc(out, func(a, b target) bool { return a.Path == b.Path })
	return out, skipped, nil
}

// changes are what differs between the transcripts and the manifest.
type changes struct {
	read    []target // new or changed
	removed []string // in the manifest, no longer selected
}

func (c *changes) empty() bool { return len(c.read) == 0 && len(c.removed) == 0 }

func diff(m *manifest, ts []target) *changes {
	c := &changes{}
	seen := make(map[string]bool, len(ts))
	for _, t := range ts {
		seen[t.Path] = true
		e := m.Files[t.Path]
		if e == nil || e.Size != t.info.Size() || e.MTime != t.info.ModTime().UnixNano() || e.Tool != t.Adapter.Source() {
			c.read = append(c.read, t)
		}
	}
	for _, p := range m.paths() {
		if !seen[p] {
			c.removed = append(c.removed, p)
		}
	}
	return c
}

func (s *Service) lock(ctx context.Context, name string, shared bool) (*filelock.Lock, error) {
	if err := atomicfile.MkdirAll(s.o.Dir); err != nil {
		return nil, fmt.Errorf("transcript index %s: %w", s.o.Dir, err)
	}
	p := filepath.Join(s.o.Dir, name)
	if shared {
		return filelock.AcquireShared(ctx, p, s.o.LockTimeout)
	}
	return filelock.Acquire(ctx, p, s.o.LockTimeout)
}

// Sync brings the index up to date with the transcripts on disk; it builds
// the index when there is none (or one of another schema, or damaged).
// When another process is writing, it does not wait: it reports Busy and
// the index is searched as it stands (unless there is none yet, when it
// waits for it, at most the lock timeout). Within Freshness of the last full
// check, only the transcripts written lately are checked.
func (s *Service) Sync(ctx context.Context) (*SyncReport, error) {
	return s.sync(ctx, false)
}

// SyncAll is Sync with a full check whatever Freshness says.
func (s *Service) SyncAll(ctx context.Context) (*SyncReport, error) {
	return s.sync(ctx, true)
}

// checkedFile's modification time records the start of the last full check
// of the transcripts against a generation.
const checkedFile = "checked"

func (s *Service) sync(ctx context.Context, full bool) (*SyncReport, error) {
	start := s.o.Now()
	if !full && s.o.Freshness > 0 {
		// A quick check needs the head of the manifest only.
		if gen, err := current(s.o.Dir); err == nil {
			if fi, serr := os.Stat(filepath.Join(gen, checkedFile)); serr == nil && start.Sub(fi.ModTime()) < s.o.Freshness {
				if head, err := s.loadHead(gen); err == nil {
					if rep, ok, err := s.quickSync(ctx, head, start); ok || err != nil {
						return rep, err
					}
				}
			}
		}
	}
	// A manifest that cannot be read (none yet, damaged) is rebuilt by
	// syncLocked.
	_, m, _ := s.load()
	ts, skipped, err := s.targets()
	if err != nil {
		return nil, err
	}
	if m != nil {
		if c := diff(m, ts); c.empty() {
			s.markChecked(start)
			return s.report(m, skipped, start, nil), nil
		}
	}
	wl, busy, err := s.writeLock(ctx, m != nil)
	if err != nil || busy {
		if busy {
			rep := s.report(m, skipped, start, nil)
			rep.Busy = true
			return rep, nil
		}
		return nil, err
	}
	defer wl.Release()
	rep, err := s.syncLocked(ctx, ts, skipped, start, false)
	if err == nil {
		s.markChecked(start)
	}
	return rep, err
}

// writeLock takes the write lock: without waiting when there is an index to
// answer from meanwhile (busy when another process holds it), else waiting
// for it at most the lock timeout.
func (s *Service) writeLock(ctx context.Context, haveIndex bool) (*filelock.Lock, bool, error) {
	wl, err := filelock.TryAcquire(filepath.Join(s.o.Dir, writeLock))
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, false, err
	}
	if wl != nil {
		return wl, false, nil
	}
	if haveIndex {
		return nil, true, nil
	}
	wl, err = s.lock(ctx, writeLock, false)
	return wl, false, err
}

// quickSync checks only the transcripts written lately (within
// resumeWindow), and indexes what they gained. It reports false, to ask for
// a full check, when one of them is gone.
func (s *Service) quickSync(ctx context.Context, m *manifest, start time.Time) (*SyncReport, bool, error) {
	var ts []target
	for p, e := range m.Files {
		if e.Err != "" || start.Sub(time.Unix(0, e.MTime)) >= resumeWindow {
			continue
		}
		ad, ok := adapters.For(e.Tool)
		if !ok {
			return nil, false, nil
		}
		ad = adapters.Resolve(ad, p)
		fi, err := statTranscript(p, ad)
		if err != nil {
			return nil, false, nil
		}
		if fi.Size() == e.Size && fi.ModTime().UnixNano() == e.MTime {
			continue
		}
		ts = append(ts, target{File: scribe.File{Path: p, Adapter: ad}, info: fi})
	}
	if len(ts) == 0 {
		rep := s.report(m, nil, start, nil)
		rep.Quick = true
		return rep, true, nil
	}
	slices.SortFunc(ts, func(a, b target) int { return strings.Compare(a.Path, b.Path) })
	wl, busy, err := s.writeLock(ctx, true)
	if err != nil || busy {
		if busy {
			rep := s.report(m, nil, start, nil)
			rep.Busy, rep.Quick = true, true
			return rep, true, nil
		}
		return nil, true, err
	}
	defer wl.Release()
	rep, err := s.syncLocked(ctx, ts, nil, start, true)
	if rep != nil {
		rep.Quick = true
	}
	return rep, true, err
}

// markChecked records a full check that began at t, on the live generation.
// It is a hint: on failure the next sync checks fully again.
func (s *Service) markChecked(t time.Time) {
	gen, err := current(s.o.Dir)
	if err != nil {
		return
	}
	stamp := filepath.Join(gen, checkedFile)
	if err := os.Chtimes(stamp, t, t); errors.Is(err, fs.ErrNotExist) {
		if f, err := os.OpenFile(stamp, os.O_CREATE|os.O_WRONLY, atomicfile.FilePerm); err == nil {
			_ = f.Close()
			_ = os.Chtimes(stamp, t, t)
		}
	}
}

// syncLocked is Sync under the write lock; partial says ts are some of the
// transcripts only (the others are not gone).
func (s *Service) syncLocked(ctx context.Context, ts []target, skipped []transcript.Skip, start time.Time, partial bool) (*SyncReport, error) {
	gen, m, err := s.load()
	if err != nil {
		var ce *corruptError
		if partial || !errors.Is(err, errNoIndex) && !errors.As(err, &ce) {
			return nil, err
		}
		why := "no transcript index yet"
		if ce != nil {
			why = ce.Error()
		}
		return s.rebuildLocked(ctx, ts, skipped, start, why)
	}
	rep := &SyncReport{}
	c := diff(m, ts)
	if partial {
		c.removed = nil
	}
	w := &writer{s: s, gen: gen, m: m, rep: rep}
	for _, p := range c.removed {
		w.remove(p)
	}
	olds := make([]*fileEntry, len(c.read))
	for i, t := range c.read {
		olds[i] = m.Files[t.Path]
	}
	if err := w.readAll(ctx, c.read, olds); err != nil {
		return nil, err
	}
	if err := w.flush(ctx, true); err != nil {
		var ce *index.CorruptError
		if errors.As(err, &ce) && !partial {
			return s.rebuildLocked(ctx, ts, skipped, start, ce.Error())
		}
		return nil, err
	}
	return s.report(m, skipped, start, rep), nil
}

// Rebuild builds the index anew from every transcript, in a new generation
// that replaces the live one only when it is complete: searches meanwhile
// answer from the old one.
func (s *Service) Rebuild(ctx context.Context) (*SyncReport, error) {
	start := s.o.Now()
	wl, err := s.lock(ctx, writeLock, false)
	if err != nil {
		return nil, err
	}
	defer wl.Release()
	ts, skipped, err := s.targets()
	if err != nil {
		return nil, err
	}
	return s.rebuildLocked(ctx, ts, skipped, start, "a full rebuild was asked for")
}

func (s *Service) rebuildLocked(ctx context.Context, ts []target, skipped []transcript.Skip, start time.Time, why string) (*SyncReport, error) {
	// A whole build allocates a lot and briefly: collecting garbage less
	// often saves about a sixth of its CPU, within a bound on the memory
	// it takes (its live heap is about buildBatches batches).
	defer debug.SetGCPercent(debug.SetGCPercent(300))
	if limit := debug.SetMemoryLimit(-1); limit > buildMemory {
		defer debug.SetMemoryLimit(debug.SetMemoryLimit(buildMemory))
	}
	gen, err := newGeneration(s.o.Dir, s.o.Now())
	if err != nil {
		return nil, err
	}
	ok := false
	defer func() {
		if !ok {
			_ = os.RemoveAll(gen)
		}
	}()
	idx, err := index.CreateTranscriptIndex(filepath.Join(gen, bleveDir))
	if err != nil {
		return nil, err
	}
	rep := &SyncReport{Rebuilt: why}
	m := newManifest()
	// Nobody reads a generation before it is published: one writer, open
	// all along, no index lock; its batches are indexed side by side.
	w := &writer{s: s, gen: gen, m: m, rep: rep, idx: idx, building: true,
		batches: newBatches(idx, buildBatches()), maxDocs: s.buildDocs, maxBytes: s.buildBytes}
	err = w.readAll(ctx, ts, make([]*fileEntry, len(ts)))
	if err == nil {
		err = w.flush(ctx, true)
	}
	if err != nil {
		_ = w.batches.wait()
		_ = idx.Close()
		return nil, err
	}
	if err := idx.Close(); err != nil {
		return nil, err
	}
	il, err := s.lock(ctx, indexLock, false)
	if err != nil {
		return nil, err
	}
	defer il.Release()
	if err := atomicfile.Write(filepath.Join(s.o.Dir, currentFile), []byte(filepath.Base(gen)+"\n")); err != nil {
		return nil, fmt.Errorf("publish transcript index: %w", err)
	}
	ok = true
	s.markChecked(start)
	for _, p := range staleGenerations(s.o.Dir, gen) {
		_ = os.RemoveAll(p)
	}
	return s.report(m, skipped, start, rep), nil
}

// load reads the live generation's manifest; an index of another schema is
// corrupt (rebuilt).
func (s *Service) load() (string, *manifest, error) {
	gen, err := current(s.o.Dir)
	if err != nil {
		return "", nil, err
	}
	m, err := loadManifest(gen)
	if err != nil {
		return "", nil, err
	}
	if m.Schema != index.TranscriptSchema {
		return "", nil, &corruptError{"built with schema " + m.Schema}
	}
	return gen, m, nil
}

// loadHead reads the head of gen's manifest (see loadManifestHead).
func (s *Service) loadHead(gen string) (*manifest, error) {
	m, err := loadManifestHead(gen)
	if err != nil {
		return nil, err
	}
	if m.Schema != index.TranscriptSchema {
		return nil, &corruptError{"built with schema " + m.Schema}
	}
	return m, nil
}

func (s *Service) report(m *manifest, skipped []transcript.Skip, start time.Time, rep *SyncReport) *SyncReport {
	if rep == nil {
		rep = &SyncReport{}
	}
	rep.Files, rep.Exchanges = m.counts()
	for _, e := range m.Files {
		if e.Err != "" {
			rep.Unreadable = append(rep.Unreadable, transcript.Skip{Path: e.Path, Reason: e.Err})
		}
	}
	slices.SortFunc(rep.Unreadable, func(a, b transcript.Skip) int { return strings.Compare(a.Path, b.Path) })
	rep.Skipped = skipped
	rep.Took = s.o.Now().Sub(start)
	return rep
}

// Bounds of one batch: a sync of many transcripts writes several, so that
// it never holds them all in memory. A whole build indexes several batches
// at once (buildBatches), each smaller: Bleve's analysis and segment of a
// batch take about 100 KB of memory per document.
const (
	flushDocs  = 4000
	flushBytes = 48 << 20
	buildDocs  = 2000
	buildBytes = 24 << 20
)

// buildMemory is the soft limit of the memory of a whole build (see
// debug.SetMemoryLimit): about twice the live heap of buildBatches batches.
const buildMemory = 1 << 30

// buildBatches is how many batches a whole build indexes at once: Bleve
// makes a batch's segment on one core, and the transcripts of the next are
// read meanwhile.
func buildBatches() int { return max(1, min(runtime.GOMAXPROCS(0), 2)) }

// batches indexes the batches of a generation being built, each on a
// goroutine of its own, at most n at a time. Their documents have ids no
// other batch has (one file's documents are in one batch), so the order in
// which they land does not matter.
type batches struct {
	idx  *index.TranscriptIndex
	slot chan struct{}
	wg   sync.WaitGroup
	mu   sync.Mutex
	err  error
}

func newBatches(idx *index.TranscriptIndex, n int) *batches {
	return &batches{idx: idx, slot: make(chan struct{}, n)}
}

// add starts indexing docs once fewer than n batches are being indexed; it
// reports the error of a batch indexed before.
func (b *batches) add(ctx context.Context, docs []index.TranscriptDoc) error {
	select {
	case b.slot <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	if err := b.failed(); err != nil {
		<-b.slot
		return err
	}
	b.wg.Add(1)
	go func() {
		defer b.wg.Done()
		err := b.idx.Apply(docs, nil)
		<-b.slot
		if err != nil {
			b.mu.Lock()
			if b.err == nil {
				b.err = err
			}
			b.mu.Unlock()
		}
	}()
	return nil
}

func (b *batches) failed() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.err
}

// wait waits for every batch, and reports the first error.
func (b *batches) wait() error {
	if b == nil {
		return nil
	}
	b.wg.Wait()
	return b.failed()
}

// writer applies what a sync reads to one generation.
type writer struct {
	s   *Service
	gen string
	m   *manifest
	rep *SyncReport
	// idx is the open index of a generation being built; nil for the live
	// one, opened for each batch under the index lock.
	idx      *index.TranscriptIndex
	building bool
	// batches index the batches of a build; maxDocs and maxBytes bound a
	// batch (flushDocs and flushBytes when 0).
	batches           *batches
	maxDocs, maxBytes int

	docs    []index.TranscriptDoc
	size    int
	entries []*fileEntry
	// fresh are the files whose other documents must go: read whole, or
	// gone (entries without a path in the manifest any more).
	fresh   map[string]bool
	removed []string
}

// remove drops a transcript that is gone.
func (w *writer) remove(path string) {
	w.removed = append(w.removed, path)
	w.rep.Removed++
}

// readAll reads the transcripts ts (olds[i] is what the manifest says of
// ts[i]) into batches, flushing each when it is full. Files are read by
// several goroutines ahead of the one writing batches, so that parsing and
// indexing overlap; their results are taken in order.
func (w *writer) readAll(ctx context.Context, ts []target, olds []*fileEntry) error {
	if len(ts) == 0 {
		return nil
	}
	type result struct {
		res *readResult
		err error
	}
	workers := max(1, min(runtime.GOMAXPROCS(0), 4, len(ts)))
	out := make([]chan result, len(ts))
	for i := range out {
		out[i] = make(chan result, 1)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// The workers run at most a few files ahead of the writer, so that a
	// big sync never holds much more than a batch in memory; the slots are
	// taken in file order, so the file the writer waits for always has one.
	ahead := make(chan struct{}, 4*workers)
	next := make(chan int)
	go func() {
		defer close(next)
		for i := range ts {
			select {
			case ahead <- struct{}{}:
			case <-ctx.Done():
				return
			}
			select {
			case next <- i:
			case <-ctx.Done():
				return
			}
		}
	}()
	for range workers {
		go func() {
			for i := range next {
				res, err := w.s.readFile(w.gen, ts[i], olds[i])
				out[i] <- result{res, err}
			}
		}()
	}
	for i := range ts {
		var r result
		select {
		case r = <-out[i]:
		case <-ctx.Done():
			return ctx.Err()
		}
		<-ahead
		if r.err != nil {
			return r.err
		}
		w.add(ts[i], olds[i], r.res)
		if err := w.flushIfFull(ctx); err != nil {
			return err
		}
		if w.s.o.Progress != nil && len(ts) > 20 {
			w.s.o.Progress(i+1, len(ts))
		}
	}
	return nil
}

// add puts what reading one transcript gave into the batch.
func (w *writer) add(t target, old *fileEntry, res *readResult) {
	w.rep.Read++
	switch {
	case old == nil:
		w.rep.New++
	case res.full:
		w.rep.Reread++
	default:
		w.rep.Appended++
	}
	w.rep.Messages += res.messages
	if res.full {
		if w.fresh == nil {
			w.fresh = map[string]bool{}
		}
		w.fresh[t.Path] = true
	}
	for _, d := range res.docs {
		w.size += len(d.User) + len(d.Reply) + 256
	}
	w.docs = append(w.docs, res.docs...)
	w.entries = append(w.entries, res.entry)
}

func (w *writer) flushIfFull(ctx context.Context) error {
	maxDocs, maxBytes := flushDocs, flushBytes
	if w.maxDocs > 0 {
		maxDocs, maxBytes = w.maxDocs, w.maxBytes
	}
	if len(w.docs) < maxDocs && w.size < maxBytes {
		return nil
	}
	return w.flush(ctx, false)
}

// flush writes the batch: the documents to the index, then the reading
// states and the manifest. A crash between the two leaves the manifest
// behind the index; the next sync reads those records again and writes the
// same documents (their ids come from the file and the offset).
func (w *writer) flush(ctx context.Context, last bool) error {
	if w.batches != nil {
		return w.flushBuild(ctx, last)
	}
	if len(w.entries) == 0 && len(w.removed) == 0 && !last {
		return nil
	}
	if len(w.docs) > 0 || len(w.removed) > 0 || len(w.fresh) > 0 {
		if err := w.apply(ctx); err != nil {
			return err
		}
	}
	for _, p := range w.removed {
		delete(w.m.Files, p)
	}
	for _, e := range w.entries {
		w.m.Files[e.Path] = e
	}
	w.m.Synced = w.s.o.Now().UnixNano()
	if len(w.entries) > 0 || len(w.removed) > 0 || last {
		if err := w.m.save(w.gen); err != nil {
			return err
		}
	}
	if last {
		keep := map[string]bool{}
		for _, e := range w.m.Files {
			if e.State != "" {
				keep[e.State] = true
			}
		}
		removeStates(w.gen, keep)
	}
	w.docs, w.size, w.entries, w.fresh, w.removed = nil, 0, nil, nil, nil
	return nil
}

// flushBuild hands the batch of a generation being built to be indexed
// while the next is read; the last waits for them all and writes the
// manifest (nobody reads the generation before it is published, and one
// left half-built is removed, so there is nothing to record before).
func (w *writer) flushBuild(ctx context.Context, last bool) error {
	if len(w.docs) > 0 {
		if err := w.batches.add(ctx, w.docs); err != nil {
			return err
		}
		w.rep.Indexed += len(w.docs)
	}
	for _, e := range w.entries {
		w.m.Files[e.Path] = e
	}
	w.docs, w.size, w.entries, w.fresh = nil, 0, nil, nil
	if !last {
		return nil
	}
	if err := w.batches.wait(); err != nil {
		return err
	}
	w.m.Synced = w.s.o.Now().UnixNano()
	if err := w.m.save(w.gen); err != nil {
		return err
	}
	keep := map[string]bool{}
	for _, e := range w.m.Files {
		if e.State != "" {
			keep[e.State] = true
		}
	}
	removeStates(w.gen, keep)
	return nil
}

// apply writes the batch's documents, and deletes those of the transcripts
// gone and the ones a whole read no longer made.
func (w *writer) apply(ctx context.Context) (err error) {
	idx := w.idx
	if idx == nil {
		il, err := w.s.lock(ctx, indexLock, false)
		if err != nil {
			return err
		}
		defer il.Release()
		if idx, err = index.OpenTranscriptIndex(filepath.Join(w.gen, bleveDir), false); err != nil {
			return err
		}
		defer func() {
			if cerr := idx.Close(); err == nil {
				err = cerr
			}
		}()
	}
	var del []string
	if !w.building {
		keep := make(map[string]bool, len(w.docs))
		for _, d := range w.docs {
			keep[d.ID] = true
		}
		paths := append(slices.Sorted(maps.Keys(w.fresh)), w.removed...)
		for _, p := range paths {
			ids, err := idx.IDsOfFile(ctx, fileKey(p))
			if err != nil {
				return err
			}
			for _, id := range ids {
				if !keep[id] {
					del = append(del, id)
				}
			}
		}
	}
	if err := idx.Apply(w.docs, del); err != nil {
		return err
	}
	w.rep.Indexed += len(w.docs)
	w.rep.Deleted += len(del)
	return nil
}

// resumeWindow is how recently a transcript must have been written for its
// reading state to be kept.
const resumeWindow = 72 * time.Hour

// readResult is what reading one transcript gave.
type readResult struct {
	entry    *fileEntry
	docs     []index.TranscriptDoc
	full     bool
	messages int
}

// statTranscript stats a transcript; for one its adapter reads through a
// Loader (a database), the size and time are those of what Load reads, its
// write-ahead log included, which changes long before the file does.
func statTranscript(path string, ad transcript.Adapter) (os.FileInfo, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if l, ok := ad.(transcript.Loader); ok {
		size, mtime, err := l.Stat(path)
		if err != nil {
			return nil, err
		}
		return loadedInfo{fi, size, mtime}, nil
	}
	return fi, nil
}

// loadedInfo is a file's information with the size and time of what its
// Loader reads.
type loadedInfo struct {
	os.FileInfo
	size  int64
	mtime time.Time
}

func (i loadedInfo) Size() int64        { return i.size }
func (i loadedInfo) ModTime() time.Time { return i.mtime }

// readLoaded reads a transcript its adapter reads through a Loader (a
// database: the file's bytes are not its records) whole: the records Load
// gives, read as one complete file. One Load cannot read now (busy, damaged)
// is recorded as the file's error, for a later sync to try again.
func (s *Service) readLoaded(t target, l transcript.Loader) (*readResult, error) {
	failed := func(err error) *readResult {
		return &readResult{entry: &fileEntry{Path: t.Path, Tool: t.Adapter.Source(), Size: t.info.Size(),
			MTime: t.info.ModTime().UnixNano(), Err: err.Error()}, full: true}
	}
	data, err := l.Load(t.Path, transcript.Start(t.Adapter, t.Path).Context)
	if err != nil {
		return failed(err), nil
	}
	t.Final = true
	res, err := s.readFrom(bytes.NewReader(data), t, nil, int64(len(data)), t.info.ModTime())
	if err != nil {
		return failed(err), nil
	}
	e := res.entry
	e.Size, e.MTime = t.info.Size(), t.info.ModTime().UnixNano()
	e.Docs, e.Messages = len(res.docs), res.messages
	return &readResult{entry: e, docs: res.docs, full: true, messages: res.messages}, nil
}

// readFile reads a transcript from where old says the last read stopped —
// when the file only grew since, its start and the bytes before the offset
// unchanged, and the state of that read is kept — else whole.
func (s *Service) readFile(gen string, t target, old *fileEntry) (*readResult, error) {
	if l, ok := t.Adapter.(transcript.Loader); ok {
		return s.readLoaded(t, l)
	}
	f, err := os.Open(t.Path)
	if err != nil {
		return &readResult{entry: &fileEntry{Path: t.Path, Tool: t.Adapter.Source(), Size: t.info.Size(),
			MTime: t.info.ModTime().UnixNano(), Err: err.Error()}, full: true}, nil
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("transcript %s: %w", t.Path, err)
	}
	size := fi.Size()
	st := s.resumable(gen, f, t, old, size)
	res, err := s.readFrom(f, t, st, size, fi.ModTime())
	if errors.Is(err, errNeedFull) {
		res, err = s.readFrom(f, t, nil, size, fi.ModTime())
	}
	if err != nil {
		return &readResult{entry: &fileEntry{Path: t.Path, Tool: t.Adapter.Source(), Size: size,
			MTime: fi.ModTime().UnixNano(), Err: err.Error()}, full: true}, nil
	}
	e := res.entry
	e.Size, e.MTime = size, fi.ModTime().UnixNano()
	e.HeadLen = int(min(size, headBytes))
	e.Head, _ = hashRange(f, 0, e.HeadLen)
	mark := int(min(e.Offset, markBytes))
	e.Mark, _ = hashRange(f, e.Offset-int64(mark), mark)
	// Only a transcript written lately is likely to grow: the state to
	// resume from is kept for those (an older one that grows is read again
	// whole).
	if s.o.Now().Sub(fi.ModTime()) < resumeWindow {
		name, err := saveState(gen, fileKey(t.Path), res.state, s.o.Redact)
		if err != nil {
			return nil, err
		}
		e.State = name
	}
	if !res.full && old != nil {
		e.Docs = old.Docs + res.added
		e.Messages = old.Messages + res.messages
	} else {
		e.Docs, e.Messages = len(res.docs), res.messages
	}
	return &readResult{entry: e, docs: res.docs, full: res.full, messages: res.messages}, nil
}

// resumable is the state to resume t's read from, nil when it must be read
// whole: a new file, one whose tool rewrites it whole, one that shrank, whose
// start or whose bytes before the offset changed (rewritten, replaced), one
// whose last read took a line still unterminated, or one whose state is
// gone.
func (s *Service) resumable(gen string, f *os.File, t target, old *fileEntry, size int64) *readState {
	if old == nil || old.Err != "" || old.Tail || old.Tool != t.Adapter.Source() || size < old.Offset || size < int64(old.HeadLen) {
		return nil
	}
	if _, whole := t.Adapter.(transcript.Framer); whole {
		return nil
	}
	if h, ok := hashRange(f, 0, old.HeadLen); !ok || h != old.Head {
		return nil
	}
	mark := int(min(old.Offset, markBytes))
	if h, ok := hashRange(f, old.Offset-int64(mark), mark); !ok || h != old.Mark {
		return nil
	}
	return loadState(gen, old)
}

// fileRead is one read of a transcript.
type fileRead struct {
	entry    *fileEntry
	docs     []index.TranscriptDoc
	state    *readState
	full     bool
	added    int // documents not indexed before (a resumed read)
	messages int
}

// source is what readFrom reads: a transcript file, or the records a
// Loader gave.
type source interface {
	io.ReadSeeker
	io.ReaderAt
}

// readFrom reads f from st (from its start when st is nil) up to size.
func (s *Service) readFrom(f source, t target, st *readState, size int64, mtime time.Time) (*fileRead, error) {
	full := st == nil
	pos := transcript.Start(t.Adapter, t.Path)
	if !full {
		pos = transcript.Position{Offset: st.Offset, Line: st.Line, Context: st.Context}
	}
	if _, err := f.Seek(pos.Offset, io.SeekStart); err != nil {
		return nil, fmt.Errorf("transcript %s: %w", t.Path, err)
	}
	b := newBuilder(t.Path, fileKey(t.Path), t.Adapter.Source(), s.o.Redact, full)
	restored := 0
	if !full {
		b.restore(st.Open)
		restored = len(b.exchanges)
	}
	// A file that has not been written to for a while is complete: its last
	// line counts even without a newline.
	final := t.Final || s.o.Now().Sub(mtime) >= scribe.SettleTime
	end, err := transcript.Read(t.Adapter, io.LimitReader(f, size-pos.Offset), pos, final, func(e transcript.Event) error {
		return b.add(&e)
	})
	if err != nil {
		return nil, err
	}
	r := &fileRead{full: full, messages: b.messages, added: len(b.exchanges) - restored}
	r.entry = &fileEntry{Path: t.Path, Tool: t.Adapter.Source(), Offset: end.Offset, Line: end.Line}
	if final && end.Offset == size && size > 0 {
		last := make([]byte, 1)
		if _, err := f.ReadAt(last, size-1); err == nil && last[0] != '\n' {
			r.entry.Tail = true
		}
	}
	r.docs = make([]index.TranscriptDoc, 0, len(b.exchanges))
	for _, x := range b.exchanges {
		r.docs = append(r.docs, x.doc(t.Path, b.redactShort))
	}
	r.state = &readState{Version: stateVersion, Offset: end.Offset, Line: end.Line, Context: end.Context,
		Open: b.openExchanges(), Tool: t.Adapter.Source()}
	return r, nil
}
