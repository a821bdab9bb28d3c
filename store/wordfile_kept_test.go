package store

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/cortexmem/cortex/config"
	"github.com/cortexmem/cortex/memories"
	"github.com/cortexmem/cortex/vault"
)

// TestKeptRecentReadOnceWhileUnchanged: a resident store reads a recent
// file once while only its own writes change it, each read getting a copy
// of its own; a file changed by another writer, or torn, is read again.
func TestKeptRecentReadOnceWhileUnchanged(t *testing.T) {
	p := filepath.Join(t.TempDir(), "p.recent")
	s := &Store{}
	wf := &wordFile{m: map[string]wordEntry{"a.md": {hash: 1, words: []uint64{2, 3}}}, torn: true}
	if err := s.saveWords(p, wf, nil, nil); err != nil {
		t.Fatal(err)
	}
	k := &keptWordFiles{}
	paths := func(wf *wordFile) []string {
		var out []string
		for q, e := range wf.m {
			out = append(out, fmt.Sprintf("%s:%d", q, e.hash))
		}
		slices.Sort(out)
		return out
	}
	a := k.read(p)
	a.m["x.md"] = wordEntry{hash: 9} // the reader's own copy
	b := k.read(p)
	if k.reads != 1 || !slices.Equal(paths(b), []string{"a.md:1"}) {
		t.Fatalf("second read: %d reads, %v; want 1 read, [a.md:1]", k.reads, paths(b))
	}
	// This store appends a set: kept as written.
	b.m["b.md"] = wordEntry{hash: 2, words: []uint64{5}}
	if err := s.saveWords(p, b, []string{"b.md"}, nil); err != nil {
		t.Fatal(err)
	}
	k.wrote(p, b)
	if c := k.read(p); k.reads != 1 || !slices.Equal(paths(c), []string{"a.md:1", "b.md:2"}) {
		t.Fatalf("after its own append: %d reads, %v; want 1 read, [a.md:1 b.md:2]", k.reads, paths(c))
	}
	// Another writer appends: read again, with its set.
	other := readWords(p)
	other.m["c.md"] = wordEntry{hash: 3, words: []uint64{7}}
	if err := s.saveWords(p, other, []string{"c.md"}, nil); err != nil {
		t.Fatal(err)
	}
	if c := k.read(p); k.reads != 2 || !slices.Equal(paths(c), []string{"a.md:1", "b.md:2", "c.md:3"}) {
		t.Fatalf("after another's append: %d reads, %v; want 2 reads, [a.md:1 b.md:2 c.md:3]", k.reads, paths(c))
	}
	// A torn tail: read whole each time until it is rewritten.
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write([]byte{1, 2, 3}); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if c := k.read(p); !c.torn {
			t.Fatal("a torn file read as whole")
		}
	}
	if k.reads != 4 {
		t.Fatalf("a torn file was read %d times in all, want 4 (kept only whole)", k.reads)
	}
	if err := os.Remove(p); err != nil {
		t.Fatal(err)
	}
	if c := k.read(p); len(c.m) != 0 || len(k.m) != 0 {
		t.Fatalf("a missing file: %d sets, %d kept", len(c.m), len(k.m))
	}
}

// TestResidentSavesReadTheirRecentFileOnce: a resident store's saves into
// one project read its recent file (which each of them appends to) once,
// not at every save, and find the same duplicate as a store that reads it
// each time.
func TestResidentSavesReadTheirRecentFileOnce(t *testing.T) {
	e := newOwedEnv(t)
	v, err := vault.New(e.root, "cortex")
	if err != nil {
		t.Fatal(err)
	}
	st, err := Open(Options{Vault: v, State: config.State{Home: e.home}, LockTimeout: 30 * time.Second, Resident: true})
	if err != nil {
		t.Fatal(err)
	}
	svc := memories.NewService(st)
	ctx := context.Background()
	save := func(i int) error {
		_, err := svc.Save(ctx, memories.SaveRequest{Title: fmt.Sprintf("Pool note %d", i),
			Content: fmt.Sprintf("The pool of worker %d holds %d connections, retried after %d seconds on timeouts.", i, 10+i, 3*i), Project: "web"})
		return err
	}
	for i := range 8 {
		if i == 2 {
			// The first saves make the project's files.
			wordFilesRead.Store(0)
		}
		if err := save(i); err != nil {
			t.Fatal(err)
		}
	}
	if n := wordFilesRead.Load(); n > 1 {
		t.Errorf("6 saves into a project read word-set files %d times, want at most 1", n)
	}
	if !hasDuplicateRefusal(save(3)) {
		t.Error("a save repeating an earlier one was not refused")
	}
}

func hasDuplicateRefusal(err error) bool {
	var rej *memories.RejectedError
	return errors.As(err, &rej)
}
