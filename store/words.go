package store

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io/fs"
	"maps"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"unsafe"

	"golang.org/x/sync/errgroup"

	"github.com/cortexmem/cortex/atomicfile"
	"github.com/cortexmem/cortex/dedup"
	"github.com/cortexmem/cortex/memories"
	"github.com/cortexmem/cortex/vault"
)

// Word sets of the notes, for the duplicate check.
//
// A save is compared with every memory of its project and general
// (memories' wordSetter), which needs each one's dedup word set. Reading and
// fingerprinting a thousand notes per save would cost more than the index
// search it replaces, so the word sets are kept, per project, in a file of
// the vault's state folder: each note's path, the hash of the bytes its
// word set was made from (the catalog record's Hash) and the set. A set is
// used only while the catalog says the note still has those bytes; any
// other note is read and its set added. The file is a cache: it is never
// fsynced, a torn or foreign tail is dropped, and a file written by a
// cortex whose fingerprints differ (see wordsProbe) is ignored and
// rewritten.

// wordsHeader starts a word-set file, then the probe's hash (8 bytes).
const wordsHeader = "cortex dedup words 1\n"

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

// wordEntry is one note's word set, made from bytes with this hash.
type wordEntry struct {
	hash  uint64
	words []uint64
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
	// absent says no file was found: none was made yet.
	absent bool
}

// words keeps a resident store's word-set files in memory between saves.
type words struct {
	mu    sync.Mutex
	files map[string]*wordFile
}

func (s *Store) wordsPath(project string) string {
	return filepath.Join(s.vstate.Dir, "dedup-words", url.PathEscape(project)+".words")
}

// WordSets gives the word set build makes of the title and body of every
// readable memory of projects that is not superseded (memories'
// wordSetter), in catalog order within each project.
func (sn *snapshot) WordSets(ctx context.Context, projects []string, build func(title, body string) []uint64) ([]memories.WordSet, error) {
	keep := func(project, _, _ string) bool { return slices.Contains(projects, project) }
	// The files read in this call, for a store that keeps none. They are
	// read while the catalog is walked for the projects' entries: two
	// independent parts of a one-shot save, a millisecond each at 10,000
	// notes, on two cores.
	local := map[string]*wordFile{}
	read := make(chan error, 1)
	go func() {
		for _, p := range projects {
			if _, err := sn.s.wordFileOf(p, local); err != nil {
				read <- err
				return
			}
		}
		read <- nil
	}()
	entries, hashes, err := sn.cat.EntriesHashedWhere(keep)
	if rerr := <-read; err == nil {
		err = rerr
	}
	if err != nil {
		return nil, fmt.Errorf("word sets: %w", err)
	}
	if err := sn.warmWords(ctx, projects, build, local); err != nil {
		return nil, err
	}
	out := make([]memories.WordSet, 0, len(entries))
	for _, p := range projects {
		if slices.Contains(projects[:slices.Index(projects, p)], p) {
			continue // named twice
		}
		wf, err := sn.s.wordFileOf(p, local)
		if err != nil {
			return nil, err
		}
		var added []string
		live := map[string]bool{}
		for i := range entries {
			e := &entries[i]
			if e.Project != p || e.Status == memories.StatusSuperseded {
				continue
			}
			live[e.Path] = true
			if we, ok := wf.m[e.Path]; ok && we.hash == hashes[i] {
				out = append(out, memories.WordSet{Entry: *e, Words: we.words})
				continue
			}
			ws, cached, err := sn.noteWords(ctx, e, hashes[i], build)
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			if err != nil {
				return nil, err
			}
			if cached {
				wf.m[e.Path] = wordEntry{hash: hashes[i], words: ws}
				added = append(added, e.Path)
			}
			out = append(out, memories.WordSet{Entry: *e, Words: ws})
		}
		if len(added) > 0 || wf.torn {
			// The cache only spares work: a file that cannot be written
			// leaves the next save to read those notes again.
			if err := sn.s.saveWords(p, wf, added, live); err != nil {
				sn.s.warn(fmt.Sprintf("could not keep the duplicate check's word sets: %v", err))
			}
		}
	}
	return out, nil
}

// warmWords makes the word-set file of every project that has none, when
// one of projects has none: the first save after the files are made (a new
// vault, a new state folder, a cortex that fingerprints otherwise) pays for
// all of them at once, on every core, and the saves after it find theirs
// made, whatever their project.
func (sn *snapshot) warmWords(ctx context.Context, projects []string, build func(title, body string) []uint64, local map[string]*wordFile) error {
	cold := false
	for _, p := range projects {
		wf, err := sn.s.wordFileOf(p, local)
		if err != nil {
			return err
		}
		cold = cold || wf.absent
	}
	if !cold {
		return nil
	}
	// Every note's word set is made: a heap like a rebuild's, collected as
	// a rebuild's is (a save runs with the collector off up to a small
	// limit, above which it would collect without pause).
	defer rebuildGC()()
	if applyHook != nil {
		applyHook()
	}
	entries, hashes, err := sn.cat.EntriesHashedWhere(nil)
	if err != nil {
		return fmt.Errorf("word sets: %w", err)
	}
	// Project by project, so that only one project's sets are held at a
	// time besides those of projects (a vault of 100,000 notes has tens
	// of megabytes of them).
	todo := map[string][]int{}
	files := map[string]*wordFile{}
	for _, p := range projects {
		// A project without a memory yet gets an empty file, which says so.
		if files[p], err = sn.s.wordFileOf(p, local); err != nil {
			return err
		}
	}
	for i := range entries {
		e := &entries[i]
		if e.Status == memories.StatusSuperseded {
			continue
		}
		wf := files[e.Project]
		if wf == nil {
			if wf, err = sn.s.wordFileOf(e.Project, local); err != nil {
				return err
			}
			files[e.Project] = wf
		}
		if !wf.absent {
			continue
		}
		if we, ok := wf.m[e.Path]; !ok || we.hash != hashes[i] {
			todo[e.Project] = append(todo[e.Project], i)
		}
	}
	for _, p := range slices.Sorted(maps.Keys(files)) {
		wf := files[p]
		if !wf.absent {
			continue
		}
		is := todo[p]
		sets := make([][]uint64, len(is))
		kept := make([]bool, len(is))
		g, gctx := errgroup.WithContext(ctx)
		g.SetLimit(runtime.GOMAXPROCS(0))
		for k, i := range is {
			g.Go(func() error {
				ws, cached, err := sn.noteWords(gctx, &entries[i], hashes[i], build)
				if errors.Is(err, fs.ErrNotExist) {
					return nil
				}
				sets[k], kept[k] = ws, cached
				return err
			})
		}
		if err := g.Wait(); err != nil {
			return err
		}
		var added []string
		for k, i := range is {
			if kept[k] {
				wf.m[entries[i].Path] = wordEntry{hash: hashes[i], words: sets[k]}
				added = append(added, entries[i].Path)
			}
		}
		wf.absent = false
		if err := sn.s.saveWords(p, wf, added, nil); err != nil {
			sn.s.warn(fmt.Sprintf("could not keep the duplicate check's word sets: %v", err))
		}
		if !slices.Contains(projects, p) {
			delete(files, p)
			delete(local, p)
			sn.s.forgetWords(projects)
		}
	}
	sn.s.forgetWords(projects)
	return nil
}

// forgetWords drops from a resident store's memory the word sets of every
// project but keep's: the other projects' are in their files, read when a
// save needs them, and a server that saves into one project need not hold
// a whole vault's.
func (s *Store) forgetWords(keep []string) {
	if s.words == nil {
		return
	}
	s.words.mu.Lock()
	defer s.words.mu.Unlock()
	for p := range s.words.files {
		if !slices.Contains(keep, p) {
			delete(s.words.files, p)
		}
	}
}

// noteWords is build of the note of e as LoadText reads it, and whether it
// was made from bytes with the record's hash (only then is it kept).
func (sn *snapshot) noteWords(ctx context.Context, e *memories.Entry, recHash uint64, build func(title, body string) []uint64) ([]uint64, bool, error) {
	sn.s.wordReads.Add(1)
	data, st, err := sn.s.v.ReadRaw(e.Path)
	if err == nil && st.Symlink == "" && hash(data) == recHash {
		if body, ok := vault.NoteBody(data); ok {
			return build(e.Title, string(body)), true, nil
		}
	}
	title, body, err := sn.LoadText(ctx, e.Path)
	if err != nil {
		return nil, false, err
	}
	return build(title, body), false, nil
}

// wordFileOf is project's word-set file: the one a resident store holds,
// or the one in local, or read from disk (and put in local).
func (s *Store) wordFileOf(project string, local map[string]*wordFile) (*wordFile, error) {
	if s.words == nil {
		if wf := local[project]; wf != nil {
			return wf, nil
		}
		wf := readWords(s.wordsPath(project))
		local[project] = wf
		return wf, nil
	}
	s.words.mu.Lock()
	defer s.words.mu.Unlock()
	if wf := s.words.files[project]; wf != nil {
		return wf, nil
	}
	wf := readWords(s.wordsPath(project))
	if s.words.files == nil {
		s.words.files = map[string]*wordFile{}
	}
	s.words.files[project] = wf
	return wf, nil
}

// readWords reads a word-set file; what cannot be read is left out (an
// absent or foreign file is empty).
func readWords(path string) *wordFile {
	data, err := os.ReadFile(path)
	// About a hundred bytes a record at the least: a guess of the size.
	wf := &wordFile{m: make(map[string]wordEntry, len(data)/128)}
	if err != nil {
		wf.absent = errors.Is(err, fs.ErrNotExist)
		wf.torn = !wf.absent
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
		n, k := binary.Uvarint(b)
		if k <= 0 || n > uint64(len(b)-k)/8 || n > uint64(cap(all)-len(all)) {
			return 0, false
		}
		b = b[k:]
		start := len(all)
		for i := 0; i < int(n); i++ {
			all = append(all, binary.LittleEndian.Uint64(b[8*i:]))
		}
		b = b[8*n:]
		m[path] = wordEntry{hash: h, words: all[start:len(all):len(all)]}
		recs++
	}
	return recs, true
}

// encodeWords appends a block of the records of paths to b.
func encodeWords(b []byte, m map[string]wordEntry, paths []string) []byte {
	start := len(b)
	b = append(b, make([]byte, 8)...)
	for _, p := range paths {
		e := m[p]
		b = binary.AppendUvarint(b, uint64(len(p)))
		b = append(b, p...)
		b = binary.LittleEndian.AppendUint64(b, e.hash)
		b = binary.AppendUvarint(b, uint64(len(e.words)))
		for _, w := range e.words {
			b = binary.LittleEndian.AppendUint64(b, w)
		}
	}
	binary.LittleEndian.PutUint32(b[start:], uint32(len(b)-start-8))
	binary.LittleEndian.PutUint32(b[start+4:], crc32.ChecksumIEEE(b[start+8:]))
	return b
}

// saveWords records the sets of added in project's file: appended as a
// block, or the whole file rewritten when it is torn or holds more than
// twice the live notes' records (notes since changed or gone). live holds
// the paths of the project's notes now; nil when all of wf's are.
func (s *Store) saveWords(project string, wf *wordFile, added []string, live map[string]bool) error {
	path := s.wordsPath(project)
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
	b := append([]byte(wordsHeader), make([]byte, 8)...)
	binary.LittleEndian.PutUint64(b[len(wordsHeader):], probeHash())
	paths := make([]string, 0, len(wf.m))
	for p := range wf.m {
		if live != nil && !live[p] {
			delete(wf.m, p)
			continue
		}
		paths = append(paths, p)
	}
	slices.Sort(paths)
	b = encodeWords(b, wf.m, paths)
	if err := atomicfile.MkdirAll(filepath.Dir(path)); err != nil {
		return err
	}
	if err := atomicfile.WriteDerived(path, b); err != nil {
		wf.torn = true
		return err
	}
	wf.records, wf.size, wf.torn = len(paths), int64(len(b)), false
	return nil
}
