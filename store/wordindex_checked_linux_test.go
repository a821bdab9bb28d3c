package store

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/cortexmem/cortex/atomicfile"
)

// testWordIndex is the bytes of a word index of n sets of random words.
func testWordIndex(seed uint64, n int) []byte {
	rng := rand.New(rand.NewPCG(seed, 1))
	bases, hashes, sets, kept := make([]int, n), make([]uint64, n), make([][]uint64, n), make([]bool, n)
	for s := range n {
		set := make([]uint64, 0, 40)
		for range 40 {
			set = append(set, rng.Uint64N(5000))
		}
		slices.Sort(set)
		bases[s], hashes[s], sets[s], kept[s] = s, uint64(s)+seed, slices.Compact(set), true
	}
	return encodeWordIndex(1, bases, hashes, sets, nil, kept, nil)
}

// TestWordIndexCheckedOnceABoot: a word index file read whole and found
// sound is not checked whole again while it is the same file, in the same
// boot, whether read by a command or kept by a server; a file damaged in
// place (its modification time put back), one replaced, a record of
// another boot and a damaged record are checked whole again — and the
// damaged file is refused.
func TestWordIndexCheckedOnceABoot(t *testing.T) {
	if _, ok := checkIdentity(statOf(t, os.Args[0])); !ok {
		t.Skip("checks are not recorded here")
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "web.index")
	write := func(data []byte) {
		t.Helper()
		if err := atomicfile.WriteDerived(path, data); err != nil {
			t.Fatal(err)
		}
	}
	var command *keptIndexes // nil: a command's read
	read := func(k *keptIndexes) (wantFull int64, ok bool) {
		t.Helper()
		before := fullChecks.Load()
		ix, done, ok := k.read(path)
		if ok {
			if ix.nSets != 300 {
				t.Errorf("read an index of %d sets; want 300", ix.nSets)
			}
			done()
		}
		return fullChecks.Load() - before, ok
	}
	expect := func(what string, k *keptIndexes, full int64, wantOK bool) {
		t.Helper()
		got, ok := read(k)
		if got != full || ok != wantOK {
			t.Errorf("%s: %d whole checks, read %v; want %d, %v", what, got, ok, full, wantOK)
		}
	}

	write(testWordIndex(1, 300))
	expect("first read", command, 1, true)
	expect("second read", command, 0, true)
	expect("a server's read", &keptIndexes{}, 0, true)

	// Damaged in place, its time put back: its change time tells.
	fi := statOf(t, path)
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	b := make([]byte, 1)
	at := fi.Size() / 2
	if _, err := f.ReadAt(b, at); err != nil {
		t.Fatal(err)
	}
	b[0] ^= 0x5a
	if _, err := f.WriteAt(b, at); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(path, fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
	expect("damaged in place", command, 1, false)

	write(testWordIndex(2, 300))
	expect("replaced", command, 1, true)
	expect("replaced, read again", command, 0, true)

	// A record of another boot: what a crash may have torn is read then.
	boot := thisBoot.id()
	thisBoot.v = "00000000-0000-4000-8000-000000000000"
	expect("after a reboot", command, 1, true)
	thisBoot.v = boot
	expect("back in this boot", command, 1, true)

	// A damaged record.
	rec, err := os.ReadFile(checkedPath(path))
	if err != nil {
		t.Fatal(err)
	}
	rec[len(rec)-6] ^= 1
	if err := os.WriteFile(checkedPath(path), rec, 0o600); err != nil {
		t.Fatal(err)
	}
	expect("a damaged record", command, 1, true)
	expect("a damaged record, read again", command, 0, true)
}

func statOf(t *testing.T, path string) os.FileInfo {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi
}

// TestSavesTrustTheWordIndexTheyWrote: a save that writes a project's word
// index records it as checked, so that the next command's save reads it
// without checking it whole.
func TestSavesTrustTheWordIndexTheyWrote(t *testing.T) {
	if _, ok := checkIdentity(statOf(t, os.Args[0])); !ok {
		t.Skip("checks are not recorded here")
	}
	e := newOwedEnv(t)
	_, svc := e.open()
	save(t, svc, "The otter pool needs its filter cleaned every three days by the keeper.")
	index := ""
	if err := filepath.WalkDir(e.home, func(p string, d os.DirEntry, err error) error {
		if err == nil && filepath.Base(p) == "zoo.index" {
			index = p
		}
		return err
	}); err != nil || index == "" {
		t.Fatalf("no word index of the project after a save (%v)", err)
	}
	if _, ok := checkedSum(index, statOf(t, index)); !ok {
		t.Fatalf("the word index %s a save wrote is not recorded as checked", index)
	}
	before := fullChecks.Load()
	_, svc = e.open()
	save(t, svc, "Feed the lynx at six in the morning, then clean the heron pond.")
	if n := fullChecks.Load() - before; n != 0 {
		t.Errorf("the next command's save checked %d word indexes whole; want none", n)
	}
}
