package vault

import (
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestScanDeepTree: a tree of new folders deeper and wider than there are
// goroutines to check them is scanned whole, whatever GOMAXPROCS is. A
// folder found while every goroutine is busy is checked by the goroutine
// that found it: waiting for a free one there could wait forever.
func TestScanDeepTree(t *testing.T) {
	root := t.TempDir()
	tree := map[string]string{}
	var want []string
	dir := "memories"
	for depth := range 24 {
		for w := range 3 {
			p := dir + "/w" + strconv.Itoa(w) + "/note.md"
			tree[p] = "note " + p
			want = append(want, p)
		}
		dir += "/d" + strconv.Itoa(depth)
	}
	writeTree(t, root, tree)
	slices.Sort(want)
	dirs := map[string]bool{"": true}
	for p := range tree {
		for d := p; strings.Contains(d, "/"); {
			d = d[:strings.LastIndex(d, "/")]
			dirs[d] = true
		}
	}
	for _, procs := range []int{1, 2, 4} {
		t.Run("GOMAXPROCS="+strconv.Itoa(procs), func(t *testing.T) {
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
			done := make(chan *ScanResult, 1)
			go func() {
				res, _ := Scan(root, NoKnown{}, ScanOptions{StatNotes: true})
				done <- res
			}()
			var res *ScanResult
			select {
			case res = <-done:
			case <-time.After(30 * time.Second):
				t.Fatal("the scan did not finish")
			}
			var got []string
			for _, f := range res.Changed {
				got = append(got, f.Path)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("notes (-want +got):\n%s", diff)
			}
			if len(res.Problems) > 0 || len(res.Dirs) != len(dirs) {
				t.Errorf("problems %v, %d folders of %d", res.Problems, len(res.Dirs), len(dirs))
			}
		})
	}
}
