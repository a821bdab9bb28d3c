package store

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"maps"
	"math"

	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"sync"
	"sync/atomic"
	"unsafe"

	"golang.org/x/sync/errgroup"

	"github.com/cortexmem/cortex/atomicfile"
	"github.com/cortexmem/cortex/dedup"
	"github.com/cortexmem/cortex/index"
	"github.com/cortexmem/cortex/memories"
	"github.com/cortexmem/cortex/vault"
)

// Word sets of the notes, for the duplicate check.
//
// A save is compared with every memory of its project and general
// (memories' wordOverlapper), which needs each one's dedup word set.
// Reading and fingerprinting thousands of notes per save would cost more
// than the index search it replaces, so the word sets are kept, per
// project, in files of the vault's state folder:
//   - <project>.words: each note's path, the hash of the bytes its word set
//     was made from (the catalog record's Hash), the set and the note's
//     keys (its numbers and code tokens, dedup.Keys), for the notes of the
//     catalog's base;
//   - <project>.recent: the same, for notes changed since the base was
//     written (appended to by the saves that read them);
//   - <project>.index: the word index a save reads (wordindex.go): for each
//     word, the project's memories that have it, by base number.
//
// A set is used only while the catalog says the note still has those
// bytes; any other note is read and its set added. The files are a cache:
// never fsynced, a torn or foreign tail is dropped, a damaged index is made
// again, and files written by a cortex whose fingerprints differ (see
// wordsProbe) are ignored and rewritten.

// wordsHeader starts a word-set file, then the probe's hash (8 bytes).
// Version 1 files held no keys: they are of another header, read as empty
// and rewritten.
const wordsHeader = "cortex dedup words 2\n"

// wordsProbe is a text whose word set changes when the fingerprint's words
// do (stemming, synonyms, stop words, Chinese and Japanese pairs): a file
// made by a build that fingerprints otherwise has another probe hash.
const wordsProbe = "Caching the DB configs: we don't retry auth tokens on repos; " +
	"environments 2024 k8s RS256 running runs ran über naïve 数据库连接 データベース"

// probeBytes is probeHash as the file holds it.
func probeBytes() []byte { return binary.LittleEndian.AppendUint64(nil, probeHash()) }

var probeHash = sync.OnceValue(func() uint64 {
	var b []byte
	for _, w := range dedup.New(wordsProbe).Words() {
		b = binary.LittleEndian.AppendUint64(b, w)
	}
	return uint64(crc32.ChecksumIEEE(b))<<32 | uint64(len(b))
})

// wordEntry is one note's word set and keys, made from bytes with this
// hash.
type wordEntry struct {
	hash  uint64
	words []uint64
	keys  dedup.Keys
}

// wordFile is one project's word sets as its file holds them.
type wordFile struct {
	m map[string]wordEntry
	// records is how many records the file holds (repeats of a path
	// included), and size the bytes of its valid part; a file whose
	// valid part is not the whole is rewritten, not appended to.
	records int
	size    int64
	torn    bool
}

func (s *Store) wordsPath(project string) string {
	return filepath.Join(s.vstate.Dir, "dedup-words", url.PathEscape(project)+".words")
}

// recentPath is project's file of the word sets of notes changed since the
// catalog's base was written, kept as wordsPath's.
func (s *Store) recentPath(project string) string {
	return filepath.Join(s.vstate.Dir, "dedup-words", url.PathEscape(project)+".recent")
}

// wordIndexPath is project's word index (wordindex.go).
func (s *Store) wordIndexPath(project string) string {
	return filepath.Join(s.vstate.Dir, "dedup-words", url.PathEscape(project)+".index")
}

// overlapRefs resolves the Refs WordOverlaps gives: a base number (0 and
// up), whose entry the catalog's base decodes, or -k for the k-th of the
// extras (memories compared one by one), whose entries are kept.
type overlapRefs struct {
	cat    *index.Catalog
	extras []memories.Entry
	// keys are the keys the word indexes keep of some of the base's
	// memories (the possible duplicates), by base number: where in hashes
	// they were copied.
	keys   map[int]keySpan
	hashes []uint64
}

// keySpan is a memory's keys in overlapRefs.hashes: numbers [from, mid),
// code tokens [mid, to), made from bytes with hash.
type keySpan struct {
	hash          uint64
	from, mid, to int
}

// addKeys copies the keys of memory s of ix, base number ref, out of the
// index (whose bytes are released once WordOverlaps returns); a memory
// whose keys do not read (keysRead) has none.
func (r *overlapRefs) addKeys(ix *wordIndex, s, ref int) {
	if !ix.keysRead(s) {
		return
	}
	at := ix.keyStrt + 8*s
	from, mid, to := le32(ix.data, at), le32(ix.data, at+4), le32(ix.data, at+8)
	start := len(r.hashes)
	for p := from; p < to; p++ {
		r.hashes = append(r.hashes, ix.key(le32(ix.data, ix.refsAt+4*p)))
	}
	if r.keys == nil {
		r.keys = map[int]keySpan{}
	}
	r.keys[ref] = keySpan{hash: ix.hash(s), from: start, mid: start + mid - from, to: start + to - from}
}

// known is the keys of memory ref as its word index keeps them, nil when
// they were not copied out (WordOverlaps.Keys). It is asked once
// WordOverlaps has returned, when hashes grows no more.
func (r *overlapRefs) known(ref int) *memories.KnownKeys {
	sp, ok := r.keys[ref]
	if !ok {
		return nil
	}
	k, ok := dedup.KeysFrom(r.hashes[sp.from:sp.mid:sp.mid], r.hashes[sp.mid:sp.to:sp.to])
	if !ok {
		return nil
	}
	return &memories.KnownKeys{Keys: k, Hash: sp.hash}
}

func (r *overlapRefs) entry(ref int) (memories.Entry, error) {
	if ref < 0 {
		if k := -ref - 1; k < len(r.extras) {
			return r.extras[k], nil
		}
		return memories.Entry{}, fmt.Errorf("word overlaps: no memory %d", ref)
	}
	e, _, err := r.cat.BaseEntry(ref)
	return e, err
}

// WordOverlaps counts, for every readable memory of projects that is not
// superseded and is not except, how many of words its word set (build of
// its title and body) holds (memories' wordOverlapper); a memory that holds
// none may be left out.
//
// Most of a project's memories are counted from its word index, made for
// the catalog's base (wordindex.go): the words' lists of memories are walked,
// and no memory's set is read or merged. The memories the journal changed
// since, and any whose note did not have the base's bytes when the index
// was made, are compared one by one, from the sets kept in the project's
// recent file while their notes keep their bytes. A project whose index is
// missing, damaged or made for another base gets it made again first.
func (sn *snapshot) WordOverlaps(ctx context.Context, projects []string, words []uint64, except string, build func(title, body string) ([]uint64, dedup.Keys)) (memories.WordOverlaps, error) {
	return sn.wordOverlaps(ctx, projects, words, except, build, nil)
}

// NearWordOverlaps is WordOverlaps less memories of the word indexes
// proven unable to matter to a duplicate check (near; memories'
// nearOverlapper): the lists of the new memory's commonest words are not
// walked whole (wordIndex.countNear).
func (sn *snapshot) NearWordOverlaps(ctx context.Context, projects []string, words []uint64, except string, build func(title, body string) ([]uint64, dedup.Keys), near memories.NearWords) (memories.WordOverlaps, error) {
	return sn.wordOverlaps(ctx, projects, words, except, build, &near)
}

// wordOverlaps is WordOverlaps, or NearWordOverlaps when near is not nil.
func (sn *snapshot) wordOverlaps(ctx context.Context, projects []string, words []uint64, except string, build func(title, body string) ([]uint64, dedup.Keys), near *memories.NearWords) (memories.WordOverlaps, error) {
	cat := sn.cat
	refs := &overlapRefs{cat: cat}
	out := memories.WordOverlaps{Entry: refs.entry, Keys: refs.known}
	var uniq []string
	for _, p := range projects {
		if !slices.Contains(uniq, p) {
			uniq = append(uniq, p)
		}
	}
	ixs, release, err := sn.wordIndexes(ctx, uniq, build)
	if err != nil {
		return out, err
	}
	// The indexes' bytes are only read here: what is returned refers to
	// memories by base number, resolved through the catalog.
	defer release()
	exceptPath, exceptBase := "", -1
	if except != "" {
		r, err := cat.ByID(except)
		if err != nil {
			return out, fmt.Errorf("word overlaps: %w", err)
		}
		if r != nil {
			exceptPath, exceptBase = r.Path, cat.BaseIndex(r.Path)
		}
	}
	shadowed := cat.Shadowed()
	isShadowed := func(i int) bool { _, ok := slices.BinarySearch(shadowed, i); return ok }
	// The extras of every project (the memories compared one by one) are
	// counted on another core while the word indexes' lists are walked
	// here: neither needs the other, and with the journal of a hundred
	// saves since the base, the extras were a fifth of the check. The
	// index walk reads nothing of the catalog (the shadowed memories are
	// listed above), so the two share only what neither writes; what each
	// finds is joined below in the order it was found before: each
	// project's memories of the index, then its extras.
	extras := make([][]extraOverlap, len(uniq))
	extrasDone := make(chan error, 1)
	go func() {
		extrasDone <- sn.extraOverlaps(ctx, uniq, ixs, words, exceptPath, exceptBase, isShadowed, build, extras)
	}()
	byIndex := make([][]memories.WordOverlap, len(uniq))
	var counts []uint32
	floor := math.Inf(-1)
	for k := range uniq {
		ix := ixs[k]
		counts = slices.Grow(counts[:0], ix.nSets)[:ix.nSets]
		clear(counts)
		if near != nil {
			skip := func(s int) bool { i, _ := ix.set(s); return i == exceptBase || isShadowed(i) }
			for _, s := range ix.countNear(words, counts, *near, skip, &floor) {
				i, n := ix.set(s)
				byIndex[k] = append(byIndex[k], memories.WordOverlap{Ref: i, Common: int(counts[s]), Len: n})
				// The keys of the possible duplicates, copied out of the
				// index (whose bytes are released on return).
				if w, _ := dedup.OverlapOf(len(words), int(counts[s]), n); near.Keys && w >= near.Duplicate {
					refs.addKeys(ix, s, i)
				}
			}
		} else {
			ix.count(words, counts)
			for s, c := range counts {
				if c == 0 {
					continue
				}
				i, n := ix.set(s)
				if i == exceptBase || isShadowed(i) {
					continue
				}
				byIndex[k] = append(byIndex[k], memories.WordOverlap{Ref: i, Common: int(c), Len: n})
			}
		}
	}
	if err := <-extrasDone; err != nil {
		return out, err
	}
	for k := range uniq {
		out.All = append(out.All, byIndex[k]...)
		for _, x := range extras[k] {
			refs.extras = append(refs.extras, x.e)
			out.All = append(out.All, memories.WordOverlap{Ref: -len(refs.extras), Common: x.common, Len: x.len})
		}
	}
	return out, nil
}

// extraOverlap is a memory compared one by one with the new memory's words
// (wordOverlaps' extras): its entry, how many of the words its set holds,
// and its set's size.
type extraOverlap struct {
	e           memories.Entry
	common, len int
}

// extraOverlaps finds, for each of projects (whose word indexes are ixs),
// the memories that the index does not count and that share a word with
// words, into out: the notes the journal added or replaced since the base,
// and those the index could not hold, but the one at exceptPath (base
// number exceptBase) and the shadowed ones. Their sets come from the
// project's recent file while their notes keep the bytes it was made from,
// else from the notes, and are then kept in that file.
func (sn *snapshot) extraOverlaps(ctx context.Context, projects []string, ixs []*wordIndex, words []uint64, exceptPath string, exceptBase int, isShadowed func(int) bool, build func(title, body string) ([]uint64, dedup.Keys), out [][]extraOverlap) error {
	cat := sn.cat
	for k, p := range projects {
		ix := ixs[k]
		var extras []memories.Entry
		var hashes []uint64
		err := cat.OverlayEntriesWhere(func(project, _, _ string) bool { return project == p }, func(e *memories.Entry, h uint64) error {
			if e.Status != memories.StatusSuperseded && e.Path != exceptPath {
				extras, hashes = append(extras, *e), append(hashes, h)
			}
			return nil
		})
		if err != nil {
			return fmt.Errorf("word overlaps: %w", err)
		}
		for _, i := range ix.staleList() {
			if i == exceptBase || isShadowed(i) {
				continue
			}
			e, h, err := cat.BaseEntry(i)
			if err != nil {
				return fmt.Errorf("word overlaps: %w", err)
			}
			extras, hashes = append(extras, e), append(hashes, h)
		}
		if len(extras) == 0 {
			continue
		}
		rc := sn.s.recent.read(sn.s.recentPath(p))
		var added []string
		for j := range extras {
			e := &extras[j]
			ws := rc.m[e.Path].words
			if we, ok := rc.m[e.Path]; !ok || we.hash != hashes[j] {
				var cached bool
				var ks dedup.Keys
				ws, ks, cached, err = sn.noteWords(ctx, e.Path, e.Title, hashes[j], build)
				if errors.Is(err, fs.ErrNotExist) {
					continue
				}
				if err != nil {
					return err
				}
				if cached {
					rc.m[e.Path] = wordEntry{hash: hashes[j], words: ws, keys: ks}
					added = append(added, e.Path)
				}
			}
			if c := dedup.Intersect(words, ws); c > 0 {
				out[k] = append(out[k], extraOverlap{e: *e, common: c, len: len(ws)})
			}
		}
		if len(added) > 0 || rc.torn {
			// The cache only spares work: a file that cannot be written
			// leaves the next save to read those notes again.
			if err := sn.s.saveWords(sn.s.recentPath(p), rc, added, nil); err != nil {
				sn.s.recent.drop(sn.s.recentPath(p))
				sn.s.warn(fmt.Sprintf("could not keep the duplicate check's word sets: %v", err))
			} else {
				sn.s.recent.wrote(sn.s.recentPath(p), rc)
			}
		}
	}
	return nil
}

var _ memories.CheckPreparer = (*Store)(nil)

// PrepareWordOverlaps makes the word index of every project of the
// catalog's base that has none made for that base (see wordIndexes), under
// the write lock, as a save would: the first save after a rebuild, or after
// a compaction that a command in another process made, then finds them made
// (memories.CheckPreparer). A project whose index is current costs the
// read of its index, whose pages are then let go (keptIndexes.dropResident).
// The indexes made are written, not held; once the lock
// is released, the memory that making them took is given back to the
// system (returnMemory): the process that prepares is a server that lives
// on with a heap a fraction of the one the making needed.
func (s *Store) PrepareWordOverlaps(ctx context.Context, build func(title, body string) ([]uint64, dedup.Keys)) error {
	made, err := s.prepareWordOverlaps(ctx, build)
	s.words.dropResident()
	if made {
		returnMemory()
	}
	return err
}

// returnMemory collects the garbage and gives back to the system the
// memory the heap no longer uses (debug.FreeOSMemory): after the word
// indexes of a vault were made, the collector's target stays twice the
// heap the making held, and the pages of its garbage stay resident, until
// the next collections. Tests count the calls.
var returnMemory = debug.FreeOSMemory

// prepareWordOverlaps is PrepareWordOverlaps under the write lock, and
// whether it made any index.
func (s *Store) prepareWordOverlaps(ctx context.Context, build func(title, body string) ([]uint64, dedup.Keys)) (made bool, err error) {
	wl, err := s.lockWrite(ctx)
	if err != nil {
		return false, err
	}
	defer release(wl, &err)
	// Not lazy: the changes found are indexed before the making, which
	// holds the lock for seconds (18 s at 100,000 real-shaped notes). Left
	// owed, every recall meanwhile waited for the lock to catch them up.
	st, err := s.begin(ctx, false, false)
	if err != nil {
		return false, err
	}
	defer s.keepWritten(st, &err)
	sn := &snapshot{s: s, cat: st.cat.Clone(), gen: st.gen, needLock: true}
	defer sn.close(&err)
	// Listed without loading the catalog's metadata, which the catalog
	// would hold for as long as the server keeps it (BaseProjects).
	projects, err := sn.cat.BaseProjects()
	if err != nil {
		return false, fmt.Errorf("prepare the duplicate check: %w", err)
	}
	if i, found := slices.BinarySearch(projects, memories.DefaultProject); !found { // every check reads it
		projects = slices.Insert(projects, i, memories.DefaultProject)
	}
	out, stale, prev, done := sn.readWordIndexes(projects)
	defer done()
	if len(stale) == 0 {
		return false, nil
	}
	held := sn.cat.HoldsMetadata()
	if err := sn.makeWordIndexes(ctx, projects, out, stale, prev, false, nil, build); err != nil {
		return true, fmt.Errorf("prepare the duplicate check: %w", err)
	}
	if !held {
		// Making them read the whole section (BaseEntriesWhere); the
		// server keeps this catalog for hours and would hold it.
		sn.cat.DropMetadata()
	}
	return true, nil
}

// wordIndexes reads the word index of each of projects, making again
// (makeWordIndex) those that are missing, damaged, or made for another
// base of the catalog. A project is made from the sets its files keep and
// from its notes, holding its sets alone: the first save into a project
// reads its notes (and general's), not the vault's. The indexes read are
// mapped into memory until release is called (a resident store keeps them
// mapped while their files are unchanged: keptIndexes).
func (sn *snapshot) wordIndexes(ctx context.Context, projects []string, build func(title, body string) ([]uint64, dedup.Keys)) (_ []*wordIndex, release func(), _ error) {
	out, stale, prev, release := sn.readWordIndexes(projects)
	if len(stale) == 0 {
		return out, release, nil
	}
	var made []func()
	read := release
	releaseAll := func() {
		for _, r := range made {
			r()
		}
		read()
	}
	if err := sn.makeWordIndexes(ctx, projects, out, stale, prev, true, &made, build); err != nil {
		releaseAll()
		return nil, nil, err
	}
	return out, releaseAll, nil
}

// readWordIndexes reads the word index of each of projects into out: the
// places in projects of those missing, damaged or made for another base
// are stale, and prev has the index each of those had for another base
// (before a compaction or a rebuild), nil when none. What was read stays
// mapped until release is called.
func (sn *snapshot) readWordIndexes(projects []string) (out []*wordIndex, stale []int, prev []*wordIndex, release func()) {
	base, baseLen := sn.cat.BaseID(), sn.cat.BaseLen()
	out = make([]*wordIndex, len(projects))
	prev = make([]*wordIndex, len(projects))
	var releases []func()
	release = func() {
		for _, r := range releases {
			r()
		}
	}
	for k, p := range projects {
		if ix, done, ok := sn.s.words.read(sn.s.wordIndexPath(p)); ok {
			releases = append(releases, done)
			if ix.base == base && ix.fitsBase(sn.cat.BaseToken(), baseLen, sn.cat.BaseHash) {
				out[k] = ix
				continue
			}
			prev[k] = ix
		}
		stale = append(stale, k)
	}
	return out, stale, prev, release
}

// makeWordIndexes makes again the word indexes of projects whose places
// are stale (see wordIndexes), from the index each had before (prev, nil
// when none) where it can; into out when hold is set, with the release of
// each one mapped from its file added to releases, else only written
// (PrepareWordOverlaps: each index made is then garbage once written, not
// held while the next ones are made).
func (sn *snapshot) makeWordIndexes(ctx context.Context, projects []string, out []*wordIndex, stale []int, prev []*wordIndex, hold bool, releases *[]func(), build func(title, body string) ([]uint64, dedup.Keys)) error {
	base, baseLen := sn.cat.BaseID(), sn.cat.BaseLen()
	// Many notes may be read and their sets held: a heap like a
	// rebuild's, collected as a rebuild's is (a save runs with the
	// collector off up to a small limit, above which it would collect
	// without pause). A resident store keeps its process's collector
	// (the MCP server's, wiring.ServerGC): a rebuild's lets the heap grow
	// to four times what it holds, and the server made the indexes of
	// 100,000 notes with a heap past its memory budget. It only gets the
	// rebuild's memory limit (boundedGC).
	if sn.s.res == nil {
		defer rebuildGC(0)() // the base limit (rebuildHeapLimitFor)
	} else {
		defer boundedGC()()
	}
	if applyHook != nil {
		applyHook()
	}
	// A project that has no word file yet has never had its sets made:
	// the first save after the files are made (a new vault, a new state
	// folder, a cortex that fingerprints otherwise) then makes every
	// project's, so that the saves after it, whatever their project, read
	// no note. Otherwise only the stale indexes are made, from the kept
	// sets (after a compaction or a rebuild wrote another base).
	cold := false
	for _, k := range stale {
		if _, err := os.Stat(sn.s.wordsPath(projects[k])); errors.Is(err, fs.ErrNotExist) {
			cold = true
		}
	}
	// How many memories each project has in the base (superseded ones
	// included), when every project's index is made: counted in one pass
	// that decodes no entry, they size each group below, whose growth by
	// appends was a tenth of what the making allocated.
	var counts map[string]int
	if cold {
		counts = map[string]int{}
		err := sn.cat.BaseEntriesWhere(func(p, _, _ string) bool {
			counts[p]++
			return false
		}, func(int, *memories.Entry, uint64) error { return nil })
		if err != nil {
			return fmt.Errorf("word sets: %w", err)
		}
	}
	// The base's memories of one project at a time, each in a pass over
	// the catalog: the entries of every project at once were most of the
	// MCP server's memory when it made the sets at start-up (about 80 MB
	// at 100,000 notes), where one project's are a few.
	group := func(project string) (*baseGroup, error) {
		n := counts[project]
		g := &baseGroup{bases: make([]int, 0, n), paths: make([]string, 0, n), titles: make([]string, 0, n), hashes: make([]uint64, 0, n)}
		err := sn.cat.BaseEntriesWhere(func(p, _, _ string) bool { return p == project }, func(i int, e *memories.Entry, h uint64) error {
			if e.Status == memories.StatusSuperseded {
				return nil
			}
			g.bases, g.paths, g.titles, g.hashes = append(g.bases, i), append(g.paths, e.Path), append(g.titles, e.Title), append(g.hashes, h)
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("word sets: %w", err)
		}
		if n := int64(len(g.paths)); n > sn.s.wordGroupPeak.Load() {
			sn.s.wordGroupPeak.Store(n)
		}
		return g, nil
	}
	made := map[string]bool{}
	for _, k := range stale {
		g, err := group(projects[k])
		if err != nil {
			return err
		}
		var ix *wordIndex
		var done func()
		if !cold && prev[k] != nil {
			ix, done, err = sn.carryWordIndex(ctx, projects[k], base, g, prev[k], hold, build)
		}
		if ix == nil && err == nil {
			ix, err = sn.makeWordIndex(ctx, projects[k], base, g, build)
		}
		if err != nil {
			return err
		}
		if madeHook != nil {
			madeHook(ix)
		}
		if hold {
			out[k] = ix
		}
		if done != nil {
			// A carried index is mapped from its file: held until the
			// caller releases what it read, else released now.
			if hold {
				*releases = append(*releases, done)
			} else {
				done()
			}
		}
		made[projects[k]] = true
	}
	if !cold {
		return nil
	}
	for _, p := range slices.Sorted(maps.Keys(counts)) {
		if made[p] {
			continue
		}
		if data, err := os.ReadFile(sn.s.wordIndexPath(p)); err == nil {
			if ix, ok := parseWordIndex(data); ok && ix.base == base && ix.fits(baseLen, sn.cat.BaseHash) {
				continue // made already
			}
		}
		g, err := group(p)
		if err != nil {
			return err
		}
		if len(g.paths) == 0 {
			continue // every memory of it superseded: nothing to compare with
		}
		ix, err := sn.makeWordIndex(ctx, p, base, g, build)
		if err != nil {
			return err
		}
		if madeHook != nil {
			madeHook(ix)
		}
	}
	return nil
}

// madeHook, when set (by tests), is told of each word index made.
var madeHook func(*wordIndex)

// baseGroup is the base's readable memories of a project that are not
// superseded: base numbers, paths, titles and hashes (what making their
// word sets reads of their entries).
type baseGroup struct {
	bases         []int
	paths, titles []string
	hashes        []uint64
}

// makeWordIndex makes project's word index for the catalog's base (whose
// id is base and whose memories of project are group) and writes it, with
// the project's word-set file rewritten to hold the sets of the base's
// notes and its recent file left with the sets of the notes changed since.
// Each note's set is taken from those files while the note has the bytes
// it was made from, else made from the note, on every core.
func (sn *snapshot) makeWordIndex(ctx context.Context, project string, base uint64, group *baseGroup, build func(title, body string) ([]uint64, dedup.Keys)) (*wordIndex, error) {
	bases, paths, hashes := group.bases, group.paths, group.hashes
	wordSetsRead.Add(1)
	wf := readWords(sn.s.wordsPath(project))
	rc := sn.s.recent.read(sn.s.recentPath(project))
	sets := make([][]uint64, len(paths))
	keys := make([]dedup.Keys, len(paths))
	kept := make([]bool, len(paths))
	// added are the sets the word file lacks: from the recent file (notes
	// the new base took from the journal) or made now.
	var todo []int
	var added []string
	for j := range paths {
		p := paths[j]
		if we, ok := wf.m[p]; ok && we.hash == hashes[j] {
			sets[j], keys[j], kept[j] = we.words, we.keys, true
		} else if we, ok := rc.m[p]; ok && we.hash == hashes[j] {
			sets[j], keys[j], kept[j] = we.words, we.keys, true
			wf.m[p] = we
			added = append(added, p)
		} else {
			todo = append(todo, j)
		}
	}
	if err := sn.readSets(ctx, group, todo, build, sets, keys, kept); err != nil {
		return nil, err
	}
	// The word file gets the sets it lacked, appended; it is rewritten
	// with the base's notes' alone once it holds too many of notes since
	// changed or gone (saveWords).
	live := make(map[string]bool, len(paths))
	var stale []int
	for _, j := range todo {
		if kept[j] {
			wf.m[paths[j]] = wordEntry{hash: hashes[j], words: sets[j], keys: keys[j]}
			added = append(added, paths[j])
		}
	}
	for j := range paths {
		if kept[j] {
			live[paths[j]] = true
		} else {
			stale = append(stale, bases[j])
			sets[j] = nil
		}
	}
	data := encodeWordIndex(base, bases, hashes, sets, keys, kept, stale)
	ix, ok := parseWordIndex(data)
	if !ok {
		return nil, fmt.Errorf("word index of %s: made one that does not read back", project)
	}
	// The files only spare work: one that cannot be written leaves the
	// next save to make the index again.
	var err error
	if len(added) > 0 || wf.torn || wf.size == 0 {
		err = sn.s.saveWords(sn.s.wordsPath(project), wf, added, live)
	}
	sn.keepWordIndex(project, data, rc, err)
	return ix, nil
}

// carryWordIndex is makeWordIndex from prev, project's index for an
// earlier base: each memory of the new base whose bytes have the hash of
// one of prev's sets has that set, taken from prev's postings, and the
// others theirs from the recent file or their notes. The project's word
// file (some 17 MB at 10,000 real-shaped notes) is then not read: reading
// and decoding it was most of the index made again after each compaction,
// which a run of saves in the MCP server meets every hundred saves. The
// sets not in prev are appended to the word file, which makeWordIndex
// reads (and rewrites without its stale sets) when it has grown past
// twice what prev holds; nil, with no error, leaves it to makeWordIndex.
// The index is the one makeWordIndex makes, byte for byte: a set is build
// of the note's bytes, whichever file it is taken from.
//
// The index is written to its file as it is made (writeCarriedWordIndex)
// and read back from it, mapped until release is called (and kept by a
// resident store when hold says a save's check reads it); where the file
// cannot be written it is made in memory, as makeWordIndex makes one.
func (sn *snapshot) carryWordIndex(ctx context.Context, project string, base uint64, group *baseGroup, prev *wordIndex, hold bool, build func(title, body string) ([]uint64, dedup.Keys)) (_ *wordIndex, release func(), _ error) {
	fi, err := os.Stat(sn.s.wordsPath(project))
	if err != nil || fi.Size() > 2*(8*int64(prev.nPost)+128*int64(prev.nSets))+1<<20 {
		return nil, nil, nil
	}
	bases, paths, hashes := group.bases, group.paths, group.hashes
	bad := prev.badSets()
	have := make(map[uint64]int, prev.nSets)
	for s := range prev.nSets {
		if !bad[s] {
			have[prev.hash(s)] = s
		}
	}
	rc := sn.s.recent.read(sn.s.recentPath(project))
	sets := make([][]uint64, len(paths))
	from := make([]int, len(paths))
	keys := make([]dedup.Keys, len(paths))
	kept := make([]bool, len(paths))
	var todo []int
	added := map[string]wordEntry{}
	for j := range paths {
		p := paths[j]
		from[j] = -1
		if s, ok := have[hashes[j]]; ok && prev.keysRead(s) {
			from[j], kept[j] = s, true
			continue
		}
		if we, ok := rc.m[p]; ok && we.hash == hashes[j] {
			sets[j], keys[j], kept[j] = we.words, we.keys, true
			added[p] = we
		} else {
			todo = append(todo, j)
		}
	}
	if err := sn.readSets(ctx, group, todo, build, sets, keys, kept); err != nil {
		return nil, nil, err
	}
	var stale []int
	for _, j := range todo {
		if kept[j] {
			added[paths[j]] = wordEntry{hash: hashes[j], words: sets[j], keys: keys[j]}
		}
	}
	for j := range paths {
		if !kept[j] {
			stale = append(stale, bases[j])
			sets[j], from[j] = nil, -1
		}
	}
	// The files only spare work, as makeWordIndex's: the word file gets
	// the sets it lacks as one block, whole or torn.
	if len(added) > 0 {
		err = appendWords(sn.s.wordsPath(project), added)
	}
	path := sn.s.wordIndexPath(project)
	sn.s.words.drop(path) // see keepWordIndex
	if err != nil {
		sn.s.warn(fmt.Sprintf("could not keep the duplicate check's word sets: %v", err))
	} else {
		var sum uint32
		err = writeIndexFile(path, func(w io.Writer) error {
			iw := &indexWriter{w: w, buf: make([]byte, 0, spillAt+64)}
			writeCarriedWordIndex(iw, base, bases, hashes, sets, from, keys, kept, stale, prev)
			var err error
			sum, err = iw.finish()
			return err
		})
		if err == nil {
			sn.wroteWordIndex(project, path, sum, rc)
			// Read back as a save's check reads it (a resident store
			// keeps it), or kept by no one when it is only prepared.
			read := readWordIndexFile
			if hold {
				read = sn.s.words.read
			}
			ix, done, ok := read(path)
			if !ok {
				return nil, nil, fmt.Errorf("word index of %s: made one that does not read back", project)
			}
			return ix, done, nil
		}
		sn.s.warn(fmt.Sprintf("could not keep the duplicate check's word index: %v", err))
	}
	// Not written: the index made in memory serves this check, and the
	// next save makes it again.
	ix, ok := parseWordIndex(encodeCarriedWordIndex(base, bases, hashes, sets, from, keys, kept, stale, prev))
	if !ok {
		return nil, nil, fmt.Errorf("word index of %s: made one that does not read back", project)
	}
	return ix, func() {}, nil
}

// writeIndexFile writes a carried word index's file (tests make it fail).
var writeIndexFile = atomicfile.WriteDerivedFrom

// keepWordIndex writes project's new word index (data) and prunes its
// recent file rc, once its word-set file was brought up to date (werr is
// how that went). The files only spare work: what cannot be written is
// warned of, and the next save makes the index again.
func (sn *snapshot) keepWordIndex(project string, data []byte, rc *wordFile, werr error) {
	// The index a resident store keeps of the file (one made for another
	// base) is done with: its bytes are released once its readers are,
	// rather than when a save next reads the project's index. Preparing
	// the checks after a rebuild otherwise left every project's old index
	// mapped and resident (2 MB each at 100,000 notes).
	path := sn.s.wordIndexPath(project)
	sn.s.words.drop(path)
	if werr != nil {
		sn.s.warn(fmt.Sprintf("could not keep the duplicate check's word sets: %v", werr))
		return
	}
	if err := atomicfile.WriteDerived(path, data); err != nil {
		sn.s.warn(fmt.Sprintf("could not keep the duplicate check's word index: %v", err))
		return
	}
	// data read back as it was made (its checksum checked).
	sn.wroteWordIndex(project, path, binary.LittleEndian.Uint32(data[len(data)-4:]), rc)
}

// wroteWordIndex follows the writing of project's word index at path,
// whose checksum is sum: the next read of the file need not check it whole
// again (see markChecked), and the recent file rc is pruned.
func (sn *snapshot) wroteWordIndex(project, path string, sum uint32, rc *wordFile) {
	if fi, err := os.Stat(path); err == nil {
		markChecked(path, fi, sum)
	}
	if err := sn.pruneRecent(project, rc); err != nil {
		sn.s.warn(fmt.Sprintf("could not keep the duplicate check's word sets: %v", err))
	}
}

// appendWords appends the sets of m to the word-set file at path, which
// exists, as one block (saveWords' append, without reading the file).
func appendWords(path string, m map[string]wordEntry) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	_, err = f.Write(encodeWords(nil, m, slices.Sorted(maps.Keys(m))))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// pruneRecent keeps in project's recent file, rc as read, only the sets of
// notes the journal changed since the base and that still have the bytes
// they were made from: those of notes the base now holds are in the word
// file, and the others are stale.
func (sn *snapshot) pruneRecent(project string, rc *wordFile) error {
	keep := map[string]bool{}
	err := sn.cat.OverlayEntriesWhere(func(p, _, _ string) bool { return p == project }, func(e *memories.Entry, h uint64) error {
		if we, ok := rc.m[e.Path]; ok && we.hash == h {
			keep[e.Path] = true
		}
		return nil
	})
	if err != nil {
		return err
	}
	if len(keep) == len(rc.m) && !rc.torn {
		return nil
	}
	if len(rc.m) == 0 && rc.size == 0 {
		return nil // no file
	}
	return sn.s.saveWords(sn.s.recentPath(project), &wordFile{m: rc.m, torn: true}, nil, keep)
}

// readSets makes the word sets and keys of the memories of group that todo
// numbers from their notes, on every core, into sets, keys and kept (see
// noteWords); a note gone since the catalog was read keeps none.
func (sn *snapshot) readSets(ctx context.Context, group *baseGroup, todo []int, build func(title, body string) ([]uint64, dedup.Keys), sets [][]uint64, keys []dedup.Keys, kept []bool) error {
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(runtime.GOMAXPROCS(0))
	for _, j := range todo {
		g.Go(func() error {
			ws, ks, cached, err := sn.noteWords(gctx, group.paths[j], group.titles[j], group.hashes[j], build)
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			sets[j], keys[j], kept[j] = ws, ks, cached
			return err
		})
	}
	return g.Wait()
}

// noteWords is build of the note at path (whose catalog title is title) as
// LoadText reads it, and whether it was made from bytes with the record's
// hash (only then is it kept).
func (sn *snapshot) noteWords(ctx context.Context, path, title string, recHash uint64, build func(title, body string) ([]uint64, dedup.Keys)) ([]uint64, dedup.Keys, bool, error) {
	sn.s.wordReads.Add(1)
	data, st, err := sn.s.v.ReadRaw(path)
	if err == nil && st.Symlink == "" && hash(data) == recHash {
		if body, ok := vault.NoteBody(data); ok {
			ws, ks := build(title, string(body))
			return ws, ks, true, nil
		}
	}
	title, body, err := sn.LoadText(ctx, path)
	if err != nil {
		return nil, dedup.Keys{}, false, err
	}
	ws, ks := build(title, body)
	return ws, ks, false, nil
}

// wordFilesRead counts the word-set files read, and wordSetsRead the
// projects' word files (not their recent files) among them, for tests.
var wordFilesRead, wordSetsRead atomic.Int64

// readWords reads a word-set file; what cannot be read is left out (an
// absent or foreign file is empty).
func readWords(path string) *wordFile {
	wordFilesRead.Add(1)
	data, err := os.ReadFile(path)
	// About a hundred bytes a record at the least: a guess of the size.
	wf := &wordFile{m: make(map[string]wordEntry, len(data)/128)}
	if err != nil {
		wf.torn = !errors.Is(err, fs.ErrNotExist)
		return wf
	}
	head := len(wordsHeader) + 8
	if len(data) < head || string(data[:len(wordsHeader)]) != wordsHeader ||
		binary.LittleEndian.Uint64(data[len(wordsHeader):]) != probeHash() {
		wf.torn = true
		return wf
	}
	off := head
	for off+8 <= len(data) {
		n := int(binary.LittleEndian.Uint32(data[off:]))
		sum := binary.LittleEndian.Uint32(data[off+4:])
		if n > len(data)-off-8 || crc32.ChecksumIEEE(data[off+8:off+8+n]) != sum {
			break
		}
		recs, ok := decodeWords(data[off+8:off+8+n], wf.m)
		if !ok {
			break
		}
		wf.records += recs
		off += 8 + n
	}
	wf.size = int64(off)
	wf.torn = off != len(data)
	return wf
}

// decodeWords adds a block's records to m (a later record of a path
// replaces an earlier one) and counts them. The paths share b's memory,
// which is never changed after, and the sets one slice: a save reads a
// thousand records, and an allocation for each was most of the reading.
func decodeWords(b []byte, m map[string]wordEntry) (int, bool) {
	// A record is at least 10 bytes; its words are most of it.
	all := make([]uint64, 0, len(b)/8)
	recs := 0
	for len(b) > 0 {
		pl, k := binary.Uvarint(b)
		if k <= 0 || pl > uint64(len(b)-k) {
			return 0, false
		}
		path := ""
		if pl > 0 {
			path = unsafe.String(&b[k], int(pl))
		}
		b = b[k+int(pl):]
		if len(b) < 8 {
			return 0, false
		}
		h := binary.LittleEndian.Uint64(b)
		b = b[8:]
		var words []uint64
		var ok bool
		if words, b, all, ok = readHashes(b, all); !ok {
			return 0, false
		}
		e := wordEntry{hash: h, words: words}
		// The keys: numbers, then code tokens, each a count and hashes.
		var lists [2][]uint64
		for i := range lists {
			if lists[i], b, all, ok = readHashes(b, all); !ok {
				return 0, false
			}
			if len(lists[i]) == 0 {
				lists[i] = nil
			}
		}
		if e.keys, ok = dedup.KeysFrom(lists[0], lists[1]); !ok {
			return 0, false
		}
		m[path] = e
		recs++
	}
	return recs, true
}

// readHashes reads a count and that many hashes from the front of b into
// all, whose capacity bounds them, and returns them (capped at their
// length), the rest of b and all.
func readHashes(b []byte, all []uint64) (list []uint64, rest []byte, grown []uint64, ok bool) {
	n, k := binary.Uvarint(b)
	if k <= 0 || n > uint64(len(b)-k)/8 || n > uint64(cap(all)-len(all)) {
		return nil, b, all, false
	}
	b = b[k:]
	start := len(all)
	for i := 0; i < int(n); i++ {
		all = append(all, binary.LittleEndian.Uint64(b[8*i:]))
	}
	return all[start:len(all):len(all)], b[8*n:], all, true
}

// encodeWords appends a block of the records of paths to b.
func encodeWords(b []byte, m map[string]wordEntry, paths []string) []byte {
	// The block's size first, so that it is allocated once: a project's
	// file is megabytes (4.5 MB at 8,000 synthetic notes), and growing it
	// by appends allocated about five times that.
	return encodeWordsSized(b, m, paths, wordsBlockSize(m, paths))
}

// encodeWordsSized is encodeWords of a block whose size (wordsBlockSize)
// the caller has counted already.
func encodeWordsSized(b []byte, m map[string]wordEntry, paths []string, size int) []byte {
	b = slices.Grow(b, size)
	start := len(b)
	b = append(b, make([]byte, 8)...)
	for _, p := range paths {
		e := m[p]
		b = binary.AppendUvarint(b, uint64(len(p)))
		b = append(b, p...)
		b = binary.LittleEndian.AppendUint64(b, e.hash)
		for _, list := range [][]uint64{e.words, e.keys.Numbers(), e.keys.Codes()} {
			b = binary.AppendUvarint(b, uint64(len(list)))
			for _, w := range list {
				b = binary.LittleEndian.AppendUint64(b, w)
			}
		}
	}
	binary.LittleEndian.PutUint32(b[start:], uint32(len(b)-start-8))
	binary.LittleEndian.PutUint32(b[start+4:], crc32.ChecksumIEEE(b[start+8:]))
	return b
}

// wordsBlockSize is the length of the block encodeWords makes of paths.
func wordsBlockSize(m map[string]wordEntry, paths []string) int {
	size := 8
	for _, p := range paths {
		e := m[p]
		size += uvarintLen(len(p)) + len(p) + 8
		for _, list := range [][]uint64{e.words, e.keys.Numbers(), e.keys.Codes()} {
			size += uvarintLen(len(list)) + 8*len(list)
		}
	}
	return size
}

// uvarintLen is the length of n as binary.AppendUvarint writes it.
func uvarintLen(n int) int {
	l := 1
	for ; n >= 0x80; n >>= 7 {
		l++
	}
	return l
}

// saveWords records the sets of added in project's file: appended as a
// block, or the whole file rewritten when it is torn or holds more than
// twice the live notes' records (notes since changed or gone). live holds
// the paths of the project's notes now; nil when all of wf's are.
func (s *Store) saveWords(path string, wf *wordFile, added []string, live map[string]bool) error {
	n := len(wf.m)
	if live != nil {
		n = len(live)
	}
	if !wf.torn && wf.size > 0 && wf.records+len(added) <= 2*n+64 {
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0o600)
		if err == nil {
			block := encodeWords(nil, wf.m, added)
			_, err = f.Write(block) // one write: a block is whole or torn, never mixed
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			if err == nil {
				wf.records += len(added)
				wf.size += int64(len(block))
				return nil
			}
		}
		if !errors.Is(err, fs.ErrNotExist) {
			wf.torn = true
			return err
		}
	}
	// Rewritten whole: the live sets only (those of notes gone or changed
	// are dropped with the file they were in).
	paths := make([]string, 0, len(wf.m))
	for p := range wf.m {
		if live != nil && !live[p] {
			delete(wf.m, p)
			continue
		}
		paths = append(paths, p)
	}
	slices.Sort(paths)
	if err := atomicfile.MkdirAll(filepath.Dir(path)); err != nil {
		return err
	}
	var size int64
	err := atomicfile.WriteDerivedFrom(path, func(w io.Writer) (err error) {
		size, err = writeWordBlocks(w, wf.m, paths, wordsBlockBytes)
		return err
	})
	if err != nil {
		wf.torn = true
		return err
	}
	wf.records, wf.size, wf.torn = len(paths), size, false
	return nil
}

// wordsBlockBytes bounds a block of a word file written whole: the file is
// written a block at a time, not made in memory first (198 MB at 100,000
// real-shaped notes, held beside the sets it was made of).
const wordsBlockBytes = 1 << 20

// writeWordBlocks writes to w a word file of the sets of paths (m's
// entries): the header and the probe, then blocks of at most limit
// bytes (a larger record alone), and returns the bytes written.
func writeWordBlocks(w io.Writer, m map[string]wordEntry, paths []string, limit int) (int64, error) {
	b := append([]byte(wordsHeader), make([]byte, 8)...)
	binary.LittleEndian.PutUint64(b[len(wordsHeader):], probeHash())
	n, err := w.Write(b)
	size := int64(n)
	for len(paths) > 0 && err == nil {
		k, bytes := 0, 8
		for k < len(paths) {
			r := wordsBlockSize(m, paths[k:k+1]) - 8
			if k > 0 && bytes+r > limit {
				break
			}
			k, bytes = k+1, bytes+r
		}
		b = encodeWordsSized(b[:0], m, paths[:k], bytes)
		n, err = w.Write(b)
		size += int64(n)
		paths = paths[k:]
	}
	return size, err
}

var _ interface {
	KeepWords(context.Context, []memories.KeptWords)
} = (*tx)(nil)

// KeepWords keeps in each project's recent file the word sets and keys of
// notes the transaction created (memories' wordKeeper): the next save's
// check compares the notes saved since the catalog's base one by one (and
// makes a project's word index from the sets the files keep), and would
// otherwise read each of these and make its set again; after an import of
// thousands of notes, that was most of the first save's second (10,000
// notes) or eighteen (100,000). A set is kept only when the note is as the
// check would read it (noteWords): its bytes have the record's hash and
// its title and body are its memory's, of which words and keys were made.
// The files are a cache: what cannot be written is warned of and left to
// the next save to make.
func (t *tx) KeepWords(_ context.Context, kept []memories.KeptWords) {
	byProject := map[string]map[string]wordEntry{}
	for _, k := range kept {
		m := k.Memory
		h, ok := t.asWritten(m)
		if !ok {
			continue
		}
		if byProject[m.Project] == nil {
			byProject[m.Project] = map[string]wordEntry{}
		}
		byProject[m.Project][m.Path] = wordEntry{hash: h, words: k.Words, keys: k.Keys}
	}
	for _, project := range slices.Sorted(maps.Keys(byProject)) {
		t.keepRecent(t.s.recentPath(project), byProject[project])
	}
}

// keptRecentMax is the most sets of one transaction a resident store adds
// to its copy of a recent file (see keepRecent).
const keptRecentMax = 64

// asWritten is the hash of m's note when it is as the duplicate check
// would read it (noteWords): the record's, of bytes whose title and body
// are m's.
func (t *tx) asWritten(m *memories.Memory) (uint64, bool) {
	rec, err := t.cat.Get(m.Path)
	if err != nil || rec == nil || rec.Broken != "" || rec.Title != m.Title || rec.Project != m.Project {
		return 0, false
	}
	if h, ok := t.created[m.Path]; ok {
		// Written by CreateAll, whose check of the body is made.
		return h, h == rec.Hash
	}
	// The bytes this transaction wrote, as its record was made of them;
	// a note it did not write is read.
	data, ok := t.wrote[m.Path]
	if !ok {
		var st vault.FileStat
		if data, st, err = t.s.v.ReadRaw(m.Path); err != nil || st.Symlink != "" {
			return 0, false
		}
	}
	if hash(data) != rec.Hash || !hasBody(data, m.Body) {
		return 0, false
	}
	return rec.Hash, true
}

// hasBody reports whether data, a note, has body as its body, as a note's
// body is written: after a blank line and ending with a line feed. The
// word set and keys of either are those of body (dedup.Words and KeysOf
// read a blank line after the title as they read a line break, and nothing
// of a last line feed).
func hasBody(data []byte, body string) bool {
	b, ok := vault.NoteBody(data)
	if !ok {
		return false
	}
	if string(b) == body {
		return true
	}
	n := len(b)
	return n == len(body)+2 && b[0] == '\n' && b[n-1] == '\n' && string(b[1:n-1]) == body
}

// keepRecent adds sets, by path, to the recent file at p: appended unread
// as one block by a store that keeps nothing between calls (one command),
// or when they are many (an import: a resident store would otherwise hold
// them all in its copy of the file), a file that is not there made; else
// added to the file as the resident store keeps it.
func (t *tx) keepRecent(p string, sets map[string]wordEntry) {
	if t.s.recent == nil || len(sets) > keptRecentMax {
		t.s.recent.drop(p)
		err := appendWords(p, sets)
		if errors.Is(err, fs.ErrNotExist) {
			if err = atomicfile.MkdirAll(filepath.Dir(p)); err == nil {
				err = t.s.saveWords(p, &wordFile{m: sets}, slices.Sorted(maps.Keys(sets)), nil)
			}
		}
		if err != nil {
			t.s.warn(fmt.Sprintf("could not keep the duplicate check's word sets: %v", err))
		}
		return
	}
	rc := t.s.recent.read(p)
	var added []string
	for _, path := range slices.Sorted(maps.Keys(sets)) {
		e := sets[path]
		if we, ok := rc.m[path]; ok && we.hash == e.hash {
			continue
		}
		rc.m[path] = e
		added = append(added, path)
	}
	if len(added) == 0 {
		return
	}
	if err := t.s.saveWords(p, rc, added, nil); err != nil {
		t.s.recent.drop(p)
		t.s.warn(fmt.Sprintf("could not keep the duplicate check's word sets: %v", err))
		return
	}
	t.s.recent.wrote(p, rc)
}
