package access

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cortexmem/cortex/atomicfile"
	"github.com/cortexmem/cortex/config"
	"github.com/cortexmem/cortex/filelock"
	"github.com/cortexmem/cortex/memories"
)

// Defaults of Options.
const (
	DefaultCompactAbove = 8 << 20  // bytes of log
	DefaultCacheAbove   = 64 << 10 // bytes of log not in the cache
	DefaultLockTimeout  = 10 * time.Second
)

// Options configure a Log. Only State is required.
type Options struct {
	// State is the state folder, which says where the log, its cache and
	// its lock are.
	State config.State
	// LockTimeout bounds every wait for the log's lock.
	LockTimeout time.Duration
	// CompactAbove is the size of the log above which Record folds it into
	// counts.
	CompactAbove int64
	// CacheAbove is how many bytes of the log may lie past the cache before a
	// reader brings the cache up to date.
	CacheAbove int64
	// Resident is for a long-running process, which reads stats again and
	// again: the lines past the cache are kept folded between calls, and
	// each call folds only what was appended since. A short-lived process
	// reads stats once or twice for a few dozen memories, and folds only
	// the lines about those.
	Resident bool
	// CompactAside is for a long-running process: the Record that finds the
	// log above CompactAbove starts the compaction on a goroutine of its own
	// and returns, instead of making its caller (a recall being answered)
	// wait the hundreds of milliseconds an 8 MB log takes to fold. A
	// short-lived process compacts in line: it would exit before a goroutine
	// finished.
	CompactAside bool
	// Warn, when set, is told of a compaction run aside that failed (it is
	// housekeeping: the next Record above CompactAbove tries again).
	Warn func(msg string)
}

// Log is the access log of one state folder. It holds no open file: every call
// opens what it needs, so any number of processes can use one log at once.
type Log struct {
	o Options
	// compacting is set while a compaction started aside runs.
	compacting atomic.Bool
	// afterFold, when set (by tests), runs between the fold done without
	// the lock and the lock being taken.
	afterFold func()
	// memo keeps the last cache file read, for a long-running process that
	// reads stats again and again: it is reused while the file is unchanged.
	mu   sync.Mutex
	memo struct {
		fi    os.FileInfo
		token string
		c     *cache
		// tail is the accesses of the log from tailOf.offset to tailTo.
		tailOf *cache
		tailTo int64
		tail   map[string]memories.AccessStat
		// log is the log file the tail was read from.
		log os.FileInfo
	}
}

var (
	_ memories.AccessLog     = (*Log)(nil)
	_ memories.AccessVisitor = (*Log)(nil)
	_ memories.AccessTallier = (*Log)(nil)
)

// Open returns the log of the state folder o.State; nothing is read or
// written until it is used.
func Open(o Options) *Log {
	if o.LockTimeout <= 0 {
		o.LockTimeout = DefaultLockTimeout
	}
	if o.CompactAbove <= 0 {
		o.CompactAbove = DefaultCompactAbove
	}
	if o.CacheAbove <= 0 {
		o.CacheAbove = DefaultCacheAbove
	}
	return &Log{o: o}
}

// line is one line of the log. Header lines have only Log.
type line struct {
	Log    string    `json:"log,omitempty"`
	ID     string    `json:"id,omitempty"`
	Time   time.Time `json:"ts,omitzero"`
	Source string    `json:"source,omitempty"`
	N      int       `json:"n,omitempty"` // compacted: N accesses, the last at Time
}

// Record appends accesses to the log in one write, under the shared lock.
// Accesses with an empty id or source are refused. The log is not synced: an
// access is a hint, and a power cut may lose the last ones.
func (l *Log) Record(ctx context.Context, accesses []memories.Access) error {
	if len(accesses) == 0 {
		return nil
	}
	var buf []byte
	for _, a := range accesses {
		if a.ID == "" || a.Source == "" {
			return fmt.Errorf("access log: an access needs an id and a source (got %q, %q)", a.ID, a.Source)
		}
		b, err := json.Marshal(line{ID: a.ID, Time: a.Time.UTC(), Source: a.Source})
		if err != nil {
			return fmt.Errorf("access log: %w", err)
		}
		buf = append(append(buf, b...), '\n')
	}
	if err := atomicfile.MkdirAll(filepath.Dir(l.o.State.AccessLog())); err != nil {
		return fmt.Errorf("access log: %w", err)
	}
	lk, err := filelock.AcquireShared(ctx, l.o.State.AccessLock(), l.o.LockTimeout)
	if err != nil {
		return err
	}
	size, fi, err := l.append(buf)
	if rerr := lk.Release(); err == nil {
		err = rerr
	}
	if err != nil {
		return err
	}
	if l.o.Resident {
		l.recorded(buf, size, fi)
	}
	if size > l.o.CompactAbove {
		// Folding the log is housekeeping: when another process holds the
		// lock, it or a later writer will do it.
		if l.o.CompactAside {
			l.compactAside()
			return nil
		}
		if _, err := l.compact(ctx, false); err != nil {
			return err
		}
	}
	return nil
}

// compactAside starts a compaction on a goroutine unless one runs already.
func (l *Log) compactAside() {
	if !l.compacting.CompareAndSwap(false, true) {
		return
	}
	go func() {
		defer l.compacting.Store(false)
		if _, err := l.compact(context.Background(), false); err != nil && l.o.Warn != nil {
			l.o.Warn(err.Error())
		}
	}()
}

// recorded folds the lines of buf, which this process has just appended to
// the log, into the kept tail, when they were written right where the tail
// ends: the next reader then need not open the log to read back what this
// process wrote (a recall in the server reads stats twice and records once).
// Bytes another process appended in between, before or after these, make the
// log's size after the write differ from the tail's end plus buf, and the
// next reader reads the log as ever.
func (l *Log) recorded(buf []byte, size int64, fi os.FileInfo) {
	l.mu.Lock()
	defer l.mu.Unlock()
	m := &l.memo
	if m.log == nil || m.tailOf == nil || fi == nil || !os.SameFile(fi, m.log) || size-int64(len(buf)) != m.tailTo {
		return
	}
	foldLines(buf, m.tail, nil)
	m.tailTo = size
}

// append writes buf at the end of the log, creating the log with its header
// first when there is none, and returns the log's size and file after.
func (l *Log) append(buf []byte) (int64, os.FileInfo, error) {
	p := l.o.State.AccessLog()
	f, err := atomicfile.Open(p, os.O_WRONLY|os.O_APPEND)
	if errors.Is(err, fs.ErrNotExist) {
		// Created whole, with its header, or not at all: another writer may
		// be creating it at the same moment.
		if err := atomicfile.Create(p, header(newToken())); err != nil && !errors.Is(err, fs.ErrExist) {
			return 0, nil, fmt.Errorf("access log: %w", err)
		}
		f, err = atomicfile.Open(p, os.O_WRONLY|os.O_APPEND)
	}
	if err != nil {
		return 0, nil, fmt.Errorf("access log: %w", err)
	}
	_, err = f.Write(buf)
	var size int64
	var fi os.FileInfo
	if err == nil {
		if fi, err = f.Stat(); err == nil {
			size = fi.Size()
		}
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return 0, nil, fmt.Errorf("access log %s: %w", p, err)
	}
	return size, fi, nil
}

func newToken() string {
	var b [tokenLen / 2]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(err) // crypto/rand never fails on supported platforms
	}
	return hex.EncodeToString(b[:])
}

func header(token string) []byte {
	b, _ := json.Marshal(line{Log: token})
	return append(b, '\n')
}

// Stats implements memories.AccessLog: the counts of the cache plus those of the
// lines after it. Ids never accessed are absent. With no ids it sums up every
// memory.
func (l *Log) Stats(ctx context.Context, ids []string) (map[string]memories.AccessStat, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	var c *cache
	var tail map[string]memories.AccessStat
	var err error
	done := false
	if ids != nil && !l.o.Resident {
		c, tail, done, err = l.wantedLocked(ids)
	}
	if !done && err == nil {
		c, tail, err = l.currentLocked()
	}
	if err != nil {
		return nil, err
	}
	out := map[string]memories.AccessStat{}
	if c == nil {
		return out, nil
	}
	if ids == nil {
		out = c.all()
		for id, st := range tail {
			out[id] = merge(out[id], st)
		}
		return out, nil
	}
	for _, id := range ids {
		more, inTail := tail[id]
		r, inCache := c.find(id)
		if inCache || inTail {
			// A new map: the memo's maps stay the memo's.
			out[id] = statOf(r, inCache, more)
		}
	}
	return out, nil
}

// statOf is a memory's stat: its cache record's counts when inCache, plus
// the accesses of the lines after the cache, in one new map (a recall asks
// about fifty memories twice, and making a map for each of the two and
// another to merge them was most of the time it took).
func statOf(r record, inCache bool, more memories.AccessStat) memories.AccessStat {
	st := memories.AccessStat{Counts: make(map[string]int, len(sources))}
	if inCache {
		st.Last = r.last
		for i, n := range r.counts {
			if n > 0 {
				st.Counts[sources[i]] = int(n)
			}
		}
	}
	for src, n := range more.Counts {
		st.Counts[src] += n
	}
	if more.Last.After(st.Last) {
		st.Last = more.Last
	}
	return st
}

// EachStat implements memories.AccessVisitor: fn sees every accessed
// memory's stat, as Stats(nil) sums it up, without a map of them all being
// built (a briefing ranks every memory by activation). The stat's Counts
// are fn's to read during the call only: the map is reused.
func (l *Log) EachStat(ctx context.Context, fn func(id string, st memories.AccessStat)) error {
	st := memories.AccessStat{Counts: make(map[string]int, len(sources))}
	return l.EachTally(ctx, func(id string, counts []int, last time.Time) {
		clear(st.Counts)
		for i, n := range counts {
			if n > 0 {
				st.Counts[sources[i]] = n
			}
		}
		st.Last = last
		fn(id, st)
	})
}

// TallySources implements memories.AccessTallier: the sources the log
// counts apart, any other being counted as "other".
func (l *Log) TallySources() []string { return sources[:] }

// EachTally implements memories.AccessTallier: EachStat's stats as counts
// per source (in TallySources' order), with no map per memory — a session
// start ranks every accessed memory, thousands, and filling a map for each
// cost more than ranking it. counts is fn's to read during the call only.
func (l *Log) EachTally(ctx context.Context, fn func(id string, counts []int, last time.Time)) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	c, tail, err := l.currentLocked()
	if err != nil || c == nil {
		return err
	}
	var counts [len(sources)]int
	visit := func(id string, r record, inCache bool, more memories.AccessStat, inTail bool) {
		counts = [len(sources)]int{}
		var last time.Time
		if inCache {
			last = r.last
			for i, n := range r.counts {
				counts[i] += int(n)
			}
		}
		if inTail {
			for src, n := range more.Counts {
				counts[sourceIndex(src)] += n
			}
			if more.Last.After(last) {
				last = more.Last
			}
		}
		fn(id, counts[:], last)
	}
	recs := c.recs
	n := c.n
	if recs != nil {
		n = len(recs)
	}
	for i := range n {
		var r record
		if recs != nil {
			r = recs[i]
		} else {
			r = c.view(i)
		}
		more, inTail := tail[r.id]
		visit(r.id, r, true, more, inTail)
	}
	for id, more := range tail {
		if _, found := c.find(id); !found {
			visit(id, record{}, false, more, true)
		}
	}
	return nil
}

// currentLocked is the cache and the lines after it, folded (nil and nil
// without a log). l.mu is held.
func (l *Log) currentLocked() (*cache, map[string]memories.AccessStat, error) {
	m := &l.memo
	if m.log != nil && m.tailOf != nil && m.tailTo-m.tailOf.offset <= l.o.CacheAbove {
		// The log is the file the tail was read from and ends where the
		// tail does (this process's own appends are folded in as they are
		// written: see recorded): nothing to read, when the cache is
		// unchanged too. The log is only ever appended to or replaced.
		if fi, err := os.Stat(l.o.State.AccessLog()); err == nil && os.SameFile(fi, m.log) && fi.Size() == m.tailTo {
			if c := l.cachedLocked(m.token, fi.Size()); c == m.tailOf {
				return c, m.tail, nil
			}
		}
	}
	f, err := os.Open(l.o.State.AccessLog())
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("access log: %w", err)
	}
	defer f.Close()
	logReads.Add(1)
	fi, err := f.Stat()
	if err != nil {
		return nil, nil, fmt.Errorf("access log: %w", err)
	}
	token, err := readToken(f)
	if err != nil {
		return nil, nil, err
	}
	c := l.cachedLocked(token, fi.Size())
	// The lines after the cache, folded: a long-running reader keeps them
	// and reads only what was appended since its last call.
	if m.log == nil || !os.SameFile(fi, m.log) {
		m.tailOf = nil // another log file: its tail is read from the cache's end
	}
	m.log = fi
	if m.tailOf != c || m.tailTo > fi.Size() {
		m.tailOf, m.tailTo, m.tail = c, c.offset, map[string]memories.AccessStat{}
	}
	more, err := readFrom(f, m.tailTo, fi.Size())
	if err != nil {
		return nil, nil, err
	}
	foldLines(more, m.tail, nil)
	m.tailTo += int64(len(more))
	if m.tailTo-c.offset > l.o.CacheAbove {
		// Fold the tail into a new cache, so that the next reader does not
		// parse it again. Two readers doing this at once write equal files.
		// The tail is a few hundred memories and the cache tens of
		// thousands: it is merged into the cache's bytes, which are copied
		// as they are where the tail has nothing (decoding every record
		// into a map and sorting them again put ~50 ms on one recall in
		// about fifty of a resident server at 100,000 memories).
		nc := c.fold(m.tail, m.tailTo)
		if err := atomicfile.WriteDerived(l.o.State.AccessIndex(), nc.encode()); err != nil {
			return nil, nil, fmt.Errorf("access cache: %w", err)
		}
		l.memo.c, l.memo.fi, l.memo.token = nc, nil, token
		if fi, err := os.Stat(l.o.State.AccessIndex()); err == nil {
			l.memo.fi = fi
		}
		c = nc
		m.tailOf, m.tailTo, m.tail = c, c.offset, map[string]memories.AccessStat{}
	}
	return c, m.tail, nil
}

// wantedLocked is currentLocked for a short-lived process that asks about
// ids: the lines after the cache about those ids alone are folded, and
// nothing is kept for a later call (at 10,000 memories a recall folded the
// few hundred lines of every memory accessed since the cache was written,
// about a twentieth of its time, to look up fifty). When the cache is due
// to be brought up to date (see Options.CacheAbove), it says it has not
// done it, and currentLocked does. l.mu is held.
func (l *Log) wantedLocked(ids []string) (c *cache, tail map[string]memories.AccessStat, done bool, err error) {
	f, err := os.Open(l.o.State.AccessLog())
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, true, nil
	}
	if err != nil {
		return nil, nil, false, fmt.Errorf("access log: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, nil, false, fmt.Errorf("access log: %w", err)
	}
	token, err := readToken(f)
	if err != nil {
		return nil, nil, false, err
	}
	c = l.cachedLocked(token, fi.Size())
	more, err := readFrom(f, c.offset, fi.Size())
	if err != nil {
		return nil, nil, false, err
	}
	if int64(len(more)) > l.o.CacheAbove {
		return nil, nil, false, nil
	}
	want := make(map[string]bool, len(ids))
	for _, id := range ids {
		want[id] = true
	}
	tail = map[string]memories.AccessStat{}
	foldLines(more, tail, want)
	return c, tail, true, nil
}

// merge adds the accesses of b to a's, in a new stat.
func merge(a, b memories.AccessStat) memories.AccessStat {
	out := memories.AccessStat{Counts: make(map[string]int, len(a.Counts)+len(b.Counts)), Last: a.Last}
	for src, n := range a.Counts {
		out.Counts[src] += n
	}
	for src, n := range b.Counts {
		out.Counts[src] += n
	}
	if b.Last.After(out.Last) {
		out.Last = b.Last
	}
	return out
}

// cachedLocked is loadCache, reusing the cache read last when its file, the
// log's token and the log's size allow. l.mu is held.
func (l *Log) cachedLocked(token string, size int64) *cache {
	p := l.o.State.AccessIndex()
	fi, err := os.Stat(p)
	m := &l.memo
	if err == nil && m.c != nil && m.fi != nil && m.token == token && m.c.offset <= size && os.SameFile(fi, m.fi) &&
		fi.Size() == m.fi.Size() && fi.ModTime().Equal(m.fi.ModTime()) {
		return m.c
	}
	if errors.Is(err, fs.ErrNotExist) && m.c != nil && m.fi == nil && m.token == token && m.c.offset == 0 && m.c.n == 0 && m.c.recs == nil {
		return m.c // still no cache: the empty one loadCache would give again
	}
	c := loadCache(p, token, size)
	m.fi, m.token, m.c = fi, token, c
	if err != nil {
		m.fi = nil
	}
	return c
}

// readToken reads the log's header line; a log without one (damaged, or
// written by hand) has the empty token.
func readToken(f *os.File) (string, error) {
	r := bufio.NewReaderSize(io.NewSectionReader(f, 0, 256), 256)
	first, err := r.ReadBytes('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return "", fmt.Errorf("access log: %w", err)
	}
	if tok, ok := quickHeader(first); ok {
		return tok, nil
	}
	var h line
	if json.Unmarshal(first, &h) == nil && len(h.Log) == tokenLen {
		return h.Log, nil
	}
	return "", nil
}

// readFrom reads the log from offset to size, up to the last whole line: a line
// being written is left for later.
func readFrom(f *os.File, offset, size int64) ([]byte, error) {
	if size <= offset {
		return nil, nil
	}
	buf := make([]byte, size-offset)
	if _, err := f.ReadAt(buf, offset); err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("access log: %w", err)
	}
	return buf[:bytes.LastIndexByte(buf, '\n')+1], nil
}

// foldLines adds the accesses in lines to stats, for the ids in want (every id
// when want is nil). Lines that do not parse, headers among them, are skipped.
func foldLines(lines []byte, stats map[string]memories.AccessStat, want map[string]bool) {
	for len(lines) > 0 {
		i := bytes.IndexByte(lines, '\n')
		ln := lines[:i]
		lines = lines[i+1:]
		if want != nil && !mentions(ln, want) {
			continue
		}
		linesDecoded.Add(1)
		e, ok := quickLine(ln)
		if !ok && json.Unmarshal(ln, &e) != nil {
			continue
		}
		if e.ID == "" || e.Source == "" || e.Time.IsZero() {
			continue
		}
		if want != nil && !want[e.ID] {
			continue
		}
		n := max(e.N, 1)
		st, ok := stats[e.ID]
		if !ok || st.Counts == nil {
			st.Counts = map[string]int{}
		}
		st.Counts[sourceName(e.Source)] += n
		if e.Time.After(st.Last) {
			st.Last = e.Time
		}
		stats[e.ID] = st
	}
}

// linesDecoded counts the lines foldLines decodes, and logReads the times
// a reader opened the log to read it: tests see from them how much of a log
// a call read.
var linesDecoded, logReads atomic.Int64

// mentions is a quick test, before decoding a line, that it may be about one of
// the wanted ids: the id is the line's first value.
func mentions(ln []byte, want map[string]bool) bool {
	const prefix = `{"id":"`
	if !bytes.HasPrefix(ln, []byte(prefix)) {
		return true // not written by this package; decode it to see
	}
	rest := ln[len(prefix):]
	end := bytes.IndexByte(rest, '"')
	return end < 0 || want[string(rest[:end])]
}

// Compact folds the log into one count line per memory and source, and writes
// the cache for it. It waits for the lock as long as Options.LockTimeout.
func (l *Log) Compact(ctx context.Context) error {
	_, err := l.compact(ctx, true)
	return err
}

// compact does Compact; without wait it gives up at once when the lock is
// held, and reports whether it ran. Most of the work, decoding the lines
// already in the log (about 100,000 in 8 MB), is done before the lock is
// taken: writers then wait only while the lines appended meanwhile are
// folded in and the result is written. A log replaced in between (another
// process compacted it) is left as it is.
func (l *Log) compact(ctx context.Context, wait bool) (ran bool, err error) {
	f, err := os.Open(l.o.State.AccessLog())
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("access log: %w", err)
	}
	before, data, err := readWhole(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return false, err
	}
	bySource := map[[2]string]*line{}
	foldCounts(data, bySource)
	if l.afterFold != nil {
		l.afterFold()
	}

	var lk *filelock.Lock
	if wait {
		lk, err = filelock.Acquire(ctx, l.o.State.AccessLock(), l.o.LockTimeout)
	} else {
		lk, err = filelock.TryAcquire(l.o.State.AccessLock())
	}
	if err != nil || lk == nil {
		return false, err
	}
	defer func() {
		if rerr := lk.Release(); err == nil {
			err = rerr
		}
	}()
	f, err = os.Open(l.o.State.AccessLog())
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("access log: %w", err)
	}
	defer f.Close()
	now, err := f.Stat()
	if err != nil {
		return false, fmt.Errorf("access log: %w", err)
	}
	if !os.SameFile(before, now) || now.Size() < int64(len(data)) {
		return false, nil // compacted (or rewritten) by another process meanwhile
	}
	more, err := readFrom(f, int64(len(data)), now.Size())
	if err != nil {
		return false, err
	}
	foldCounts(more, bySource)
	keys := make([][2]string, 0, len(bySource))
	for k := range bySource {
		keys = append(keys, k)
	}
	sortPairs(keys)
	token := newToken()
	out := header(token)
	stats := map[string]memories.AccessStat{}
	for _, k := range keys {
		b, err := json.Marshal(bySource[k])
		if err != nil {
			return false, fmt.Errorf("access log: %w", err)
		}
		out = append(append(out, b...), '\n')
	}
	foldLines(out, stats, nil)
	if err := atomicfile.Write(l.o.State.AccessLog(), out); err != nil {
		return false, fmt.Errorf("access log: %w", err)
	}
	recs := toRecords(stats)
	c := &cache{token: token, offset: int64(len(out)), n: len(recs), recs: recs}
	if err := atomicfile.WriteDerived(l.o.State.AccessIndex(), c.encode()); err != nil {
		return true, fmt.Errorf("access cache: %w", err)
	}
	return true, nil
}

// readWhole reads the open log up to its last whole line, with its file info.
func readWhole(f *os.File) (os.FileInfo, []byte, error) {
	fi, err := f.Stat()
	if err != nil {
		return nil, nil, fmt.Errorf("access log: %w", err)
	}
	data, err := readFrom(f, 0, fi.Size())
	return fi, data, err
}

// foldCounts adds the accesses in lines to bySource, one count line per
// memory and source (what compaction writes). Lines that do not parse,
// headers among them, are skipped.
func foldCounts(lines []byte, bySource map[[2]string]*line) {
	for rest := lines; len(rest) > 0; {
		i := bytes.IndexByte(rest, '\n')
		var e line
		if json.Unmarshal(rest[:i], &e) == nil && e.ID != "" && e.Source != "" && !e.Time.IsZero() {
			k := [2]string{e.ID, e.Source}
			c := bySource[k]
			if c == nil {
				c = &line{ID: e.ID, Source: e.Source}
				bySource[k] = c
			}
			c.N += max(e.N, 1)
			if e.Time.After(c.Time) {
				c.Time = e.Time
			}
		}
		rest = rest[i+1:]
	}
}
