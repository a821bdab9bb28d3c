package index

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/RoaringBitmap/roaring/v2"
	bindex "github.com/blevesearch/bleve_index_api"
	segment "github.com/blevesearch/scorch_segment_api/v2"
	zap "github.com/blevesearch/zapx/v17"

	"github.com/cortexmem/cortex/memories"
)

// rangeSegments writes n segments of memories of real-looking text (body,
// title, tags, pairs, one-hit terms and long lists) into dir and opens them.
func rangeSegments(t *testing.T, dir string, n int) []segment.Segment {
	t.Helper()
	b, err := createBleve(filepath.Join(dir, "bleve"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = b.Close() })
	db, err := newDocBuilder()
	if err != nil {
		t.Fatal(err)
	}
	words := strings.Fields("cache retry timeout handler session schema index merge segment posting " +
		"dictionary build rebuild vault note memory recall save import token query field term " +
		"ранг слово 検索 索引 über straße naïve café")
	var segs []segment.Segment
	plugin := &zap.ZapPlugin{}
	for s := range n {
		var batch []bindex.Document
		for i := range 150 + 40*s {
			k := s*1000 + i
			var body []string
			for j := range 12 + k%23 {
				body = append(body, words[(k*7+j*j)%len(words)])
				if j%5 == 0 {
					body = append(body, fmt.Sprintf("id%d", k*31+j)) // one-hit terms
				}
			}
			m := mem(fmt.Sprintf("m%05d", k), fmt.Sprintf("Note %d about %s", k, words[k%len(words)]),
				strings.Join(body, " "), []string{"alpha", "beta"}[k%2], memories.TypeNote, 1+k%28, words[k%5])
			doc := db.memoryDocument(b, m.ID, m)
			doc.AddIDField()
			batch = append(batch, doc)
		}
		sb, _, err := plugin.New(batch)
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, fmt.Sprintf("%d.zap", s))
		if err := zap.PersistSegmentBase(sb.(*zap.SegmentBase), path); err != nil {
			t.Fatal(err)
		}
		seg, err := plugin.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = seg.Close() })
		segs = append(segs, seg)
	}
	return segs
}

// TestMergeTermRangesWritesTheSameFile covers zapx patch 0010: two merges
// of the same segments write the same file (the sections were merged and
// listed in a map's order), and a merge that cuts each large field's terms
// into ranges merged at the same time writes the file a merge of every
// term in one walk writes, byte for byte, with and without deleted
// documents; and it did cut them.
func TestMergeTermRangesWritesTheSameFile(t *testing.T) {
	dir := t.TempDir()
	segs := rangeSegments(t, dir, 5)
	oldFrom, oldProcs := zap.ParallelTermsFrom, runtime.GOMAXPROCS(4)
	t.Cleanup(func() {
		zap.ParallelTermsFrom = oldFrom
		runtime.GOMAXPROCS(oldProcs)
	})
	someDropped := make([]*roaring.Bitmap, len(segs))
	for i := range someDropped {
		someDropped[i] = roaring.New()
		for d := uint32(i); d < 150; d += 7 {
			someDropped[i].Add(d)
		}
	}
	for _, tc := range []struct {
		name  string
		drops []*roaring.Bitmap
	}{
		{"every document", make([]*roaring.Bitmap, len(segs))},
		{"some deleted", someDropped},
	} {
		t.Run(tc.name, func(t *testing.T) {
			merge := func(name string, from int) []byte {
				zap.ParallelTermsFrom = from
				path := filepath.Join(dir, name)
				if _, _, err := (&zap.ZapPlugin{}).Merge(segs, tc.drops, path, nil, nil); err != nil {
					t.Fatalf("merge (ranges from %d): %v", from, err)
				}
				data, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				return data
			}
			whole := merge(strings.ReplaceAll(tc.name, " ", "-")+"-whole.zap", 0)
			if again := merge(strings.ReplaceAll(tc.name, " ", "-")+"-again.zap", 0); !bytes.Equal(whole, again) {
				t.Fatal("two merges of the same segments wrote different files")
			}
			before := zap.TermRangesMerged.Load()
			cut := merge(strings.ReplaceAll(tc.name, " ", "-")+"-cut.zap", 1)
			if n := zap.TermRangesMerged.Load() - before; n < 3 {
				t.Fatalf("the merge cut %d ranges beside the first, want at least 3 (a field into four)", n)
			}
			if !bytes.Equal(whole, cut) {
				at := 0
				for at < min(len(whole), len(cut)) && whole[at] == cut[at] {
					at++
				}
				t.Fatalf("merged in ranges, the file differs from the one merged whole at byte %d (sizes %d, %d)", at, len(cut), len(whole))
			}
		})
	}
}
