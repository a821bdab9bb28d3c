package store

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/cortexmem/cortex/bench"
	"github.com/cortexmem/cortex/index"
	"github.com/cortexmem/cortex/memories"
	"github.com/cortexmem/cortex/vault"
)

// TestRebuildBatches checks a rebuild's batches are bounded by the notes'
// bytes as well as their number, so that a vault of long notes is indexed
// in bounded memory, and that every document is in exactly one batch.
func TestRebuildBatches(t *testing.T) {
	docs := func(sizes ...int64) []pendingDoc {
		ds := make([]pendingDoc, len(sizes))
		for i, n := range sizes {
			p := fmt.Sprintf("n%05d.md", i)
			ds[i] = pendingDoc{id: p, rec: &index.Record{Entry: memories.Entry{Path: p}, Size: n}}
		}
		return ds
	}
	many := make([]int64, rebuildBatch+1)
	for i := range many {
		many[i] = 10
	}
	big := int64(rebuildBatchBytes)
	for _, tc := range []struct {
		name  string
		sizes []int64
		want  []int // batch lengths
		procs int   // the cores the batches are built on; 0 for one
	}{
		{"none", nil, nil, 0},
		{"small notes, one batch", []int64{10, 20, 30}, []int{3}, 0},
		{"by number", many, []int{rebuildBatch, 1}, 0},
		{"by bytes", []int64{big / 2, big / 2, 1, big / 2}, []int{2, 2}, 0},
		{"a note larger than a batch is a batch of its own", []int64{10, 2 * big, 10}, []int{1, 1, 1}, 0},
		{"an empty note adds nothing", []int64{big, 0}, []int{2}, 0},
		// Built two at a time, three batches leave a core idle for the
		// last: cut again into four of about equal bytes.
		{"two cores, three batches cut into four", []int64{big / 2, big / 2, big / 2, big / 2, big / 2, big / 4, big / 4},
			[]int{2, 1, 2, 2}, 2},
		{"two cores, four batches kept", []int64{big, big, big, big}, []int{1, 1, 1, 1}, 2},
		{"two cores, too few notes to cut again", []int64{10, 2 * big, 10}, []int{1, 1, 1}, 2},
		{"two cores, a note of the even cut's bytes", []int64{big, big, big - 10, 5, 5}, []int{1, 1, 1, 2}, 2},
		{"two cores, a note of several even batches' bytes: cut as before", []int64{10, 10, 3 * big, 10}, []int{2, 1, 1}, 2},
		{"three cores, two batches cut into three", []int64{big / 2, big / 2, big / 2, big / 2}, []int{2, 1, 1}, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ds := docs(tc.sizes...)
			var got []int
			seen := 0
			for _, b := range rebuildBatches(ds, max(tc.procs, 1)) {
				got = append(got, len(b))
				for _, d := range b {
					if d.id != ds[seen].id {
						t.Fatalf("batch holds %s at %d, want %s", d.id, seen, ds[seen].id)
					}
					seen++
				}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("batch lengths (-want +got):\n%s", diff)
			}
			if seen != len(ds) {
				t.Errorf("%d documents in batches, want %d", seen, len(ds))
			}
		})
	}
}

// TestRereadBody checks the body a rebuild batch reads again: cut from the
// bytes, without decoding the properties, when they are still those of the
// note's record, it is the body the parser gives; a note changed since gives
// its new body, one broken since none, one removed since fs.ErrNotExist.
func TestRereadBody(t *testing.T) {
	e := newOwedEnv(t)
	st, _ := e.open()
	const (
		plain  = "---\nid: 01jreread00000000000000000a\ntitle: T\n---\nThe okapi grazes.\n"
		crlf   = "\ufeff---\r\nid: 01jreread00000000000000000b\r\ntags: [a, b]\r\n---\r\n\r\nLine one.\r\nLine two.\r\n"
		noProp = "Just a body, no properties.\n"
		broken = "---\nid: [unclosed\n---\nBody.\n"
	)
	tests := []struct {
		name, first, now string // now "" removes the note
		want             *string
		wantErr          error
	}{
		{name: "unchanged", first: plain, now: plain, want: ptr("The okapi grazes.\n")},
		{name: "bom and crlf", first: crlf, now: crlf, want: ptr("\r\nLine one.\r\nLine two.\r\n")},
		{name: "no properties", first: noProp, now: noProp, want: ptr(noProp)},
		{name: "edited since", first: plain, now: strings.Replace(plain, "okapi", "pangolin", 1), want: ptr("The pangolin grazes.\n")},
		{name: "edited since, same size", first: plain, now: strings.Replace(plain, "okapi", "zebra", 1), want: ptr("The zebra grazes.\n")},
		{name: "broken since", first: plain, now: broken},
		{name: "removed since", first: plain, wantErr: fs.ErrNotExist},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rel := fmt.Sprintf("memories/p/n%d.md", i)
			path := filepath.Join(e.root, "cortex", filepath.FromSlash(rel))
			write := func(text string) {
				t.Helper()
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			write(tt.first)
			rec, m, err := st.readNote(vault.FileStat{Path: rel})
			if err != nil || m == nil {
				t.Fatalf("first read: %v, %v", m, err)
			}
			if tt.now == "" {
				if err := os.Remove(path); err != nil {
					t.Fatal(err)
				}
			} else {
				write(tt.now)
			}
			got, err := st.rereadBody(rel, rec)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("rereadBody error = %v, want %v", err, tt.wantErr)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("body (-want +got):\n%s", diff)
			}
			if tt.now == tt.first && got != nil && *got != m.Body {
				t.Errorf("body %q, the parser's %q", *got, m.Body)
			}
		})
	}
}

func ptr(s string) *string { return &s }

// TestRebuildGCRestores checks the collector's settings during and after
// rebuilds, two of them overlapping as two vaults' rebuilds in one process
// may: raised while any runs, and what they were once the last ends.
func TestRebuildGCRestores(t *testing.T) {
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	defer debug.SetGCPercent(debug.SetGCPercent(150))
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(1 << 40))
	settings := func() [2]int64 {
		p := debug.SetGCPercent(0)
		debug.SetGCPercent(p)
		return [2]int64{int64(p), debug.SetMemoryLimit(-1)}
	}
	before := settings()
	during := [2]int64{rebuildGCPercent, rebuildHeapLimit}
	endA := rebuildGC(0)
	endB := rebuildGC(0)
	if got := settings(); got != during {
		t.Errorf("during two rebuilds: %v, want %v", got, during)
	}
	endA()
	if got := settings(); got != during {
		t.Errorf("after the first of two ends: %v, want %v", got, during)
	}
	endB()
	if got := settings(); got != before {
		t.Errorf("after both: %v, want %v", got, before)
	}
	// A large vault's rebuild beside a small one's: the higher limit while
	// both run, whichever began first.
	large := [2]int64{rebuildGCPercent, rebuildHeapLimitFor(rebuildRoomNotes)}
	for _, order := range [][2]int{{10, rebuildRoomNotes}, {rebuildRoomNotes, 10}} {
		endA, endB := rebuildGC(order[0]), rebuildGC(order[1])
		if got := settings(); got != large {
			t.Errorf("rebuilds of %v notes: %v, want %v", order, got, large)
		}
		endA()
		endB()
		if got := settings(); got != before {
			t.Errorf("after rebuilds of %v notes: %v, want %v", order, got, before)
		}
	}
}

// TestRebuildHeapLimitFor: the base limit up to 10,000 notes, rising with
// the notes to rebuildHeapRoom more at rebuildRoomNotes, and never above.
func TestRebuildHeapLimitFor(t *testing.T) {
	for _, tc := range []struct {
		notes int
		want  int64
	}{
		{-1, rebuildHeapLimit},
		{0, rebuildHeapLimit},
		{10_000, rebuildHeapLimit},
		{10_001, rebuildHeapLimit + rebuildHeapRoom/90_000},
		{55_000, rebuildHeapLimit + rebuildHeapRoom/2},
		{rebuildRoomNotes - 1, rebuildHeapLimit + rebuildHeapRoom*89_999/90_000},
		{rebuildRoomNotes, rebuildHeapLimit + rebuildHeapRoom},
		{10 * rebuildRoomNotes, rebuildHeapLimit + rebuildHeapRoom},
		{math.MaxInt, rebuildHeapLimit + rebuildHeapRoom},
	} {
		if got := rebuildHeapLimitFor(tc.notes); got != tc.want {
			t.Errorf("rebuildHeapLimitFor(%d) = %d MB, want %d MB", tc.notes, got>>20, tc.want>>20)
		}
	}
}

// TestRebuildRaisesTheLimitWithTheVault: a rebuild sets the limit its
// notes call for (rebuildHeapLimitFor), not the base.
func TestRebuildRaisesTheLimitWithTheVault(t *testing.T) {
	settings := shortLivedCollector(t)
	before := settings()
	roomFromTheFirstNote(t)
	e := newOwedEnv(t)
	dir := filepath.Join(e.root, "cortex", "memories", "zoo")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	const notes = 40
	for i := range notes {
		body := fmt.Sprintf("---\ntitle: Keeper note %d\n---\nKeeper note %d says the giraffe eats acacia at noon.\n", i, i)
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("keeper-%d.md", i)), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	var during [][2]int64
	applyHook = func() { during = append(during, settings()) }
	defer func() { applyHook = nil }()
	st, _ := e.open()
	if _, err := st.Rebuild(context.Background()); err != nil {
		t.Fatal(err)
	}
	want := [2]int64{rebuildGCPercent, rebuildHeapLimitFor(notes)}
	if want[1] == rebuildHeapLimit {
		t.Fatalf("rebuildHeapLimitFor(%d) is the base limit: the test cannot tell them apart", notes)
	}
	if len(during) == 0 || during[0] != want {
		t.Errorf("collector while rebuilding %d notes: %v, want %v first", notes, during, want)
	}
	if got := settings(); got != before {
		t.Errorf("collector after: %v, want %v as before", got, before)
	}
}

// TestBoundedGCRaisesTheServersLimit: a resident store making word
// indexes raises the memory limit to the rebuild's, whether none was set or
// the server's own, lower one was (under it the making would collect
// without pause), and puts it back after; within a rebuild's settings, or
// with the person's GOMEMLIMIT, it changes nothing.
func TestBoundedGCRaisesTheServersLimit(t *testing.T) {
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(math.MaxInt64))
	for _, before := range []int64{math.MaxInt64, 100 << 20} {
		debug.SetMemoryLimit(before)
		end := boundedGC()
		if got := debug.SetMemoryLimit(-1); got != rebuildHeapLimit {
			t.Errorf("limit %d before: %d while making, want %d", before, got, rebuildHeapLimit)
		}
		end()
		if got := debug.SetMemoryLimit(-1); got != before {
			t.Errorf("limit %d before: %d after, want it back", before, got)
		}
	}
	endRebuild := rebuildGC(rebuildRoomNotes)
	end := boundedGC()
	if got, want := debug.SetMemoryLimit(-1), rebuildHeapLimitFor(rebuildRoomNotes); got != want {
		t.Errorf("within a rebuild: limit %d while making, want the rebuild's %d", got, want)
	}
	end()
	if got, want := debug.SetMemoryLimit(-1), rebuildHeapLimitFor(rebuildRoomNotes); got != want {
		t.Errorf("within a rebuild: limit %d after a making, want the rebuild's %d", got, want)
	}
	endRebuild()
	t.Setenv("GOMEMLIMIT", "1GiB")
	debug.SetMemoryLimit(100 << 20)
	end = boundedGC()
	if got := debug.SetMemoryLimit(-1); got != 100<<20 {
		t.Errorf("with GOMEMLIMIT: limit %d while making, want %d (left alone)", got, 100<<20)
	}
	end()
}

// TestRebuildHeapLimitNearLive: the heap limit a rebuild sets is what
// bounds its peak memory (the collector lets the heap grow to four times
// what is live until then), so it stays within half again of the most a
// real-shaped rebuild holds live, about 300 MB at 10,000 notes with two
// batches in flight. At 640 MB the limit, not the work, made a 73 MB
// vault's rebuild peak at 707 MB of RSS.
// The limit of a 10,000-note rebuild is held to that too; a larger vault's
// may rise above it (rebuildHeapLimitFor).
func TestRebuildHeapLimitNearLive(t *testing.T) {
	const live = 300 << 20
	if limit := rebuildHeapLimitFor(10_000); limit > live*3/2 {
		t.Errorf("rebuild heap limit at 10,000 notes %d MB, want at most %d MB (half again of the %d MB a rebuild holds live)",
			limit>>20, live*3/2>>20, live>>20)
	}
	if rebuildHeapLimit < live {
		t.Errorf("rebuild heap limit %d MB, want at least the %d MB a rebuild holds live: the collector would run without pause",
			rebuildHeapLimit>>20, live>>20)
	}
}

// TestReadAllHoldsNoBodies checks that a rebuild's first read of every note
// keeps only the notes' properties: the bodies, the bulk of a vault, are let
// go as each note is read (they are read again batch by batch), so the heap
// the first read leaves does not grow with the text of the vault.
func TestReadAllHoldsNoBodies(t *testing.T) {
	e := newOwedEnv(t)
	st, _ := e.open()
	const notes, bodyBytes = 200, 64 << 10
	word := strings.Repeat("okapi ", bodyBytes/6)
	var files []vault.FileStat
	for i := range notes {
		rel := fmt.Sprintf("memories/p/n%03d.md", i)
		path := filepath.Join(e.root, "cortex", filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		text := fmt.Sprintf("---\nid: 01jreadall%016d\ntitle: Note %d\n---\n%s\n", i, i, word)
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, vault.FileStat{Path: rel})
	}
	heap := func() uint64 {
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		return ms.HeapAlloc
	}
	before := heap()
	recs, mems, bodies, err := st.readAll(files, 0)
	if err != nil {
		t.Fatal(err)
	}
	held := int64(heap()) - int64(before)
	if len(recs) != notes || len(mems) != notes {
		t.Fatalf("%d records and %d memories, want %d", len(recs), len(mems), notes)
	}
	for i, m := range mems {
		if m == nil || m.Title != fmt.Sprintf("Note %d", i) || recs[i].Size == 0 {
			t.Fatalf("note %d read as %+v, %+v", i, m, recs[i])
		}
		if m.Body != "" {
			t.Errorf("note %d holds its body (%d bytes)", i, len(m.Body))
		}
	}
	if len(bodies) != 0 {
		t.Errorf("%d bodies kept, want none", len(bodies))
	}
	// The bodies are 12.5 MB; the properties a few hundred bytes a note.
	if limit := int64(notes * bodyBytes / 8); held > limit {
		t.Errorf("the read notes hold %d bytes of heap, want at most %d (bodies are %d)", held, limit, notes*bodyBytes)
	}
	runtime.KeepAlive(recs)
	runtime.KeepAlive(mems)
}

// TestReadAllErrorsInFileOrder checks readAll's errors, its reads running
// noteReaders at once: a note removed since the scan is left out, the
// others keep the scan's order, and of two notes that cannot be read the
// error is the first one's in that order, whichever read fails first.
func TestReadAllErrorsInFileOrder(t *testing.T) {
	e := newOwedEnv(t)
	st, _ := e.open()
	n := 3 * noteReaders()
	var files []vault.FileStat
	pathOf := func(i int) string {
		return filepath.Join(e.root, "cortex", filepath.FromSlash(files[i].Path))
	}
	for i := range n {
		files = append(files, vault.FileStat{Path: fmt.Sprintf("memories/p/n%03d.md", i)})
		if err := os.MkdirAll(filepath.Dir(pathOf(i)), 0o755); err != nil {
			t.Fatal(err)
		}
		text := fmt.Sprintf("---\nid: 01jreadorder%014d\ntitle: Note %d\n---\nBody %d.\n", i, i, i)
		if err := os.WriteFile(pathOf(i), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	removed := n / 3
	if err := os.Remove(pathOf(removed)); err != nil {
		t.Fatal(err)
	}
	recs, mems, _, err := st.readAll(files, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != n-1 || len(mems) != n-1 {
		t.Fatalf("%d records and %d memories, want %d (one note removed)", len(recs), len(mems), n-1)
	}
	for k, r := range recs {
		i := k
		if k >= removed {
			i++
		}
		if r.Path != files[i].Path || mems[k].Title != fmt.Sprintf("Note %d", i) {
			t.Fatalf("record %d is %s (%q), want %s", k, r.Path, mems[k].Title, files[i].Path)
		}
	}
	// Two notes that cannot be read: folders where they were.
	first, second := n/2, n-1
	for _, i := range []int{first, second} {
		if err := os.Remove(pathOf(i)); err != nil {
			t.Fatal(err)
		}
		if err := os.Mkdir(pathOf(i), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for range 5 {
		_, _, _, err := st.readAll(files, 0)
		if err == nil || !strings.Contains(err.Error(), filepath.Base(files[first].Path)) {
			t.Fatalf("readAll with two unreadable notes: %v, want the first one's error (%s)", err, files[first].Path)
		}
	}
}

// TestReadAllKeepsTheFirstBodies checks that the first read keeps the bodies
// of the first notes in scan order whose sizes fit the bound, each as the
// note's body, and no others.
func TestReadAllKeepsTheFirstBodies(t *testing.T) {
	e := newOwedEnv(t)
	st, _ := e.open()
	var files []vault.FileStat
	var size int64
	for i := range 10 {
		rel := fmt.Sprintf("memories/p/n%02d.md", i)
		path := filepath.Join(e.root, "cortex", filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		text := fmt.Sprintf("---\nid: 01jkeptbody%015d\ntitle: Note %d\n---\nBody of note %d.\n", i, i, i)
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, vault.FileStat{Path: rel, Size: int64(len(text))})
		if i < 4 {
			size += int64(len(text))
		}
	}
	// The fifth note's file is one byte past the bound.
	_, _, bodies, err := st.readAll(files, size+files[4].Size-1)
	if err != nil {
		t.Fatal(err)
	}
	if len(bodies) != 4 {
		t.Fatalf("%d bodies kept, want the first 4", len(bodies))
	}
	for i, f := range files[:4] {
		if b := bodies[f.Path]; b == nil || *b != fmt.Sprintf("Body of note %d.\n", i) {
			t.Errorf("%s: kept body %v", f.Path, b)
		}
	}
}

// TestRebuildReadsEachNoteOnce checks that a rebuild of a vault within
// rebuildKeptBodies reads each note once, and that beyond it the notes whose
// bodies were not kept are read again.
func TestRebuildReadsEachNoteOnce(t *testing.T) {
	e := newOwedEnv(t)
	corpus, err := bench.LoadCorpus(filepath.Join("..", "fixtures"))
	if err != nil {
		t.Fatal(err)
	}
	end := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	const notes = 60
	if _, err := bench.Write(e.root, bench.NewRealGenerator(corpus, 7, end), notes, 7); err != nil {
		t.Fatal(err)
	}
	st, _ := e.open()
	ctx := context.Background()
	before := st.NoteReads()
	if _, err := st.Rebuild(ctx); err != nil {
		t.Fatal(err)
	}
	if got := st.NoteReads() - before; got != notes {
		t.Errorf("a rebuild of %d notes read %d times from the vault, want %d", notes, got, notes)
	}
	old := rebuildKeptBodies
	rebuildKeptBodies = 0
	defer func() { rebuildKeptBodies = old }()
	before = st.NoteReads()
	if _, err := st.Rebuild(ctx); err != nil {
		t.Fatal(err)
	}
	if got := st.NoteReads() - before; got != 2*notes {
		t.Errorf("a rebuild keeping no bodies read %d notes %d times, want %d", notes, got, 2*notes)
	}
}
