// Package store is the memory store on disk: the vault (the truth) and its index
// (a cache) kept consistent under two locks. It implements memories.Backend.
//
// Every operation first brings the index up to date with the vault: it compares
// the cortex folder with the index catalog — stat'ing every note, reading only
// the folders whose time changed — and applies what changed: notes created,
// edited, renamed or deleted in Obsidian included. No daemon is needed.
//
// Locks: write.lock serialises writers (a save, a sync that applies changes, a
// rebuild) for the whole of their work; index.lock is shared by readers while they
// use the index and taken exclusively by a writer only for the moment it changes
// the index files. A full rebuild therefore never blocks readers while it builds.
//
// A save leaves the full-text index behind: it writes the note and appends its
// catalog record, with the index work it owes, to the catalog's journal (under
// the write lock only: a reader ignores a batch whose commit line it has not
// seen). The next command that reads the index does the owed work first (View
// catches up), and until then searches match the owed notes in memory, so a
// save's duplicate check sees them. See Store.commit.
//
// One state folder serves every vault a person uses (a second vault, a typo in
// --vault, an MCP client with another CORTEX_VAULT), so what belongs to a vault
// is kept apart, in a folder of its own named after the canonical path of the
// vault's cortex folder (symbolic links resolved): its index and the locks of
// that index. The audit log, events.jsonl, is shared: each line names its
// vault. Where each of these lives is config.State's to say.
//
// An index indexes the notes of one folder and is trusted only for it: the
// catalog's paths are relative to the cortex folder, and its folder times let
// a scan skip folders that did not change, so an index shared by two vaults
// once made one of them look empty. Each generation records the folder it was
// built from, and one built from another (or made before generations said) is
// rebuilt. The access log stays shared: it is keyed by memory id, which is
// unique across vaults. The index folder of older versions, which served
// whichever vault came, is a cache, so it is not adopted: each vault builds
// its own from its notes, and the old folder is removed once no older process
// uses it.
package store

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/cortexmem/cortex/atomicfile"
	"github.com/cortexmem/cortex/config"
	"github.com/cortexmem/cortex/filelock"
	"github.com/cortexmem/cortex/index"
	"github.com/cortexmem/cortex/memories"
	"github.com/cortexmem/cortex/vault"
)

const (
	// racyWindow: a note or folder modified this close to the last catalog
	// write is verified by content, since file times can be as coarse as two
	// seconds.
	racyWindow = 2 * time.Second
	// rebuildBatchBytes bounds the notes' bytes in one rebuild batch as well:
	// Bleve holds a batch's analysed tokens until its segment is built —
	// about twenty times the text — and a batch runs on each core, so a
	// vault of long notes (documentation, many languages) would otherwise
	// need gigabytes.
	rebuildBatchBytes = 4 << 20
	// rebuildGCPercent and rebuildHeapLimit are the garbage collector's
	// settings while a rebuild indexes: Bleve's analysis makes garbage fast
	// (a tenth of the rebuild's CPU went to collecting it at the default
	// 100), so the heap may grow to four times what is live, but never past
	// the limit, where the collector runs as often as it must. What is live
	// is bounded by the batches in flight, not by the vault: at 10,000 real
	// notes it peaks at 200–300 MB (two batches' documents, about 110 MB,
	// their segments being built, 45 MB, the bodies kept for the batches to
	// come and the notes' records). At 640 MB the limit, not what was live,
	// set the rebuild's peak (707 MB of RSS); at 448 MB the peak is about
	// 510 MB, for a few more collections (about 1% of the CPU); at 384 MB
	// the collector ran three times as often as at 640. That limit is the
	// base of a vault of up to 10,000 notes; a larger one's is raised (see
	// rebuildHeapLimitFor).
	rebuildGCPercent = 300
	rebuildHeapLimit = 448 << 20
	// rebuildHeapRoom is what a rebuild of a large vault adds to the limit,
	// in proportion to its notes above rebuildRoomFrom, all of it from
	// rebuildRoomNotes (see rebuildHeapLimitFor).
	rebuildHeapRoom  = 128 << 20
	rebuildRoomNotes = 100_000
)

// rebuildRoomFrom is the number of notes up to which a rebuild keeps the
// base limit (a variable: a test lowers it to see a rebuild raise the limit
// without writing thousands of notes).
var rebuildRoomFrom = 10_000

// rebuildKeptBodies bounds the bodies a rebuild keeps from its first read of
// the notes, by the files' sizes, in path order, for their batches (the rest
// are read again when their batch is indexed): a vault of this size is read
// once, and a larger one holds no more than this of them. A variable only so
// that tests can keep some and read the others again.
var rebuildKeptBodies int64 = 64 << 20

// rebuildBatch is the number of notes indexed per Bleve batch in a rebuild:
// large, so the rebuild makes few segments and has little to merge. A
// variable only so that tests can make many batches of few notes.
var rebuildBatch = 2500

// closeMergesBuild leaves a rebuild's segments to the builder's Close to
// merge, all at the end, as rebuilds did before merging while they build:
// for tests that compare the two.
var closeMergesBuild = false

// Options configure a Store.
type Options struct {
	Vault *vault.Vault
	// State is the state folder (never inside the vault): the event log and,
	// in a folder per vault, the index and its locks.
	State config.State
	// LockTimeout bounds every wait for a lock.
	LockTimeout time.Duration
	// Now is the clock; time.Now when nil.
	Now func() time.Time
	// Warn receives warnings (notes that cannot be read); dropped when nil.
	Warn func(string)
	// Freshness is how long after a full check of the vault a command may
	// skip stat'ing every note. Creations, deletions and renames are always
	// seen at once (they change a folder's time); an edit made in place is seen
	// by every command that starts at least Freshness after it. 0 checks every
	// note before every command.
	Freshness time.Duration
	// Resident keeps the catalog, the open index (for Linger after each
	// read) and parsed notes between calls: for a long-running process such
	// as the MCP server, where most of a recall's time would otherwise go to
	// loading them again.
	Resident bool
	// NoRebuild makes a missing or damaged index an error (ErrRebuildNeeded)
	// instead of a rebuild from the vault: for a caller that must answer
	// within a second whatever happens — a hook — and for which a rebuild of
	// a large vault would be cut short anyway. Any other command rebuilds it.
	NoRebuild bool
}

// Store is the vault and its index.
type Store struct {
	v   *vault.Vault
	idx *index.Index
	// state is the state folder; vstate the vault's own folder in it, which
	// holds the index and its locks.
	state     config.State
	vstate    config.VaultState
	timeout   time.Duration
	freshness time.Duration
	// fineWindow is racyWindow for fine file times (vault.FineWindow): a
	// folder the last save wrote to is trusted again a few milliseconds
	// later rather than read again for two seconds.
	fineWindow time.Duration
	now        func() time.Time
	warn       func(string)
	res        *resident // nil unless Options.Resident
	// fps keeps the fingerprints of compared notes; nil unless
	// Options.Resident.
	fps *fingerprints
	// words keeps the word indexes saves read (keptIndexes); nil unless
	// Options.Resident.
	words *keptIndexes
	// recent keeps the recent files saves read (keptWordFiles); nil
	// unless resident.
	recent *keptWordFiles
	// dirs follows the folders this store's writers write into (see
	// dirWatch); nil unless Options.Resident, and where the system has
	// no way to follow them.
	dirs      *dirWatch
	noRebuild bool
	// owedMap is what this store's saves left owed to the map of contents
	// (see mapOwedFile); changed only under the write lock.
	owedMap owedMap
	// followed is set while a watcher in this process follows the vault
	// and the index holds every change it saw (see Followed).
	followed atomic.Bool
	// watching: a watcher in this process follows the vault, settled or
	// not (see Watching).
	watching atomic.Bool
	// wordGroupPeak is the most entries the making of word indexes held
	// at once (one project's), for tests.
	wordGroupPeak atomic.Int64
	// followMu orders the flag's changes with the heartbeat's (Followed),
	// and guards pending.
	followMu sync.Mutex
	// pending are the notes a watcher in this process named since it last
	// said it was settled (see Named); unknown until it says so.
	pending pendingNotes
	// owed, while a background catch-up runs (CatchUpInBackground), is
	// the channel that tells it a save left index work owed.
	owed atomic.Pointer[chan struct{}]
	// failIndex, when set (by tests), makes every write to the full-text
	// index fail with its error first.
	failIndex func() error
	// syncDir, when set (by tests), syncs a folder of the vault (relative
	// to the cortex folder) in place of vault.SyncFolder.
	syncDir func(dir string) error
	// gitIndex is the index file of the git repository holding the vault
	// ("" when none), found once (see gitIndexChanged).
	gitOnce  sync.Once
	gitIndex string
	// kept is the catalog the last read loaded, for the next read of this
	// store to reuse while its files are unchanged (see readCatalog).
	kept keptCatalog
	// catalogLoads counts the catalogs loaded from disk, for tests.
	catalogLoads atomic.Int64
	// noteReads counts the notes read from the vault, for tests.
	noteReads atomic.Int64
	// wordReads counts the notes read for their word sets (words.go), for
	// tests.
	wordReads atomic.Int64
	// indexKeys counts the conflicts the duplicate check told from a word
	// index's keys (LoadFingerprintOrConflict), for tests.
	indexKeys atomic.Int64
	// mapRenders counts the maps of contents rendered whole, for tests.
	mapRenders atomic.Int64
	// beforeKeep, when set (by tests), runs before a save looks at the
	// folder it wrote into (see keepDir).
	beforeKeep func()
}

var _ memories.Backend = (*Store)(nil)

// Open returns the store, creating the state folder when it is missing.
func Open(o Options) (*Store, error) {
	if o.Vault == nil || o.State.Home == "" {
		return nil, errors.New("store: vault and state folder are required")
	}
	if fi, err := os.Stat(o.State.Home); err == nil && !fi.IsDir() {
		return nil, &memories.ArgError{Arg: "home", Rule: fmt.Sprintf("%s is a file; the state folder must be a folder", o.State.Home)}
	}
	vstate, err := o.State.Vault(o.Vault.Dir)
	if err != nil {
		return nil, fmt.Errorf("vault %s: %w", o.Vault.Root, err)
	}
	if err := atomicfile.MkdirAll(vstate.IndexDir()); err != nil {
		return nil, fmt.Errorf("state folder %s: %w", o.State.Home, err)
	}
	s := &Store{
		v: o.Vault, idx: index.New(vstate.IndexDir(), vstate.Source), state: o.State, vstate: vstate,
		timeout: o.LockTimeout, freshness: o.Freshness, now: o.Now, warn: o.Warn, noRebuild: o.NoRebuild,
		fineWindow: vault.FineWindow(),
	}
	if o.Resident {
		s.res = &resident{}
		s.fps = &fingerprints{}
		s.words = &keptIndexes{}
		s.recent = &keptWordFiles{}
		s.dirs = sharedDirWatch()
	}
	if s.timeout <= 0 {
		s.timeout = 10 * time.Second
	}
	if s.now == nil {
		s.now = time.Now
	}
	if s.warn == nil {
		s.warn = func(string) {}
	}
	return s, nil
}

// Vault is the store's vault.
func (s *Store) Vault() *vault.Vault { return s.v }

// VaultState is the vault's own folder in the state folder: its index and
// locks.
func (s *Store) VaultState() string { return s.vstate.Dir }

// EventLog is the path of the audit log.
func (s *Store) EventLog() string { return s.state.EventsFile() }

func (s *Store) lockWrite(ctx context.Context) (*filelock.Lock, error) {
	return filelock.Acquire(ctx, s.vstate.WriteLock(), s.timeout)
}

func (s *Store) lockIndex(ctx context.Context, shared bool) (*filelock.Lock, error) {
	if !shared && s.res != nil {
		// This process's own lingering reader would keep its writer out.
		s.res.drop()
	}
	p := s.vstate.IndexLock()
	if shared {
		return filelock.AcquireShared(ctx, p, s.timeout)
	}
	return filelock.AcquireAhead(ctx, p, s.timeout)
}

// release gives a lock up, keeping the first error.
func release(l *filelock.Lock, err *error) {
	if rerr := l.Release(); *err == nil {
		*err = rerr
	}
}

// closeCatalog closes a catalog, keeping the first error.
func closeCatalog(c *index.Catalog, err *error) {
	if cerr := c.Close(); *err == nil {
		*err = cerr
	}
}

// View implements memories.Backend.
func (s *Store) View(ctx context.Context, fn func(memories.Snapshot) error) (err error) {
	if s.res != nil {
		if handled, err := s.viewResident(ctx, fn); handled {
			return err
		}
	}
	synced, rebuilt := false, false
	// A wait for another writer's catch-up (lockWriteUnlessPublished)
	// that looks again still waits no longer in all than the lock timeout.
	deadline := time.Now().Add(s.timeout)
	for {
		rl, err := s.lockIndex(ctx, true)
		if err != nil {
			return err
		}
		gen, cat, stamp, err := s.readCatalog()
		var scan *check
		if err == nil {
			scan, err = s.scan(gen, cat, false, false)
			if err != nil {
				closeCatalog(cat, &err)
			}
		}
		// After one sync, a vault still changing under us is answered as
		// indexed rather than chased forever. Index work a writer deferred
		// is done first too (catchUp), so that recall ranks every note
		// alike; work owed again since (another save) is matched in memory.
		if err == nil && (scan.Clean() && !cat.HasDeferred() || synced) {
			if len(scan.Temps) > 0 {
				s.cleanTempsIfIdle(scan.Temps)
			}
			writtenAt := cat.WrittenAt
			snap := &snapshot{s: s, cat: cat, gen: gen}
			err = fn(snap)
			snap.close(&err)
			if err == nil {
				s.keepCatalog(gen, stamp, cat)
			} else {
				closeCatalog(cat, &err)
			}
			release(rl, &err)
			if needsRebuild(err) && s.noRebuild {
				return fmt.Errorf("%w: %w", ErrRebuildNeeded, err)
			}
			if needsRebuild(err) && !rebuilt {
				// The full-text index is damaged in a way only opening it
				// shows: rebuild it from the vault and answer again.
				s.warn(fmt.Sprintf("rebuilding the index: %v", err))
				if _, err := s.Rebuild(ctx); err != nil {
					return err
				}
				rebuilt = true
				continue
			}
			if err == nil && scan.full && scan.Clean() && scan.Unsettled > 0 {
				s.settle(ctx, gen, writtenAt, scan)
			}
			if err == nil {
				s.cleanIndexIfIdle(gen, false)
			}
			return err
		}
		if cat != nil && err == nil {
			s.keepCatalog(gen, stamp, cat) // for the sync or catch-up below
		}
		if rerr := rl.Release(); rerr != nil && err == nil {
			err = rerr
		}
		if synced || err != nil && !needsRebuild(err) {
			return err
		}
		// The catch-up needs the write lock. A writer that holds it may
		// do the catch-up itself and go on with other work (the MCP
		// server's preparation makes the word indexes for seconds after
		// indexing what changed): once it publishes, this looks again
		// rather than waiting for the rest.
		owedOnly := err == nil && scan.Clean()
		wl, err := s.lockWriteUnlessPublished(ctx, deadline, gen, stamp)
		if err == nil && wl == nil {
			continue
		}
		if owedOnly {
			// Only index work owed: done without the check of every note
			// a sync makes. Failing that (a writer holding the lock past
			// the timeout, a state folder that cannot be written), the
			// answer matches the owed notes in memory.
			if err == nil {
				err = s.catchUpHeld(ctx)
				release(wl, &err)
			}
			if err != nil {
				if ctx.Err() != nil {
					return err
				}
				s.warn(fmt.Sprintf("the full-text index is left behind the notes for now: %v", err))
			}
		} else {
			if err != nil {
				return err
			}
			_, err = s.syncHeld(ctx, true)
			release(wl, &err)
			if err != nil {
				return err
			}
		}
		synced = true
	}
}

// lockWriteUnlessPublished is lockWrite for a reader that needs the index
// caught up with the vault, waiting until deadline at most: it stops
// waiting, and returns no lock, once a writer publishes a change to the
// index since the reader read generation gen's catalog at stamp (another
// generation, or its catalog written again; a zero stamp is taken as the
// catalog is now), which may be the catch-up the reader needs: the reader
// then looks again.
func (s *Store) lockWriteUnlessPublished(ctx context.Context, deadline time.Time, gen string, stamp index.Stamp) (*filelock.Lock, error) {
	wait := max(time.Until(deadline), 0)
	if stamp.IsZero() {
		var err error
		if gen, err = s.idx.Current(); err == nil {
			stamp, err = index.CatalogStamp(gen)
		}
		if err != nil { // nothing to watch: the lock alone
			return filelock.Acquire(ctx, s.vstate.WriteLock(), wait)
		}
	}
	if writeWaitHook != nil {
		writeWaitHook()
	}
	return filelock.AcquireUnless(ctx, s.vstate.WriteLock(), wait, func() bool {
		g, err := s.idx.Current()
		if err != nil {
			return false
		}
		if g != gen {
			return true
		}
		now, err := index.CatalogStamp(g)
		return err == nil && !now.Equal(stamp)
	})
}

// writeWaitHook, when set (by tests), runs as a reader starts waiting for
// the write lock to catch the index up.
var writeWaitHook func()

// checkedFile's modification time records the start of the last full check
// of the vault against a generation's catalog.
const checkedFile = "checked"

// scan compares the vault with the catalog: fully (every note stat'ed) when full
// is set or the last full check is older than the freshness window (and no
// watcher, in this process or another, follows the vault: see Followed),
// else only the folders. It settles the suspects — notes modified close to the catalog's
// last look — by content: the ones whose bytes did change join Changed. A clean
// full check is recorded for the commands that follow. A writer (holding the
// write lock, its catalog the latest) trusts the folders this process
// follows (see dirWatch) instead of listing them again.
//
// named, when not nil, are the notes a watcher saw change (SyncChanged): the
// check is then of the folders and of those notes only, whatever the
// freshness window. So it is, while a watcher in this process is about to
// take in the notes its events named, of the folders and those notes (see
// Named).
func (s *Store) scan(gen string, cat *index.Catalog, full, writer bool, named ...string) (*check, error) {
	start := s.now()
	stamp := filepath.Join(gen, checkedFile)
	fromPending, namedAt := false, uint64(0)
	if named != nil {
		full = false
	} else if !full && !s.followed.Load() && !s.followedElsewhere(start) {
		if p, at, ok := s.pendingNamed(); ok {
			named, fromPending, namedAt = p, true, at
		} else {
			fi, err := os.Stat(stamp)
			full = s.freshness <= 0 || err != nil || start.Sub(fi.ModTime()) >= s.freshness || s.gitIndexChanged(fi.ModTime())
		}
	}
	opts := s.scanOptions(cat, full, writer)
	res, err := s.v.Scan(cat, opts)
	if err != nil {
		return nil, err
	}
	// clean are the named notes found as their records say, by their
	// times or, for those too recent to trust, by their bytes.
	var clean []string
	if named != nil {
		if clean, err = s.statNamed(cat, opts, res, named); err != nil {
			return nil, err
		}
	}
	for _, f := range res.Suspect {
		r, err := cat.Get(f.Path)
		if err != nil {
			return nil, err
		}
		data, _, err := s.v.ReadRaw(f.Path)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			res.Removed = append(res.Removed, f.Path)
		case err != nil || r == nil || hash(data) != r.Hash:
			res.Changed = append(res.Changed, f)
		case fromPending:
			clean = append(clean, f.Path)
		}
	}
	if fromPending {
		s.namedChecked(clean, namedAt)
	}
	res.Unsettled += len(res.Suspect)
	res.Suspect = nil
	if full && res.Clean() {
		s.markChecked(stamp, start)
	}
	return &check{ScanResult: res, full: full, started: start}, nil
}

// scanOptions are the options of scan's look at the vault: times as recent
// as the catalog's last write (less so for fine times) not trusted, every
// note stat'ed when full, and, for a writer, the folders the watcher
// follows taken as unchanged.
func (s *Store) scanOptions(cat *index.Catalog, full, writer bool) vault.ScanOptions {
	opts := vault.ScanOptions{RacyAfter: cat.RacyAfter(racyWindow), StatNotes: full}
	if s.fineWindow > 0 {
		opts.FineRacyAfter = cat.RacyAfter(s.fineWindow)
	}
	if writer {
		opts.Unchanged = s.followedDir
	}
	return opts
}

// check is a scan and how it was made.
type check struct {
	*vault.ScanResult
	full    bool      // every note was stat'ed
	started time.Time // when it began
}

// settle records what a clean full check saw, when it saw anything the catalog
// does not already say (folders with new times, notes too recent to trust), so
// that later scans trust them. It is an optimisation: it gives up at once when a
// writer is at work or the catalog changed since the check.
func (s *Store) settle(ctx context.Context, gen string, writtenAt int64, scan *check) {
	wl, err := filelock.TryAcquire(s.vstate.WriteLock())
	if err != nil || wl == nil {
		return
	}
	defer wl.Release()
	cur, cat, err := s.load()
	if err != nil {
		return
	}
	defer cat.Close()
	if cur == gen && cat.WrittenAt == writtenAt {
		_ = s.confirm(ctx, cat, gen, scan)
	}
}

// confirm records a clean full check in the catalog's journal, holding the
// index lock exclusively for that; the caller holds the write lock.
func (s *Store) confirm(ctx context.Context, cat *index.Catalog, gen string, scan *check) (err error) {
	il, err := s.lockIndex(ctx, false)
	if err != nil {
		return err
	}
	defer release(il, &err)
	return cat.Confirm(gen, scan.Dirs, scan.started)
}

// markChecked records a full check that began at t. It is a hint, so failures
// are ignored: the next command simply checks fully again.
func (s *Store) markChecked(stamp string, t time.Time) {
	if err := os.Chtimes(stamp, t, t); errors.Is(err, fs.ErrNotExist) {
		if f, err := os.OpenFile(stamp, os.O_CREATE|os.O_WRONLY, atomicfile.FilePerm); err == nil {
			_ = f.Close()
			_ = os.Chtimes(stamp, t, t)
		}
	}
}

// cleanTempsIfIdle removes leftover temporary files when no writer is at work.
func (s *Store) cleanTempsIfIdle(temps []string) {
	l, err := filelock.TryAcquire(s.vstate.WriteLock())
	if err != nil || l == nil {
		return
	}
	defer l.Release()
	if err := s.v.CleanTemps(temps); err != nil {
		s.warn(fmt.Sprintf("could not remove leftover temporary files: %v", err))
	}
}

// cleanIndexIfIdle removes what the index folder holds besides the live
// generation gen — old generations, builds a killed process abandoned,
// temporary files — when no one uses them: no writer may be building a
// generation (the write lock is free, or the caller holds it: haveWrite) and
// no reader may be inside one (the index lock can be taken exclusively). It
// never waits: when either is busy, a later command cleans up.
func (s *Store) cleanIndexIfIdle(gen string, haveWrite bool) {
	if stale, err := s.idx.Stale(gen); err != nil || len(stale) == 0 {
		return
	}
	if !haveWrite {
		wl, err := filelock.TryAcquire(s.vstate.WriteLock())
		if err != nil || wl == nil {
			return
		}
		defer wl.Release()
	}
	il, err := filelock.TryAcquire(s.vstate.IndexLock())
	if err != nil || il == nil {
		return
	}
	defer il.Release()
	// Read again under the locks: the generation published last is live.
	if cur, err := s.idx.Current(); err == nil {
		s.idx.RemoveOthers(cur)
	}
}

// removeLegacy removes the index folder of versions that kept one index for
// every vault (<state>/index/; see the package comment), once no process of
// such a version uses it: that takes its write lock and then its index lock,
// without waiting. The caller holds the vault's write lock, so two stores do
// not try at once.
func (s *Store) removeLegacy() {
	dir, writeLock, indexLock := s.state.LegacyIndex()
	if _, err := os.Lstat(dir); err != nil {
		return
	}
	wl, err := filelock.TryAcquire(writeLock)
	if err != nil || wl == nil {
		return
	}
	defer wl.Release()
	il, err := filelock.TryAcquire(indexLock)
	if err != nil || il == nil {
		return
	}
	defer il.Release()
	if err := os.RemoveAll(dir); err != nil {
		s.warn(fmt.Sprintf("could not remove the index of an older cortex: %v", err))
	}
}

// load opens the live generation's catalog. A missing, corrupt or out-of-date
// index is an error the caller answers with a rebuild.
func (s *Store) load() (string, *index.Catalog, error) {
	gen, err := s.idx.Current()
	if err != nil {
		return "", nil, err
	}
	if err := index.CheckGeneration(gen); err != nil {
		return "", nil, err
	}
	if err := s.idx.CheckSource(gen); err != nil {
		return "", nil, err
	}
	cat, err := index.LoadCatalog(gen)
	if err != nil {
		return "", nil, err
	}
	s.catalogLoads.Add(1)
	if cat.Schema != index.Schema {
		_ = cat.Close()
		return "", nil, &index.CorruptError{File: "catalog", Msg: "built with schema " + cat.Schema}
	}
	return gen, cat, nil
}

// ErrRebuildNeeded is the error of a store opened with NoRebuild whose index
// must be rebuilt from the vault first.
var ErrRebuildNeeded = errors.New("the index must be rebuilt from the vault first (any cortex command, or cortex reindex, does it)")

// needsRebuild reports whether a load error means the index must be rebuilt
// (rather than a failure to report).
func needsRebuild(err error) bool {
	var ce *index.CorruptError
	return errors.Is(err, index.ErrNoCatalog) || errors.As(err, &ce)
}

func hash(data []byte) uint64 {
	h := fnv.New64a()
	_, _ = h.Write(data)
	return h.Sum64()
}

// SyncReport counts what a sync or rebuild did.
type SyncReport struct {
	Full bool `json:"full"`
	// Reason says why a rebuild nobody asked for was needed: no index yet
	// for this vault, a damaged one, one built from another vault.
	Reason  string   `json:"reason,omitempty"`
	Added   int      `json:"added"`
	Updated int      `json:"updated"`
	Removed int      `json:"removed"`
	Broken  []string `json:"broken,omitempty"` // notes newly found unreadable, with why
	// Relinked counts the notes whose links cortex pointed at notes that
	// moved (see relinkMoved).
	Relinked int `json:"relinked,omitempty"`
	Notes    int `json:"notes"` // readable notes in the index afterwards
}

// Sync brings the index up to date with the vault, rebuilding it when it is
// missing, corrupt or of an older schema.
func (s *Store) Sync(ctx context.Context) (rep *SyncReport, err error) {
	return s.sync(ctx, true)
}

// sync is Sync with begin's full and named (see SyncChanged); with named,
// the report's Notes is not counted.
func (s *Store) sync(ctx context.Context, full bool, named ...string) (rep *SyncReport, err error) {
	wl, err := s.lockWrite(ctx)
	if err != nil {
		return nil, err
	}
	defer release(wl, &err)
	return s.syncHeld(ctx, full, named...)
}

// syncHeld is sync for a caller that holds the write lock.
func (s *Store) syncHeld(ctx context.Context, full bool, named ...string) (rep *SyncReport, err error) {
	st, err := s.begin(ctx, full, false, named...)
	if err != nil {
		return nil, err
	}
	// Kept for the commands that follow, as a save's is: a watcher syncs
	// after every save of the MCP server, and a catalog closed here had the
	// next save read it from disk again (about 20 ms at 100,000 notes).
	defer s.keepWritten(st, &err)
	if named != nil {
		return st.report, nil
	}
	if st.report.Notes, err = st.cat.Readable(); err != nil {
		return nil, err
	}
	return st.report, nil
}

// catchUp does the index work writers deferred, and applies what the vault's
// check finds changed (within the freshness window, as any command's).
func (s *Store) catchUp(ctx context.Context) (err error) {
	wl, err := s.lockWrite(ctx)
	if err != nil {
		return err
	}
	defer release(wl, &err)
	return s.catchUpHeld(ctx)
}

// catchUpHeld is catchUp for a caller that holds the write lock.
func (s *Store) catchUpHeld(ctx context.Context) (err error) {
	var named []string
	if s.watching.Load() {
		// A watcher in this process re-indexes whatever changed, notes
		// edited in place included: the catch-up looks at the folders
		// only (see SyncChanged). Run after a save, it would otherwise find
		// the watcher unsettled by the save's own events and stat every
		// note once the freshness window is past — about half a second of
		// CPU at 100,000 notes, after every save of the MCP server.
		named = []string{}
	}
	st, err := s.begin(ctx, false, false, named...)
	if err != nil {
		return err
	}
	s.keepWritten(st, &err)
	return err
}

// Rebuild builds a new index from the vault in a fresh generation and swaps it in.
func (s *Store) Rebuild(ctx context.Context) (rep *SyncReport, err error) {
	wl, err := s.lockWrite(ctx)
	if err != nil {
		return nil, err
	}
	defer release(wl, &err)
	st, err := s.rebuild(ctx)
	if err != nil {
		return nil, err
	}
	defer closeCatalog(st.cat, &err)
	return st.report, nil
}

// writeState is what a writer holding the write lock works on.
type writeState struct {
	gen      string
	cat      *index.Catalog
	dirs     []vault.DirStat // folders as the writer's scan saw them
	read     []string        // folders that scan read (vault.ScanResult.Read)
	observed time.Time       // when that scan began
	report   *SyncReport
	// lazy lets the writer leave the full-text index behind the catalog
	// (see commit); otherwise it brings the index up to date, deferred work
	// included.
	lazy bool
	// unread holds the paths of the notes apply read without their bodies
	// (a bulk change): commit indexes them in batches, reading each body
	// again as its batch is indexed (applyDocs).
	unread map[string]bool
}

// begin brings the index up to date under the write lock, the first step of
// every writer; full checks every note regardless of the freshness window,
// and named, when not nil, checks the folders and those notes only (see
// scan). A lazy writer may leave the full-text index behind the catalog (see
// commit); any other brings it up to date, the work deferred before
// included. The caller closes the state's catalog.
func (s *Store) begin(ctx context.Context, full, lazy bool, named ...string) (*writeState, error) {
	gen, cat, err := s.writerCatalog()
	if err != nil {
		if !needsRebuild(err) {
			return nil, err
		}
		if s.noRebuild {
			return nil, fmt.Errorf("%w: %w", ErrRebuildNeeded, err)
		}
		return s.rebuildFor(ctx, err)
	}
	s.cleanIndexIfIdle(gen, true)
	s.removeLegacy()
	observed := s.now()
	scan, err := s.scan(gen, cat, full, true, named...)
	if err != nil {
		_ = cat.Close()
		return nil, err
	}
	s.report(scan.ScanResult)
	if err := s.v.CleanTemps(scan.Temps); err != nil {
		s.warn(fmt.Sprintf("could not remove leftover temporary files: %v", err))
	}
	st := &writeState{gen: gen, cat: cat, dirs: scan.Dirs, read: scan.Read, observed: observed, report: &SyncReport{}, lazy: lazy}
	if !lazy {
		// The map of contents gets what saves left owed to it before the
		// index work they deferred is done (see mapOwedFile): the next
		// command after a killed server finds that work owed, so it comes
		// here. Failing that (a read-only vault) must not stop a command.
		if err := s.settleMap(cat); err != nil {
			s.warn(fmt.Sprintf("map of contents not updated: %v", err))
		}
	}
	if scan.Clean() && scan.full && scan.Unsettled > 0 && !lazy {
		// Record what the full check saw, so the commands that follow trust it
		// (see settle). The write lock is held already. A lazy writer's
		// commit records the same folder times and look in the append it
		// makes anyway (see commit), so it spares this flushed one.
		if err := s.confirm(ctx, cat, gen, scan); err != nil {
			_ = cat.Close()
			return nil, err
		}
	}
	if !scan.Clean() {
		if st.report, err = s.apply(ctx, st, scan); err != nil {
			_ = cat.Close()
			if needsRebuild(err) {
				if s.noRebuild {
					return nil, fmt.Errorf("%w: %w", ErrRebuildNeeded, err)
				}
				return s.rebuildFor(ctx, err)
			}
			return nil, err
		}
		if full {
			s.markChecked(filepath.Join(gen, checkedFile), observed)
		}
	} else if !lazy && cat.HasDeferred() {
		// Nothing changed in the vault, but the full-text index is owed the
		// notes writers committed without indexing them.
		err := s.commit(ctx, st, nil, nil)
		var cu *catchUpError
		if errors.As(err, &cu) {
			s.warn(err.Error()) // kept for the next command, as in apply
			err = nil
		} else if err == nil {
			err = s.compact(ctx, st)
		}
		if err != nil {
			_ = cat.Close()
			if needsRebuild(err) {
				if s.noRebuild {
					return nil, fmt.Errorf("%w: %w", ErrRebuildNeeded, err)
				}
				return s.rebuildFor(ctx, err)
			}
			return nil, err
		}
	}
	return st, nil
}

// report passes a scan's problems on as warnings.
func (s *Store) report(scan *vault.ScanResult) {
	for _, p := range scan.Problems {
		s.warn(p.Error())
	}
}

// readNote reads one note into a catalog record and, when it parses, its memory.
func (s *Store) readNote(f vault.FileStat) (*index.Record, *memories.Memory, error) {
	s.noteReads.Add(1)
	data, st, err := s.v.ReadRaw(f.Path)
	if err != nil {
		if errors.Is(err, vault.ErrTooLarge) {
			return &index.Record{Entry: memories.Entry{Path: f.Path, ID: memories.DerivedID(f.Path)},
				Size: st.Size, MTime: st.MTime, Broken: err.Error()}, nil, nil
		}
		return nil, nil, err
	}
	return s.noteRecord(st, data)
}

// changedNote is a changed note as read: rec is nil when it is gone.
type changedNote struct {
	path string
	rec  *index.Record
	mem  *memories.Memory
}

// readChanged reads the changed notes in scan order: one by one, or, for a
// bulk change, as a rebuild reads them (readAll: on every core, the
// memories without their bodies).
func (s *Store) readChanged(files []vault.FileStat, bulk bool) ([]changedNote, error) {
	out := make([]changedNote, len(files))
	if !bulk {
		for i, f := range files {
			r, m, err := s.readNote(f)
			if err != nil && !errors.Is(err, fs.ErrNotExist) {
				return nil, err
			}
			out[i] = changedNote{path: f.Path, rec: r, mem: m}
		}
		return out, nil
	}
	recs, mems, _, err := s.readAll(files, 0)
	if err != nil {
		return nil, err
	}
	// readAll leaves out the notes gone since the scan, keeping the order.
	j := 0
	for i, f := range files {
		out[i].path = f.Path
		if j < len(recs) && recs[j].Path == f.Path {
			out[i].rec, out[i].mem = recs[j], mems[j]
			j++
		}
	}
	return out, nil
}

// noteRecord makes the catalog record and the memory of a note from its bytes
// and its size and time on disk.
func (s *Store) noteRecord(st vault.FileStat, data []byte) (*index.Record, *memories.Memory, error) {
	f := st
	r := &index.Record{Size: st.Size, MTime: st.MTime, Hash: hash(data)}
	n, err := vault.ParseWritten(data) // only read: the memory and the id
	if err != nil {
		var pe *vault.ParseError
		if !errors.As(err, &pe) {
			return nil, nil, err
		}
		pe.Path = s.v.VaultPath(f.Path)
		r.Entry = memories.Entry{Path: f.Path, ID: memories.DerivedID(f.Path)}
		r.Broken = pe.Error()
		return r, nil, nil
	}
	if c, ok := s.conflictCopy(f.Path, n.ID()); ok {
		r.Entry = memories.Entry{Path: f.Path, ID: memories.DerivedID(f.Path)}
		r.Broken = s.copyBroken(f.Path, c)
		return r, nil, nil
	}
	m := n.Memory(f.Path, time.Unix(0, st.MTime))
	m.Symlink = st.Symlink
	r.FID = n.ID()
	r.Entry = memories.EntryOf(m)
	return r, m, nil
}

// brokenWarning is the advice given with a note that cannot be read.
const brokenWarning = " — the note is skipped and never rewritten; fix it in Obsidian (`cortex doctor` lists such notes)"

// apply indexes what a scan found changed: it reads the changed notes, settles
// ids, updates Bleve and commits the catalog.
//
// A bulk change (a pull) is read as a rebuild reads (readAll): on every
// core, each body let go once its note is parsed. The ids are settled over
// the whole change set as ever, and the index is given the notes in
// rebuild-sized batches, each body read again as its batch is indexed (see
// applyDocs), so memory is bounded by a batch, not by the change. 20,000
// changed notes of documentation length held 1.43 GB at once.
func (s *Store) apply(ctx context.Context, st *writeState, scan *check) (*SyncReport, error) {
	bulk := len(scan.Changed)+len(scan.Removed) >= bulkChanges
	if bulk {
		// A pull or a sync that changed thousands of notes makes a heap
		// like a rebuild's: collect as a rebuild does. A short-lived
		// command runs with the collector off up to a small limit, and a
		// live heap above that limit keeps the collector running without
		// pause (20,000 changed notes at 100,000 took twice the CPU).
		defer rebuildGC(len(scan.Changed) + len(scan.Removed))()
	}
	if applyHook != nil {
		applyHook()
	}
	defer func() { st.unread = nil }() // apply's own; a save's commit that follows reads no bodies
	rep := &SyncReport{}
	ch := newChangeSet(st.cat)
	for _, p := range scan.Removed {
		ch.remove(p)
		rep.Removed++
	}
	read, err := s.readChanged(scan.Changed, bulk)
	if err != nil {
		return nil, err
	}
	if bulk {
		st.unread = make(map[string]bool, len(read))
	}
	for _, c := range read {
		old, err := st.cat.Get(c.path)
		if err != nil {
			return nil, err
		}
		if c.rec == nil { // gone since the scan
			if old != nil {
				ch.remove(c.path)
				rep.Removed++
			}
			continue
		}
		r, m := c.rec, c.mem
		if bulk && m != nil {
			st.unread[c.path] = true
		}
		if old == nil {
			rep.Added++
		} else {
			rep.Updated++
		}
		if r.Broken != "" && (old == nil || old.Broken != r.Broken) {
			rep.Broken = append(rep.Broken, r.Broken)
			s.warn(r.Broken + brokenWarning)
		}
		ch.put(r, m)
	}
	if err := ch.settleIDs(s.readNote); err != nil {
		return nil, err
	}
	relinked, err := s.relinkMoved(ch)
	if err != nil {
		return nil, err
	}
	rep.Relinked = len(relinked)
	docs, recs, err := ch.result()
	if err != nil {
		return nil, err
	}
	// The map of contents is derived: failing to write it (a read-only vault)
	// must not stop a read from answering.
	if err := s.writeMap(st.cat, recs); err != nil {
		s.warn(fmt.Sprintf("map of contents not updated: %v", err))
	}
	if err := s.commit(ctx, st, docs, recs); err != nil {
		var cu *catchUpError
		if !errors.As(err, &cu) {
			return nil, err
		}
		// The changes are committed and the index work kept: go on (a
		// search matches the owed notes in memory); the next command tries
		// the index again.
		s.warn(err.Error())
		return rep, nil
	}
	if len(relinked) > 0 {
		s.logRelinked(ctx, relinked)
	}
	if err := s.compact(ctx, st); err != nil {
		return nil, err
	}
	return rep, nil
}

// maxDeferred bounds the full-text index work a lazy writer may leave
// undone (notes to index, ids to delete): beyond it the writer does it all,
// in one batch. Every search made before the index catches up reads the
// owed notes from the vault and matches them in memory (see
// snapshot.search), so the bound keeps that cheap, and it amortises a
// batch's cost over many saves.
const maxDeferred = 16

// commit writes Bleve operations and catalog changes, holding the index lock
// exclusively for just that.
//
// A lazy writer (st.lazy) whose deferred work stays within maxDeferred
// leaves the index alone: the notes are written and the catalog's journal
// records both them and the index work owed, durably, in one append. The
// index is a cache of the notes, so that is all a crash must not lose; the
// next command that reads the index does the work first (View), and until
// then a search matches the owed notes in memory.
//
// Otherwise it applies the deferred work and docs in one batch. When that
// fails, the catalog still takes recs and keeps all the work owed, and the
// error is a *catchUpError: nothing is lost, the next command tries again.
func (s *Store) commit(ctx context.Context, st *writeState, docs []index.Doc, recs map[string]*index.Record) (err error) {
	later := deferredOf(docs)
	owed := st.cat.Deferred()
	if st.lazy && owed.Len()+later.Len() <= maxDeferred {
		// Appended under the write lock only: a reader loading the catalog
		// meanwhile ignores a batch whose commit line it does not see yet.
		// Not flushed to disk: the notes this batch records were flushed
		// before it (vault.Create), and a batch lost with the power is
		// found again in the vault (index.Catalog.CommitBatchUnsynced).
		if err := st.cat.CommitBatchUnsynced(st.gen, recs, later, st.dirs, st.observed); err != nil {
			return err
		}
		if st.cat.HasDeferred() {
			s.signalOwed()
		}
		return nil
	}
	if len(docs) == 0 && len(recs) == 0 && owed.Empty() {
		return nil
	}
	il, err := s.lockIndex(ctx, false)
	if err != nil {
		return err
	}
	defer release(il, &err)
	if !owed.Empty() {
		after := st.cat.Clone()
		after.Put(recs)
		if docs, err = s.deferredDocs(after, owed, recs, docs); err != nil {
			return err
		}
	}
	if ierr := s.applyDocs(st.gen, docs, recs, st.unread); ierr != nil {
		if needsRebuild(ierr) {
			return ierr
		}
		all := index.Deferred{Paths: append(owed.Paths, later.Paths...), IDs: append(owed.IDs, later.IDs...)}
		if cerr := st.cat.CommitBatch(st.gen, recs, all, false, st.dirs, st.observed); cerr != nil {
			return errors.Join(ierr, cerr)
		}
		return &catchUpError{err: ierr}
	}
	return st.cat.CommitBatch(st.gen, recs, index.Deferred{}, true, st.dirs, st.observed)
}

// applyDocs writes docs to the generation's full-text index: in one batch,
// or, when some of their memories were read without their bodies (unread,
// by path), in batches of at most rebuildBatch notes and rebuildBatchBytes
// of the notes' sizes, as a rebuild does, each note's body read again as
// its batch is indexed. recs are the notes' new records by path.
//
// The deletes, which lead docs, are applied first, on their own: Bleve
// applies batches submitted together in any order, and an id deleted must
// not be deleted after a batch indexes it again. The batches of notes (each
// id once) then go one per core, analysed by the goroutines that submit
// them, as a rebuild's do. A crash meanwhile leaves the index ahead of the
// catalog for some notes, as a crash between the one batch and the
// catalog's commit did: the catalog commits last, so the next command finds
// the same changes and indexes them again.
func (s *Store) applyDocs(gen string, docs []index.Doc, recs map[string]*index.Record, unread map[string]bool) error {
	if len(docs) == 0 {
		return nil
	}
	b, err := index.OpenGeneration(gen, false)
	if err != nil {
		return err
	}
	lead, parts := docBatches(docs, recs, unread)
	if len(lead) > 0 {
		if err := s.indexWithBodies(b, lead, recs, unread); err != nil {
			_ = b.Close()
			return err
		}
	}
	var g errgroup.Group
	g.SetLimit(runtime.GOMAXPROCS(0))
	for _, part := range parts {
		g.Go(func() error { return s.indexWithBodies(b, part, recs, unread) })
	}
	if err := g.Wait(); err != nil {
		_ = b.Close()
		return err
	}
	return b.Close()
}

// docBatches cuts docs as rebuildBatches cuts a rebuild's documents: the
// deletes that lead them as one batch, lead, the rest in batches, counting
// an unread note at its size on disk and any other at its body's length.
// Without unread notes, or with a delete among the rest, docs are one batch,
// lead.
func docBatches(docs []index.Doc, recs map[string]*index.Record, unread map[string]bool) (lead []index.Doc, parts [][]index.Doc) {
	n := 0
	for n < len(docs) && docs[n].Deleted {
		n++
	}
	lead, rest := docs[:n], docs[n:]
	if len(unread) == 0 || slices.ContainsFunc(rest, func(d index.Doc) bool { return d.Deleted }) {
		return docs, nil
	}
	start, size := 0, int64(0)
	for i, d := range rest {
		var n int64
		if m := d.Memory; m != nil {
			n = int64(len(m.Body))
			if r := recs[m.Path]; unread[m.Path] && r != nil {
				n = r.Size
			}
		}
		if i > start && (i-start >= rebuildBatch || size+n > rebuildBatchBytes) {
			parts = append(parts, rest[start:i])
			start, size = i, 0
		}
		size += n
	}
	if start < len(rest) {
		parts = append(parts, rest[start:])
	}
	return lead, parts
}

// indexWithBodies indexes one batch of docs, the unread notes' bodies read
// again first (rereadBody, as a rebuild's batch does; a note gone since is
// indexed without its body, and its record, which still has the size and
// time first read, has the next command index it afresh).
func (s *Store) indexWithBodies(b *index.Bleve, docs []index.Doc, recs map[string]*index.Record, unread map[string]bool) error {
	full := docs
	if len(unread) > 0 {
		full = make([]index.Doc, len(docs))
		for i, d := range docs {
			full[i] = d
			if d.Deleted || d.Memory == nil || !unread[d.Memory.Path] {
				continue
			}
			body, err := s.rereadBody(d.Memory.Path, recs[d.Memory.Path])
			if err != nil && !errors.Is(err, fs.ErrNotExist) {
				return err
			}
			m := *d.Memory
			m.Body = ""
			if body != nil {
				m.Body = *body
			}
			full[i].Memory = &m
		}
	}
	if s.failIndex != nil {
		if err := s.failIndex(); err != nil {
			return err
		}
	}
	return b.Apply(full)
}

// syncFolder makes the names written in the vault's folder dir durable.
func (s *Store) syncFolder(dir string) error {
	if s.syncDir != nil {
		return s.syncDir(dir)
	}
	return s.v.SyncFolder(dir)
}

// compact folds a long catalog journal into a new base.
func (s *Store) compact(ctx context.Context, st *writeState) (err error) {
	if !st.cat.NeedsCompaction() {
		return nil
	}
	il, err := s.lockIndex(ctx, false)
	if err != nil {
		return err
	}
	defer release(il, &err)
	return st.cat.Write(st.gen, st.dirs, st.observed)
}

// writeMap brings the map of contents up to date after changes (old records
// from cat, new ones in recs; cat does not yet hold them). A few changes are
// spliced into the file as it is; otherwise, or when the file is not as cortex
// left it, the whole map is rendered again.
func (s *Store) writeMap(cat *index.Catalog, recs map[string]*index.Record) error {
	// Changes owed to the map first (see mapOwedFile): the splice below
	// starts from a map that is cat's.
	if err := s.settleMap(cat); err != nil {
		return err
	}
	return s.spliceMap(cat, recs)
}

// spliceMap is writeMap of a map known to be cat's.
func (s *Store) spliceMap(cat *index.Catalog, recs map[string]*index.Record) error {
	if !s.hasFolder() {
		return nil
	}
	if len(recs) > 0 && len(recs) <= spliceMax {
		changes := make([]vault.IndexChange, 0, len(recs))
		for _, p := range slices.Sorted(maps.Keys(recs)) {
			var c vault.IndexChange
			old, err := cat.Get(p)
			if err != nil {
				return err
			}
			if old != nil && old.Broken == "" {
				c.Old = &old.Entry
			}
			if r := recs[p]; r != nil && r.Broken == "" {
				c.New = &r.Entry
			}
			changes = append(changes, c)
		}
		if !slices.ContainsFunc(changes, func(c vault.IndexChange) bool { return c.Old != nil || c.New == nil }) {
			// New notes only (the saves a server's catch-up splices in): the
			// oldest first, so that each goes to the top of its section, as
			// a splice puts a line, rather than below one it must precede.
			slices.SortFunc(changes, func(a, b vault.IndexChange) int {
				if c := a.New.Created.Compare(b.New.Created); c != 0 {
					return c
				}
				return strings.Compare(a.New.ID, b.New.ID)
			})
		}
		if out, ok := s.v.SpliceMap(changes, catalogLookup{cat}); ok {
			return s.v.WriteMap(out, false)
		}
	}
	after := cat.Clone()
	after.Put(recs)
	files, _, err := s.renderMap(after)
	if err != nil {
		return err
	}
	return s.writeIndexFile(files)
}

// renderMap renders every file of the map of contents from cat's readable
// notes, given one at a time (Catalog.EachEntry), and counts them.
func (s *Store) renderMap(cat *index.Catalog) (files []vault.MapFile, notes int, err error) {
	files, err = s.v.RenderMapFrom(func(fn func(*memories.Entry) error) error {
		return cat.EachEntry(func(e *memories.Entry) error {
			notes++
			return fn(e)
		})
	})
	return files, notes, err
}

// hasFolder reports whether the vault's cortex folder exists. The map of
// contents is written only into one that does: a command that only reads
// never creates the folder (nor, through it, a vault), and a folder a person
// deleted is not brought back to hold an empty map. A write creates the
// folder with its first note.
func (s *Store) hasFolder() bool {
	fi, err := os.Stat(s.v.Dir)
	return err == nil && fi.IsDir()
}

// writeIndexFile writes the map of contents when the cortex folder exists.
func (s *Store) writeIndexFile(files []vault.MapFile) error {
	if !s.hasFolder() {
		return nil
	}
	s.mapRenders.Add(1)
	if err := s.v.WriteMap(files, true); err != nil {
		return err
	}
	// The whole map is written: nothing is owed to it (see mapOwedFile).
	s.owedMap = owedMap{}
	if err := os.Remove(s.mapOwed()); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// catalogLookup finds the readable notes of a catalog for the map of
// contents (vault.IndexLookup).
type catalogLookup struct{ cat *index.Catalog }

func (l catalogLookup) ByPath(p string) (*memories.Entry, error) {
	r, err := l.cat.Get(p)
	if err != nil || r == nil || r.Broken != "" {
		return nil, err
	}
	return &r.Entry, nil
}

func (l catalogLookup) ByID(id string) (*memories.Entry, error) {
	r, err := l.cat.ByID(id)
	if err != nil || r == nil || r.Broken != "" {
		return nil, err
	}
	return &r.Entry, nil
}

// spliceMax is the most changes spliced into the map of contents; more are
// rendered afresh.
const spliceMax = 16

// rebuildFor rebuilds the index because of why, a load error, and says so in
// the report.
func (s *Store) rebuildFor(ctx context.Context, why error) (*writeState, error) {
	st, err := s.rebuild(ctx)
	if err != nil {
		return nil, err
	}
	if errors.Is(why, index.ErrNoCatalog) {
		st.report.Reason = "there was no index of this vault yet"
	} else {
		st.report.Reason = why.Error()
	}
	return st, nil
}

// rebuild indexes the whole vault into a new generation and publishes it. The
// caller holds the write lock and closes the state's catalog.
func (s *Store) rebuild(ctx context.Context) (st *writeState, err error) {
	observed := s.now()
	scan, err := s.v.Scan(vault.NoKnown{}, vault.ScanOptions{StatNotes: true})
	if err != nil {
		return nil, err
	}
	defer rebuildGC(len(scan.Changed))()
	if applyHook != nil {
		applyHook()
	}
	s.report(scan)
	if err := s.v.CleanTemps(scan.Temps); err != nil {
		s.warn(fmt.Sprintf("could not remove leftover temporary files: %v", err))
	}
	oldBroken := map[string]string{}
	if _, oldCat, err := s.load(); err == nil {
		_ = oldCat.Records(func(r *index.Record) error {
			if r.Broken != "" {
				oldBroken[r.Path] = r.Broken
			}
			return nil
		})
		_ = oldCat.Close()
	}
	gen, b, err := s.idx.NewGeneration(observed)
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			_ = os.RemoveAll(gen)
		}
	}()
	recs, mems, bodies, err := s.readAll(scan.Changed, rebuildKeptBodies)
	if err != nil {
		_ = b.Close()
		return nil, err
	}
	cat := index.NewCatalog(index.Schema)
	ch := newChangeSet(cat)
	rep := &SyncReport{Full: true}
	for i, r := range recs {
		if r.Broken != "" && oldBroken[r.Path] != r.Broken {
			rep.Broken = append(rep.Broken, r.Broken)
			s.warn(r.Broken + brokenWarning)
		}
		ch.put(r, mems[i])
	}
	if err := ch.settleIDs(s.readNote); err != nil {
		_ = b.Close()
		return nil, err
	}
	docs, changes, err := ch.result()
	if err != nil {
		_ = b.Close()
		return nil, err
	}
	// Batches are analysed and turned into segments by the goroutine that
	// submits them, so two at a time keep both cores of a small machine busy.
	// Their segments are merged in groups meanwhile (MergeWhileBuilding).
	parts := rebuildBatches(pendingDocs(docs, changes, bodies), runtime.GOMAXPROCS(0))
	bodies = nil // each is held by its pending document alone, until indexed
	maxDocs := 0
	for _, part := range parts {
		maxDocs = max(maxDocs, len(part))
	}
	mctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var merger *index.BuildMerger
	if !closeMergesBuild {
		merger = b.MergeWhileBuilding(mctx, len(parts), maxDocs)
	}
	var g errgroup.Group
	g.SetLimit(runtime.GOMAXPROCS(0))
	var stopped error
	for _, part := range parts {
		if stopped = ctx.Err(); stopped != nil {
			break
		}
		g.Go(func() error {
			if err := s.indexBatch(b, part); err != nil {
				return err
			}
			merger.Built()
			return nil
		})
	}
	// Every batch started, and every merge, is waited for before the
	// builder is closed; a cancellation is the error to report, else the
	// first batch's failure.
	if err := g.Wait(); stopped != nil || err != nil {
		cancel()
		_ = merger.Finish()
		_ = b.Close()
		return nil, cmp.Or(stopped, err)
	}
	if err := merger.Finish(); err != nil {
		_ = b.Close()
		return nil, err
	}
	if err := b.Close(); err != nil {
		return nil, err
	}
	cat.Put(changes)
	if err := cat.Write(gen, scan.Dirs, observed); err != nil {
		return nil, err
	}
	il, err := s.lockIndex(ctx, false)
	if err != nil {
		_ = cat.Close()
		return nil, err
	}
	err = s.idx.Publish(gen)
	release(il, &err)
	var files []vault.MapFile
	var notes int
	if err == nil {
		files, notes, err = s.renderMap(cat)
	}
	if err != nil {
		_ = cat.Close()
		return nil, err
	}
	if err := s.writeIndexFile(files); err != nil {
		s.warn(fmt.Sprintf("map of contents not updated: %v", err))
	}
	s.markChecked(filepath.Join(gen, checkedFile), observed)
	s.removeLegacy()
	rep.Added = len(recs)
	rep.Notes = notes
	return &writeState{gen: gen, cat: cat, dirs: scan.Dirs, observed: observed, report: rep}, nil
}

// rebuildHeapLimitFor is the heap limit of a rebuild, or of applying a bulk
// change, of notes notes: rebuildHeapLimit up to rebuildRoomFrom notes,
// rebuildHeapRoom more from rebuildRoomNotes, and in proportion between.
// What a rebuild holds live is bounded by its batches in flight, about the
// same at 10,000 notes and at 100,000 (200–270 MB), but a large vault's
// rebuild makes garbage for longer, and spends most of its time at the
// limit, where each collection frees only the room between the limit and
// what is live. On the real-shaped 100,000 notes the base limit meant 77–79
// collections, and 128 MB more 54–56; over six alternated pairs the rebuild
// took about 5% less time (32.8 against 31.0 s on average, 57.8 against
// 55.0 s of CPU), its peak RSS 573–586 MB against 710–722 MB. At 10,000
// notes the same room saved one collection of ten, so a vault of that size
// keeps the base limit, and its rebuild the peak that goes with it. The
// limit is bounded whatever the size of the vault:
// rebuildHeapLimit+rebuildHeapRoom.
func rebuildHeapLimitFor(notes int) int64 {
	from := min(rebuildRoomFrom, rebuildRoomNotes-1)
	n := int64(min(max(notes-from, 0), rebuildRoomNotes-from))
	return rebuildHeapLimit + rebuildHeapRoom*n/int64(rebuildRoomNotes-from)
}

// rebuildGC sets the garbage collector for a rebuild of notes notes
// (rebuildGCPercent, rebuildHeapLimitFor) and returns what puts the settings
// back. Settings the person chose with GOGC or GOMEMLIMIT are left alone.
// The settings are the process's: rebuilds of several vaults in one process
// share them, under the highest limit of those running, and the last to
// finish puts back what was there before the first began.
func rebuildGC(notes int) (restore func()) {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return func() {}
	}
	gcTuning.Lock()
	defer gcTuning.Unlock()
	limit := rebuildHeapLimitFor(notes)
	if gcTuning.n == 0 {
		gcTuning.limit = debug.SetMemoryLimit(limit)
		gcTuning.percent = debug.SetGCPercent(rebuildGCPercent)
	} else if limit > debug.SetMemoryLimit(-1) {
		debug.SetMemoryLimit(limit)
	}
	gcTuning.n++
	return func() {
		gcTuning.Lock()
		defer gcTuning.Unlock()
		if gcTuning.n--; gcTuning.n == 0 {
			debug.SetGCPercent(gcTuning.percent)
			debug.SetMemoryLimit(gcTuning.limit)
		}
	}
}

// boundedGC caps the heap at rebuildHeapLimit, for a long-lived process
// (the MCP server) making the word indexes of a large project with its
// own GOGC: with no limit its heap grew to twice what the making held, 0.95–
// 1.1 GB on a real-shaped 100,000-note project. The GOGC is kept (a
// rebuild's would let the heap grow to four times what it holds). The
// server's own limit, lower (wiring.ServerGC), is raised to it meanwhile:
// the making holds more than the server's budget, and under that limit
// would collect without pause. A rebuild's limit, or the person's GOGC or
// GOMEMLIMIT, is left alone. It returns what puts the limit back.
func boundedGC() (restore func()) {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return func() {}
	}
	gcTuning.Lock()
	defer gcTuning.Unlock()
	prev := debug.SetMemoryLimit(-1)
	if gcTuning.n > 0 || prev == rebuildHeapLimit {
		return func() {} // within a rebuild's limit, or another making's
	}
	debug.SetMemoryLimit(rebuildHeapLimit)
	return func() {
		gcTuning.Lock()
		defer gcTuning.Unlock()
		if debug.SetMemoryLimit(-1) == rebuildHeapLimit {
			debug.SetMemoryLimit(prev)
		}
	}
}

// bulkChanges is the number of changed notes from which applying them
// collects garbage as a rebuild does (rebuildGC).
const bulkChanges = 500

// applyHook, when set (by tests), runs as apply, a rebuild's reading of the
// notes, or the making of every note's word set, begins its work.
var applyHook func()

// gcTuning counts the rebuilds running in this process and keeps the
// collector's settings from before the first.
var gcTuning struct {
	sync.Mutex
	n       int
	percent int
	limit   int64
}

// pendingDoc is a document of a rebuild as it waits for its batch: the
// note's catalog record, which holds every property the index reads but
// one, and that one, the note's source fingerprint. Its memory is made
// again when its batch is indexed (memoryOf): a memory, even without its
// body, is about three times its record (links, provenance, every
// property), and at 100,000 notes the memories held for the whole rebuild
// were a third of what it held besides its batches (60 of 180 MB), marked
// again by every collection.
type pendingDoc struct {
	id         string
	deleted    bool
	rec        *index.Record // nil when deleted
	sourceHash string
	// body is the note's body from the read its record was made from,
	// when it was kept (rebuildKeptBodies); nil when the note is read
	// again as its batch is indexed.
	body *string
}

// pendingDocs is docs, the rebuild's Bleve operations, as pendingDocs; recs
// are the notes' records by path, and bodies the bodies kept from the first
// read, by path.
func pendingDocs(docs []index.Doc, recs map[string]*index.Record, bodies map[string]*string) []pendingDoc {
	out := make([]pendingDoc, len(docs))
	for i, d := range docs {
		out[i] = pendingDoc{id: d.ID, deleted: d.Deleted || d.Memory == nil}
		if !out[i].deleted {
			out[i].rec = recs[d.Memory.Path]
			out[i].sourceHash = d.Memory.Provenance.SourceHash
			out[i].body = bodies[d.Memory.Path]
		}
	}
	return out
}

// memoryOf is the memory the index is given for a pending document: its
// record's properties and source fingerprint, with body.
func memoryOf(d pendingDoc, body string) *memories.Memory {
	e := d.rec.Entry
	return &memories.Memory{
		ID: e.ID, Path: e.Path, Title: e.Title, Type: e.Type, Project: e.Project, Area: e.Area,
		Tags: e.Tags, Source: e.Source, Status: e.Status, Importance: e.Importance,
		Created: e.Created, Updated: e.Updated, SupersededBy: e.SupersededBy,
		Provenance: memories.Provenance{SourceHash: d.sourceHash}, Body: body,
	}
}

// rebuildBatches cuts a rebuild's documents into batches of at most
// rebuildBatch notes and, beyond the first note of each, rebuildBatchBytes
// of the notes' sizes on disk. The batches are built procs at a time; when
// their count is not a multiple of procs, the last ones ran with cores idle
// (at 10,000 real notes, the ninth batch's segment was built on one core of
// two), so they are cut again into the next multiple of procs, of about
// equal bytes, when those stay within both bounds.
func rebuildBatches(docs []pendingDoc, procs int) [][]pendingDoc {
	out := cutBatches(docs, rebuildBatch, rebuildBatchBytes)
	if procs < 2 || len(out) < 2 || len(out)%procs == 0 {
		return out
	}
	k := (len(out)/procs + 1) * procs
	if k > len(docs) {
		return out
	}
	var total int64
	for _, d := range docs {
		total += pendingSize(d)
	}
	// The j-th batch ends where the notes' bytes so far first reach j
	// k-ths of the total: each batch holds about total/k bytes.
	even := make([][]pendingDoc, 0, k)
	start, sum := 0, int64(0)
	for i, d := range docs {
		sum += pendingSize(d)
		if j := int64(len(even) + 1); j < int64(k) && sum*int64(k) >= j*total {
			even = append(even, docs[start:i+1])
			start = i + 1
		}
	}
	if start < len(docs) {
		even = append(even, docs[start:])
	}
	if len(even) != k {
		return out
	}
	for _, b := range even {
		var size int64
		for _, d := range b[1:] {
			size += pendingSize(d)
		}
		if len(b) > rebuildBatch || size+pendingSize(b[0]) > rebuildBatchBytes && len(b) > 1 {
			return out
		}
	}
	return even
}

// cutBatches cuts docs in order into batches of at most most notes and,
// beyond the first note of each, bytes of the notes' sizes on disk.
func cutBatches(docs []pendingDoc, most int, bytes int64) [][]pendingDoc {
	var out [][]pendingDoc
	start, size := 0, int64(0)
	for i, d := range docs {
		n := pendingSize(d)
		if i > start && (i-start >= most || size+n > bytes) {
			out = append(out, docs[start:i])
			start, size = i, 0
		}
		size += n
	}
	if start < len(docs) {
		out = append(out, docs[start:])
	}
	return out
}

// pendingSize is a pending document's note's size on disk, 0 for a delete.
func pendingSize(d pendingDoc) int64 {
	if d.rec == nil {
		return 0
	}
	return d.rec.Size
}

// indexBatch indexes a rebuild batch's notes, with the bodies kept from
// their first read or, for the others, read again. A note whose bytes are
// still those its record was made from is not parsed again: its body is cut
// from the bytes as the parser cuts it, which saves decoding every note's
// properties twice. A note changed or removed since the scan is indexed as
// read now (or without its body when it is gone or cannot be read), with
// the properties first read: its catalog record still has the scan's size
// and time, so the next command's check indexes it afresh. The kept bodies
// are let go once the batch is indexed.
func (s *Store) indexBatch(b *index.Bleve, docs []pendingDoc) error {
	full := make([]index.Doc, len(docs))
	for i, d := range docs {
		if d.deleted {
			full[i] = index.Doc{ID: d.id, Deleted: true}
			continue
		}
		body := d.body
		if body == nil {
			var err error
			body, err = s.rereadBody(d.rec.Path, d.rec)
			if err != nil && !errors.Is(err, fs.ErrNotExist) {
				return err
			}
		}
		var text string
		if body != nil {
			text = *body
		}
		full[i] = index.Doc{ID: d.id, Memory: memoryOf(d, text)}
	}
	err := b.Apply(full)
	for i := range docs {
		docs[i].body = nil
	}
	return err
}

// rereadBody is the body of the note at path as read now, nil when it can no
// longer be read as a memory. rec is the note's record from the first read.
func (s *Store) rereadBody(path string, rec *index.Record) (*string, error) {
	s.noteReads.Add(1)
	data, st, err := s.v.ReadRaw(path)
	if err == nil && rec != nil && st.Size == rec.Size && hash(data) == rec.Hash {
		if body, ok := vault.NoteBody(data); ok {
			text := string(body)
			return &text, nil
		}
	}
	_, m, err := s.readNote(vault.FileStat{Path: path})
	if err != nil || m == nil {
		return nil, err
	}
	return &m.Body, nil
}

// noteReaders is how many notes readAll reads at once: more than the
// cores, since a read waits for the disk when the notes are not in the page
// cache (the first rebuild after a boot), and a core is idle meanwhile. At
// 100,000 real-shaped notes, the reading took 10.7–10.9 s from a cold cache
// with one reader a core (2) and 8.4 s with 32; from a warm cache, 2.6–3.2
// s and 2.1–2.5 s (the reads' system calls wait too). A reader holds one
// note.
func noteReaders() int { return max(32, runtime.GOMAXPROCS(0)) }

// readAll reads every note in parallel, in scan order, and gives their
// memories without their bodies, and the bodies of the first notes, by
// path, as long as their files' sizes stay within keep bytes. The bodies
// are the bulk of a vault: beyond keep they are not held while the ids are
// settled but read again, batch by batch, as each is indexed. Each is let
// go as soon as its note is read: held until every note was, a vault of
// 100,000 documentation-length notes kept about 350 MB of them (480 MB live
// at the end of the reading, 180 MB now), near the rebuild's heap limit,
// where the collector runs without pause.
func (s *Store) readAll(files []vault.FileStat, keep int64) ([]*index.Record, []*memories.Memory, map[string]*string, error) {
	recs := make([]*index.Record, len(files))
	mems := make([]*memories.Memory, len(files))
	kept := make([]*string, len(files))
	errs := make([]error, len(files))
	// The notes whose bodies are kept are the first in scan order (path
	// order, the rebuild's batches' order), by their sizes at the scan.
	keepN, size := 0, int64(0)
	for keep > 0 && keepN < len(files) && size+files[keepN].Size <= keep {
		size += files[keepN].Size
		keepN++
	}
	var g errgroup.Group
	g.SetLimit(noteReaders())
	for i := range files {
		g.Go(func() error {
			recs[i], mems[i], errs[i] = s.readNote(files[i])
			if mems[i] != nil {
				if i < keepN {
					body := mems[i].Body
					kept[i] = &body
				}
				mems[i].Body = ""
			}
			return nil
		})
	}
	_ = g.Wait() // the errors are taken in file order below
	outR, outM := recs[:0], mems[:0]
	var bodies map[string]*string
	if keepN > 0 {
		bodies = make(map[string]*string, keepN)
	}
	for i := range files {
		if errors.Is(errs[i], fs.ErrNotExist) {
			continue // deleted since the scan
		}
		if errs[i] != nil {
			return nil, nil, nil, errs[i]
		}
		outR, outM = append(outR, recs[i]), append(outM, mems[i])
		if kept[i] != nil {
			bodies[files[i].Path] = kept[i]
		}
	}
	return outR, outM, bodies, nil
}

// CompactLimit is how many journal records a catalog of notes notes keeps
// before a write compacts it into a new base (index.CompactLimit).
func CompactLimit(notes int) int { return index.CompactLimit(notes) }
