package index

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
	"unsafe"

	"github.com/cortexmem/cortex/memories"
	"github.com/cortexmem/cortex/vault"
)

// The base catalog file, little-endian:
//
//	header (64 bytes)  magic, written-at, counts and section lengths
//	schema             the mapping version, as text
//	scan section       folder table, file table, name pool — read by every command
//	id section         the readable notes' ids, sorted, with their file numbers;
//	                   then the ids written in notes that do not hold them (copies)
//	meta section       one record of metadata per file
//
// Folder entry (24 bytes): name offset, name length, mtime, first file, files.
// File entry (44 bytes): name offset, name length, size, mtime, hash, metadata
// offset, metadata length, folder. Files are sorted by folder, then name.
// Every offset is checked when the file is opened, so a damaged file is a
// CorruptError, never a crash.

var baseMagic = [8]byte{'C', 'X', 'C', 'A', 'T', 2, '\r', '\n'}

const (
	headerLen = 64
	dirLen    = 24
	fileLen   = 44
	idEntLen  = 12
)

type baseFile struct {
	f         *os.File
	schema    string
	writtenAt int64
	nDirs     int
	nFiles    int

	scan        []byte // folder table, file table, name pool
	scanStr     string // scan viewed as a string, for zero-copy names
	namesAt     int
	idxAt       int64 // file offset of the id section
	idxLen      int
	metaAt      int64 // file offset of the meta section
	metaLen     int
	idx         []byte // loaded on demand
	meta        string // loaded on demand (all of it, for iteration)
	idxCount    int
	sharedCount int

	// mapped is the whole file mapped into memory (see MapCatalogs), nil
	// when it is read; the sections above are then views of it.
	mapped []byte

	// decoded keeps the records read and decoded last, by file index: a
	// long-running process (the MCP server) looks up the same notes again
	// and again, each lookup a read of the file and a decoding. The file
	// never changes (a writer replaces it whole), so neither do they.
	decodedMu sync.Mutex
	decoded   map[int]*Record
}

// maxDecoded bounds baseFile.decoded: a few pages of every recall's
// candidates (a few hundred bytes each), not the whole catalog.
const maxDecoded = 4096

func corrupt(msg string, a ...any) error {
	return &CorruptError{File: catalogFile, Msg: fmt.Sprintf(msg, a...)}
}

func openBase(name string) (*baseFile, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	b, err := readBase(f)
	if err != nil {
		f.Close()
		return nil, err
	}
	return b, nil
}

func readBase(f *os.File) (*baseFile, error) {
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	size := fi.Size()
	var h [headerLen]byte
	if _, err := f.ReadAt(h[:], 0); err != nil {
		return nil, corrupt("short header")
	}
	if [8]byte(h[:8]) != baseMagic {
		return nil, corrupt("not a catalog (or an older format)")
	}
	le := binary.LittleEndian
	b := &baseFile{
		f:         f,
		writtenAt: int64(le.Uint64(h[8:])),
		nDirs:     int(le.Uint32(h[16:])),
		nFiles:    int(le.Uint32(h[20:])),
		namesAt:   int(le.Uint32(h[40:])),
	}
	schemaLen, scanLen := int64(le.Uint32(h[24:])), int64(le.Uint32(h[28:]))
	b.idxLen, b.metaLen = int(le.Uint32(h[32:])), int(le.Uint32(h[36:]))
	if headerLen+schemaLen+scanLen+int64(b.idxLen)+int64(b.metaLen) != size {
		return nil, corrupt("sections do not add up to the file size")
	}
	var buf []byte
	if mapCatalogs.Load() {
		if data, err := mapFile(f, size); err == nil {
			b.mapped = data
			buf = data[headerLen : headerLen+schemaLen+scanLen]
		}
	}
	if buf == nil {
		buf = make([]byte, schemaLen+scanLen)
		if _, err := f.ReadAt(buf, headerLen); err != nil {
			return nil, corrupt("short read")
		}
	}
	b.schema = string(buf[:schemaLen])
	b.scan = buf[schemaLen:]
	b.scanStr = unsafe.String(unsafe.SliceData(b.scan), len(b.scan))
	b.idxAt = headerLen + schemaLen + scanLen
	b.metaAt = b.idxAt + int64(b.idxLen)
	if err := b.validate(); err != nil {
		return nil, err
	}
	return b, nil
}

// validate checks every offset of the scan section once, so accessors need not.
func (b *baseFile) validate() error {
	if b.nDirs < 0 || b.nFiles < 0 || b.nDirs*dirLen+b.nFiles*fileLen != b.namesAt || b.namesAt > len(b.scan) {
		return corrupt("bad table sizes")
	}
	pool := len(b.scan) - b.namesAt
	le := binary.LittleEndian
	next := 0
	for i := 0; i < b.nDirs; i++ {
		d := b.scan[i*dirLen:]
		off, n := int(le.Uint32(d)), int(le.Uint32(d[4:]))
		first, count := int(le.Uint32(d[16:])), int(le.Uint32(d[20:]))
		if off+n > pool || off+n < off || first != next || count > b.nFiles-first {
			return corrupt("bad folder entry %d", i)
		}
		if i > 0 && b.dirPath(i-1) >= b.dirPath(i) {
			return corrupt("folders out of order")
		}
		next = first + count
	}
	if next != b.nFiles {
		return corrupt("folders do not cover the files")
	}
	files := b.scan[b.nDirs*dirLen : b.namesAt]
	for i := 0; i < b.nFiles; i++ {
		e := files[i*fileLen : (i+1)*fileLen]
		off, n := uint64(le.Uint32(e)), uint64(le.Uint32(e[4:]))
		moff, mlen := uint64(le.Uint32(e[32:])), uint64(le.Uint32(e[36:]))
		if off+n > uint64(pool) || moff+mlen > uint64(b.metaLen) || int(le.Uint32(e[40:])) >= b.nDirs {
			return corrupt("bad file entry %d", i)
		}
	}
	return nil
}

func (b *baseFile) close() error { return b.f.Close() }

type dirEnt struct {
	path         string
	mtime        int64
	first, count int
}

func (b *baseFile) dirEntry(i int) dirEnt {
	le := binary.LittleEndian
	d := b.scan[i*dirLen:]
	off, n := b.namesAt+int(le.Uint32(d)), int(le.Uint32(d[4:]))
	return dirEnt{path: b.scanStr[off : off+n], mtime: int64(le.Uint64(d[8:])),
		first: int(le.Uint32(d[16:])), count: int(le.Uint32(d[20:]))}
}

func (b *baseFile) dirPath(i int) string { return b.dirEntry(i).path }

func (b *baseFile) fileEntry(i int) []byte { return b.scan[b.nDirs*dirLen+i*fileLen:] }

func (b *baseFile) name(i int) string {
	e := b.fileEntry(i)
	off, n := b.namesAt+int(binary.LittleEndian.Uint32(e)), int(binary.LittleEndian.Uint32(e[4:]))
	return b.scanStr[off : off+n]
}

func (b *baseFile) fileDir(i int) int { return int(binary.LittleEndian.Uint32(b.fileEntry(i)[40:])) }

// path is the note path of file i.
func (b *baseFile) path(i int) string {
	dir := b.dirPath(b.fileDir(i))
	if dir == "" {
		return b.name(i)
	}
	return dir + "/" + b.name(i)
}

// appendPath appends path(i) to p.
func (b *baseFile) appendPath(p []byte, i int) []byte {
	if dir := b.dirPath(b.fileDir(i)); dir != "" {
		p = append(append(p, dir...), '/')
	}
	return append(p, b.name(i)...)
}

func (b *baseFile) findPath(p string) int {
	dir, name := splitPath(p)
	d := sort.Search(b.nDirs, func(i int) bool { return b.dirPath(i) >= dir })
	if d == b.nDirs || b.dirPath(d) != dir {
		return -1
	}
	de := b.dirEntry(d)
	i := de.first + sort.Search(de.count, func(j int) bool { return b.name(de.first+j) >= name })
	if i < de.first+de.count && b.name(i) == name {
		return i
	}
	return -1
}

// knownFile is file i as vault.Scan needs it; its name shares the file's memory.
func (b *baseFile) knownFile(i int) vault.KnownFile {
	e := b.fileEntry(i)
	le := binary.LittleEndian
	return vault.KnownFile{Name: b.name(i), Size: int64(le.Uint64(e[8:])), MTime: int64(le.Uint64(e[16:]))}
}

// metaRecord returns file i's metadata record. Strings decoded from it share its
// memory, so a record costs one allocation for its bytes, or none once the whole
// section is loaded.
func (b *baseFile) metaRecord(i int) (string, error) {
	e := b.fileEntry(i)
	off, n := int(binary.LittleEndian.Uint32(e[32:])), int(binary.LittleEndian.Uint32(e[36:]))
	if b.mapped != nil {
		_ = b.loadMeta() // a view of the mapping: nothing is read
	}
	if b.meta != "" || b.metaLen == 0 {
		return b.meta[off : off+n], nil
	}
	buf := make([]byte, n)
	if _, err := b.f.ReadAt(buf, b.metaAt+int64(off)); err != nil {
		return "", corrupt("short metadata read: %v", err)
	}
	return unsafe.String(unsafe.SliceData(buf), n), nil
}

// loadMeta reads the whole metadata section, before decoding many records.
func (b *baseFile) loadMeta() error {
	if b.meta != "" || b.metaLen == 0 {
		return nil
	}
	if b.mapped != nil {
		b.meta = unsafe.String(&b.mapped[b.metaAt], b.metaLen)
		return nil
	}
	buf := make([]byte, b.metaLen)
	if _, err := b.f.ReadAt(buf, b.metaAt); err != nil {
		return corrupt("short metadata read: %v", err)
	}
	b.meta = unsafe.String(unsafe.SliceData(buf), len(buf))
	return nil
}

// record decodes file i, or copies its record decoded before. The copy
// is the caller's; the strings and tags it shares are never written.
func (b *baseFile) record(i int) (*Record, error) {
	if b.mapped != nil || b.meta != "" {
		// Decoding from memory: a process reading many records (a
		// listing, which loads them all first) would only churn a cache.
		return b.decode(i)
	}
	b.decodedMu.Lock()
	r, ok := b.decoded[i]
	b.decodedMu.Unlock()
	if ok {
		c := *r
		return &c, nil
	}
	r, err := b.decode(i)
	if err != nil {
		return nil, err
	}
	c := *r
	b.decodedMu.Lock()
	if len(b.decoded) >= maxDecoded || b.decoded == nil {
		// Starting over is as good as evicting: the next recalls'
		// candidates fill it again.
		b.decoded = make(map[int]*Record, 64)
	}
	b.decoded[i] = &c
	b.decodedMu.Unlock()
	return r, nil
}

// decode decodes file i.
func (b *baseFile) decode(i int) (*Record, error) {
	m, err := b.metaRecord(i)
	if err != nil {
		return nil, err
	}
	r, err := decodeMeta(m)
	if err != nil {
		return nil, corrupt("file %d: %v", i, err)
	}
	e := b.fileEntry(i)
	le := binary.LittleEndian
	r.Path = b.path(i)
	r.Size, r.MTime, r.Hash = int64(le.Uint64(e[8:])), int64(le.Uint64(e[16:])), le.Uint64(e[24:])
	return r, nil
}

// loadIdx reads and checks the id section: counts, the id table, the table of
// ids held by copies, and their string pool.
func (b *baseFile) loadIdx() error {
	if b.idx != nil {
		return nil
	}
	var buf []byte
	if b.mapped != nil {
		buf = b.mapped[b.idxAt : b.idxAt+int64(b.idxLen)]
	} else {
		buf = make([]byte, b.idxLen)
		if _, err := b.f.ReadAt(buf, b.idxAt); err != nil && b.idxLen > 0 {
			return corrupt("short id read: %v", err)
		}
	}
	if len(buf) < 8 {
		return corrupt("short id section")
	}
	n, m := int(binary.LittleEndian.Uint32(buf)), int(binary.LittleEndian.Uint32(buf[4:]))
	if n < 0 || m < 0 || 8+(n+m)*idEntLen > len(buf) {
		return corrupt("bad id count")
	}
	pool := len(buf) - 8 - (n+m)*idEntLen
	for i := 0; i < n+m; i++ {
		e := buf[8+i*idEntLen:]
		off, l, file := int(binary.LittleEndian.Uint32(e)), int(binary.LittleEndian.Uint32(e[4:])), int(binary.LittleEndian.Uint32(e[8:]))
		if off+l > pool || off+l < off || file >= b.nFiles {
			return corrupt("bad id entry %d", i)
		}
	}
	b.idx, b.idxCount, b.sharedCount = buf, n, m
	return nil
}

// idAt is entry k of the id table (k < idxCount) or, past it, of the table of
// ids held by copies.
func (b *baseFile) idAt(k int) (string, int) {
	e := b.idx[8+k*idEntLen:]
	pool := 8 + (b.idxCount+b.sharedCount)*idEntLen
	off, l := pool+int(binary.LittleEndian.Uint32(e)), int(binary.LittleEndian.Uint32(e[4:]))
	return unsafe.String(unsafe.SliceData(b.idx[off:]), l), int(binary.LittleEndian.Uint32(e[8:]))
}

// copies lists the files whose own id is fid but that do not hold it.
func (b *baseFile) copies(fid string) ([]int, error) {
	if err := b.loadIdx(); err != nil {
		return nil, err
	}
	var out []int
	for k := b.idxCount; k < b.idxCount+b.sharedCount; k++ {
		if s, file := b.idAt(k); s == fid {
			out = append(out, file)
		}
	}
	return out, nil
}

func (b *baseFile) findID(id string) (int, error) {
	if err := b.loadIdx(); err != nil {
		return -1, err
	}
	k := sort.Search(b.idxCount, func(k int) bool { s, _ := b.idAt(k); return s >= id })
	if k < b.idxCount {
		if s, file := b.idAt(k); s == id {
			return file, nil
		}
	}
	return -1, nil
}

// idsWithPrefix lists, in order, the ids that start with prefix of the files
// keep accepts: the first limit of them when limit is above 0 (an import's
// ids share their first eight characters by the thousand), else all.
func (b *baseFile) idsWithPrefix(prefix string, keep func(file int) bool, limit int) ([]string, error) {
	if err := b.loadIdx(); err != nil {
		return nil, err
	}
	var out []string
	k := sort.Search(b.idxCount, func(k int) bool { s, _ := b.idAt(k); return s >= prefix })
	for ; k < b.idxCount; k++ {
		s, file := b.idAt(k)
		if !strings.HasPrefix(s, prefix) {
			break
		}
		if keep(file) {
			out = append(out, strings.Clone(s))
			if len(out) == limit {
				break
			}
		}
	}
	return out, nil
}

// longestShared is the longest prefix id shares with an id of the index
// other than itself, of a file keep accepts: in the index's sorted order,
// the nearest such id on either side shares the longest. It looks at those
// two (and the entries it skips on the way), not at every id that shares
// a prefix: an import mints thousands of ids within a second, which share
// their first eight characters.
func (b *baseFile) longestShared(id string, keep func(file int) bool) (int, error) {
	if err := b.loadIdx(); err != nil {
		return 0, err
	}
	k := sort.Search(b.idxCount, func(k int) bool { s, _ := b.idAt(k); return s >= id })
	most := 0
	for j := k - 1; j >= 0; j-- {
		if s, file := b.idAt(j); keep(file) {
			most = sharedPrefix(id, s)
			break
		}
	}
	for j := k; j < b.idxCount; j++ {
		if s, file := b.idAt(j); s != id && keep(file) {
			most = max(most, sharedPrefix(id, s))
			break
		}
	}
	return most, nil
}

// sharedPrefix is the length of the longest prefix a and b share.
func sharedPrefix(a, b string) int {
	l := 0
	for l < len(a) && l < len(b) && a[l] == b[l] {
		l++
	}
	return l
}

// baseEntry is a note as a base holds it: its folder and name, size, time
// and hash, its metadata record (encodeMeta) and the ids it gives and
// whether it says the note is broken.
type baseEntry struct {
	dir, name   string
	size, mtime int64
	hash        uint64
	meta        string
	id, fid     string
	broken      bool
}

// entryOf is r as a base holds it.
func entryOf(r *Record) baseEntry {
	d, n := splitPath(r.Path)
	return baseEntry{dir: d, name: n, size: r.Size, mtime: r.MTime, hash: r.Hash,
		meta: string(encodeMeta(r)), id: r.ID, fid: r.FID, broken: r.Broken != ""}
}

// entry is file i as a new base holds it again: its metadata record as this
// file holds it, read without decoding it into a Record (a compaction of a
// 100,000-note catalog decoded every record, 26 MB of them at once, only to
// encode them again).
func (b *baseFile) entry(i int) (baseEntry, error) {
	m, err := b.metaRecord(i)
	if err != nil {
		return baseEntry{}, err
	}
	s, _, err := splitMeta(m)
	if err != nil {
		return baseEntry{}, corrupt("file %d: %v", i, err)
	}
	d, n := b.dirPath(b.fileDir(i)), b.name(i)
	if strings.Contains(n, "/") {
		d, n = splitPath(b.path(i)) // a name no writer makes: as its path reads
	}
	e := b.fileEntry(i)
	le := binary.LittleEndian
	return baseEntry{dir: d, name: n, size: int64(le.Uint64(e[8:])), mtime: int64(le.Uint64(e[16:])), hash: le.Uint64(e[24:]),
		meta: m, id: s[0], fid: s[1], broken: s[metaBroken] != ""}, nil
}

// basePlan is a base to be written: its tables, made in memory, and the
// notes whose metadata records follow them, most of its bytes, written as
// they are (write).
type basePlan struct {
	head, schema, scan, idx []byte
	files                   []baseEntry
}

// planBase plans the base of files (any order; put in order) and the
// folders a scan saw; it fails when two readable notes hold one id.
func planBase(schema string, writtenAt int64, files []baseEntry, dirs []vault.DirStat) (*basePlan, error) {
	dirTimes := map[string]int64{}
	for _, d := range dirs {
		dirTimes[d.Path] = d.MTime
	}
	for _, f := range files {
		if _, ok := dirTimes[f.dir]; !ok {
			dirTimes[f.dir] = 0 // unknown time: the next scan reads the folder
		}
	}
	slices.SortStableFunc(files, func(a, b baseEntry) int {
		if c := strings.Compare(a.dir, b.dir); c != 0 {
			return c
		}
		return strings.Compare(a.name, b.name)
	})
	dirNames := slices.Sorted(maps.Keys(dirTimes))
	dirIndex := make(map[string]int, len(dirNames))
	for i, d := range dirNames {
		dirIndex[d] = i
	}

	le := binary.LittleEndian
	var pool []byte
	metaLen := 0
	scan := make([]byte, len(dirNames)*dirLen+len(files)*fileLen)
	counts := make([]int, len(dirNames))
	firsts := make([]int, len(dirNames))
	for i := range firsts {
		firsts[i] = -1
	}
	for i, f := range files {
		d := dirIndex[f.dir]
		if firsts[d] < 0 {
			firsts[d] = i
		}
		counts[d]++
		e := scan[len(dirNames)*dirLen+i*fileLen:]
		le.PutUint32(e, uint32(len(pool)))
		le.PutUint32(e[4:], uint32(len(f.name)))
		pool = append(pool, f.name...)
		le.PutUint64(e[8:], uint64(f.size))
		le.PutUint64(e[16:], uint64(f.mtime))
		le.PutUint64(e[24:], f.hash)
		le.PutUint32(e[32:], uint32(metaLen))
		le.PutUint32(e[36:], uint32(len(f.meta)))
		metaLen += len(f.meta)
		le.PutUint32(e[40:], uint32(d))
	}
	next := 0
	for i, name := range dirNames {
		e := scan[i*dirLen:]
		le.PutUint32(e, uint32(len(pool)))
		le.PutUint32(e[4:], uint32(len(name)))
		pool = append(pool, name...)
		le.PutUint64(e[8:], uint64(dirTimes[name]))
		first := next
		if firsts[i] >= 0 {
			first = firsts[i]
		}
		le.PutUint32(e[16:], uint32(first))
		le.PutUint32(e[20:], uint32(counts[i]))
		next = first + counts[i]
	}
	namesAt := len(scan)
	scan = append(scan, pool...)

	type idEnt struct {
		id   string
		file int
	}
	var ids, copies []idEnt
	for i, f := range files {
		if f.broken {
			continue
		}
		ids = append(ids, idEnt{f.id, i})
		if f.fid != "" && f.fid != f.id {
			copies = append(copies, idEnt{f.fid, i})
		}
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i].id < ids[j].id })
	idx := make([]byte, 8+(len(ids)+len(copies))*idEntLen)
	le.PutUint32(idx, uint32(len(ids)))
	le.PutUint32(idx[4:], uint32(len(copies)))
	var idPool []byte
	for k, e := range append(ids, copies...) {
		if k > 0 && k < len(ids) && ids[k-1].id == e.id {
			return nil, fmt.Errorf("index catalog: id %s is held by two notes", e.id)
		}
		ent := idx[8+k*idEntLen:]
		le.PutUint32(ent, uint32(len(idPool)))
		le.PutUint32(ent[4:], uint32(len(e.id)))
		le.PutUint32(ent[8:], uint32(e.file))
		idPool = append(idPool, e.id...)
	}
	idx = append(idx, idPool...)

	head := make([]byte, headerLen)
	copy(head, baseMagic[:])
	le.PutUint64(head[8:], uint64(writtenAt))
	le.PutUint32(head[16:], uint32(len(dirNames)))
	le.PutUint32(head[20:], uint32(len(files)))
	le.PutUint32(head[24:], uint32(len(schema)))
	le.PutUint32(head[28:], uint32(len(scan)))
	le.PutUint32(head[32:], uint32(len(idx)))
	le.PutUint32(head[36:], uint32(metaLen))
	le.PutUint32(head[40:], uint32(namesAt))
	return &basePlan{head: head, schema: []byte(schema), scan: scan, idx: idx, files: files}, nil
}

// write writes the base to w.
func (bp *basePlan) write(w io.Writer) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	for _, part := range [][]byte{bp.head, bp.schema, bp.scan, bp.idx} {
		if _, err := bw.Write(part); err != nil {
			return err
		}
	}
	for _, f := range bp.files {
		if _, err := bw.WriteString(f.meta); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// Metadata record: length-prefixed strings, then varint numbers.
func encodeMeta(r *Record) []byte {
	var b []byte
	for _, s := range []string{r.ID, r.FID, r.Title, string(r.Type), r.Project, r.Area,
		strings.Join(r.Tags, ","), string(r.Source), string(r.Status), r.SupersededBy, r.Broken} {
		b = binary.AppendUvarint(b, uint64(len(s)))
		b = append(b, s...)
	}
	b = binary.AppendVarint(b, int64(r.Importance))
	b = binary.AppendVarint(b, r.Created.Unix())
	b = binary.AppendVarint(b, r.Updated.Unix())
	return b
}

var errShortMeta = errors.New("metadata record too short")

// decodeMeta decodes a metadata record; its strings share m's memory.
func decodeMeta(m string) (*Record, error) {
	s, nums, err := splitMeta(m)
	if err != nil {
		return nil, err
	}
	r := &Record{FID: s[1], Broken: s[10]}
	fillEntry(&r.Entry, &s, &nums)
	return r, nil
}

// fillEntry sets the entry's fields held in a metadata record (all but its
// path) from what splitMeta read of it.
func fillEntry(e *memories.Entry, s *[11]string, nums *[3]int64) {
	e.ID, e.Title, e.Type, e.Project, e.Area = s[0], s[2], memories.Type(s[3]), s[4], s[5]
	if s[6] != "" {
		e.Tags = strings.Split(s[6], ",")
	}
	e.Source, e.Status, e.SupersededBy = memories.Source(s[7]), memories.Status(s[8]), s[9]
	e.Importance = int(nums[0])
	e.Created, e.Updated = time.Unix(nums[1], 0).UTC(), time.Unix(nums[2], 0).UTC()
}

// The fields of a metadata record, in encodeMeta's order.
const (
	metaProject = 4
	metaArea    = 5
	metaBroken  = 10
)

// splitMeta reads a metadata record's strings (sharing m's memory) and
// numbers without allocating, so that a record can be looked at before it
// is decoded.
func splitMeta(m string) (s [11]string, nums [3]int64, err error) {
	for i := range s {
		// Most fields are shorter than 128 bytes: their length is one byte.
		if len(m) > 0 && m[0] < 0x80 && int(m[0]) < len(m) {
			n := int(m[0])
			s[i] = m[1 : 1+n]
			m = m[1+n:]
			continue
		}
		n, k := uvarint(m)
		if k <= 0 || n > uint64(len(m)-k) {
			return s, nums, errShortMeta
		}
		s[i] = m[k : k+int(n)]
		m = m[k+int(n):]
	}
	for i := range nums {
		ux, k := uvarint(m)
		if k <= 0 {
			return s, nums, errShortMeta
		}
		nums[i] = int64(ux >> 1)
		if ux&1 != 0 {
			nums[i] = ^nums[i]
		}
		m = m[k:]
	}
	return s, nums, nil
}

// uvarint is binary.Uvarint over a string.
func uvarint(s string) (uint64, int) {
	var x uint64
	var shift uint
	for i := 0; i < len(s) && i < binary.MaxVarintLen64; i++ {
		c := s[i]
		if c < 0x80 {
			return x | uint64(c)<<shift, i + 1
		}
		x |= uint64(c&0x7f) << shift
		shift += 7
	}
	return 0, 0
}

// Journal records are text: "+" and the fields below, tab-separated and escaped.
const (
	fPath = iota
	fSize
	fMTime
	fHash
	fFID
	fID
	fTitle
	fType
	fProject
	fArea
	fTags
	fSource
	fStatus
	fImportance
	fCreated
	fUpdated
	fSupersededBy
	fBroken
	nFields
)

func parseRecord(l string) (*Record, error) {
	if !strings.HasPrefix(l, "+\t") {
		return nil, errors.New("not a record")
	}
	f := strings.Split(l[2:], "\t")
	if len(f) != nFields {
		return nil, fmt.Errorf("%d fields, want %d", len(f), nFields)
	}
	var nums [6]int64
	for i, k := range []int{fSize, fMTime, fImportance, fCreated, fUpdated} {
		v, err := strconv.ParseInt(f[k], 10, 64)
		if err != nil {
			return nil, err
		}
		nums[i] = v
	}
	hash, err := strconv.ParseUint(f[fHash], 16, 64)
	if err != nil {
		return nil, err
	}
	r := &Record{Size: nums[0], MTime: nums[1], Hash: hash, FID: unescape(f[fFID]), Broken: unescape(f[fBroken])}
	r.Path, r.ID, r.Title = unescape(f[fPath]), unescape(f[fID]), unescape(f[fTitle])
	r.Type, r.Project, r.Area = memories.Type(unescape(f[fType])), unescape(f[fProject]), unescape(f[fArea])
	if tags := unescape(f[fTags]); tags != "" {
		r.Tags = strings.Split(tags, ",")
	}
	r.Source, r.Status = memories.Source(unescape(f[fSource])), memories.Status(unescape(f[fStatus]))
	r.Importance = int(nums[2])
	r.Created, r.Updated = time.Unix(nums[3], 0).UTC(), time.Unix(nums[4], 0).UTC()
	r.SupersededBy = unescape(f[fSupersededBy])
	return r, nil
}

func appendRecord(b []byte, r *Record) []byte {
	b = append(b, "+\t"...)
	b = appendEscaped(b, r.Path)
	b = fmt.Appendf(b, "\t%d\t%d\t%x", r.Size, r.MTime, r.Hash)
	for _, s := range []string{r.FID, r.ID, r.Title, string(r.Type), r.Project, r.Area, strings.Join(r.Tags, ","), string(r.Source), string(r.Status)} {
		b = append(b, '\t')
		b = appendEscaped(b, s)
	}
	b = fmt.Appendf(b, "\t%d\t%d\t%d\t", r.Importance, r.Created.Unix(), r.Updated.Unix())
	b = appendEscaped(b, r.SupersededBy)
	b = append(b, '\t')
	b = appendEscaped(b, r.Broken)
	return append(b, '\n')
}

var (
	escaper   = strings.NewReplacer("\\", `\\`, "\t", `\t`, "\n", `\n`, "\r", `\r`)
	unescaper = strings.NewReplacer(`\\`, "\\", `\t`, "\t", `\n`, "\n", `\r`, "\r")
)

func appendEscaped(b []byte, s string) []byte {
	if strings.ContainsAny(s, "\\\t\n\r") {
		s = escaper.Replace(s)
	}
	return append(b, s...)
}

func unescape(s string) string {
	if strings.IndexByte(s, '\\') < 0 {
		return s
	}
	return unescaper.Replace(s)
}
