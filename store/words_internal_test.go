package store

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// FuzzReadWords: a word-set file of any bytes is read without a panic, and
// what is read of it is written back as the same sets.
func FuzzReadWords(f *testing.F) {
	m := map[string]wordEntry{"a.md": {hash: 1, words: []uint64{2, 3}}, "b/c.md": {hash: 4}}
	head := append([]byte(wordsHeader), make([]byte, 8)...)
	whole := encodeWords(append([]byte(nil), head...), m, []string{"a.md", "b/c.md"})
	f.Add(whole)
	f.Add(whole[:len(whole)-3])
	f.Add(head)
	f.Add([]byte(wordsHeader + "\x00\x01"))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) >= len(head) {
			// The probe's hash as this build makes it, so that blocks are read.
			copy(data[len(wordsHeader):], probeBytes())
		}
		p := filepath.Join(dir, "x.words")
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
		wf := readWords(p)
		if wf.size > int64(len(data)) || len(wf.m) > wf.records {
			t.Fatalf("read %d bytes and %d sets of %d records from %d bytes", wf.size, len(wf.m), wf.records, len(data))
		}
		paths := make([]string, 0, len(wf.m))
		for p := range wf.m {
			paths = append(paths, p)
		}
		again := map[string]wordEntry{}
		if _, ok := decodeWords(encodeWords(nil, wf.m, paths)[8:], again); !ok {
			t.Fatal("the sets read do not decode once written")
		}
		if diff := cmp.Diff(wf.m, again, cmp.AllowUnexported(wordEntry{})); diff != "" {
			t.Errorf("written and read again (-read +again):\n%s", diff)
		}
	})
}
