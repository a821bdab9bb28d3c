package store

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"testing"
	"weak"

	"github.com/cortexmem/cortex/dedup"
	"github.com/cortexmem/cortex/memories"
	"github.com/cortexmem/cortex/vault"
)

// writeProjects writes notes of three projects and general into e's vault
// (one of zoo's superseded), and indexes them with a store that is not
// resident: the state a rebuild leaves, with no word index.
func writeProjects(t *testing.T, e *owedEnv) {
	t.Helper()
	topics := []string{"pool", "cache", "queue", "token", "index", "shard", "lease", "quota"}
	projects := []string{"zoo", "farm", "aquarium", "general"}
	for i := range 28 {
		p := projects[i%len(projects)]
		a, b := topics[i%len(topics)], topics[(i*3+1)%len(topics)]
		status := ""
		if i == 4 {
			status = "status: superseded\nsuperseded_by: 01jmemory00000000000000008\n"
		}
		note := fmt.Sprintf("---\nid: 01jmemory%016d\ntitle: The %s of service %d\nproject: %s\n%s---\nThe %s of service %d talks to the %s on port %d; retries back off after %d ms (ERR_%s_%d).\n",
			i, a, i, p, status, a, i, b, 8000+i, 50*i, b, i)
		path := filepath.Join(e.root, "cortex", "memories", p, fmt.Sprintf("n%02d.md", i))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(note), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	st, _ := e.open()
	if _, err := st.Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// TestResidentWordIndexesKeepTheServersCollector: a resident store (the
// MCP server) makes the word indexes with its process's collector
// settings, not a rebuild's (TestWordSetsCollectAsARebuild is the
// short-lived save's): with GOGC 300 the server's heap grew to four times
// what the making held, past its memory budget at 100,000 notes.
func TestResidentWordIndexesKeepTheServersCollector(t *testing.T) {
	settings := shortLivedCollector(t)
	before := settings()
	e := newOwedEnv(t)
	writeProjects(t, e)
	var during [][2]int64
	applyHook = func() { during = append(during, settings()) }
	defer func() { applyHook = nil }()
	_, svc := openResident(t, e)
	if err := svc.PrepareChecks(context.Background()); err != nil {
		t.Fatal(err)
	}
	// The GOGC as before; the limit the rebuild's, raised from the lower
	// one (TestResidentWordIndexesBoundTheHeap).
	if want := [2]int64{before[0], rebuildHeapLimit}; len(during) != 1 || during[0] != want {
		t.Errorf("collector while a resident store made the word indexes: %v, want [%v] (the GOGC as before)", during, want)
	}
}

// TestResidentWordIndexesBoundTheHeap: with no memory limit set, or a
// lower one (the MCP server's own, wiring.ServerGC), a resident store makes
// the word indexes under the rebuild's limit, keeping its GOGC, and puts
// the limit back after: under the server's the making, which holds more,
// would collect without pause.
func TestResidentWordIndexesBoundTheHeap(t *testing.T) {
	settings := shortLivedCollector(t)
	for _, limit := range []int64{math.MaxInt64, rebuildHeapLimit / 2} {
		debug.SetMemoryLimit(limit)
		before := settings()
		e := newOwedEnv(t)
		writeProjects(t, e)
		var during [][2]int64
		applyHook = func() { during = append(during, settings()) }
		_, svc := openResident(t, e)
		err := svc.PrepareChecks(context.Background())
		applyHook = nil
		if err != nil {
			t.Fatal(err)
		}
		want := [2]int64{before[0], rebuildHeapLimit}
		if len(during) != 1 || during[0] != want {
			t.Errorf("limit %d before: collector while a resident store made the word indexes %v, want [%v]", limit, during, want)
		}
		if after := settings(); after != before {
			t.Errorf("limit %d before: collector after %v, want %v", limit, after, before)
		}
	}
}

// TestPrepareHoldsNoIndexItMade: preparing the checks writes each
// project's word index and holds none of them while it makes the next
// (2 MB each at 100,000 notes, a quarter of the server's heap once all
// were made); a save's check, which reads the indexes it makes, holds them
// (which shows that the test sees an index held).
func TestPrepareHoldsNoIndexItMade(t *testing.T) {
	e := newOwedEnv(t)
	writeProjects(t, e)
	var made []weak.Pointer[wordIndex]
	held := 0
	madeHook = func(ix *wordIndex) {
		runtime.GC()
		for _, w := range made {
			if w.Value() != nil {
				held++
			}
		}
		made = append(made, weak.Make(ix))
	}
	defer func() { madeHook = nil }()
	st, svc := openResident(t, e)
	if err := svc.PrepareChecks(context.Background()); err != nil {
		t.Fatal(err)
	}
	if len(made) != 4 || held != 0 {
		t.Errorf("preparing made %d indexes and found an earlier one held %d times, want 4 and 0", len(made), held)
	}
	for _, p := range []string{"zoo", "general"} {
		if err := os.Remove(st.wordIndexPath(p)); err != nil {
			t.Fatal(err)
		}
	}
	made, held = nil, 0
	save(t, svc, "The okapi enclosure is cleaned on Mondays before opening.")
	if len(made) != 2 || held != 1 {
		t.Errorf("a save made %d indexes and found the first held %d times, want 2 and 1", len(made), held)
	}
}

// TestPrepareReturnsMemoryOnce: preparing the checks after a rebuild gives
// the memory of making the word indexes back to the system once; when the
// indexes are made already, or for a save, it does not.
func TestPrepareReturnsMemoryOnce(t *testing.T) {
	calls := 0
	defer func(f func()) { returnMemory = f }(returnMemory)
	returnMemory = func() { calls++ }
	e := newOwedEnv(t)
	writeProjects(t, e)
	_, svc := openResident(t, e)
	ctx := context.Background()
	if err := svc.PrepareChecks(ctx); err != nil {
		t.Fatal(err)
	}
	if calls != 1 {
		t.Errorf("memory returned %d times once the indexes were made, want 1", calls)
	}
	if err := svc.PrepareChecks(ctx); err != nil {
		t.Fatal(err)
	}
	save(t, svc, "The okapi enclosure is cleaned on Mondays before opening.")
	if calls != 1 {
		t.Errorf("memory returned %d times in all, want 1 (none when the indexes are made already, none for a save)", calls)
	}
}

// TestWordsBlockSizeIsExact: the size a word file's block is allocated at
// is the length encodeWords gives it, over random records (long paths and
// sets among them, whose lengths take several varint bytes), and the block
// reads back as the records written.
func TestWordsBlockSizeIsExact(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for trial := range 200 {
		m := map[string]wordEntry{}
		for i := range r.IntN(30) {
			p := fmt.Sprintf("cortex/memories/p%d/%0*d.md", i, r.IntN(300), i)
			words := make([]uint64, r.IntN(300))
			for k := range words {
				words[k] = r.Uint64()
			}
			m[p] = wordEntry{hash: r.Uint64(), words: words, keys: randomKeys(r)}
		}
		paths := slices.Sorted(maps.Keys(m))
		prefix := []byte(wordsHeader)[:r.IntN(len(wordsHeader))]
		got := encodeWords(slices.Clone(prefix), m, paths)
		if n, want := len(got)-len(prefix), wordsBlockSize(m, paths); n != want {
			t.Fatalf("trial %d: block of %d bytes, sized at %d", trial, n, want)
		}
	}
}

// TestPreparedWordFilesAsFromTheNotes: the word index and the word-set file
// that preparing the checks writes for each project are, byte for byte,
// those made from the catalog's base and the notes directly: every memory
// of the project that is not superseded, its set and keys made from its
// note, in base order, and the file's records in path order.
func TestPreparedWordFilesAsFromTheNotes(t *testing.T) {
	e := newOwedEnv(t)
	writeProjects(t, e)
	st, svc := openResident(t, e)
	if err := svc.PrepareChecks(context.Background()); err != nil {
		t.Fatal(err)
	}
	_, cat, err := st.load()
	if err != nil {
		t.Fatal(err)
	}
	defer cat.Close()
	v, err := vault.New(e.root, "cortex")
	if err != nil {
		t.Fatal(err)
	}
	type want struct {
		bases  []int
		hashes []uint64
		sets   [][]uint64
		keys   []dedup.Keys
		m      map[string]wordEntry
	}
	byProject := map[string]*want{}
	err = cat.BaseEntriesWhere(func(string, string, string) bool { return true }, func(i int, en *memories.Entry, h uint64) error {
		if en.Status == memories.StatusSuperseded {
			return nil
		}
		data, _, err := v.ReadRaw(en.Path)
		if err != nil {
			return err
		}
		body, ok := vault.NoteBody(data)
		if !ok {
			return fmt.Errorf("%s: no body", en.Path)
		}
		text := en.Title + "\n" + string(body)
		ws, ks := dedup.Words(text), dedup.KeysOf(text)
		w := byProject[en.Project]
		if w == nil {
			w = &want{m: map[string]wordEntry{}}
			byProject[en.Project] = w
		}
		w.bases, w.hashes = append(w.bases, i), append(w.hashes, h)
		w.sets, w.keys = append(w.sets, ws), append(w.keys, ks)
		w.m[en.Path] = wordEntry{hash: h, words: ws, keys: ks}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(byProject) != 4 {
		t.Fatalf("%d projects in the base, want 4", len(byProject))
	}
	for p, w := range byProject {
		kept := make([]bool, len(w.bases))
		for j := range kept {
			kept[j] = true
		}
		index := encodeWordIndex(cat.BaseID(), w.bases, w.hashes, w.sets, w.keys, kept, nil)
		file := binary.LittleEndian.AppendUint64([]byte(wordsHeader), probeHash())
		file = encodeWords(file, w.m, slices.Sorted(maps.Keys(w.m)))
		for _, c := range []struct {
			path string
			want []byte
		}{{st.wordIndexPath(p), index}, {st.wordsPath(p), file}} {
			got, err := os.ReadFile(c.path)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, c.want) {
				t.Errorf("%s: %d bytes, not the %d made from the notes", filepath.Base(c.path), len(got), len(c.want))
			}
		}
	}
}

// TestPrepareOverANewBaseKeepsNoOldIndex: once the checks are prepared over
// a new base (after a rebuild), a resident store keeps none of the indexes
// made for the old one mapped, where it kept every project's until a save
// into it read the new one.
func TestPrepareOverANewBaseKeepsNoOldIndex(t *testing.T) {
	ctx := context.Background()
	e := newOwedEnv(t)
	writeProjects(t, e)
	st, svc := openResident(t, e)
	kept := func() []string {
		st.words.mu.Lock()
		defer st.words.mu.Unlock()
		var out []string
		for p := range st.words.m {
			out = append(out, filepath.Base(p))
		}
		slices.Sort(out)
		return out
	}
	for range 2 { // made, then read (and kept) as made
		if err := svc.PrepareChecks(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if got := kept(); len(got) != 4 {
		t.Fatalf("indexes kept once read: %v, want the 4 projects'", got)
	}
	if _, err := st.Rebuild(ctx); err != nil {
		t.Fatal(err)
	}
	made := 0
	madeHook = func(*wordIndex) { made++ }
	defer func() { madeHook = nil }()
	if err := svc.PrepareChecks(ctx); err != nil {
		t.Fatal(err)
	}
	if made != 4 {
		t.Fatalf("preparing over the new base made %d indexes, want 4", made)
	}
	if got := kept(); len(got) != 0 {
		t.Errorf("indexes kept once the checks were prepared over a new base: %v, want none", got)
	}
	save(t, svc, "The okapi enclosure is cleaned on Mondays before opening.")
	if got := kept(); !slices.Equal(got, []string{"general.index", "zoo.index"}) {
		t.Errorf("indexes kept after a save into zoo: %v, want general's and zoo's", got)
	}
}

// TestPrepareLetsGoOfTheIndexesItRead: preparing the checks over indexes
// made already reads each (its checksum, all of its pages) and keeps it
// mapped for the saves, but lets go of its pages: they are read again
// where a save needs them, and the save decides as before (a copy of a
// note is refused).
func TestPrepareLetsGoOfTheIndexesItRead(t *testing.T) {
	ctx := context.Background()
	e := newOwedEnv(t)
	writeProjects(t, e)
	st, svc := openResident(t, e)
	if err := svc.PrepareChecks(ctx); err != nil { // made: none read, none kept
		t.Fatal(err)
	}
	if st.words.dropped != 0 {
		t.Fatalf("pages let go after the indexes were made: %d, want 0", st.words.dropped)
	}
	if err := svc.PrepareChecks(ctx); err != nil { // read, kept
		t.Fatal(err)
	}
	if len(st.words.m) != 4 || st.words.dropped != 4 {
		t.Errorf("%d indexes kept, %d let go of, want 4 and 4", len(st.words.m), st.words.dropped)
	}
	text := "The pool of service 8 talks to the cache on port 8008; retries back off after 400 ms (ERR_cache_8)."
	_, err := svc.Save(ctx, memories.SaveRequest{Content: text, Title: "The pool of service 8", Project: "zoo"})
	var rej *memories.RejectedError
	if !errors.As(err, &rej) {
		t.Errorf("saving a copy of a note of zoo after the pages were let go: err = %v, want a refusal as a duplicate", err)
	}
}

// TestServerStartHoldsNoMetadata: a server that makes the word indexes
// lets go of the metadata the making read, and one started over made
// word indexes prepares the checks (listing the base's projects) and syncs (the
// watcher's first look, which counts the readable notes) without loading
// the catalog's metadata section, which the catalog it keeps would then
// hold for the server's life (15 MB at 100,000 notes). A listing still
// loads it (which shows that the test sees it held).
func TestServerStartHoldsNoMetadata(t *testing.T) {
	e := newOwedEnv(t)
	writeProjects(t, e)
	first, svc := openResident(t, e)
	if err := svc.PrepareChecks(context.Background()); err != nil { // makes them
		t.Fatal(err)
	}
	first.res.mu.Lock()
	if first.res.cat == nil || first.res.cat.HoldsMetadata() {
		t.Errorf("after making the word indexes, the server keeps no catalog (%v) or one that holds its metadata", first.res.cat == nil)
	}
	first.res.mu.Unlock()
	st, svc := openResident(t, e) // a server started later
	if err := svc.PrepareChecks(context.Background()); err != nil {
		t.Fatal(err)
	}
	rep, err := st.Sync(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if rep.Notes != 28 {
		t.Errorf("sync counted %d notes, want 28", rep.Notes)
	}
	held := func() bool {
		st.res.mu.Lock()
		defer st.res.mu.Unlock()
		if st.res.cat == nil {
			t.Fatal("the server keeps no catalog")
		}
		return st.res.cat.HoldsMetadata()
	}
	if held() {
		t.Error("the catalog the server keeps holds its metadata after start-up")
	}
	if _, err := svc.List(context.Background(), memories.ListRequest{}); err != nil {
		t.Fatal(err)
	}
	if !held() {
		t.Error("after a listing the catalog does not hold its metadata: the test sees nothing")
	}
}
