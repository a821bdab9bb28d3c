package dedup

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestWordsAsNew: Words gives New's word set, to the bit, on the dedup
// fixtures' texts, the multilingual fixtures (Chinese and Japanese pairs,
// scripts without spaces, mixed scripts) and texts of stop words only.
func TestWordsAsNew(t *testing.T) {
	texts := []string{"", " ", "the of and", "The\nof and it", "日本語のテキスト\n数据库连接", "a\nb", "İ\u0301 ΣΊΣΥΦΟΣ"}
	for _, name := range fixtureFiles {
		for _, p := range loadPairs(t, name) {
			texts = append(texts, p.New.text(), p.Old.text())
		}
	}
	files, err := filepath.Glob(filepath.Join("..", "fixtures", "multilingual", "*.txt"))
	if err != nil || len(files) == 0 {
		t.Fatalf("multilingual fixtures: %v (%d files)", err, len(files))
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		texts = append(texts, string(data), filepath.Base(f)+"\n"+string(data))
	}
	for _, s := range texts {
		if diff := cmp.Diff(New(s).Words(), Words(s)); diff != "" {
			t.Fatalf("Words(%q) is not New's word set (-New +Words):\n%s", short(s), diff)
		}
	}
}

// FuzzWordsAsNew checks Words against New's word set on any text.
func FuzzWordsAsNew(f *testing.F) {
	for _, s := range []string{"", "the of and", "日本語のテキスト", "数据 库\n连接。数据", "Caching the DB configs: don't retry k8s",
		"Title\n\nbody. Next sentence\nline", "ab\xffcd\xe3\x81", "の の 日本"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if diff := cmp.Diff(New(s).Words(), Words(s)); diff != "" {
			t.Fatalf("Words(%q) is not New's word set (-New +Words):\n%s", s, diff)
		}
	})
}
