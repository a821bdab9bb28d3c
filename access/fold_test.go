package access

import (
	"math/rand/v2"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/cortexmem/cortex/config"
	"github.com/cortexmem/cortex/memories"
)

// foldReference is how a cache and the log's lines after it were folded
// before fold: every record decoded into a map, the tail merged in, all of
// them sorted again.
func foldReference(c *cache, tail map[string]memories.AccessStat, offset int64) []byte {
	all := c.all()
	for id, st := range tail {
		all[id] = merge(all[id], st)
	}
	recs := toRecords(all)
	return (&cache{token: c.token, offset: offset, n: len(recs), recs: recs}).encode()
}

// Folding a tail into a cache gives the bytes the reference gives, for
// caches read from a file and built in memory, tails of ids before, between
// and after the cache's and of ids the cache cannot hold, counts near the
// limit.
func TestFoldEqualsReference(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 19))
	sourceNames := append(sources[:len(sources)-1:len(sources)-1], "manual")
	randomStats := func(n, span int) map[string]memories.AccessStat {
		out := map[string]memories.AccessStat{}
		for range n {
			key := id(r.IntN(span))
			if r.IntN(20) == 0 {
				key = "short-" + key[:5]
			}
			st := out[key]
			if st.Counts == nil {
				st.Counts = map[string]int{}
			}
			add := 1 + r.IntN(3)
			if r.IntN(50) == 0 {
				add = 1<<31 - 2
			}
			st.Counts[sourceName(sourceNames[r.IntN(len(sourceNames))])] += add
			if at := t0.Add(time.Duration(r.IntN(100000)) * time.Second); at.After(st.Last) {
				st.Last = at
			}
			out[key] = st
		}
		return out
	}
	token := strings.Repeat("b", tokenLen)
	for trial := range 300 {
		span := 1 + r.IntN(400)
		recs := toRecords(randomStats(r.IntN(300), span))
		built := &cache{token: token, offset: 10, n: len(recs), recs: recs}
		file := built.encode()
		read := loadCache(writeFile(t, file), token, 1<<40)
		tail := randomStats(r.IntN(40), span+r.IntN(50))
		want := foldReference(read, tail, 99)
		for name, c := range map[string]*cache{"built": built, "read": read} {
			if diff := cmp.Diff(want, c.fold(tail, 99).encode()); diff != "" {
				t.Fatalf("trial %d, cache %s: %d records, tail of %d (-reference +fold):\n%s", trial, name, len(recs), len(tail), diff)
			}
		}
	}
}

func writeFile(t *testing.T, data []byte) string {
	t.Helper()
	p := config.State{Home: t.TempDir()}.AccessIndex()
	if err := os.WriteFile(p, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// A reader that brings the cache up to date decodes the records the lines
// past it touch, not every record: at 100,000 memories decoding them all
// put ~50 ms on one recall in about fifty of a resident server.
func TestCacheUpdateReadsOnlyWhatChanged(t *testing.T) {
	dir := t.TempDir()
	const memoriesN, tailN = 5000, 40
	seed := Open(Options{State: config.State{Home: dir}})
	var as []memories.Access
	for i := range memoriesN {
		as = append(as, acc(i, memories.AccessRecall, i))
	}
	put(t, seed, as...)
	stats(t, seed) // writes the cache of them all
	l := Open(Options{State: config.State{Home: dir}, CacheAbove: 1000})
	stats(t, l, id(1)) // reads the cache
	for i := range tailN {
		put(t, l, acc(i*97, memories.AccessContext, memoriesN+i))
	}
	before := recordsDecoded.Load()
	got := stats(t, l, id(97), id(98)) // folds the tail into the cache
	decoded := recordsDecoded.Load() - before
	if decoded > tailN+2 {
		t.Errorf("bringing the cache up to date with %d accesses decoded %d of its %d records", tailN, decoded, memoriesN)
	}
	c := loadCache(config.State{Home: dir}.AccessIndex(), tokenOf(t, dir), 1<<40)
	if off := c.offset; off == 0 || c.n != memoriesN {
		t.Fatalf("cache not brought up to date: offset %d, %d records", off, c.n)
	}
	want := map[string]memories.AccessStat{
		id(97): stat(memoriesN+1, map[string]int{memories.AccessRecall: 1, memories.AccessContext: 1}),
		id(98): stat(98, map[string]int{memories.AccessRecall: 1}),
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("stats (-want +got):\n%s", diff)
	}
	fresh := Open(Options{State: config.State{Home: dir}})
	if diff := cmp.Diff(want, stats(t, fresh, id(97), id(98))); diff != "" {
		t.Errorf("stats of another reader (-want +got):\n%s", diff)
	}
}
