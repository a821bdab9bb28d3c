package store

import (
	"cmp"
	"context"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cortexmem/cortex/bench"
	"github.com/cortexmem/cortex/config"
	"github.com/cortexmem/cortex/dedup"
	"github.com/cortexmem/cortex/memories"
	"github.com/cortexmem/cortex/vault"
)

// mattering is the part of a full count (path → shared words and set size)
// that a duplicate check of a memory of n words uses: every memory whose
// Words reaches th.Duplicate, and the non-duplicates whose Related is at or
// above the top-th best Related above th.Related (ties included).
func mattering(full map[string][2]int, n int, th dedup.Thresholds, top int) map[string][2]int {
	out := map[string][2]int{}
	var rel []float64
	for p, c := range full {
		w, r := dedup.OverlapOf(n, c[0], c[1])
		if w >= th.Duplicate {
			out[p] = c
		} else if r > th.Related {
			rel = append(rel, r)
		}
	}
	slices.SortFunc(rel, func(a, b float64) int { return cmp.Compare(b, a) })
	floor := th.Related
	if len(rel) >= top {
		floor = rel[top-1]
	}
	for p, c := range full {
		if w, r := dedup.OverlapOf(n, c[0], c[1]); w < th.Duplicate && r > th.Related && r >= floor {
			out[p] = c
		}
	}
	return out
}

// TestNearWordOverlapsKeepWhatMatters: on a real-shaped vault (long notes in
// many languages, one project, so that a save's common words have lists of
// most of the project), the near counts hold every memory a duplicate check
// uses (possible duplicates and the most related, ties included), each
// with the count of every set merged, and list no memory with another
// count; and they read far fewer postings than walking every list of the
// new memory's words. Probes are new notes, and notes of the vault said
// again with a sentence dropped or added (duplicates), one with the
// original left out as a replacement's.
func TestNearWordOverlapsKeepWhatMatters(t *testing.T) {
	checkNearWordOverlaps(t)
}

// TestNearWordOverlapsOverPlanes: the same, every index counting over its
// planes, as a kept one does (countNearPlanes).
func TestNearWordOverlapsOverPlanes(t *testing.T) {
	defer func(all bool) { planesForAll = all }(planesForAll)
	planesForAll = true
	checkNearWordOverlaps(t)
}

func checkNearWordOverlaps(t *testing.T) {
	t.Helper()
	dir := t.TempDir()
	root := filepath.Join(dir, "vault")
	corpus, err := bench.LoadCorpus(filepath.Join("..", "fixtures"))
	if err != nil {
		t.Fatal(err)
	}
	end := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	if _, err := bench.Write(root, bench.NewRealGenerator(corpus, 21, end), 1500, 21); err != nil {
		t.Fatal(err)
	}
	v, err := vault.New(root, "cortex")
	if err != nil {
		t.Fatal(err)
	}
	st, err := Open(Options{Vault: v, State: config.State{Home: filepath.Join(dir, "state")}, LockTimeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	th := dedup.DefaultThresholds()
	near := memories.NearWords{Duplicate: th.Duplicate, Related: th.Related, Top: 4}
	type probe struct{ title, body, except string }
	var probes []probe
	gen := bench.NewRealGenerator(corpus, 22, end)
	for range 24 {
		m := gen.Memory()
		probes = append(probes, probe{title: m.Title, body: m.Body})
	}
	err = st.View(ctx, func(snap memories.Snapshot) error {
		sn := snap.(*snapshot)
		entries, err := sn.cat.EntriesWhere(func(p, _, _ string) bool { return p == bench.RealProject })
		if err != nil {
			return err
		}
		for k := 0; k < 8; k++ {
			e := entries[k*len(entries)/8]
			title, body, err := sn.LoadText(ctx, e.Path)
			if err != nil {
				return err
			}
			if k%2 == 0 {
				body += "\n\nSaid again, in other words."
			} else if i := strings.LastIndex(strings.TrimSpace(body), "\n"); i > 0 {
				body = body[:i]
			}
			except := ""
			if k == 3 {
				except = e.ID
			}
			probes = append(probes, probe{title: title, body: body, except: except})
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}

	var fullRead, nearRead int64
	dups := 0
	err = st.View(ctx, func(snap memories.Snapshot) error {
		sn := snap.(*snapshot)
		projects := []string{bench.RealProject, "general"}
		for i, p := range probes {
			words, _ := testWords(p.title, p.body)
			postingsRead.Store(0)
			ov, err := sn.WordOverlaps(ctx, projects, words, p.except, testWords)
			if err != nil {
				return err
			}
			fullRead += postingsRead.Load()
			full := overlapsByPath(t, ov)
			postingsRead.Store(0)
			nov, err := sn.NearWordOverlaps(ctx, projects, words, p.except, testWords, near)
			if err != nil {
				return err
			}
			nearRead += postingsRead.Load()
			got := overlapsByPath(t, nov)
			for path, c := range got {
				if full[path] != c {
					t.Errorf("probe %d: %s counted %v, every list walked counts %v", i, path, c, full[path])
				}
			}
			want := mattering(full, len(words), th, near.Top)
			for path, c := range want {
				if _, ok := got[path]; !ok {
					w, r := dedup.OverlapOf(len(words), c[0], c[1])
					t.Errorf("probe %d (%d words): %s (words %.3f, related %.3f) left out, but a duplicate check uses it", i, len(words), path, w, r)
				}
			}
			for _, c := range want {
				if w, _ := dedup.OverlapOf(len(words), c[0], c[1]); w >= th.Duplicate {
					dups++
					break
				}
			}
			if len(full) < 500 {
				t.Errorf("probe %d: %d memories share a word, want a test where most need not be counted", i, len(full))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if dups < 6 {
		t.Errorf("%d probes with a duplicate, want the said-again notes found", dups)
	}
	// The index is mapped, not read into memory: a save allocates far less
	// than the file's size.
	fi, err := os.Stat(st.wordIndexPath(bench.RealProject))
	if err != nil {
		t.Fatal(err)
	}
	err = st.View(ctx, func(snap memories.Snapshot) error {
		sn := snap.(*snapshot)
		words, _ := testWords(probes[0].title, probes[0].body)
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		_, err := sn.NearWordOverlaps(ctx, []string{bench.RealProject, "general"}, words, "", testWords, near)
		runtime.ReadMemStats(&after)
		if got := after.TotalAlloc - before.TotalAlloc; got*4 > uint64(fi.Size()) {
			t.Errorf("a save's counts allocated %d bytes, want under a quarter of the %d-byte index", got, fi.Size())
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("postings read: %d walking every list, %d near", fullRead, nearRead)
	if nearRead*2 > fullRead {
		t.Errorf("near counts read %d postings, every list walked %d: want fewer than half", nearRead, fullRead)
	}
}

// BenchmarkNearWordOverlaps times a save's counts on a real-shaped vault
// of 1,500 notes, every list walked and near.
func BenchmarkNearWordOverlaps(b *testing.B) {
	dir := b.TempDir()
	root := filepath.Join(dir, "vault")
	corpus, err := bench.LoadCorpus(filepath.Join("..", "fixtures"))
	if err != nil {
		b.Fatal(err)
	}
	end := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	if _, err := bench.Write(root, bench.NewRealGenerator(corpus, 21, end), 1500, 21); err != nil {
		b.Fatal(err)
	}
	v, err := vault.New(root, "cortex")
	if err != nil {
		b.Fatal(err)
	}
	st, err := Open(Options{Vault: v, State: config.State{Home: filepath.Join(dir, "state")}, LockTimeout: 10 * time.Second})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	th := dedup.DefaultThresholds()
	near := memories.NearWords{Duplicate: th.Duplicate, Related: th.Related, Top: 4}
	gen := bench.NewRealGenerator(corpus, 22, end)
	var words [][]uint64
	for range 24 {
		m := gen.Memory()
		ws, _ := testWords(m.Title, m.Body)
		words = append(words, ws)
	}
	projects := []string{bench.RealProject, "general"}
	for _, mode := range []string{"every list", "near"} {
		b.Run(mode, func(b *testing.B) {
			err := st.View(ctx, func(snap memories.Snapshot) error {
				sn := snap.(*snapshot)
				for i := 0; i < b.N; i++ {
					ws := words[i%len(words)]
					var err error
					if mode == "near" {
						_, err = sn.NearWordOverlaps(ctx, projects, ws, "", testWords, near)
					} else {
						_, err = sn.WordOverlaps(ctx, projects, ws, "", testWords)
					}
					if err != nil {
						return err
					}
				}
				return nil
			})
			if err != nil {
				b.Fatal(err)
			}
		})
	}
}
