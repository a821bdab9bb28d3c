package transcripttest

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// Concat returns the fixtures dir/names one after the other.
func Concat(tb testing.TB, dir string, names ...string) []byte {
	tb.Helper()
	var out []byte
	for _, name := range names {
		data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(name)))
		if err != nil {
			tb.Fatal(err)
		}
		out = append(out, data...)
	}
	return out
}

// Synthetic builds a large transcript for a benchmark: head once, then body
// over and over until there are size bytes, each copy with the value after
// every one of keys (a key is what precedes the value: `"uuid":"`)
// prefixed with the copy's number, so that no copy reads as a replay,
// twin or rewrite of another. It returns the bytes and the number of
// records (lines).
func Synthetic(head, body []byte, keys []string, size int) ([]byte, int) {
	var out bytes.Buffer
	out.Write(head)
	for n := 0; out.Len() < size; n++ {
		c := body
		for _, k := range keys {
			c = bytes.ReplaceAll(c, []byte(k), []byte(fmt.Sprintf("%s%d-", k, n)))
		}
		out.Write(c)
	}
	return out.Bytes(), bytes.Count(out.Bytes(), []byte("\n"))
}
