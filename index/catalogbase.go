package index

import (
	"encoding/binary"
	"hash/fnv"
	"maps"
	"path"
	"slices"

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
