package index

import (
	"encoding/binary"
	"hash/fnv"
	"maps"
	"path"
	"slices"
	"strings"
	"unsafe"
	"weak"

	"github.com/cortexmem/cortex/memories"
)

// The base's own numbering, for caches of something computed from notes.
//
// A base file never changes once written: its file numbers, and each
// number's path, hash and metadata, hold until a compaction or a rebuild
// writes another base. A cache kept by base number (the duplicate check's
// per-project word index) is then valid for as long as BaseID is the same,
// with what the journal changed since (Overlay, Shadowed) applied over it:
// a save needs neither the paths of a project's thousands of notes nor the
// decoding of the catalog's every record to find them.

// BaseID identifies the base file: a hash of its header (the time it was
// written, its counts and section lengths), 0 when there is none. Two bases
// with the same id are the same file, as far as a cache can tell.
func (c *Catalog) BaseID() uint64 {
	if c.base == nil {
		return 0
	}
	var h [headerLen]byte
	le := binary.LittleEndian
	le.PutUint64(h[:], uint64(c.base.writtenAt))
	le.PutUint32(h[8:], uint32(c.base.nDirs))
	le.PutUint32(h[12:], uint32(c.base.nFiles))
	le.PutUint64(h[16:], uint64(c.base.idxAt))
	le.PutUint64(h[24:], uint64(c.base.metaAt))
	le.PutUint32(h[32:], uint32(c.base.metaLen))
	le.PutUint32(h[36:], uint32(c.base.idxLen))
	le.PutUint32(h[40:], uint32(len(c.base.scan)))
	f := fnv.New64a()
	_, _ = f.Write(h[:])
	_, _ = f.Write([]byte(c.base.schema))
	return max(f.Sum64(), 1)
}

// BaseToken stands for the catalog's base in memory: catalogs whose tokens
// are equal share one base, whose bytes never change (a writer replaces the
// file whole, and a catalog that reads the new one has another base). A
// cache of what was checked against a base can keep its token without
// keeping the base alive. The zero token is that of a catalog without one.
type BaseToken struct{ p weak.Pointer[baseFile] }

// BaseToken is the catalog's base's token.
func (c *Catalog) BaseToken() BaseToken {
	if c.base == nil {
		return BaseToken{}
	}
	return BaseToken{weak.Make(c.base)}
}

// BaseLen is how many files the base numbers (0 to BaseLen-1).
func (c *Catalog) BaseLen() int {
	if c.base == nil {
		return 0
	}
	return c.base.nFiles
}

// BaseHash is the hash of base file i's bytes (Record.Hash) as the base
// holds it; i must be below BaseLen.
func (c *Catalog) BaseHash(i int) uint64 {
	return binary.LittleEndian.Uint64(c.base.fileEntry(i)[24:])
}

// BaseEntriesWhere calls fn, in base order, for every readable record of the
// base whose project, area and file name keep accepts, with its base number
// and its hash (Record.Hash), whether the journal replaced it since or not.
func (c *Catalog) BaseEntriesWhere(keep func(project, area, name string) bool, fn func(i int, e *memories.Entry, hash uint64) error) error {
	if c.base == nil {
		return nil
	}
	if err := c.base.loadMeta(); err != nil {
		return err
	}
	return c.baseKept(keep, func(i int, s [11]string, nums [3]int64) error {
		e := memories.Entry{Path: c.base.path(i)}
		fillEntry(&e, &s, &nums)
		return fn(i, &e, c.BaseHash(i))
	})
}

// BaseEntry is the entry of base file i as the base holds it (the journal
// may have replaced it since: see Shadowed), and its hash.
func (c *Catalog) BaseEntry(i int) (memories.Entry, uint64, error) {
	if c.base == nil || i < 0 || i >= c.base.nFiles {
		return memories.Entry{}, 0, corrupt("no base file %d", i)
	}
	r, err := c.base.record(i)
	if err != nil {
		return memories.Entry{}, 0, err
	}
	return r.Entry, r.Hash, nil
}

// BaseIndex is the base number of the file at path p, -1 when the base has
// none there.
func (c *Catalog) BaseIndex(p string) int {
	if c.base == nil {
		return -1
	}
	return c.base.findPath(p)
}

// Shadowed lists, sorted, the base numbers of the files the journal (or a
// change in memory) replaced or removed since the base was written: what
// the base says of them no longer holds.
func (c *Catalog) Shadowed() []int {
	if c.base == nil {
		return nil
	}
	var out []int
	for p := range c.over {
		if i := c.base.findPath(p); i >= 0 {
			out = append(out, i)
		}
	}
	slices.Sort(out)
	return out
}

// OverlayEntriesWhere calls fn, in path order, for every readable record
// the journal (or a change in memory) added or replaced since the base was
// written whose project, area and file name keep accepts, with its hash.
func (c *Catalog) OverlayEntriesWhere(keep func(project, area, name string) bool, fn func(e *memories.Entry, hash uint64) error) error {
	for _, p := range slices.Sorted(maps.Keys(c.over)) {
		r := c.over[p]
		if r == nil || r.Broken != "" || !keep(r.Project, r.Area, path.Base(r.Path)) {
			continue
		}
		if err := fn(&r.Entry, r.Hash); err != nil {
			return err
		}
	}
	return nil
}

// metaWindow is how much of the metadata section BaseProjects reads at a
// time when the section is not loaded.
var metaWindow = 256 << 10

// BaseProjects lists, sorted, the projects of the base's readable records
// (those BaseEntriesWhere calls fn with), whether the journal replaced them
// since or not. Where the metadata section is not loaded already, it reads
// the section a window at a time and keeps none of it: a long-running
// process (the MCP server lists the projects once at start-up, see
// store.PrepareWordOverlaps) would otherwise hold the whole section (about
// 15 MB at 100,000 notes) for as long as it holds the catalog, to no use.
func (c *Catalog) BaseProjects() ([]string, error) {
	if c.base == nil {
		return nil, nil
	}
	seen := map[string]bool{}
	all := func(_, _, _ string) bool { return true }
	err := c.baseKept(all, func(_ int, s [11]string, _ [3]int64) error {
		if !seen[s[metaProject]] {
			seen[strings.Clone(s[metaProject])] = true // s is the window's (eachMeta)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return slices.Sorted(maps.Keys(seen)), nil
}

// eachMeta calls fn with every file's metadata record, in file order. The
// record shares the loaded section's memory when it is loaded (or mapped);
// otherwise it is read into a window reused for the records that follow,
// and is only valid during the call.
func (b *baseFile) eachMeta(fn func(i int, m string) error) error {
	if b.mapped != nil {
		_ = b.loadMeta() // a view of the mapping: nothing is read
	}
	le := binary.LittleEndian
	if b.meta != "" || b.metaLen == 0 {
		for i := 0; i < b.nFiles; i++ {
			e := b.fileEntry(i)
			off, n := int(le.Uint32(e[32:])), int(le.Uint32(e[36:]))
			if err := fn(i, b.meta[off:off+n]); err != nil {
				return err
			}
		}
		return nil
	}
	var buf []byte
	at := 0 // the section offset of buf[0]
	for i := 0; i < b.nFiles; i++ {
		e := b.fileEntry(i)
		off, n := int(le.Uint32(e[32:])), int(le.Uint32(e[36:]))
		if off < at || off+n > at+len(buf) {
			// Records are written in file order, so this reads the
			// section once; any other order is read right, only slower.
			size := min(max(metaWindow, n), b.metaLen-off)
			if cap(buf) < size {
				buf = make([]byte, size)
			}
			buf = buf[:size]
			if _, err := b.f.ReadAt(buf, b.metaAt+int64(off)); err != nil {
				return corrupt("short metadata read: %v", err)
			}
			at = off
		}
		if err := fn(i, unsafe.String(unsafe.SliceData(buf[off-at:]), n)); err != nil {
			return err
		}
	}
	return nil
}

// HoldsMetadata reports whether the catalog holds its base's metadata
// section in memory, read whole for a listing or a search of every note
// (a mapped base's is a view of the file, not held).
func (c *Catalog) HoldsMetadata() bool {
	return c.base != nil && c.base.mapped == nil && c.base.meta != ""
}

// DropMetadata lets go of the base's metadata section when the catalog
// holds it (HoldsMetadata): records decoded from it keep what they share
// of it, and later lookups read their records from the file. The caller
// must be the catalog's only user meanwhile (a writer, under the write
// lock, with a catalog it took: see store's writerCatalog).
func (c *Catalog) DropMetadata() {
	if c.HoldsMetadata() {
		c.base.meta = ""
	}
}
