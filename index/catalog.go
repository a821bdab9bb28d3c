package index

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"math"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/cortexmem/cortex/atomicfile"
	"github.com/cortexmem/cortex/memories"
	"github.com/cortexmem/cortex/vault"
)

// The catalog is the index's record of every note it has seen: the file's size,
// modification time and content hash (to notice changes), the folders' times (to
// skip reading folders that did not change), and each note's metadata (to list,
// resolve ids and rank search hits without asking Bleve to store anything).
//
// It lives in an index generation's folder as two files. The base (see
// catalogfile.go) is binary, rewritten atomically when compacted, and read in
// parts: the folder and file tables on every command, the id table and the
// metadata only when needed. The journal is text appended after it, one record
// a line; a batch counts only once its commit line is written, so a crash in the
// middle of an append loses that batch, never the catalog — the next sync sees
// the difference with the vault and applies it again. A batch may also say
// what the full-text index is owed (Deferred: "i" lines, notes to index; "x"
// lines, ids to delete) and that what was owed before is done ("="): the
// journal is then the write-ahead log of the full-text index, which a writer
// may leave behind the catalog.

const (
	catalogFile = "catalog"
	journalFile = "catalog.journal"
	// compactAfter is how many journal records trigger a compaction at
	// least (see CompactLimit).
	compactAfter = 128
)

// Record is one note file as last indexed.
type Record struct {
	memories.Entry
	Size  int64
	MTime int64  // Unix nanoseconds
	Hash  uint64 // of the file's bytes
	// FID is the id written in the note's frontmatter, "" when it has none. The
	// effective id (Entry.ID) differs from it when the note has none or when
	// another note already holds it.
	FID string
	// Broken is why the note could not be read ("" when it could). A broken note
	// is not searchable and is never rewritten.
	Broken string
}

// Catalog is the base and the journal over it.
type Catalog struct {
	// Schema is the mapping version the records were indexed with.
	Schema string
	// WrittenAt is when the vault was last looked at by the writer that wrote
	// the catalog (Unix nanoseconds). Notes and folders modified less than the
	// racy window before it may have changed again within the same clock tick,
	// so they are checked by content (see RacyAfter).
	WrittenAt int64

	base    *baseFile // nil for an empty catalog
	over    map[string]*Record
	overIDs map[string]string // id → path of readable overlay records
	// overFIDs indexes the overlay's readable records by the id written in
	// them, for Holders; built on first use.
	overFIDs  map[string][]string
	overDirs  map[string]int64 // folder → time, from the journal
	journaled int
	// journalLen is how many bytes of the journal hold committed batches: what
	// follows is a torn tail that the next append must drop.
	journalLen int64
	// laterPaths and laterIDs are the full-text index's deferred work (see
	// Deferred): notes to index again, ids to delete.
	laterPaths map[string]bool
	laterIDs   map[string]bool

	entries []memories.Entry // built on demand
}

// ErrNoCatalog means the index has no catalog: it must be built.
var ErrNoCatalog = errors.New("index catalog missing")

// CorruptError means an index file cannot be read; the index must be rebuilt.
type CorruptError struct {
	File string
	Line int
	Msg  string
}

func (e *CorruptError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("index %s:%d: %s", e.File, e.Line, e.Msg)
	}
	return fmt.Sprintf("index %s: %s", e.File, e.Msg)
}

// NewCatalog returns an empty catalog for records indexed under schema.
func NewCatalog(schema string) *Catalog {
	return &Catalog{Schema: schema, over: map[string]*Record{}, overIDs: map[string]string{}, overDirs: map[string]int64{},
		laterPaths: map[string]bool{}, laterIDs: map[string]bool{}}
}

// LoadCatalog opens the catalog of an index generation. Close it when done.
func LoadCatalog(dir string) (*Catalog, error) {
	b, err := openBase(filepath.Join(dir, catalogFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, ErrNoCatalog
	}
	if err != nil {
		return nil, err
	}
	c := NewCatalog(b.schema)
	c.base, c.WrittenAt = b, b.writtenAt
	jdata, err := os.ReadFile(filepath.Join(dir, journalFile))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		b.close()
		return nil, fmt.Errorf("read index catalog journal: %w", err)
	}
	if len(jdata) > 0 {
		if err := c.replay(string(jdata)); err != nil {
			b.close()
			return nil, err
		}
	}
	return c, nil
}

// Close releases the catalog's file.
func (c *Catalog) Close() error {
	if c.base == nil {
		return nil
	}
	return c.base.close()
}

// Clone returns a catalog sharing c's base whose overlay Put can change without
// changing c. Close only the original.
func (c *Catalog) Clone() *Catalog {
	n := &Catalog{Schema: c.Schema, WrittenAt: c.WrittenAt, base: c.base, journaled: c.journaled, journalLen: c.journalLen,
		over: maps.Clone(c.over), overIDs: maps.Clone(c.overIDs), overDirs: maps.Clone(c.overDirs),
		laterPaths: maps.Clone(c.laterPaths), laterIDs: maps.Clone(c.laterIDs)}
	return n
}

// RacyAfter is the time from which a modification time is too close to the
// catalog's last look at the vault for size and time to prove a file unchanged.
func (c *Catalog) RacyAfter(window time.Duration) int64 { return c.WrittenAt - int64(window) }

// Get returns the record of path, or nil.
func (c *Catalog) Get(path string) (*Record, error) {
	if r, ok := c.over[path]; ok {
		return r, nil
	}
	if c.base == nil {
		return nil, nil
	}
	i := c.base.findPath(path)
	if i < 0 {
		return nil, nil
	}
	return c.base.record(i)
}

// KnowsNote reports whether the catalog has a record of the file at path
// (Files of its folder lists it), without decoding it (vault.KnownNotes).
func (c *Catalog) KnowsNote(path string) bool {
	if r, ok := c.over[path]; ok {
		return r != nil
	}
	return c.base != nil && c.base.findPath(path) >= 0
}

// ByID returns the readable record whose effective id is id, or nil.
func (c *Catalog) ByID(id string) (*Record, error) {
	if p, ok := c.overIDs[id]; ok {
		return c.over[p], nil
	}
	if c.base == nil {
		return nil, nil
	}
	i, err := c.base.findID(id)
	if err != nil || i < 0 {
		return nil, err
	}
	r, err := c.base.record(i)
	if err != nil {
		if _, shadowed := c.over[c.base.path(i)]; shadowed {
			return nil, nil
		}
		return nil, err
	}
	// The record's path is file i's (a kept record's too), made once
	// when it was decoded rather than on every call.
	if _, shadowed := c.over[r.Path]; shadowed {
		return nil, nil // replaced or removed since the base was written
	}
	return r, nil
}

// PeekByIDs calls fn, in order, with the entry of the readable record
// whose effective id is each of ids (as ByID finds it; ids it does not find
// are passed over), until fn returns false. A base record's entry is
// decoded in place, with no record made: its strings share the catalog's
// memory, so it is valid only during the call, and its Path is not set.
// For a caller that looks at many entries to keep a few (recall's most
// activated memories, tested against a search's filters).
func (c *Catalog) PeekByIDs(ids []string, fn func(id string, e *memories.Entry) bool) error {
	for _, id := range ids {
		if p, ok := c.overIDs[id]; ok {
			if r := c.over[p]; r != nil {
				e := r.Entry
				if !fn(id, &e) {
					return nil
				}
			}
			continue
		}
		if c.base == nil {
			continue
		}
		i, err := c.base.findID(id)
		if err != nil {
			return err
		}
		if i < 0 {
			continue
		}
		if len(c.over) > 0 {
			if _, shadowed := c.over[c.base.path(i)]; shadowed {
				continue // replaced or removed since the base was written
			}
		}
		m, err := c.base.metaRecord(i)
		if err != nil {
			return err
		}
		s, nums, err := splitMeta(m)
		if err != nil {
			return corrupt("file %d: %v", i, err)
		}
		var e memories.Entry
		fillEntry(&e, &s, &nums)
		if !fn(id, &e) {
			return nil
		}
	}
	return nil
}

// Holders lists the readable records whose frontmatter id is fid: the one that
// holds it and any copies (which are indexed under ids derived from their paths).
func (c *Catalog) Holders(fid string) ([]*Record, error) {
	var out []*Record
	seen := map[string]bool{}
	add := func(r *Record) {
		if r != nil && r.Broken == "" && r.FID == fid && !seen[r.Path] {
			seen[r.Path] = true
			out = append(out, r)
		}
	}
	owner, err := c.ByID(fid)
	if err != nil {
		return nil, err
	}
	add(owner)
	if c.base != nil {
		files, err := c.base.copies(fid)
		if err != nil {
			return nil, err
		}
		for _, i := range files {
			if _, shadowed := c.over[c.base.path(i)]; shadowed {
				continue
			}
			r, err := c.base.record(i)
			if err != nil {
				return nil, err
			}
			add(r)
		}
	}
	if c.overFIDs == nil {
		c.overFIDs = map[string][]string{}
		for p, r := range c.over {
			if r != nil && r.Broken == "" && r.FID != "" {
				c.overFIDs[r.FID] = append(c.overFIDs[r.FID], p)
			}
		}
	}
	paths := slices.Clone(c.overFIDs[fid])
	slices.Sort(paths)
	for _, p := range paths {
		add(c.over[p])
	}
	return out, nil
}

// ByNoteName returns the readable record of project whose file name, without
// ".md", is name (how the map of contents links notes), or nil.
func (c *Catalog) ByNoteName(project, name string) (*Record, error) {
	file := name + ".md"
	for _, p := range slices.Sorted(maps.Keys(c.over)) {
		if r := c.over[p]; r != nil && r.Broken == "" && r.Project == project && path.Base(p) == file {
			return r, nil
		}
	}
	if c.base == nil {
		return nil, nil
	}
	for i := 0; i < c.base.nFiles; i++ {
		if c.base.name(i) != file {
			continue
		}
		if _, shadowed := c.over[c.base.path(i)]; shadowed {
			continue
		}
		r, err := c.base.record(i)
		if err != nil {
			return nil, err
		}
		if r.Broken == "" && r.Project == project {
			return r, nil
		}
	}
	return nil, nil
}

// IDsWithPrefix lists the ids of readable notes that start with prefix, at most
// limit of them (all when limit ≤ 0).
func (c *Catalog) IDsWithPrefix(prefix string, limit int) ([]string, error) {
	var out []string
	for id := range c.overIDs {
		if strings.HasPrefix(id, prefix) {
			out = append(out, id)
		}
	}
	if c.base != nil {
		ids, err := c.base.idsWithPrefix(prefix, func(i int) bool {
			_, shadowed := c.over[c.base.path(i)]
			return !shadowed
		}, limit)
		if err != nil {
			return nil, err
		}
		out = append(out, ids...)
	}
	sort.Strings(out)
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	return out, nil
}

// ShortID abbreviates id to its shortest unique prefix of at least
// memories.MinPrefix characters among the catalog's ids.
func (c *Catalog) ShortID(id string) (string, error) {
	n := memories.MinPrefix
	if len(id) <= n {
		return id, nil
	}
	// An id is told apart from another by one character more than they share.
	for other := range c.overIDs {
		if other != id {
			n = max(n, sharedPrefix(id, other)+1)
		}
	}
	if c.base != nil {
		l, err := c.base.longestShared(id, func(i int) bool {
			_, shadowed := c.over[c.base.path(i)]
			return !shadowed
		})
		if err != nil {
			return "", err
		}
		n = max(n, l+1)
	}
	return id[:min(n, len(id))], nil
}

// Records calls fn for every record, in path order of the base then the
// overlay's additions; fn must not keep records it does not need.
func (c *Catalog) Records(fn func(*Record) error) error {
	if c.base != nil {
		if err := c.base.loadMeta(); err != nil {
			return err
		}
		for i := 0; i < c.base.nFiles; i++ {
			if _, shadowed := c.over[c.base.path(i)]; shadowed {
				continue
			}
			r, err := c.base.record(i)
			if err != nil {
				return err
			}
			if err := fn(r); err != nil {
				return err
			}
		}
	}
	for _, p := range slices.Sorted(maps.Keys(c.over)) {
		if r := c.over[p]; r != nil {
			if err := fn(r); err != nil {
				return err
			}
		}
	}
	return nil
}

// baseEntries is every record as a new base holds it (Records, in no
// order): those of the base that the journal left as they were are taken
// from it without being decoded.
func (c *Catalog) baseEntries() ([]baseEntry, error) {
	var files []baseEntry
	if c.base != nil {
		if err := c.base.loadMeta(); err != nil {
			return nil, err
		}
		files = make([]baseEntry, 0, c.base.nFiles+len(c.over))
		var p []byte
		for i := 0; i < c.base.nFiles; i++ {
			// A file the journal changed or removed is shadowed, as
			// Records has it (its path put together without a string
			// made of it).
			p = c.base.appendPath(p[:0], i)
			if _, shadowed := c.over[string(p)]; shadowed {
				continue
			}
			e, err := c.base.entry(i)
			if err != nil {
				return nil, err
			}
			files = append(files, e)
		}
	}
	for _, r := range c.over {
		if r != nil {
			files = append(files, entryOf(r))
		}
	}
	return files, nil
}

// Len counts the records.
func (c *Catalog) Len() int {
	n := 0
	if c.base != nil {
		n = c.base.nFiles
		for p := range c.over {
			if c.base.findPath(p) >= 0 {
				n--
			}
		}
	}
	for _, r := range c.over {
		if r != nil {
			n++
		}
	}
	return n
}

// Readable counts the entries Entries lists, without decoding them: a
// server's watcher re-indexes on start and reports the count, and decoding
// 100,000 entries to count them was most of its memory then (50 MB live).
func (c *Catalog) Readable() (int, error) {
	if c.entries != nil {
		return len(c.entries), nil
	}
	all := func(_, _, _ string) bool { return true }
	n := 0
	if c.base != nil {
		// Streamed when the metadata is not loaded (eachMeta): the
		// watcher of a server that lives for hours counts them once,
		// and loading the section would hold it (15 MB at 100,000
		// notes) for as long as the server keeps the catalog.
		err := c.baseKept(all, func(i int, _ [11]string, _ [3]int64) error {
			if len(c.over) > 0 {
				if _, shadowed := c.over[c.base.path(i)]; shadowed {
					return nil
				}
			}
			n++
			return nil
		})
		if err != nil {
			return 0, err
		}
	}
	return n + len(c.overKept(all)), nil
}

// Entries lists the entries of the notes that could be read.
func (c *Catalog) Entries() ([]memories.Entry, error) {
	if c.entries != nil {
		return c.entries, nil
	}
	// Decoded in place, as EntriesWhere does: a record allocated and copied
	// for each note was most of what listing 100,000 of them cost.
	out, err := c.entriesWhere(make([]memories.Entry, 0, c.Len()), nil)
	if err != nil {
		return nil, err
	}
	c.entries = out
	return out, nil
}

// EachEntry calls fn with each entry Entries lists, in the same order,
// without listing them: the entry, and its strings when the metadata is
// not loaded, are valid only during fn's call. Rendering the map of
// contents of 100,000 notes from Entries held 38 MB of entries, and kept
// them with the catalog.
func (c *Catalog) EachEntry(fn func(*memories.Entry) error) error {
	if c.entries != nil {
		for i := range c.entries {
			e := c.entries[i]
			if err := fn(&e); err != nil {
				return err
			}
		}
		return nil
	}
	var e memories.Entry
	all := func(_, _, _ string) bool { return true }
	if c.base != nil {
		err := c.baseKept(all, func(i int, s [11]string, nums [3]int64) error {
			p := c.base.path(i)
			if _, shadowed := c.over[p]; shadowed {
				return nil
			}
			e = memories.Entry{Path: p}
			fillEntry(&e, &s, &nums)
			return fn(&e)
		})
		if err != nil {
			return err
		}
	}
	for _, r := range c.overKept(all) {
		e = r.Entry
		if err := fn(&e); err != nil {
			return err
		}
	}
	return nil
}

// EntriesWhere lists the entries Entries lists whose project, area and file
// name keep accepts, in the same order. It decodes only those: a briefing
// needs the memories of one project, its areas and general, or a few notes
// by name, not the catalog's every entry, and decoding 10,000 of them is
// most of what it costs.
func (c *Catalog) EntriesWhere(keep func(project, area, name string) bool) ([]memories.Entry, error) {
	return c.entriesWhere(nil, keep)
}

// EntriesHashedWhere is EntriesWhere with, for each entry, the hash of its
// note's bytes as the record holds it (Record.Hash): what a cache of
// something computed from a note's text is checked against.
func (c *Catalog) EntriesHashedWhere(keep func(project, area, name string) bool) ([]memories.Entry, []uint64, error) {
	var hashes []uint64
	out, err := c.entriesHashedWhere(nil, keep, &hashes)
	return out, hashes, err
}

// entriesWhere appends to out the entries keep accepts, every one when keep
// is nil.
func (c *Catalog) entriesWhere(out []memories.Entry, keep func(project, area, name string) bool) ([]memories.Entry, error) {
	return c.entriesHashedWhere(out, keep, nil)
}

// entriesHashedWhere is entriesWhere that also appends to hashes, when not
// nil, each entry's Record.Hash.
func (c *Catalog) entriesHashedWhere(out []memories.Entry, keep func(project, area, name string) bool, hashes *[]uint64) ([]memories.Entry, error) {
	if keep == nil {
		keep = func(_, _, _ string) bool { return true }
	}
	if c.entries != nil && hashes == nil {
		for _, e := range c.entries {
			if keep(e.Project, e.Area, path.Base(e.Path)) {
				out = append(out, e)
			}
		}
		return out, nil
	}
	if c.base != nil {
		if err := c.base.loadMeta(); err != nil {
			return nil, err
		}
		// The files kept are found first and their entries decoded into a
		// slice of the right size: an Entry is large, and growing the
		// slice by appends copied the thousands kept several times over
		// and faulted in memory for each copy (a session-start's largest
		// single cost). Splitting a kept record twice costs less.
		var kept []int32
		err := c.baseKept(keep, func(i int, _ [11]string, _ [3]int64) error {
			kept = append(kept, int32(i))
			return nil
		})
		if err != nil {
			return nil, err
		}
		if len(kept) > 0 {
			out = make([]memories.Entry, 0, len(kept)+len(c.over))
		}
		for _, i := range kept {
			// Asked after keep: the path is built for the entries kept.
			p := c.base.path(int(i))
			if _, shadowed := c.over[p]; shadowed {
				continue
			}
			m, err := c.base.metaRecord(int(i))
			if err != nil {
				return nil, err
			}
			s, nums, err := splitMeta(m)
			if err != nil {
				return nil, corrupt("file %d: %v", i, err)
			}
			// Decoded in place, from what splitMeta read: no record is
			// allocated and copied for each of the thousands kept.
			out = append(out, memories.Entry{Path: p})
			fillEntry(&out[len(out)-1], &s, &nums)
			if hashes != nil {
				*hashes = append(*hashes, binary.LittleEndian.Uint64(c.base.fileEntry(int(i))[24:]))
			}
		}
		if len(out) == 0 {
			out = nil // every kept one shadowed: none, as before
		}
	}
	for _, r := range c.overKept(keep) {
		out = append(out, r.Entry)
		if hashes != nil {
			*hashes = append(*hashes, r.Hash)
		}
	}
	return out, nil
}

// baseKept calls fn, in file order, with each file of the base whose note
// is readable and whose project, area and file name keep accepts, and the
// file's metadata as splitMeta splits it. The filtered walk of the
// listings (entriesWhere), of the briefing's searches (SearchEntriesWhere),
// and of the counts that must not hold the section (BaseProjects,
// Readable). The strings share the metadata section when it is loaded
// (loadMeta), as the callers that keep them have it; otherwise they are
// valid only during fn's call (eachMeta).
func (c *Catalog) baseKept(keep func(project, area, name string) bool, fn func(i int, s [11]string, nums [3]int64) error) error {
	return c.base.eachMeta(func(i int, m string) error {
		s, nums, err := splitMeta(m)
		if err != nil {
			return corrupt("file %d: %v", i, err)
		}
		if s[metaBroken] != "" || !keep(s[metaProject], s[metaArea], c.base.name(i)) {
			return nil
		}
		return fn(i, s, nums)
	})
}

// overKept lists, in path order, the overlay's records of readable notes
// whose project, area and file name keep accepts.
func (c *Catalog) overKept(keep func(project, area, name string) bool) []*Record {
	var out []*Record
	for _, p := range slices.Sorted(maps.Keys(c.over)) {
		if r := c.over[p]; r != nil && r.Broken == "" && keep(r.Project, r.Area, path.Base(r.Path)) {
			out = append(out, r)
		}
	}
	return out
}

// EntriesNamed lists the entries Entries lists whose file name keep
// accepts, in the same order. Names are in the file table, so only the
// metadata of the notes kept is read and decoded: following a few links by
// name costs a pass over the names, not over every note's metadata. keep
// may be asked about broken notes too.
func (c *Catalog) EntriesNamed(keep func(name string) bool) ([]memories.Entry, error) {
	var out []memories.Entry
	if c.entries != nil {
		for _, e := range c.entries {
			if keep(path.Base(e.Path)) {
				out = append(out, e)
			}
		}
		return out, nil
	}
	if c.base != nil {
		for i := 0; i < c.base.nFiles; i++ {
			if !keep(c.base.name(i)) {
				continue
			}
			p := c.base.path(i)
			if _, shadowed := c.over[p]; shadowed {
				continue
			}
			m, err := c.base.metaRecord(i)
			if err != nil {
				return nil, err
			}
			s, nums, err := splitMeta(m)
			if err != nil {
				return nil, corrupt("file %d: %v", i, err)
			}
			if s[metaBroken] != "" {
				continue
			}
			out = append(out, memories.Entry{Path: p})
			fillEntry(&out[len(out)-1], &s, &nums)
		}
	}
	for _, p := range slices.Sorted(maps.Keys(c.over)) {
		if r := c.over[p]; r != nil && r.Broken == "" && keep(path.Base(r.Path)) {
			out = append(out, r.Entry)
		}
	}
	return out, nil
}

// Dirs lists the folders the catalog remembers, with their times (vault.Known).
func (c *Catalog) Dirs() []vault.DirStat {
	var out []vault.DirStat
	seen := map[string]bool{}
	if c.base != nil {
		out = make([]vault.DirStat, c.base.nDirs, c.base.nDirs+len(c.overDirs))
		for i := range out {
			d := c.base.dirEntry(i)
			out[i] = vault.DirStat{Path: d.path, MTime: d.mtime}
			seen[d.path] = true
		}
	}
	add := func(d string) {
		if !seen[d] {
			seen[d] = true
			out = append(out, vault.DirStat{Path: d})
		}
	}
	for d := range c.overDirs {
		add(d)
	}
	for p := range c.over {
		d, _ := splitPath(p)
		add(d)
	}
	for i := range out {
		if t, ok := c.overDirs[out[i].Path]; ok {
			out[i].MTime = t
		}
	}
	return out
}

// Files lists the notes the catalog remembers in a folder, sorted by name
// (vault.Known).
func (c *Catalog) Files(dir string) []vault.KnownFile {
	var old []vault.KnownFile
	if c.base != nil {
		i := sort.Search(c.base.nDirs, func(i int) bool { return c.base.dirPath(i) >= dir })
		if i < c.base.nDirs && c.base.dirPath(i) == dir {
			d := c.base.dirEntry(i)
			old = make([]vault.KnownFile, d.count)
			for j := range old {
				old[j] = c.base.knownFile(d.first + j)
			}
		}
	}
	// Fold in the journal's records for this folder (Size -1 marks a removal).
	var ch []vault.KnownFile
	for p, r := range c.over {
		if d, name := splitPath(p); d == dir {
			f := vault.KnownFile{Name: name, Size: -1}
			if r != nil {
				f.Size, f.MTime = r.Size, r.MTime
			}
			ch = append(ch, f)
		}
	}
	if len(ch) == 0 {
		return old
	}
	sort.Slice(ch, func(a, b int) bool { return ch[a].Name < ch[b].Name })
	merged := make([]vault.KnownFile, 0, len(old)+len(ch))
	a, b := 0, 0
	for a < len(old) || b < len(ch) {
		switch {
		case b == len(ch) || a < len(old) && old[a].Name < ch[b].Name:
			merged = append(merged, old[a])
			a++
		default:
			if a < len(old) && old[a].Name == ch[b].Name {
				a++
			}
			if ch[b].Size >= 0 {
				merged = append(merged, ch[b])
			}
			b++
		}
	}
	return merged
}

var _ vault.Known = (*Catalog)(nil)

// Put replaces, adds and removes records in memory (a nil record at a path
// removes it); Commit makes changes durable.
func (c *Catalog) Put(changes map[string]*Record) {
	for p, r := range changes {
		if old, ok := c.over[p]; ok && old != nil && c.overIDs[old.ID] == p {
			delete(c.overIDs, old.ID)
		}
		if old := c.over[p]; old != nil && c.overFIDs != nil {
			c.overFIDs[old.FID] = slices.DeleteFunc(c.overFIDs[old.FID], func(q string) bool { return q == p })
		}
		c.over[p] = r
		if r != nil && r.Broken == "" {
			c.overIDs[r.ID] = p
			if c.overFIDs != nil && r.FID != "" {
				c.overFIDs[r.FID] = append(c.overFIDs[r.FID], p)
			}
		}
	}
	c.entries = nil
}

// Commit applies changes to c and appends them to the journal. dirs are the
// folders as the writer's scan saw them; observedAt is when that scan began.
// The full-text index's deferred work (Deferred) is left as it is.
func (c *Catalog) Commit(dir string, changes map[string]*Record, dirs []vault.DirStat, observedAt time.Time) error {
	return c.CommitBatch(dir, changes, Deferred{}, false, dirs, observedAt)
}

// Deferred is work on the full-text index that catalog commits left for
// later. The notes and the catalog are the truth and the full-text index a
// cache, so a writer may commit a note to the catalog and leave indexing it
// to whoever next needs the index; the catalog's journal remembers what is
// owed, so a crash loses none of it.
type Deferred struct {
	// Paths are notes to index as the catalog records them now, under the
	// record's id; a path the catalog no longer holds readable is skipped.
	Paths []string
	// IDs are documents to delete from the index, before Paths are indexed
	// (an id may have moved to another note).
	IDs []string
}

// Empty reports whether d owes nothing.
func (d Deferred) Empty() bool { return len(d.Paths) == 0 && len(d.IDs) == 0 }

// Len counts what d owes.
func (d Deferred) Len() int { return len(d.Paths) + len(d.IDs) }

// Deferred is the full-text index work the catalog's commits left undone,
// sorted.
func (c *Catalog) Deferred() Deferred {
	return Deferred{Paths: slices.Sorted(maps.Keys(c.laterPaths)), IDs: slices.Sorted(maps.Keys(c.laterIDs))}
}

// HasDeferred reports whether some full-text index work is left undone.
func (c *Catalog) HasDeferred() bool { return len(c.laterPaths) > 0 || len(c.laterIDs) > 0 }

// CommitBatch is Commit for a writer that may leave the full-text index
// behind: later is added to the deferred work, and caughtUp says the writer
// did all the work deferred before this commit (it is dropped first).
func (c *Catalog) CommitBatch(dir string, changes map[string]*Record, later Deferred, caughtUp bool, dirs []vault.DirStat, observedAt time.Time) error {
	return c.commitBatch(dir, changes, later, caughtUp, dirs, observedAt, true)
}

// CommitBatchUnsynced is CommitBatch without the flush to disk after the
// append (one fsync less), for a writer that leaves the full-text index
// behind and whose changes describe notes already on disk: those it wrote
// were flushed, folder included, before this append began. The catalog is a
// cache of the vault, so a power loss that loses the append loses nothing:
// the journal then ends at an earlier batch, whose folder times are older
// than the folders' (a note was created since), and the next check reads
// those folders and finds the notes again. A crash of the process alone
// loses nothing either: the append is in the system's cache. Any later
// synced append (a catch-up, a confirm) flushes this one with it.
func (c *Catalog) CommitBatchUnsynced(dir string, changes map[string]*Record, later Deferred, dirs []vault.DirStat, observedAt time.Time) error {
	return c.commitBatch(dir, changes, later, false, dirs, observedAt, false)
}

func (c *Catalog) commitBatch(dir string, changes map[string]*Record, later Deferred, caughtUp bool, dirs []vault.DirStat, observedAt time.Time, sync bool) error {
	caughtUp = caughtUp && c.HasDeferred()
	if len(changes) == 0 && later.Empty() && !caughtUp {
		return nil
	}
	c.Put(changes)
	c.journaled += len(changes)
	var b []byte
	for _, k := range slices.Sorted(maps.Keys(changes)) {
		if r := changes[k]; r != nil {
			b = appendRecord(b, r)
		} else {
			b = appendEscaped(append(b, "-\t"...), k)
			b = append(b, '\n')
		}
	}
	if caughtUp {
		b = append(b, "=\n"...)
		clear(c.laterPaths)
		clear(c.laterIDs)
	}
	for _, p := range later.Paths {
		b = appendEscaped(append(b, "i\t"...), p)
		b = append(b, '\n')
		c.laterPaths[p] = true
	}
	for _, id := range later.IDs {
		b = appendEscaped(append(b, "x\t"...), id)
		b = append(b, '\n')
		c.laterIDs[id] = true
	}
	return c.appendJournal(dir, b, dirs, observedAt, sync)
}

// NeedsCompaction reports whether the journal has grown large enough to be
// folded into a new base (Write).
func (c *Catalog) NeedsCompaction() bool {
	if c.HasDeferred() {
		return false // the base does not hold deferred work: compact once it is done
	}
	baseLen := 0
	if c.base != nil {
		baseLen = c.base.nFiles
	}
	return c.journaled > CompactLimit(baseLen)
}

// CompactLimit is how many journal records a catalog whose base holds
// baseLen notes keeps before it is compacted: twice the square root of the
// base, at least compactAfter (200 at 10,000 notes, 632 at 100,000).
// Every command replays the whole journal when it loads the catalog (a
// record and its batch's lines cost microseconds each: a journal of about
// 400 saves made a 10,000-note catalog load in 7-14 ms on a loaded machine
// instead of 1), and a
// compaction rewrites the whole base once (tens of milliseconds at 10,000
// notes): the square root keeps the sum of the two small as the base grows,
// where a tenth of the base let the journal of a 100,000-note vault grow to
// 10,000 records.
func CompactLimit(baseLen int) int {
	return max(compactAfter, int(2*math.Sqrt(float64(baseLen))))
}

// Confirm records that a full check which began at observedAt found the vault as
// the catalog describes it, with the folder times it saw: notes and folders
// modified close to the last write are then trusted on size and time again.
func (c *Catalog) Confirm(dir string, dirs []vault.DirStat, observedAt time.Time) error {
	if observedAt.UnixNano() <= c.WrittenAt {
		return nil
	}
	return c.appendJournal(dir, nil, dirs, observedAt, true)
}

// KeepDir records folder d's time, which a writer set back itself after it
// wrote notes there (store's kept folders): the folder holds what the catalog
// says of it. The look at the vault is not newer for it, so WrittenAt stays.
// It is not flushed: lost, the folder's time differs from the one recorded
// before, and the next check reads the folder.
func (c *Catalog) KeepDir(dir string, d vault.DirStat) error {
	return c.appendJournal(dir, nil, []vault.DirStat{d}, time.Unix(0, c.WrittenAt), false)
}

// appendJournal appends records, the folder times that changed, and a commit
// line, and syncs when sync is set.
func (c *Catalog) appendJournal(dir string, b []byte, dirs []vault.DirStat, observedAt time.Time, sync bool) error {
	// Folder times the scan saw (before the writer wrote anything): a folder
	// whose time still matches next time need not be read again.
	for _, d := range dirs {
		if t, ok := c.dirTime(d.Path); !ok || t != d.MTime {
			b = appendEscaped(append(b, "d\t"...), d.Path)
			b = fmt.Appendf(b, "\t%d\n", d.MTime)
			c.overDirs[d.Path] = d.MTime
		}
	}
	c.WrittenAt = max(c.WrittenAt, observedAt.UnixNano())
	b = fmt.Appendf(b, "@\t%d\n", c.WrittenAt)
	f, err := os.OpenFile(filepath.Join(dir, journalFile), os.O_WRONLY|os.O_APPEND|os.O_CREATE, atomicfile.FilePerm)
	if err != nil {
		return fmt.Errorf("write index catalog journal: %w", err)
	}
	// A crash in the middle of an earlier append leaves an uncommitted tail:
	// appended to, it would garble this batch's first line or be committed
	// with it. The writer has held the lock since the catalog was loaded, so
	// nothing past journalLen can be another writer's batch.
	end, err := f.Seek(0, io.SeekEnd)
	if err == nil && end > c.journalLen {
		end, err = c.journalLen, f.Truncate(c.journalLen)
	}
	if err == nil {
		_, err = f.Write(b)
	}
	if err == nil && sync {
		err = syncJournal(f)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("write index catalog journal: %w", err)
	}
	c.journalLen = end + int64(len(b))
	return nil
}

// syncJournal flushes the journal to disk; tests count its calls.
var syncJournal = (*os.File).Sync

// dirTime is the time the catalog remembers for a folder.
func (c *Catalog) dirTime(d string) (int64, bool) {
	if t, ok := c.overDirs[d]; ok {
		return t, true
	}
	if c.base == nil {
		return 0, false
	}
	i := sort.Search(c.base.nDirs, func(i int) bool { return c.base.dirPath(i) >= d })
	if i < c.base.nDirs && c.base.dirPath(i) == d {
		return c.base.dirEntry(i).mtime, true
	}
	return 0, false
}

// Write writes every record of c as a new base in dir and drops the journal.
// dirs are the folders as the writer's scan saw them; observedAt is when that
// scan began.
func (c *Catalog) Write(dir string, dirs []vault.DirStat, observedAt time.Time) error {
	if c.HasDeferred() {
		return errors.New("write index catalog: full-text index work is deferred; do it first")
	}
	files, err := c.baseEntries()
	if err != nil {
		return err
	}
	c.WrittenAt = observedAt.UnixNano()
	bp, err := planBase(c.Schema, c.WrittenAt, files, dirs)
	if err != nil {
		return err
	}
	if err := atomicfile.WriteFrom(filepath.Join(dir, catalogFile), bp.write); err != nil {
		return fmt.Errorf("write index catalog: %w", err)
	}
	if err := os.Remove(filepath.Join(dir, journalFile)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("write index catalog: %w", err)
	}
	b, err := openBase(filepath.Join(dir, catalogFile))
	if err != nil {
		return err
	}
	if c.base != nil {
		_ = c.base.close()
	}
	c.base = b
	c.over, c.overIDs, c.overDirs, c.overFIDs = map[string]*Record{}, map[string]string{}, map[string]int64{}, nil
	c.journaled, c.journalLen, c.entries = 0, 0, nil
	return nil
}

// replay applies the committed batches of the journal; an uncommitted tail is
// ignored.
func (c *Catalog) replay(s string) error {
	pending := map[string]*Record{}
	pendingDirs := map[string]int64{}
	var laterPaths, laterIDs []string
	caughtUp := false
	line, pos := 0, int64(0)
	for s != "" {
		line++
		l, rest, ok := strings.Cut(s, "\n")
		if !ok {
			break // a torn last line: its batch never committed
		}
		s = rest
		pos += int64(len(l)) + 1
		switch {
		case strings.HasPrefix(l, "@\t"):
			t, err := strconv.ParseInt(l[2:], 10, 64)
			if err != nil {
				return &CorruptError{File: journalFile, Line: line, Msg: "bad commit line"}
			}
			c.Put(pending)
			c.journaled += len(pending)
			maps.Copy(c.overDirs, pendingDirs)
			if caughtUp {
				clear(c.laterPaths)
				clear(c.laterIDs)
			}
			for _, p := range laterPaths {
				c.laterPaths[p] = true
			}
			for _, id := range laterIDs {
				c.laterIDs[id] = true
			}
			pending, pendingDirs = map[string]*Record{}, map[string]int64{}
			laterPaths, laterIDs, caughtUp = nil, nil, false
			c.WrittenAt = max(c.WrittenAt, t)
			c.journalLen = pos
		case strings.HasPrefix(l, "d\t"):
			d, t, ok := strings.Cut(l[2:], "\t")
			v, err := strconv.ParseInt(t, 10, 64)
			if !ok || err != nil {
				return &CorruptError{File: journalFile, Line: line, Msg: "bad folder line"}
			}
			pendingDirs[unescape(d)] = v
		case strings.HasPrefix(l, "-\t"):
			pending[unescape(l[2:])] = nil
		case strings.HasPrefix(l, "i\t"):
			laterPaths = append(laterPaths, unescape(l[2:]))
		case strings.HasPrefix(l, "x\t"):
			laterIDs = append(laterIDs, unescape(l[2:]))
		case l == "=":
			caughtUp = true
		default:
			r, err := parseRecord(l)
			if err != nil {
				return &CorruptError{File: journalFile, Line: line, Msg: err.Error()}
			}
			pending[r.Path] = r
		}
	}
	return nil
}

// splitPath splits a note path into its folder ("" at the top) and name.
func splitPath(p string) (string, string) {
	dir, name := path.Split(p)
	return strings.TrimSuffix(dir, "/"), name
}

// Stamp identifies the catalog files of a generation as they are on disk: a
// catalog loaded under a stamp is current while the files keep it (a writer
// appends to the journal or replaces the base, which changes it).
type Stamp struct {
	base, journal os.FileInfo
}

// CatalogStamp stats the catalog files of dir.
func CatalogStamp(dir string) (Stamp, error) {
	var s Stamp
	var err error
	if s.base, err = os.Stat(filepath.Join(dir, catalogFile)); err != nil {
		return Stamp{}, err
	}
	if s.journal, err = os.Stat(filepath.Join(dir, journalFile)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return Stamp{}, err
	}
	return s, nil
}

// IsZero reports whether the stamp is the zero Stamp, which saw no catalog.
func (s Stamp) IsZero() bool { return s.base == nil }

// Equal reports whether both stamps saw the same files.
func (s Stamp) Equal(o Stamp) bool {
	same := func(a, b os.FileInfo) bool {
		if a == nil || b == nil {
			return a == nil && b == nil
		}
		return os.SameFile(a, b) && a.Size() == b.Size() && a.ModTime().Equal(b.ModTime())
	}
	return s.base != nil && same(s.base, o.base) && same(s.journal, o.journal)
}
