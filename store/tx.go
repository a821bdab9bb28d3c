package store

import (
	"context"
	"errors"
	"fmt"
	"path"
	"slices"
	"sync"
	"time"

	"github.com/cortexmem/cortex/filelock"
	"github.com/cortexmem/cortex/index"
	"github.com/cortexmem/cortex/memories"
	"github.com/cortexmem/cortex/vault"
)

// snapshot is a read view: the catalog as loaded and the generation's Bleve
// index, opened read-only on first search.
type snapshot struct {
	s   *Store
	cat *index.Catalog
	gen string
	b   *index.Bleve
	// lock is the shared index lock a writer's snapshot takes to search; a
	// reader's snapshot runs inside one already.
	lock     *filelock.Lock
	needLock bool
	// resident, when set, owns b and its lock (they outlive the snapshot)
	// and caches parsed notes.
	resident *resident
	// owed holds the notes whose indexing was deferred (see Store.commit),
	// read on the first search that needs them.
	owed *deferredIndex
	// read keeps the bytes LoadText read, by path, for Load: a recall reads
	// the text of its best candidates to score passages and then loads the
	// ones it shows, which need not be read again.
	read   map[string]rawNote
	readMu sync.Mutex
}

// rawNote is a note's bytes and their stat as read.
type rawNote struct {
	data []byte
	st   vault.FileStat
}

var _ memories.Snapshot = (*snapshot)(nil)
var _ memories.EntrySelector = (*snapshot)(nil)
var _ memories.TermCounter = (*snapshot)(nil)

func (sn *snapshot) Entries() ([]memories.Entry, error) { return sn.cat.Entries() }

// EntriesWhere lists the entries whose project, area and file name keep
// accepts, decoding only those (memories.EntrySelector).
func (sn *snapshot) EntriesWhere(keep func(project, area, name string) bool) ([]memories.Entry, error) {
	return sn.cat.EntriesWhere(keep)
}

// EntriesNamed lists the entries whose file name keep accepts, reading the
// metadata of those alone (see index.Catalog.EntriesNamed).
func (sn *snapshot) EntriesNamed(keep func(name string) bool) ([]memories.Entry, error) {
	return sn.cat.EntriesNamed(keep)
}

func (sn *snapshot) Get(id string) (memories.Entry, error) {
	r, err := sn.cat.ByID(id)
	if err != nil {
		return memories.Entry{}, err
	}
	if r == nil {
		return memories.Entry{}, &memories.NotFoundError{Ref: id}
	}
	return r.Entry, nil
}

// PeekByIDs implements memories.EntryPeeker.
func (sn *snapshot) PeekByIDs(ids []string, fn func(id string, e *memories.Entry) bool) error {
	return sn.cat.PeekByIDs(ids, fn)
}

func (sn *snapshot) ByPath(path string) (memories.Entry, bool, error) {
	r, err := sn.cat.Get(path)
	if err != nil || r == nil || r.Broken != "" {
		return memories.Entry{}, false, err
	}
	return r.Entry, true, nil
}

func (sn *snapshot) IDsWithPrefix(prefix string, limit int) ([]string, error) {
	return sn.cat.IDsWithPrefix(prefix, limit)
}

func (sn *snapshot) ShortID(id string) string {
	short, err := sn.cat.ShortID(id)
	if err != nil {
		return id // the full id is never ambiguous
	}
	return short
}

func (sn *snapshot) Load(_ context.Context, path string) (*memories.Memory, error) {
	r := sn.resident
	if r == nil {
		return sn.loadNote(path)
	}
	rec, err := sn.cat.Get(path)
	if err != nil || rec == nil || rec.Broken != "" {
		return sn.s.v.Load(path)
	}
	if m := r.note(rec); m != nil {
		return m, nil
	}
	got, m, err := sn.s.readNote(vault.FileStat{Path: path})
	if err != nil {
		return nil, err
	}
	if m == nil {
		return sn.s.v.Load(path) // broken since it was indexed: say so as Load does
	}
	if got.Hash == rec.Hash && got.Size == rec.Size {
		r.keep(rec, m)
	}
	return m, nil
}

// LoadText is the title and body Load gives the note at path. A note whose
// bytes are those its catalog record was made from (same size and hash) and
// parsed then is not parsed again: its title is the record's and its body is
// cut from the bytes, leaving its properties undecoded. A resident snapshot's
// cached notes, and any other note, go through Load.
func (sn *snapshot) LoadText(ctx context.Context, path string) (string, string, error) {
	rec, err := sn.cat.Get(path)
	if err != nil {
		return "", "", err
	}
	if sn.resident != nil && rec != nil && rec.Broken == "" {
		// A note the resident has parsed: its text, as Load would give it,
		// with no second look-up of the record and no copy of the note.
		if title, body, ok := sn.resident.text(rec); ok {
			return title, body, nil
		}
	}
	if sn.resident != nil || rec == nil || rec.Broken != "" {
		return sn.loadText(ctx, path)
	}
	sn.s.noteReads.Add(1)
	data, st, err := sn.s.v.ReadRaw(path)
	if err != nil {
		return sn.loadText(ctx, path) // Load words the error as it does
	}
	sn.readMu.Lock()
	if sn.read == nil {
		sn.read = map[string]rawNote{}
	}
	sn.read[path] = rawNote{data: data, st: st}
	sn.readMu.Unlock()
	if st.Size == rec.Size && hash(data) == rec.Hash {
		if body, ok := vault.NoteBody(data); ok {
			return rec.Title, string(body), nil
		}
	}
	return sn.loadText(ctx, path)
}

// loadNote is vault.Load of the note at path, from the bytes LoadText read
// when it read them. Only the memory is made, so the note is split by
// vault.ParseWritten (a note it cannot read goes to vault.Load, which words
// the error).
func (sn *snapshot) loadNote(path string) (*memories.Memory, error) {
	sn.readMu.Lock()
	raw, ok := sn.read[path]
	sn.readMu.Unlock()
	if !ok {
		sn.s.noteReads.Add(1)
		data, st, err := sn.s.v.ReadRaw(path)
		if err != nil {
			return sn.s.v.Load(path)
		}
		raw = rawNote{data: data, st: st}
	}
	n, err := vault.ParseWritten(raw.data)
	if err != nil {
		return sn.s.v.Load(path)
	}
	m := n.Memory(path, time.Unix(0, raw.st.MTime))
	m.Symlink = raw.st.Symlink
	return m, nil
}

func (sn *snapshot) loadText(ctx context.Context, path string) (string, string, error) {
	m, err := sn.Load(ctx, path)
	if err != nil {
		return "", "", err
	}
	return m.Title, m.Body, nil
}

func (sn *snapshot) Search(ctx context.Context, req memories.SearchRequest) ([]memories.Hit, error) {
	var matches []index.Match
	err := sn.withBleve(ctx, func(b *index.Bleve) (err error) {
		matches, err = sn.search(ctx, b, req)
		return err
	})
	if err != nil {
		return nil, err
	}
	return sn.hits(matches)
}

// withBleve runs fn on the generation's index: the one a resident store holds
// open, else the snapshot's own, opened on first use.
func (sn *snapshot) withBleve(ctx context.Context, fn func(*index.Bleve) error) error {
	if sn.b == nil && sn.resident == nil && sn.s.res != nil {
		// A writer of a resident store, or a read that went View's ordinary
		// way: search the index the resident holds open, when it does.
		if ok, err := sn.s.res.withIndex(ctx, sn.s, sn.gen, !sn.needLock, fn); ok {
			return err
		}
	}
	if sn.b == nil {
		if sn.needLock && sn.lock == nil {
			l, err := sn.s.lockIndex(ctx, true)
			if err != nil {
				return err
			}
			sn.lock = l
		}
		b, err := index.OpenGeneration(sn.gen, true)
		if err != nil {
			return err
		}
		sn.b = b
	}
	return fn(sn.b)
}

// Terms analyses text as the index analyses a body (memories.TermCounter).
func (sn *snapshot) Terms(text string) ([]string, error) { return index.Terms(text) }

// DocFreqs is how many memories the index holds and how many have each term
// in their body (memories.TermCounter). Notes whose indexing is owed are not
// counted: a few notes change a frequency by as little.
func (sn *snapshot) DocFreqs(ctx context.Context, terms []string) (uint64, []uint64, error) {
	var total uint64
	var dfs []uint64
	err := sn.withBleve(ctx, func(b *index.Bleve) (err error) {
		total, dfs, err = b.BodyDocFreqs(ctx, terms)
		return err
	})
	return total, dfs, err
}

// search runs req on b and, while index work is owed, on the owed notes.
func (sn *snapshot) search(ctx context.Context, b *index.Bleve, req memories.SearchRequest) ([]index.Match, error) {
	if !sn.cat.HasDeferred() {
		return b.Search(ctx, req)
	}
	if sn.owed == nil {
		var err error
		if sn.owed, err = sn.s.openDeferred(sn.cat); err != nil {
			return nil, err
		}
	}
	return sn.owed.search(ctx, b, req)
}

// hits gives matches their catalog entries.
func (sn *snapshot) hits(matches []index.Match) ([]memories.Hit, error) {
	hits := make([]memories.Hit, 0, len(matches))
	for _, m := range matches {
		// The catalog and Bleve agree under the index lock; a hit the catalog
		// does not know (a crash between the two writes) waits for the next sync.
		r, err := sn.cat.ByID(m.ID)
		if err != nil {
			return nil, err
		}
		if r != nil {
			hits = append(hits, memories.Hit{Entry: r.Entry, Score: m.Score})
		}
	}
	return hits, nil
}

// close closes the Bleve index and the lock it took, keeping the first error.
// A resident snapshot's index is its resident's to close.
func (sn *snapshot) close(err *error) {
	sn.owed = nil
	if sn.resident != nil {
		return
	}
	if sn.b != nil {
		if cerr := sn.b.Close(); *err == nil {
			*err = cerr
		}
		sn.b = nil
	}
	if sn.lock != nil {
		release(sn.lock, err)
		sn.lock = nil
	}
}

// tx is a snapshot that writes. Notes are written at once; the index changes are
// collected and committed in one batch when the transaction ends.
type tx struct {
	snapshot
	ch     *changeSet
	events []memories.Event
	// keep follows the folder a one-shot save writes into (see dirKeep).
	keep    *dirKeep
	watched bool // the first Create asked for keep
	st      *writeState
	// unsynced are the folders (relative to the cortex folder) Create
	// wrote notes into whose names are not yet durable: synced by finish
	// beside the writer's other files, and before the writer returns in
	// any case (syncFolders).
	unsynced []string
	// wrote holds the bytes Create wrote, by path.
	wrote map[string][]byte
	// created holds, by path, the hash of the bytes CreateAll wrote for a
	// note whose body is its memory's (hasBody): what KeepWords checks of
	// it, without the batch's bytes held.
	created map[string]uint64
}

// syncFolders makes the names of the notes t created durable, once.
func (t *tx) syncFolders() error {
	var errs []error
	for _, d := range t.unsynced {
		errs = append(errs, t.s.syncFolder(d))
	}
	t.unsynced = nil
	return errors.Join(errs...)
}

var (
	_ memories.Tx              = (*tx)(nil)
	_ memories.DeferredIndexer = (*Store)(nil)
)

// Update implements memories.Backend. It brings the full-text index up to
// date, work that saves deferred included, before fn searches it, so that
// what fn finds does not depend on when the index last caught up.
func (s *Store) Update(ctx context.Context, fn func(memories.Tx) error) error {
	return s.update(ctx, fn, false)
}

// UpdateDeferred implements memories.DeferredIndexer: Update that leaves the
// full-text index behind (see commit), for a single save.
func (s *Store) UpdateDeferred(ctx context.Context, fn func(memories.Tx) error) error {
	return s.update(ctx, fn, true)
}

func (s *Store) update(ctx context.Context, fn func(memories.Tx) error, lazy bool) (err error) {
	wl, err := s.lockWrite(ctx)
	if err != nil {
		return err
	}
	defer release(wl, &err)
	st, err := s.begin(ctx, false, lazy)
	if err != nil {
		return err
	}
	defer s.keepWritten(st, &err)
	t := &tx{
		snapshot: snapshot{s: s, cat: st.cat.Clone(), gen: st.gen, needLock: true},
		ch:       newChangeSet(st.cat),
		st:       st,
	}
	defer func() { t.keep.close() }() // keep is set by fn's first Create
	// A note written is made durable even when the writer fails after it;
	// finish, which does it beside its own writes, leaves nothing to do.
	defer func() {
		if serr := t.syncFolders(); serr != nil {
			err = errors.Join(err, serr)
		}
	}()
	ferr := fn(t)
	t.snapshot.close(&err)
	if err != nil {
		return errors.Join(ferr, err)
	}
	// What fn wrote is in the vault, so it is indexed even when fn failed later.
	if len(t.ch.recs) > 0 {
		if err := t.ch.settleIDs(s.readNote); err != nil {
			return errors.Join(ferr, err)
		}
	}
	if err := errors.Join(ferr, s.finish(ctx, st, t.ch, t.events, t.syncFolders)); err != nil {
		return err
	}
	s.keepDir(st, t.keep)
	return nil
}

// finish makes a writer's work durable: the names of the notes it created
// (syncFolders, the sync of their folders), the index batch and the catalog,
// the map of contents and the audit log. The four are independent files, each
// written atomically, so they are written at the same time: a save waits for
// the slowest disk flush, not for the sum of them (on ext4 the folder's sync
// and the audit log's commit to the file system's journal together). A crash
// between them leaves the index behind the vault, which the next command
// repairs; a power loss before the folder's sync is done can leave the audit
// log's line of a save that never returned and whose note is not there, as a
// crash before the audit log's sync can leave a note without its line.
func (s *Store) finish(ctx context.Context, st *writeState, ch *changeSet, events []memories.Event, syncFolders func() error) error {
	docs, recs, err := ch.result()
	if err != nil {
		return err
	}
	var wg sync.WaitGroup
	var errs [4]error
	run := func(i int, f func() error) {
		wg.Add(1)
		go func() { defer wg.Done(); errs[i] = f() }()
	}
	// The map of contents is spliced from the catalog as it was before this
	// change: cloned before commit starts changing it on another goroutine.
	var before *index.Catalog
	if len(recs) > 0 {
		before = st.cat.Clone()
	}
	if before != nil && st.lazy && st.cat.Deferred().Len()+deferredOf(docs).Len() <= maxDeferred {
		// A resident store's save whose index work commit defers leaves
		// its line in the map to the writer that does that work (see
		// mapOwedFile); decided before commit changes the catalog.
		deferred, err := s.deferMap(st.cat, recs)
		if err != nil {
			return err
		}
		if deferred {
			before = nil
		}
	}
	run(0, func() error {
		err := s.commit(ctx, st, docs, recs)
		var cu *catchUpError
		if errors.As(err, &cu) {
			// The notes and the catalog are written, the index work kept
			// for the next command: the write is durable.
			s.warn(err.Error())
			return nil
		}
		if needsRebuild(err) {
			// The notes are written; a damaged index is rebuilt from them.
			s.warn(fmt.Sprintf("rebuilding the index: %v", err))
			var rst *writeState
			if rst, err = s.rebuild(ctx); err == nil {
				err = rst.cat.Close()
			}
		}
		return err
	})
	if before != nil {
		run(1, func() error { return s.writeMap(before, recs) })
	}
	run(2, func() error { return appendEvents(s.EventLog(), s.stamp(events)) })
	run(3, syncFolders)
	wg.Wait()
	if err := errors.Join(errs[:]...); err != nil {
		return err
	}
	s.followWritten(st.cat, recs)
	return s.compact(ctx, st)
}

func (t *tx) Create(_ context.Context, m *memories.Memory) error {
	first := !t.watched
	if first {
		t.watched, t.keep = true, t.s.watchDir(t.st, vault.MemoryDir(m.Project))
	}
	w, err := t.s.v.CreateUnlistedWritten(m)
	if err == nil && !slices.Contains(t.unsynced, path.Dir(m.Path)) {
		t.unsynced = append(t.unsynced, path.Dir(m.Path))
	}
	if err != nil {
		if first {
			t.keep.settle(t.s, nil)
		}
		return err
	}
	if first {
		t.keep.settle(t.s, map[string]bool{path.Base(m.Path): true})
	}
	if len(w.Data) > vault.MaxNoteBytes {
		return t.reindex(m.Path) // recorded as too large, as a read says
	}
	// Indexed from the bytes written, not read back: the record is the
	// one a read would make of them.
	r, rm, err := t.s.noteRecord(w.Stat, w.Data)
	if err != nil {
		return fmt.Errorf("index %s: %w", m.Path, err)
	}
	if t.wrote == nil {
		t.wrote = map[string][]byte{}
	}
	t.wrote[m.Path] = w.Data
	t.queue(r, rm)
	return nil
}

func (t *tx) AssignPaths(ms []*memories.Memory) error { return t.s.v.AssignPaths(ms) }

func (t *tx) CreateAll(_ context.Context, ms []*memories.Memory) error {
	written, err := t.s.v.CreateAll(ms)
	// Indexed from the memories and what was written, neither read back nor
	// parsed again: a large import would otherwise do both for every note.
	// Notes written before an error are indexed too.
	byPath := make(map[string]*memories.Memory, len(ms))
	for _, m := range ms {
		byPath[m.Path] = m
	}
	recs := make(map[string]*index.Record, len(written))
	for _, w := range written {
		m := byPath[w.Stat.Path]
		r := &index.Record{Entry: memories.EntryOf(m), Size: w.Stat.Size, MTime: w.Stat.MTime, Hash: hash(w.Data), FID: m.ID}
		t.ch.put(r, m)
		recs[w.Stat.Path] = r
		if len(w.Data) <= vault.MaxNoteBytes && hasBody(w.Data, m.Body) {
			if t.created == nil {
				t.created = make(map[string]uint64, len(written))
			}
			t.created[w.Stat.Path] = r.Hash
		}
	}
	t.cat.Put(recs)
	return err
}

func (t *tx) Patch(_ context.Context, m *memories.Memory, keys ...string) error {
	_, err := t.rewrite(m, false, keys)
	return err
}

func (t *tx) Rewrite(_ context.Context, m *memories.Memory, keys ...string) (bool, error) {
	return t.rewrite(m, true, keys)
}

// rewrite applies keys (and the body) of m to its note, and re-indexes it
// when that changed the file.
func (t *tx) rewrite(m *memories.Memory, body bool, keys []string) (bool, error) {
	n, _, err := t.s.v.Read(m.Path)
	if err != nil {
		return false, err
	}
	if !n.Has("id") {
		keys = append([]string{"id"}, keys...)
	}
	if err := n.Apply(m, keys...); err != nil {
		return false, err
	}
	if body {
		n.SetBody(m.Body)
	}
	changed, err := t.s.v.Rewrite(m.Path, n)
	if err != nil || !changed {
		return false, err
	}
	return true, t.reindex(m.Path)
}

// reindex reads back a note the transaction wrote and queues it for the index.
func (t *tx) reindex(path string) error {
	r, m, err := t.s.readNote(vault.FileStat{Path: path})
	if err != nil {
		return fmt.Errorf("read back %s: %w", path, err)
	}
	t.queue(r, m)
	return nil
}

// queue queues a note the transaction wrote, as r and m, for the index.
func (t *tx) queue(r *index.Record, m *memories.Memory) {
	path := r.Path
	t.ch.put(r, m)
	t.cat.Put(map[string]*index.Record{path: r})
	if t.s.res != nil && m != nil && r.Broken == "" {
		// Kept for the searches that match the note while its index work
		// is owed (owedNote), and for the reads after.
		t.s.res.keep(r, m)
	}
}

func (t *tx) Record(ev memories.Event) { t.events = append(t.events, ev) }

// Log implements memories.Backend: one event appended to the audit log, with no
// lock (an append of one line is atomic).
func (s *Store) Log(_ context.Context, ev memories.Event) error {
	return appendEvents(s.EventLog(), s.stamp([]memories.Event{ev}))
}

// stamp names the store's vault in events bound for the shared log.
func (s *Store) stamp(events []memories.Event) []memories.Event {
	for i := range events {
		events[i].Vault = s.v.Root
	}
	return events
}
