package importer

import (
	"bytes"
	"context"
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

// TestReadSetsTextsAside: Source.Read gives each candidate the text Collect
// reads — in memory for those whose links are rendered from it, read back
// from the scratch file for the others — and the same fingerprint and links
// as without a scratch file; closing the set removes the file.
func TestReadSetsTextsAside(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", "fixtures", "import"))
	if err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{"vault", "vitepress", "mcp"} {
		t.Run(dir, func(t *testing.T) {
			scratchDir := t.TempDir()
			path := filepath.Join(root, dir)
			want, err := Collect(context.Background(), path, Options{Home: root})
			if err != nil {
				t.Fatal(err)
			}
			src := &Source{Options: Options{Home: root, ScratchDir: scratchDir}}
			set, err := src.Read(context.Background(), path, func(int, int) {})
			if err != nil {
				t.Fatal(err)
			}
			if len(set.Candidates) != len(want.Items) || set.Close == nil {
				t.Fatalf("%d candidates, %d items; Close set %v", len(set.Candidates), len(want.Items), set.Close != nil)
			}
			aside, linked := 0, 0
			for i, c := range set.Candidates {
				it := want.Items[i]
				text := c.Request.Content
				switch {
				case c.Text != nil:
					aside++
					if text != "" {
						t.Errorf("%s: set aside, and its content kept too", c.Source)
					}
					if text, err = c.Text(); err != nil {
						t.Fatal(err)
					}
				case c.Links != nil:
					linked++
				default:
					t.Errorf("%s: neither set aside nor linked", c.Source)
				}
				if text != it.Content || c.Request.Provenance.SourceHash != it.Hash() {
					t.Errorf("%s: text %q, hash %s; want %q, %s", c.Source, text, c.Request.Provenance.SourceHash, it.Content, it.Hash())
				}
			}
			if aside == 0 && dir != "mcp" { // every entity of the graph links to another
				t.Error("no text set aside")
			}
			if dir == "vault" && linked == 0 {
				t.Error("the vault fixture gave no linked candidate")
			}
			if err := set.Close(); err != nil {
				t.Fatal(err)
			}
			if left, _ := filepath.Glob(filepath.Join(scratchDir, "*")); len(left) != 0 {
				t.Errorf("left behind: %v", left)
			}
		})
	}
}
