package importer

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"
)

// TestScratch: every encoding put comes back as it was, whether it is still
// in the chunk being filled, in the window kept in memory or only in the file,
// in any order, appended to what the caller passes; the memory kept stays
// within the window; the file is gone once closed.
func TestScratch(t *testing.T) {
	dir := t.TempDir()
	src := &Source{Options: Options{ScratchDir: dir}}
	st, err := src.Scratch()
	if err != nil {
		t.Fatal(err)
	}
	sc := st.(*scratch)
	sc.buffer, sc.window = 100, 400 // a few encodings a chunk, a few chunks kept
	rng := rand.New(rand.NewPCG(1, 2))
	var encs [][]byte
	check := func(i int) {
		t.Helper()
		got, err := sc.Get(i, []byte("prefix"))
		if err != nil {
			t.Fatalf("get %d: %v", i, err)
		}
		if want := append([]byte("prefix"), encs[i]...); !bytes.Equal(got, want) {
			t.Fatalf("get %d = %q, want %q", i, got, want)
		}
	}
	for i := range 300 {
		size := 1 + rng.IntN(60)
		if i%50 == 7 {
			size = 250 // more than a chunk
		}
		enc := []byte(fmt.Sprintf("%d:", i))
		for len(enc) < size {
			enc = append(enc, byte('a'+rng.IntN(26)))
		}
		encs = append(encs, enc)
		if err := sc.Put(i, enc); err != nil {
			t.Fatal(err)
		}
		check(i)
		check(rng.IntN(i + 1))
		if sc.kept > sc.window+250 {
			t.Fatalf("after %d puts, %d bytes kept in memory, window %d", i+1, sc.kept, sc.window)
		}
	}
	for _, i := range rng.Perm(len(encs)) {
		check(i)
	}
	if sc.written == 0 || len(sc.chunks) < 2 || sc.chunks[0].at == 0 {
		t.Errorf("the test did not reach the file and the window: %d bytes written, %d chunks from %d", sc.written, len(sc.chunks), sc.chunks[0].at)
	}
	if err := sc.Put(5, []byte("x")); err == nil {
		t.Error("a put out of order was taken")
	}
	if _, err := sc.Get(len(encs), nil); err == nil {
		t.Error("a get past the end gave no error")
	}
	if err := sc.Close(); err != nil {
		t.Fatal(err)
	}
	left, _ := filepath.Glob(filepath.Join(dir, "*"))
	if len(left) != 0 {
		t.Errorf("left behind: %v", left)
	}
}

func TestScratchNoFolder(t *testing.T) {
	src := &Source{Options: Options{ScratchDir: filepath.Join(t.TempDir(), "missing")}}
	if _, err := src.Scratch(); err == nil || !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), "scratch file") {
		t.Errorf("Scratch in a missing folder: %v, want an error naming the scratch file", err)
	}
}
