package memories

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"runtime/metrics"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestMeaningfulCharsUpTo: the count stopped at a limit is the whole count
// below it and the limit from it on, in any script.
func TestMeaningfulCharsUpTo(t *testing.T) {
	texts := []string{"", "   ", "abc", "a-b_c 1.2", "ÄÖÜ straße", "数据库", "x\u0301y", "١٢٣ arabic digits", "🚀 !", "\xff\xfeab",
		strings.Repeat("word ", 10), "Это тест на русском языке, и ещё цифры 42."}
	for _, s := range texts {
		for _, limit := range []int{0, 1, 3, MinContentChars, 1000} {
			want := min(meaningfulChars(s), limit)
			if got := meaningfulCharsUpTo(s, limit); got != want {
				t.Errorf("meaningfulCharsUpTo(%q, %d) = %d, want %d", s, limit, got, want)
			}
		}
	}
}

// TestBestPerMemory: each memory once, with its best score, in the order it
// first came, for the short lists a lookup gives and long ones alike.
func TestBestPerMemory(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{0, 1, 5, 20, 32, 33, 100} {
		var all []scored
		for range n {
			all = append(all, scored{entry: Entry{ID: fmt.Sprintf("m%d", rng.IntN(max(n/2, 1)))}, score: float64(rng.IntN(10)) / 10})
		}
		want := []scored{}
		at := map[string]int{}
		for _, c := range all {
			if j, ok := at[c.entry.ID]; ok {
				if c.score > want[j].score {
					want[j] = c
				}
				continue
			}
			at[c.entry.ID] = len(want)
			want = append(want, c)
		}
		got := append([]scored{}, bestPerMemory(append([]scored(nil), all...))...)
		if diff := cmp.Diff(want, got, cmp.AllowUnexported(scored{})); diff != "" {
			t.Errorf("%d scored (-want +got):\n%s", n, diff)
		}
	}
}

// goroutinesCreated is how many goroutines the process has started so far.
func goroutinesCreated(t *testing.T) uint64 {
	t.Helper()
	s := []metrics.Sample{{Name: "/sched/goroutines-created:goroutines"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		t.Fatalf("%s is not supported", s[0].Name)
	}
	return s[0].Value.Uint64()
}

// TestParallelStartsAWorkerPerCore: parallel calls fn once for each i, on
// one goroutine per core that takes the next i, not one goroutine per i
// (each grew a new stack for the scan: a few percent of an import's CPU).
func TestParallelStartsAWorkerPerCore(t *testing.T) {
	for _, n := range []int{0, 1, 2, 3, 1000} {
		calls := make([]atomic.Int32, n)
		before := goroutinesCreated(t)
		parallel(n, func(i int) { calls[i].Add(1) })
		started := goroutinesCreated(t) - before
		for i := range calls {
			if c := calls[i].Load(); c != 1 {
				t.Errorf("n %d: fn(%d) called %d times, want 1", n, i, c)
			}
		}
		// A few more for what the runtime starts meanwhile.
		if limit := uint64(runtime.GOMAXPROCS(0) + 4); started > limit {
			t.Errorf("n %d: %d goroutines started, want at most %d", n, started, limit)
		}
	}
}
