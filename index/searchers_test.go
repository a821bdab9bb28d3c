package index

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cortexmem/cortex/internal/golden"
)

// TestSearchesUnchanged runs every kind of search recall, its retries,
// context and the duplicate check make (pruneRequests), pruned and whole,
// over the pruning fixture's 2,000 notes in four segments, and compares a
// digest of each one's results (ids and scores to the bit, in order) with
// testdata/searches.golden. The golden file was written by Bleve's
// searchers before cortex's patch 0010 (which moves a disjunction's and a
// conjunction's searchers on lazily): a change to how the searchers walk
// the postings must not change a single result.
func TestSearchesUnchanged(t *testing.T) {
	b, queries := pruneFixture(t)
	ctx := context.Background()
	minPostings := pruneMinPostings
	t.Cleanup(func() { prune, pruneMinPostings = true, minPostings })
	pruneMinPostings = 0
	var lines []string
	for _, text := range queries {
		for k, req := range pruneRequests(text) {
			for _, pruned := range []bool{false, true} {
				prune = pruned
				got, err := b.Search(ctx, req)
				if err != nil {
					t.Fatal(err)
				}
				h := sha256.New()
				for _, m := range got {
					h.Write([]byte(m.ID))
					h.Write(binary.LittleEndian.AppendUint64(nil, math.Float64bits(m.Score)))
				}
				lines = append(lines, fmt.Sprintf("%q\t%d\tpruned=%v\t%d\t%x", text, k, pruned, len(got), h.Sum(nil)[:8]))
			}
		}
	}
	golden.Check(t, filepath.Join("testdata", "searches.golden"), []byte(strings.Join(lines, "\n")+"\n"))
}
