package access

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/cortexmem/cortex/config"
	"github.com/cortexmem/cortex/memories"
)

var t0 = time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)

// id returns a memory id of the right length for n.
func id(n int) string { return fmt.Sprintf("01jn%022d", n) }

func acc(n int, src string, minutes int) memories.Access {
	return memories.Access{ID: id(n), Source: src, Time: t0.Add(time.Duration(minutes) * time.Minute)}
}

func stat(last int, counts map[string]int) memories.AccessStat {
	return memories.AccessStat{Counts: counts, Last: t0.Add(time.Duration(last) * time.Minute)}
}

func put(t *testing.T, l *Log, as ...memories.Access) {
	t.Helper()
	if err := l.Record(context.Background(), as); err != nil {
		t.Fatal(err)
	}
}

func stats(t *testing.T, l *Log, ids ...string) map[string]memories.AccessStat {
	t.Helper()
	got, err := l.Stats(context.Background(), ids)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

func TestRecordAndStats(t *testing.T) {
	l := Open(Options{State: config.State{Home: t.TempDir()}})
	if got := stats(t, l, id(1)); len(got) != 0 {
		t.Fatalf("stats of an empty log: %v", got)
	}
	put(t, l, acc(1, memories.AccessRecall, 0), acc(2, memories.AccessRecall, 1))
	put(t, l, acc(1, memories.AccessSessionStart, 5), acc(1, memories.AccessRecall, 3), acc(3, "hook", 2))

	want := map[string]memories.AccessStat{
		id(1): stat(5, map[string]int{memories.AccessRecall: 2, memories.AccessSessionStart: 1}),
		id(2): stat(1, map[string]int{memories.AccessRecall: 1}),
		id(3): stat(2, map[string]int{otherSource: 1}),
	}
	if diff := cmp.Diff(stats(t, l), want); diff != "" {
		t.Errorf("all stats (-got +want):\n%s", diff)
	}
	if diff := cmp.Diff(stats(t, l, id(1), id(9)), map[string]memories.AccessStat{id(1): want[id(1)]}); diff != "" {
		t.Errorf("stats of two ids (-got +want):\n%s", diff)
	}
}

func TestRecordRefusesIncompleteAccess(t *testing.T) {
	l := Open(Options{State: config.State{Home: t.TempDir()}})
	for _, a := range []memories.Access{{ID: "", Source: "recall", Time: t0}, {ID: id(1), Time: t0}} {
		if err := l.Record(context.Background(), []memories.Access{a}); err == nil {
			t.Errorf("Record(%+v) accepted", a)
		}
	}
	if _, err := os.Stat(l.o.State.AccessLog()); !os.IsNotExist(err) {
		t.Errorf("a refused record created the log (%v)", err)
	}
}

func TestCacheKeepsTheSameAnswers(t *testing.T) {
	dir := t.TempDir()
	l := Open(Options{State: config.State{Home: dir}, CacheAbove: 300})
	var want map[string]memories.AccessStat
	for i := 0; i < 40; i++ {
		put(t, l, acc(i%7, memories.AccessRecall, i), acc(i%3, memories.AccessContext, i))
		// Every answer equals the one a log without a cache gives.
		plain := Open(Options{State: config.State{Home: dir}, CacheAbove: 1 << 30})
		_ = os.Remove(config.State{Home: dir}.AccessIndex())
		want = stats(t, plain)
		got := stats(t, l)
		if diff := cmp.Diff(got, want); diff != "" {
			t.Fatalf("after %d records (-cached +plain):\n%s", i+1, diff)
		}
	}
	// Reading wrote a cache; a second read uses it and agrees.
	c := loadCache(config.State{Home: dir}.AccessIndex(), tokenOf(t, dir), 1<<40)
	if c.offset == 0 || c.n == 0 {
		t.Fatalf("no cache written: offset %d, %d records", c.offset, c.n)
	}
	if diff := cmp.Diff(stats(t, l, id(1), id(2)), map[string]memories.AccessStat{id(1): want[id(1)], id(2): want[id(2)]}); diff != "" {
		t.Errorf("from the cache (-got +want):\n%s", diff)
	}
}

func tokenOf(t *testing.T, dir string) string {
	t.Helper()
	f, err := os.Open(config.State{Home: dir}.AccessLog())
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tok, err := readToken(f)
	if err != nil || tok == "" {
		t.Fatalf("token %q, %v", tok, err)
	}
	return tok
}

func TestDamagedOrForeignCacheIsIgnored(t *testing.T) {
	dir := t.TempDir()
	l := Open(Options{State: config.State{Home: dir}, CacheAbove: 100})
	for i := 0; i < 10; i++ {
		put(t, l, acc(i%4, memories.AccessRecall, i))
	}
	want := stats(t, l) // writes the cache
	cachePath := config.State{Home: dir}.AccessIndex()
	good, err := os.ReadFile(cachePath)
	if err != nil {
		t.Fatal(err)
	}
	other := Open(Options{State: config.State{Home: t.TempDir()}, CacheAbove: 100})
	put(t, other, acc(1, memories.AccessRecall, 0))
	stats(t, other)
	foreign, err := os.ReadFile(other.o.State.AccessIndex())
	if err != nil {
		t.Fatal(err)
	}
	flipped := append([]byte(nil), good...)
	flipped[headerLen+3] ^= 0x20
	for name, data := range map[string][]byte{
		"flipped byte":      flipped,
		"truncated":         good[:len(good)-7],
		"empty":             nil,
		"another log's":     foreign,
		"not a cache":       []byte("hello\n"),
		"offset past end":   withOffset(t, good, tokenOf(t, dir), 1<<40),
		"header, no record": (&cache{token: strings.Repeat("a", tokenLen)}).encode(),
	} {
		t.Run(name, func(t *testing.T) {
			if err := os.WriteFile(cachePath, data, 0o600); err != nil {
				t.Fatal(err)
			}
			l := Open(Options{State: config.State{Home: dir}, CacheAbove: 1 << 30}) // read without rewriting it
			if diff := cmp.Diff(stats(t, l), want); diff != "" {
				t.Errorf("(-got +want):\n%s", diff)
			}
		})
	}
}

// withOffset returns a copy of a cache file claiming another offset, with a
// valid checksum.
func withOffset(t *testing.T, data []byte, token string, offset int64) []byte {
	t.Helper()
	p := config.State{Home: t.TempDir()}.AccessIndex()
	if err := os.WriteFile(p, data, 0o600); err != nil {
		t.Fatal(err)
	}
	c := loadCache(p, token, 1<<40)
	if c.offset == 0 {
		t.Fatal("the cache to change does not load")
	}
	c.offset = offset
	return c.encode()
}

func TestCompactKeepsCounts(t *testing.T) {
	dir := t.TempDir()
	l := Open(Options{State: config.State{Home: dir}})
	for i := 0; i < 200; i++ {
		put(t, l, acc(i%5, []string{memories.AccessRecall, memories.AccessContext, "x"}[i%3], i))
	}
	before := stats(t, l)
	size := fileSize(t, config.State{Home: dir}.AccessLog())
	if err := l.Compact(context.Background()); err != nil {
		t.Fatal(err)
	}
	if after := fileSize(t, config.State{Home: dir}.AccessLog()); after >= size/4 {
		t.Errorf("compacted log is %d bytes, was %d", after, size)
	}
	if diff := cmp.Diff(stats(t, l), before); diff != "" {
		t.Errorf("after compaction (-got +want):\n%s", diff)
	}
	// Without the cache the compacted log says the same.
	_ = os.Remove(config.State{Home: dir}.AccessIndex())
	if diff := cmp.Diff(stats(t, l), before); diff != "" {
		t.Errorf("compacted log without its cache (-got +want):\n%s", diff)
	}
	// Accesses after compaction add to the counts.
	put(t, l, acc(0, memories.AccessRecall, 1000))
	got := stats(t, l, id(0))[id(0)]
	if got.Counts[memories.AccessRecall] != before[id(0)].Counts[memories.AccessRecall]+1 || !got.Last.Equal(t0.Add(1000*time.Minute)) {
		t.Errorf("after a new access: %+v, before %+v", got, before[id(0)])
	}
}

func fileSize(t *testing.T, p string) int64 {
	t.Helper()
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Size()
}

func TestPartialAndGarbageLines(t *testing.T) {
	dir := t.TempDir()
	l := Open(Options{State: config.State{Home: dir}})
	put(t, l, acc(1, memories.AccessRecall, 0))
	f, err := os.OpenFile(config.State{Home: dir}.AccessLog(), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	// A line of garbage, a line without a time, and a line being written.
	if _, err := f.WriteString("not json\n{\"id\":\"" + id(1) + "\",\"source\":\"recall\"}\n{\"id\":\"" + id(1) + "\",\"ts\":\"2026-11-01T09:"); err != nil {
		t.Fatal(err)
	}
	f.Close()
	want := map[string]memories.AccessStat{id(1): stat(0, map[string]int{memories.AccessRecall: 1})}
	if diff := cmp.Diff(stats(t, l), want); diff != "" {
		t.Errorf("(-got +want):\n%s", diff)
	}
}

// TestConcurrentWriters records from many writers at once, each with its own
// Log as separate processes would have, while the log is compacted again and
// again: no access is lost and none counted twice.
func TestConcurrentWriters(t *testing.T) {
	dir := t.TempDir()
	const writers, each = 8, 60
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			l := Open(Options{State: config.State{Home: dir}, CompactAbove: 2000, CacheAbove: 500})
			for i := 0; i < each; i++ {
				if err := l.Record(context.Background(), []memories.Access{acc(w, memories.AccessRecall, i), acc(100, memories.AccessContext, i)}); err != nil {
					errs <- err
					return
				}
				if i%10 == 0 {
					if _, err := l.Stats(context.Background(), []string{id(w)}); err != nil {
						errs <- err
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	got := stats(t, Open(Options{State: config.State{Home: dir}}))
	for w := 0; w < writers; w++ {
		if n := got[id(w)].Counts[memories.AccessRecall]; n != each {
			t.Errorf("writer %d: %d accesses counted, want %d", w, n, each)
		}
	}
	if n := got[id(100)].Counts[memories.AccessContext]; n != writers*each {
		t.Errorf("shared memory: %d accesses counted, want %d", n, writers*each)
	}
}

// TestLongLivedReader: a Log kept by a long-running process remembers what it
// read, and still sees what another process appends, rewrites or compacts.
// The expected stats are counted from the accesses recorded, not read back.
func TestLongLivedReader(t *testing.T) {
	dir := t.TempDir()
	reader := Open(Options{State: config.State{Home: dir}, CacheAbove: 400})
	writer := Open(Options{State: config.State{Home: dir}, CacheAbove: 400})
	want := map[string]memories.AccessStat{}
	record := func(a memories.Access) {
		put(t, writer, a)
		st := want[a.ID]
		if st.Counts == nil {
			st.Counts = map[string]int{}
		}
		st.Counts[sourceName(a.Source)]++
		if a.Time.After(st.Last) {
			st.Last = a.Time
		}
		want[a.ID] = st
	}
	for i := 0; i < 30; i++ {
		record(acc(i%4, memories.AccessRecall, i))
		if i%3 == 0 {
			stats(t, writer) // the writer's reads rewrite the cache now and then
		}
		if diff := cmp.Diff(stats(t, reader), want); diff != "" {
			t.Fatalf("after %d accesses (-long-lived +recorded):\n%s", i+1, diff)
		}
		if diff := cmp.Diff(stats(t, reader, id(1), id(9)), keepIDs(want, id(1))); diff != "" {
			t.Fatalf("some ids after %d accesses (-long-lived +recorded):\n%s", i+1, diff)
		}
	}
	if err := writer.Compact(context.Background()); err != nil {
		t.Fatal(err)
	}
	record(acc(2, memories.AccessContext, 99))
	if diff := cmp.Diff(stats(t, reader), want); diff != "" {
		t.Errorf("after compaction (-long-lived +recorded):\n%s", diff)
	}
}

func keepIDs(all map[string]memories.AccessStat, ids ...string) map[string]memories.AccessStat {
	out := map[string]memories.AccessStat{}
	for _, id := range ids {
		if st, ok := all[id]; ok {
			out[id] = st
		}
	}
	return out
}

// EachStat shows every memory's accesses as Stats(nil) sums them up: from a
// cache decoded lazily or built in memory, with lines after it, and with
// ids the cache cannot hold.
func TestEachStatEqualsStats(t *testing.T) {
	dir := t.TempDir()
	writer := Open(Options{State: config.State{Home: dir}, CacheAbove: 300})
	each := func(l *Log) map[string]memories.AccessStat {
		t.Helper()
		got := map[string]memories.AccessStat{}
		err := l.EachStat(context.Background(), func(id string, st memories.AccessStat) {
			got[id] = merge(memories.AccessStat{}, st) // st's map is reused
		})
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	if got := each(writer); len(got) != 0 {
		t.Fatalf("EachStat of no log: %v", got)
	}
	for i := range 30 {
		put(t, writer, acc(i%7, memories.AccessRecall, i), acc(i%3, memories.AccessContext, 40-i))
		if i%4 == 0 {
			put(t, writer, memories.Access{ID: "short", Source: "hook", Time: t0.Add(time.Duration(i) * time.Minute)})
		}
		for _, l := range []*Log{writer, Open(Options{State: config.State{Home: dir}, CacheAbove: 1 << 30})} {
			want := stats(t, l)
			if diff := cmp.Diff(want, each(l)); diff != "" {
				t.Fatalf("after %d records (-Stats +EachStat):\n%s", i+1, diff)
			}
		}
	}
	if _, err := os.Stat(config.State{Home: dir}.AccessIndex()); err != nil {
		t.Fatalf("no cache was written, so EachStat was not tried on one: %v", err)
	}
}

// TestShortLivedStatsFoldOnlyWhatIsAsked: a short-lived process asking
// about a few memories decodes only the lines past the cache that are about
// them, and gets what a resident reader gets; once the lines past the cache
// are due to be folded into it, it still brings the cache up to date.
func TestShortLivedStatsFoldOnlyWhatIsAsked(t *testing.T) {
	home := t.TempDir()
	const cacheAbove = 16 << 10
	short := Open(Options{State: config.State{Home: home}, CacheAbove: cacheAbove})
	resident := Open(Options{State: config.State{Home: home}, CacheAbove: cacheAbove, Resident: true})
	var as []memories.Access
	for i := range 100 {
		as = append(as, acc(i%40, memories.AccessRecall, i))
	}
	put(t, short, as...)
	put(t, short, acc(3, memories.AccessContext, 200), acc(7, "hook", 201))
	asked := []string{id(3), id(7), id(99)}
	before := linesDecoded.Load()
	got := stats(t, short, asked...)
	if n := linesDecoded.Load() - before; n != 9 {
		t.Errorf("decoded %d lines to answer about %d memories, want the 8 about them and the header", n, len(asked))
	}
	if diff := cmp.Diff(got, stats(t, resident, asked...)); diff != "" {
		t.Errorf("short-lived stats differ from a resident reader's (-short +resident):\n%s", diff)
	}
	want := map[string]memories.AccessStat{
		id(3): stat(200, map[string]int{memories.AccessRecall: 3, memories.AccessContext: 1}),
		id(7): stat(201, map[string]int{memories.AccessRecall: 3, otherSource: 1}),
	}
	if diff := cmp.Diff(got, want); diff != "" {
		t.Errorf("stats (-got +want):\n%s", diff)
	}

	// Past CacheAbove, the cache is brought up to date, whoever reads.
	for range 3 {
		put(t, short, as...)
	}
	if _, err := os.Stat(short.o.State.AccessIndex()); err == nil {
		t.Fatal("a cache was written before the log passed CacheAbove")
	}
	got = stats(t, short, asked...)
	if _, err := os.Stat(short.o.State.AccessIndex()); err != nil {
		t.Fatalf("no cache after a read past CacheAbove: %v", err)
	}
	if diff := cmp.Diff(got, stats(t, resident, asked...)); diff != "" {
		t.Errorf("short-lived stats differ from a resident reader's (-short +resident):\n%s", diff)
	}
}

// TestStatsAllocations: a stat asked for is made with one map, whether
// its counts come from the cache, the lines after it or both (a recall
// asks about fifty memories twice: two maps and a third to merge them
// was most of what that cost).
func TestStatsAllocations(t *testing.T) {
	for _, resident := range []bool{false, true} {
		l := Open(Options{State: config.State{Home: t.TempDir()}, Resident: resident})
		var as []memories.Access
		for i := range 2000 {
			as = append(as, acc((i*7919)%1000, memories.AccessRecall, i%500))
		}
		put(t, l, as...)
		if _, err := l.Stats(context.Background(), nil); err != nil { // writes the cache
			t.Fatal(err)
		}
		put(t, l, acc(131, memories.AccessContext, 600), acc(262, memories.AccessContext, 601))
		ids := make([]string, 60)
		for i := range ids {
			ids[i] = id(i * 131 % 1000)
		}
		stats(t, l, ids...)
		perID := testing.AllocsPerRun(20, func() { stats(t, l, ids...) }) / float64(len(ids))
		if perID > 4 {
			t.Errorf("resident %v: %.1f allocations per memory asked about, want at most 4", resident, perID)
		}
	}
}

// TestResidentReadsBackNothingItWrote: a resident reader that records
// accesses folds its own lines into what it keeps as it writes them, and
// does not open the log to read them back; lines another process appends,
// and a log compacted meanwhile, are read as ever. The stats are those a
// fresh reader finds.
func TestResidentReadsBackNothingItWrote(t *testing.T) {
	home := t.TempDir()
	resident := Open(Options{State: config.State{Home: home}, Resident: true})
	other := Open(Options{State: config.State{Home: home}})
	asked := []string{id(1), id(2), id(3)}
	check := func(step string, wantReads int64) {
		t.Helper()
		before := logReads.Load()
		got := stats(t, resident, asked...)
		if n := logReads.Load() - before; n != wantReads {
			t.Errorf("%s: the log was read %d times, want %d", step, n, wantReads)
		}
		fresh := Open(Options{State: config.State{Home: home}})
		if diff := cmp.Diff(got, stats(t, fresh, asked...)); diff != "" {
			t.Errorf("%s: stats differ from a fresh reader's (-resident +fresh):\n%s", step, diff)
		}
	}
	put(t, resident, acc(1, memories.AccessRecall, 0))
	check("first read", 1)
	put(t, resident, acc(1, memories.AccessRecall, 1), acc(2, memories.AccessContext, 2))
	check("after its own accesses", 0)
	check("nothing new", 0)
	put(t, other, acc(3, memories.AccessRecall, 3))
	check("after another process's", 1)
	put(t, resident, acc(3, memories.AccessRecall, 4))
	put(t, other, acc(2, memories.AccessRecall, 5))
	put(t, resident, acc(1, memories.AccessRecall, 6))
	check("own and other accesses interleaved", 1)
	if err := other.Compact(context.Background()); err != nil {
		t.Fatal(err)
	}
	check("after a compaction", 1)
	put(t, resident, acc(2, memories.AccessRecall, 7))
	check("own accesses after the compaction", 0)
}
