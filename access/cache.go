package access

import (
	"encoding/binary"
	"hash/crc32"
	"os"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/cortexmem/cortex/memories"
)

// The cache file: a header, fixed-size records sorted by id, and a checksum.
//
//	magic    [8]byte  "CXACC001"
//	token    [32]byte the log's token
//	offset   uint64   the log bytes the records sum up
//	count    uint32
//	records  count × { id [26]byte; last int64 (Unix ns); counts [4]uint32 }
//	crc      uint32   CRC-32C of everything before
//
// Ids are memories.IDLen long; an access of any other id is kept in the log
// but not in the cache.
const (
	magic      = "CXACC001"
	tokenLen   = 32
	headerLen  = len(magic) + tokenLen + 8 + 4
	recordLen  = memories.IDLen + 8 + 4*len(sources)
	trailerLen = 4
)

// sources are the access sources the cache counts apart; any other counts as
// "other".
var sources = [...]string{memories.AccessRecall, memories.AccessSessionStart, memories.AccessContext, otherSource}

const otherSource = "other"

func sourceIndex(s string) int {
	for i, v := range sources[:len(sources)-1] {
		if v == s {
			return i
		}
	}
	return len(sources) - 1
}

// sourceName maps a source outside the list to "other", so that counts from the
// log and from the cache agree.
func sourceName(s string) string { return sources[sourceIndex(s)] }

// crcTable is made on first use: making the Castagnoli table costs about
// 0.15 ms, which every command would pay at start-up.
var crcTable = sync.OnceValue(func() *crc32.Table { return crc32.MakeTable(crc32.Castagnoli) })

// smallCRC is the longest input checksum sums itself.
const smallCRC = 64 << 10

// slicingTables are CRC-32C's tables for eight bytes at a time (8 KiB, made
// on first use in a few microseconds): slicing-by-8, as hash/crc32 sums
// where the processor has no CRC instruction.
var slicingTables = sync.OnceValue(func() *[8][256]uint32 {
	var t [8][256]uint32
	for i := range t[0] {
		c := uint32(i)
		for range 8 {
			if c&1 != 0 {
				c = c>>1 ^ crc32.Castagnoli
			} else {
				c >>= 1
			}
		}
		t[0][i] = c
	}
	for i := range t[0] {
		c := t[0][i]
		for k := 1; k < len(t); k++ {
			c = t[0][c&0xff] ^ c>>8
			t[k][i] = c
		}
	}
	return &t
})

// checksum is the CRC-32C of b. hash/crc32 sums it with the processor's
// CRC instruction where there is one, but its first sum builds the tables
// that way needs (0.2–0.4 ms on an AMD EPYC VM), which a recall, a
// session-start or a briefing paid to check a cache of a few hundred
// records. Up to smallCRC bytes (1,300 records) are summed eight bytes at a
// time instead, the same sum (TestChecksumIsCRC32C).
func checksum(b []byte) uint32 {
	if len(b) > smallCRC {
		return crc32.Checksum(b, crcTable())
	}
	t := slicingTables()
	crc := ^uint32(0)
	for ; len(b) >= 8; b = b[8:] {
		crc ^= binary.LittleEndian.Uint32(b)
		crc = t[0][b[7]] ^ t[1][b[6]] ^ t[2][b[5]] ^ t[3][b[4]] ^
			t[4][crc>>24] ^ t[5][crc>>16&0xff] ^ t[6][crc>>8&0xff] ^ t[7][crc&0xff]
	}
	for _, c := range b {
		crc = t[0][byte(crc)^c] ^ crc>>8
	}
	return ^crc
}

type record struct {
	id     string
	last   time.Time
	counts [len(sources)]uint32
}

func (r record) stat() memories.AccessStat {
	st := memories.AccessStat{Counts: map[string]int{}, Last: r.last}
	for i, n := range r.counts {
		if n > 0 {
			st.Counts[sources[i]] = int(n)
		}
	}
	return st
}

// cache is the cache file, decoded lazily: a reader asks about a few dozen
// memories of thousands, so records are found by binary search in the file's
// bytes and decoded one by one.
type cache struct {
	token  string
	offset int64
	n      int
	data   []byte // the records, n × recordLen
	recs   []record
}

// loadCache reads the cache at path when it was made from the log with this
// token and does not go past its size; otherwise it is an empty cache from the
// log's start.
func loadCache(path, token string, size int64) *cache {
	empty := &cache{token: token}
	data, err := os.ReadFile(path)
	if err != nil || len(data) < headerLen+trailerLen || string(data[:len(magic)]) != magic {
		return empty
	}
	body := data[:len(data)-trailerLen]
	if checksum(body) != binary.LittleEndian.Uint32(data[len(body):]) {
		return empty
	}
	at := len(magic)
	tok := string(data[at : at+tokenLen])
	at += tokenLen
	offset := int64(binary.LittleEndian.Uint64(data[at:]))
	at += 8
	n := int(binary.LittleEndian.Uint32(data[at:]))
	at += 4
	if tok != token || token == "" || offset > size || n < 0 || len(body) != headerLen+n*recordLen {
		return empty
	}
	// The records are sorted: only this package writes the file, and the
	// checksum says it is as written.
	return &cache{token: token, offset: offset, n: n, data: body[at:]}
}

// id is record i's id. Ids are shorter than the 32 bytes Go converts on the
// stack, so this does not allocate.
func (c *cache) id(i int) string {
	return string(c.data[i*recordLen : i*recordLen+memories.IDLen])
}

// recordsDecoded counts the records decoded one by one (record) and those a
// fold decodes to add a tail to: tests see from it how much of a cache a
// call read.
var recordsDecoded atomic.Int64

// record decodes record i.
func (c *cache) record(i int) record {
	recordsDecoded.Add(1)
	r := c.view(i)
	r.id = strings.Clone(r.id)
	return r
}

// view decodes record i with an id that shares the cache's memory: the
// file's bytes are never changed once read, and the id keeps them alive, so
// it can be kept like any string; but a caller that keeps one id of
// thousands keeps the whole file in memory, so only the visits of every
// record (EachTally, EachStat), whose callers keep a few, use it.
func (c *cache) view(i int) record {
	b := c.data[i*recordLen:]
	r := record{id: unsafe.String(&b[0], memories.IDLen)}
	at := memories.IDLen
	r.last = time.Unix(0, int64(binary.LittleEndian.Uint64(b[at:]))).UTC()
	at += 8
	for j := range r.counts {
		r.counts[j] = binary.LittleEndian.Uint32(b[at:])
		at += 4
	}
	return r
}

// records decodes every record, or returns those the cache was built with.
func (c *cache) records() []record {
	if c.recs != nil || c.n == 0 {
		return c.recs
	}
	out := make([]record, c.n)
	for i := range out {
		out[i] = c.record(i)
	}
	return out
}

// encode is the cache file's bytes.
func (c *cache) encode() []byte {
	n := c.n
	if c.recs != nil {
		n = len(c.recs)
	}
	buf := make([]byte, 0, headerLen+n*recordLen+trailerLen)
	buf = append(buf, magic...)
	buf = append(buf, c.token...)
	buf = binary.LittleEndian.AppendUint64(buf, uint64(c.offset))
	buf = binary.LittleEndian.AppendUint32(buf, uint32(n))
	if c.recs != nil {
		for _, r := range c.recs {
			buf = r.append(buf)
		}
	} else {
		buf = append(buf, c.data[:n*recordLen]...)
	}
	return binary.LittleEndian.AppendUint32(buf, checksum(buf))
}

// fold returns the cache of the log up to offset: c's records with the
// accesses of tail added, as all() merged with tail and turned back into
// records would give, without decoding the records tail does not touch.
func (c *cache) fold(tail map[string]memories.AccessStat, offset int64) *cache {
	add := toRecords(tail)
	if c.recs != nil || c.n == 0 {
		recs := make([]record, 0, len(c.recs)+len(add))
		i := 0
		for _, r := range add {
			for ; i < len(c.recs) && c.recs[i].id < r.id; i++ {
				recs = append(recs, c.recs[i])
			}
			if i < len(c.recs) && c.recs[i].id == r.id {
				r = c.recs[i].plus(r)
				i++
			}
			recs = append(recs, r)
		}
		recs = append(recs, c.recs[i:]...)
		return &cache{token: c.token, offset: offset, n: len(recs), recs: recs}
	}
	data := make([]byte, 0, (c.n+len(add))*recordLen)
	i := 0 // the next record of c to copy
	for _, r := range add {
		j := i + sort.Search(c.n-i, func(k int) bool { return c.id(i+k) >= r.id })
		data = append(data, c.data[i*recordLen:j*recordLen]...)
		if j < c.n && c.id(j) == r.id {
			r = c.view(j).plus(r)
			j++
		}
		data = r.append(data)
		i = j
	}
	data = append(data, c.data[i*recordLen:c.n*recordLen]...)
	recordsDecoded.Add(int64(len(add)))
	return &cache{token: c.token, offset: offset, n: len(data) / recordLen, data: data}
}

// plus is r with the accesses of more added, as merge adds two stats.
func (r record) plus(more record) record {
	for i, n := range more.counts {
		r.counts[i] = uint32(min(int(r.counts[i])+int(n), 1<<31))
	}
	if more.last.After(r.last) {
		r.last = more.last
	}
	return r
}

// append appends r as the cache file holds it.
func (r record) append(buf []byte) []byte {
	buf = append(buf, r.id...)
	buf = binary.LittleEndian.AppendUint64(buf, uint64(r.last.UnixNano()))
	for _, n := range r.counts {
		buf = binary.LittleEndian.AppendUint32(buf, n)
	}
	return buf
}

func (c *cache) find(id string) (record, bool) {
	if c.recs != nil {
		i := sort.Search(len(c.recs), func(i int) bool { return c.recs[i].id >= id })
		if i < len(c.recs) && c.recs[i].id == id {
			return c.recs[i], true
		}
		return record{}, false
	}
	i := sort.Search(c.n, func(i int) bool { return c.id(i) >= id })
	if i < c.n && c.id(i) == id {
		return c.record(i), true
	}
	return record{}, false
}

func (c *cache) all() map[string]memories.AccessStat {
	recs := c.records()
	out := make(map[string]memories.AccessStat, len(recs))
	for _, r := range recs {
		out[r.id] = r.stat()
	}
	return out
}

// toRecords turns stats into sorted records, leaving out ids the cache cannot
// hold.
func toRecords(stats map[string]memories.AccessStat) []record {
	recs := make([]record, 0, len(stats))
	for id, st := range stats {
		if len(id) != memories.IDLen {
			continue
		}
		r := record{id: id, last: st.Last}
		for src, n := range st.Counts {
			r.counts[sourceIndex(src)] += uint32(min(n, 1<<31))
		}
		recs = append(recs, r)
	}
	slices.SortFunc(recs, func(a, b record) int { return strings.Compare(a.id, b.id) })
	return recs
}

func sortPairs(ps [][2]string) {
	slices.SortFunc(ps, func(a, b [2]string) int {
		if c := strings.Compare(a[0], b[0]); c != 0 {
			return c
		}
		return strings.Compare(a[1], b[1])
	})
}
