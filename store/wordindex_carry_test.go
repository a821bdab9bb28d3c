package store

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"strings"
	"testing"

	"github.com/cortexmem/cortex/atomicfile"
	"github.com/cortexmem/cortex/memories"
)

// TestWordIndexCarriedAcrossABase: once the catalog has another base (a
// rebuild here, a compaction in a run of saves), a project's word index is
// made from the sets its old index holds, not from its word file, and is
// byte for byte the index made from the word file; a note changed since is
// read again, and the word file gets the sets it lacked.
func TestWordIndexCarriedAcrossABase(t *testing.T) {
	ctx := context.Background()
	e := newOwedEnv(t)
	st, svc := e.open()
	topics := []string{"pool", "cache", "queue", "token", "index", "shard", "lease", "quota"}
	for i := range 24 {
		a, b := topics[i%len(topics)], topics[(i*3+1)%len(topics)]
		save(t, svc, fmt.Sprintf("The %s of service %d talks to the %s on port %d; retries back off after %d ms and the %s logs each failure.", a, i, b, 8000+i, 50*i, a))
	}
	// The base now: every note above is in the catalog's base.
	if _, err := st.Rebuild(ctx); err != nil {
		t.Fatal(err)
	}
	overlaps := func() {
		t.Helper()
		err := st.View(ctx, func(snap memories.Snapshot) error {
			_, err := snap.(*snapshot).WordOverlaps(ctx, []string{"zoo"}, []uint64{1, 2, 3}, "", testWords)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	overlaps() // the index of this base, made from the word files
	// A note edited, three saved: the next base holds them.
	for i := range 3 {
		save(t, svc, fmt.Sprintf("A lease of shard %d expires after %d seconds unless the leader renews it through the quota service.", i, 30+i))
	}
	var first string
	err := st.View(ctx, func(snap memories.Snapshot) error {
		es, err := snap.(*snapshot).Entries()
		if len(es) > 0 {
			first = es[0].Path
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	edited := st.v.Abs(first)
	data, err := os.ReadFile(edited)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(edited, bytes.Replace(data, []byte("retries"), []byte("calls"), 1), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Rebuild(ctx); err != nil {
		t.Fatal(err)
	}
	wordSetsRead.Store(0)
	reads := st.wordReads.Load()
	overlaps()
	if n := wordSetsRead.Load(); n != 0 {
		t.Errorf("the index made for the new base read the word file %d times, want 0 (carried from the old index)", n)
	}
	if n := st.wordReads.Load() - reads; n != 1 {
		t.Errorf("%d notes read for the new base's index, want 1 (the edited one: the last saved kept its set when it was saved)", n)
	}
	carried, err := os.ReadFile(st.wordIndexPath("zoo"))
	if err != nil {
		t.Fatal(err)
	}
	// Made again from the word file alone: the same bytes.
	if err := os.Remove(st.wordIndexPath("zoo")); err != nil {
		t.Fatal(err)
	}
	reads = st.wordReads.Load()
	overlaps()
	if n := st.wordReads.Load() - reads; n != 0 {
		t.Errorf("%d notes read to make the index from the word file, want 0 (it got the carried index's new sets)", n)
	}
	made, err := os.ReadFile(st.wordIndexPath("zoo"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(carried, made) {
		t.Errorf("the carried index (%d bytes) differs from the one made from the word file (%d bytes)", len(carried), len(made))
	}
}

// TestCarriedIndexNotWritten: a carried index whose file cannot be written
// (here, a write that fails half way) serves the check from memory, as the
// one written would have: the same counts, a warning, the earlier file left
// as it was, and the next check carries it again.
func TestCarriedIndexNotWritten(t *testing.T) {
	ctx := context.Background()
	e := newOwedEnv(t)
	st, svc := e.open()
	topics := []string{"pool", "cache", "queue", "token", "index", "shard"}
	for i := range 18 {
		a, b := topics[i%len(topics)], topics[(i*5+1)%len(topics)]
		save(t, svc, fmt.Sprintf("The %s of worker %d asks the %s for port %d and logs %s misses.", a, i, b, 7000+i, a))
	}
	overlaps := func() map[string]int {
		t.Helper()
		got := map[string]int{}
		err := st.View(ctx, func(snap memories.Snapshot) error {
			words, _ := testWords("", "The cache of worker 3 asks the queue for port 7003 and logs cache misses.")
			ov, err := snap.(*snapshot).WordOverlaps(ctx, []string{"zoo"}, words, "", testWords)
			if err != nil {
				return err
			}
			for _, o := range ov.All {
				e, err := ov.Entry(o.Ref)
				if err != nil {
					return err
				}
				got[e.Path] = o.Common
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	if _, err := st.Rebuild(ctx); err != nil {
		t.Fatal(err)
	}
	overlaps() // this base's index, made
	if _, err := st.Rebuild(ctx); err != nil {
		t.Fatal(err)
	}
	before, err := os.ReadFile(st.wordIndexPath("zoo"))
	if err != nil {
		t.Fatal(err)
	}
	defer func(w func(string, func(io.Writer) error) error) { writeIndexFile = w }(writeIndexFile)
	writeIndexFile = func(path string, write func(io.Writer) error) error {
		return atomicfile.WriteDerivedFrom(path, func(w io.Writer) error {
			return write(&failAfter{w: w, n: 100})
		})
	}
	inMemory := overlaps()
	if len(inMemory) == 0 {
		t.Fatal("no overlaps counted: the test shows nothing")
	}
	if after, err := os.ReadFile(st.wordIndexPath("zoo")); err != nil || !bytes.Equal(after, before) {
		t.Errorf("the earlier index's file changed (%v) by a write that failed", err)
	}
	if warned := e.warned(); !strings.Contains(warned, "could not keep the duplicate check's word index") {
		t.Errorf("warnings %q, want one of the index not kept", warned)
	}
	writeIndexFile = atomicfile.WriteDerivedFrom
	if written := overlaps(); !maps.Equal(written, inMemory) {
		t.Errorf("counts from the index written %v, from the one in memory %v", written, inMemory)
	}
	if after, err := os.ReadFile(st.wordIndexPath("zoo")); err != nil || bytes.Equal(after, before) {
		t.Errorf("the next check did not write the index again (%v)", err)
	}
}

// TestCarriedIndexThatDoesNotReadBack: a carried index whose file, written
// without an error, does not read back as written (a disk that lost its
// end) fails the check with an error that says so, rather than serving
// counts from it; the next check makes the index again.
func TestCarriedIndexThatDoesNotReadBack(t *testing.T) {
	ctx := context.Background()
	e := newOwedEnv(t)
	st, svc := e.open()
	for i := range 12 {
		save(t, svc, fmt.Sprintf("The lease of shard %d is renewed by the leader every %d seconds through the quota service.", i, 20+i))
	}
	overlaps := func() error {
		t.Helper()
		return st.View(ctx, func(snap memories.Snapshot) error {
			_, err := snap.(*snapshot).WordOverlaps(ctx, []string{"zoo"}, []uint64{1, 2, 3}, "", testWords)
			return err
		})
	}
	if _, err := st.Rebuild(ctx); err != nil {
		t.Fatal(err)
	}
	if err := overlaps(); err != nil { // this base's index, made
		t.Fatal(err)
	}
	if _, err := st.Rebuild(ctx); err != nil {
		t.Fatal(err)
	}
	defer func(w func(string, func(io.Writer) error) error) { writeIndexFile = w }(writeIndexFile)
	writeIndexFile = func(path string, write func(io.Writer) error) error {
		var all bytes.Buffer
		if err := write(&all); err != nil {
			return err
		}
		return atomicfile.WriteDerived(path, all.Bytes()[:all.Len()-10])
	}
	if err := overlaps(); err == nil || !strings.Contains(err.Error(), "does not read back") {
		t.Fatalf("a carried index that does not read back: %v, want an error saying so", err)
	}
	writeIndexFile = atomicfile.WriteDerivedFrom
	if err := overlaps(); err != nil {
		t.Fatalf("the next check: %v", err)
	}
}

// failAfter fails its writes once n bytes are written.
type failAfter struct {
	w io.Writer
	n int
}

func (f *failAfter) Write(b []byte) (int, error) {
	if len(b) > f.n {
		n, _ := f.w.Write(b[:f.n])
		f.n -= n
		return n, errors.New("disk full")
	}
	f.n -= len(b)
	return f.w.Write(b)
}
