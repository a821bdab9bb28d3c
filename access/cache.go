package access

import (
	"encoding/binary"
	"hash/crc32"
	"os"
	"slices"
	"sort"
	"strings"
	"time"

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

var crcTable = crc32.MakeTable(crc32.Castagnoli)

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

// cache is the decoded cache file.
type cache struct {
	token  string
	offset int64
	recs   []record // sorted by id
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
	if crc32.Checksum(body, crcTable) != binary.LittleEndian.Uint32(data[len(body):]) {
		return empty
	}
	at := len(magic)
	tok := string(data[at : at+tokenLen])
	at += tokenLen
	offset := int64(binary.LittleEndian.Uint64(data[at:]))
	at += 8
	n := int(binary.LittleEndian.Uint32(data[at:]))
	at += 4
	if tok != token || token == "" || offset > size || len(body) != headerLen+n*recordLen {
		return empty
	}
	c := &cache{token: token, offset: offset, recs: make([]record, n)}
	for i := range c.recs {
		r := &c.recs[i]
		r.id = string(body[at : at+memories.IDLen])
		at += memories.IDLen
		r.last = time.Unix(0, int64(binary.LittleEndian.Uint64(body[at:]))).UTC()
		at += 8
		for j := range r.counts {
			r.counts[j] = binary.LittleEndian.Uint32(body[at:])
			at += 4
		}
	}
	if !slices.IsSortedFunc(c.recs, func(a, b record) int { return strings.Compare(a.id, b.id) }) {
		return empty
	}
	return c
}

func (c *cache) encode() []byte {
	buf := make([]byte, 0, headerLen+len(c.recs)*recordLen+trailerLen)
	buf = append(buf, magic...)
	buf = append(buf, c.token...)
	buf = binary.LittleEndian.AppendUint64(buf, uint64(c.offset))
	buf = binary.LittleEndian.AppendUint32(buf, uint32(len(c.recs)))
	for _, r := range c.recs {
		buf = append(buf, r.id...)
		buf = binary.LittleEndian.AppendUint64(buf, uint64(r.last.UnixNano()))
		for _, n := range r.counts {
			buf = binary.LittleEndian.AppendUint32(buf, n)
		}
	}
	return binary.LittleEndian.AppendUint32(buf, crc32.Checksum(buf, crcTable))
}

func (c *cache) find(id string) (record, bool) {
	i := sort.Search(len(c.recs), func(i int) bool { return c.recs[i].id >= id })
	if i < len(c.recs) && c.recs[i].id == id {
		return c.recs[i], true
	}
	return record{}, false
}

func (c *cache) all() map[string]memories.AccessStat {
	out := make(map[string]memories.AccessStat, len(c.recs))
	for _, r := range c.recs {
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
