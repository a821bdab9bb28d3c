package importer

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"path/filepath"
	"runtime"
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

// TestScratchWritesWhatLeavesTheWindow: a chunk reaches the file only when it
// leaves the window kept in memory, so a scratch whose encodings fit in the
// window never writes; once chunks leave it, the file holds exactly them.
func TestScratchWritesWhatLeavesTheWindow(t *testing.T) {
	src := &Source{Options: Options{ScratchDir: t.TempDir()}}
	st, err := src.Scratch()
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	sc := st.(*scratch)
	sc.buffer, sc.window = 100, 400
	fileSize := func() int64 {
		t.Helper()
		fi, err := sc.f.Stat()
		if err != nil {
			t.Fatal(err)
		}
		return fi.Size()
	}
	var encs [][]byte
	put := func() {
		t.Helper()
		i := len(encs)
		enc := []byte(fmt.Sprintf("%03d:%s", i, strings.Repeat("x", 36))) // 40 bytes
		if err := sc.Put(i, enc); err != nil {
			t.Fatal(err)
		}
		encs = append(encs, enc)
	}
	for range 8 { // 320 bytes: four chunks, within the window
		put()
	}
	if len(sc.chunks) < 3 || sc.written != 0 || fileSize() != 0 {
		t.Fatalf("%d chunks of 320 bytes in a window of 400: %d bytes written, file of %d", len(sc.chunks), sc.written, fileSize())
	}
	for range 20 {
		put()
	}
	if sc.written == 0 || sc.written != sc.chunks[0].at || fileSize() != sc.written {
		t.Fatalf("after the window: %d bytes written, the first chunk kept at %d, file of %d", sc.written, sc.chunks[0].at, fileSize())
	}
	for i, want := range encs {
		if got, err := sc.Get(i, nil); err != nil || !bytes.Equal(got, want) {
			t.Fatalf("get %d = %q, %v; want %q", i, got, err, want)
		}
	}
}

// TestTextsAsideWithoutCopies: setting a text aside copies it into the
// scratch's chunk (no allocation but the hash's), and reading it back while
// it is in memory makes one string, not bytes and then a string.
func TestTextsAsideWithoutCopies(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	holdTexts(t, 0)
	src := &Source{Options: Options{ScratchDir: t.TempDir()}}
	tx, err := src.newTexts()
	if err != nil {
		t.Fatal(err)
	}
	defer tx.sc.Close()
	item := Item{Title: "Replica lag", Content: strings.Repeat("The replica lags behind the primary. ", 30), Kind: KindMarkdown}
	hashAllocs := testing.AllocsPerRun(50, func() { _ = item.Hash() })
	var last aside
	asideAllocs := testing.AllocsPerRun(50, func() {
		it := item
		last = tx.setAside(&it)
	})
	if tx.err != nil || last.text == 0 {
		t.Fatalf("not set aside: %v", tx.err)
	}
	if asideAllocs != hashAllocs {
		t.Errorf("setting a text aside: %v allocations, want the hash's %v", asideAllocs, hashAllocs)
	}
	read := tx.reader(last.text - 1)
	var got string
	readAllocs := testing.AllocsPerRun(50, func() { got, err = read() })
	if err != nil || got != item.Content {
		t.Fatalf("read back %q, %v", got, err)
	}
	if readAllocs != 1 {
		t.Errorf("reading a text back: %v allocations, want 1", readAllocs)
	}
}

func TestScratchNoFolder(t *testing.T) {
	src := &Source{Options: Options{ScratchDir: filepath.Join(t.TempDir(), "missing")}}
	if _, err := src.Scratch(); err == nil || !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), "scratch file") {
		t.Errorf("Scratch in a missing folder: %v, want an error naming the scratch file", err)
	}
}

// holdTexts sets textsHeld for a test.
func holdTexts(t *testing.T, n int) {
	t.Helper()
	was := textsHeld
	textsHeld = n
	t.Cleanup(func() { textsHeld = was })
}

// TestReadSetsTextsAside: Source.Read gives each candidate the text Collect
// reads — in memory for those whose links are rendered from it and for the
// first textsHeld bytes of the others, read back from the scratch file for
// the rest — and the same fingerprint and links as without a scratch file;
// closing the set removes the file. An import whose texts fit in textsHeld
// (the fixtures, at its default) sets none aside.
func TestReadSetsTextsAside(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", "fixtures", "import"))
	if err != nil {
		t.Fatal(err)
	}
	all := textsHeld // the default
	for _, c := range []struct {
		dir  string
		hold int
	}{{"vault", 0}, {"vitepress", 0}, {"mcp", 0}, {"vault", 2 << 10}, {"vitepress", 8 << 10}, {"vitepress", all}} {
		dir := c.dir
		t.Run(fmt.Sprintf("%s holding %d", dir, c.hold), func(t *testing.T) {
			holdTexts(t, c.hold)
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
			aside, linked, kept := 0, 0, 0
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
					kept++
				}
				if text != it.Content || c.Request.Provenance.SourceHash != it.Hash() {
					t.Errorf("%s: text %q, hash %s; want %q, %s", c.Source, text, c.Request.Provenance.SourceHash, it.Content, it.Hash())
				}
			}
			switch {
			case c.hold == 0 && kept > 0:
				t.Errorf("%d texts neither set aside nor linked", kept)
			case c.hold == 0 && aside == 0 && dir != "mcp": // every entity of the graph links to another
				t.Error("no text set aside")
			case c.hold == all && aside > 0:
				t.Errorf("%d texts set aside, %d kept: want all kept", aside, kept)
			case c.hold > 0 && c.hold < all && (aside == 0 || kept == 0):
				t.Errorf("holding %d bytes: %d texts set aside, %d kept; want some of each", c.hold, aside, kept)
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

// TestItemHashCopiesNoText: an item's hash is the SHA-256 of its kind,
// title and content, each ended by a zero byte, and reading a content of a
// megabyte for it allocates a few bytes, not a copy.
func TestItemHashCopiesNoText(t *testing.T) {
	it := Item{Kind: KindMarkdown, Title: "Replica lag", Content: strings.Repeat("The replica lags behind the primary. ", 1<<15)}
	want := sha256.Sum256([]byte(string(it.Kind) + "\x00" + it.Title + "\x00" + it.Content + "\x00"))
	if got := it.Hash(); got != hex.EncodeToString(want[:12]) {
		t.Fatalf("Hash = %s, want %x", got, want[:12])
	}
	if empty := (Item{}); empty.Hash() != func() string { s := sha256.Sum256([]byte{0, 0, 0}); return hex.EncodeToString(s[:12]) }() {
		t.Errorf("the empty item's hash is %s", empty.Hash())
	}
	if raceEnabled {
		return // the race detector allocates
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	const runs = 10
	for range runs {
		_ = it.Hash()
	}
	runtime.ReadMemStats(&after)
	if per := (after.TotalAlloc - before.TotalAlloc) / runs; per > 4<<10 {
		t.Errorf("hashing a %d-byte content allocated %d bytes, want at most 4 KB", len(it.Content), per)
	}
}
