package vault

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/cortexmem/cortex/internal/golden"
	"github.com/cortexmem/cortex/memories"
)

// pagedEntries is a vault of n+7 listed lines: n memories of project "big",
// three of "small", a mined decision and session, two episodes and two
// superseded memories.
func pagedEntries(n int) []memories.Entry {
	out := make([]memories.Entry, 0, n+10)
	for i := range n {
		out = append(out, entry("big", fmt.Sprintf("note-%06d", i), 100+i, "t"))
	}
	out = append(out, entry("small", "a", 3), entry("small", "b", 4, "x"), entry("small", "c", 5))
	dec := entry("big", "decided", 7)
	dec.Type, dec.Source = memories.TypeDecision, memories.SourceMined
	ses := entry("big", "session", 8)
	ses.Type = memories.TypeSession
	for i := range 2 {
		ep := entry("big", fmt.Sprintf("edit-%d", i), 9+i)
		ep.Type = memories.TypeEpisode
		out = append(out, ep)
	}
	old := entry("small", "old", 1)
	old.Status, old.Updated = memories.StatusSuperseded, indexBase.Add(50*time.Minute)
	out = append(out, dec, ses, old, superseded(entry("big", "older", 2)))
	return out
}

// TestRenderMapGolden: past PagedAbove lines the map is a root with each
// section's count, link and newest lines, and one page per section that
// lists it whole; below, it stays one file.
func TestRenderMapGolden(t *testing.T) {
	files := mapVault.RenderMap(pagedEntries(PagedAbove))
	var rels []string
	for _, f := range files {
		rels = append(rels, f.Rel)
	}
	want := []string{"_index.md", "_index/All decisions.md", "_index/All sessions.md", "_index/All superseded.md", "_index/big.md", "_index/small.md"}
	if d := cmp.Diff(want, rels); d != "" {
		t.Fatalf("files (-want +got):\n%s", d)
	}
	golden.Check(t, filepath.Join("testdata", "index", "paged-root.golden"), files[0].Data)
	golden.Check(t, filepath.Join("testdata", "index", "paged-page.golden"), files[5].Data)
	golden.Check(t, filepath.Join("testdata", "index", "paged-superseded.golden"), files[3].Data)
	if big := string(files[4].Data); strings.Count(big, "\n- [[") != PagedAbove || !strings.Contains(big, "## big (400)\n\n- [[cortex/memories/big/note-000399|") {
		t.Errorf("big's page does not list its %d memories newest first:\n%.400s", PagedAbove, big)
	}

	small := mapVault.RenderMap(pagedEntries(PagedAbove - 7))
	if len(small) != 1 || string(small[0].Data) != string(renderTest(pagedEntries(PagedAbove-7))) {
		t.Errorf("a map of %d lines is not the single file", PagedAbove)
	}
}

// TestRenderMapScale: at tens of thousands of memories the root stays small
// (its size depends on the number of sections, not of memories), and the
// totals still count every live memory.
func TestRenderMapScale(t *testing.T) {
	entries := pagedEntries(42700)
	start := time.Now()
	files := mapVault.RenderMap(entries)
	took := time.Since(start)
	root := files[0].Data
	if len(root) > 4096 {
		t.Errorf("root is %d bytes at %d memories, want at most 4096", len(root), len(entries))
	}
	if !strings.Contains(string(root), "\n42707 memories: 42703 in 2 projects;") {
		t.Errorf("totals:\n%.300s", root)
	}
	total := 0
	for _, f := range files {
		total += len(f.Data)
	}
	t.Logf("%d memories: root %d bytes, %d pages, %d bytes in all, rendered in %v", len(entries), len(root), len(files)-1, total, took)
}

// writtenMap is a vault on disk holding the map of entries.
func writtenMap(t *testing.T, entries []memories.Entry) *Vault {
	t.Helper()
	v, err := New(t.TempDir(), "cortex")
	if err != nil {
		t.Fatal(err)
	}
	if err := v.WriteMap(v.RenderMap(entries), true); err != nil {
		t.Fatal(err)
	}
	return v
}

// TestSpliceMapPaged: a few changes to a split map are spliced into the
// pages they touch and the root, giving the bytes a full render gives;
// changes that make or drop a section, or change the form, are declined.
func TestSpliceMapPaged(t *testing.T) {
	before := pagedEntries(PagedAbove + 20)
	big0 := before[0] // the oldest of big
	newest := before[PagedAbove+19]
	replaced := big0
	replaced.Status, replaced.SupersededBy, replaced.Updated = memories.StatusSuperseded, newest.ID, indexBase.Add(time.Hour*1000)
	epNew := entry("big", "edit-new", 99999)
	epNew.Type = memories.TypeEpisode
	tests := []struct {
		name    string
		changes []IndexChange
		want    bool
	}{
		{"a save", []IndexChange{{New: ptr(entry("big", "fresh", 99999, "k"))}}, true},
		{"a save of the small project", []IndexChange{{New: ptr(entry("small", "fresh", 99999))}}, true},
		{"a delete deep in a page", []IndexChange{{Old: &before[5]}}, true},
		{"a supersede", []IndexChange{{Old: &big0, New: &replaced}}, true},
		{"an episode", []IndexChange{{New: &epNew}}, true},
		{"a new project", []IndexChange{{New: ptr(entry("new", "first", 99999))}}, false},
		{"a section emptied", []IndexChange{{Old: &before[len(before)-4]}}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := writtenMap(t, before)
			out, ok := v.SpliceMap(tt.changes, lookupOf(before))
			if ok != tt.want {
				t.Fatalf("spliced = %v, want %v", ok, tt.want)
			}
			if !ok {
				return
			}
			if len(out) > 4 {
				t.Errorf("splice wrote %d files, want the root and the touched pages", len(out))
			}
			if err := v.WriteMap(out, false); err != nil {
				t.Fatal(err)
			}
			want := v.RenderMap(afterChanges(before, tt.changes))
			if !v.MapMatches(want) {
				for _, f := range want {
					got, _ := os.ReadFile(v.Abs(f.Rel))
					if d := cmp.Diff(string(f.Data), string(got)); d != "" && len(d) < 4000 {
						t.Errorf("%s (-render +splice):\n%s", f.Rel, d)
					}
				}
				t.Fatal("spliced map differs from a full render")
			}
		})
	}
}

// TestSpliceMapForm: a splice that would change the map's form declines.
func TestSpliceMapForm(t *testing.T) {
	at := pagedEntries(PagedAbove - 7) // PagedAbove lines: one file
	v := writtenMap(t, at)
	if _, ok := v.SpliceMap([]IndexChange{{New: ptr(entry("big", "fresh", 99999))}}, lookupOf(at)); ok {
		t.Error("a save past PagedAbove was spliced into the single file")
	}
	if _, ok := v.SpliceMap([]IndexChange{{Old: &at[0]}}, lookupOf(at)); !ok {
		t.Error("a delete in the single file was not spliced")
	}
	over := pagedEntries(PagedAbove - 6)
	v = writtenMap(t, over)
	if _, ok := v.SpliceMap([]IndexChange{{Old: &over[0]}}, lookupOf(over)); ok {
		t.Error("a delete back to PagedAbove lines was spliced into the split map")
	}
}

// TestWriteMapPrune: a full write removes the pages it no longer has, but
// never a file of _index/ cortex did not write.
func TestWriteMapPrune(t *testing.T) {
	v := writtenMap(t, pagedEntries(PagedAbove+1))
	mine := filepath.Join(v.Dir, IndexDir, "mine.md")
	if err := os.WriteFile(mine, []byte("my notes\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	small := pagedEntries(10)
	if v.MapMatches(v.RenderMap(small)) {
		t.Fatal("a split map matches a small vault's single file")
	}
	if err := v.WriteMap(v.RenderMap(small), true); err != nil {
		t.Fatal(err)
	}
	ents, err := os.ReadDir(filepath.Join(v.Dir, IndexDir))
	if err != nil {
		t.Fatal(err)
	}
	var left []string
	for _, e := range ents {
		left = append(left, e.Name())
	}
	if d := cmp.Diff([]string{"mine.md"}, left); d != "" {
		t.Errorf("_index/ after the map went back to one file (-want +got):\n%s", d)
	}
	if !v.MapMatches(v.RenderMap(small)) {
		t.Error("written map does not match")
	}
}

// FuzzScanRoot: any root either is declined or reads back as the sections
// and totals that render it again byte for byte.
func FuzzScanRoot(f *testing.F) {
	f.Add(string(mapVault.RenderMap(pagedEntries(PagedAbove))[0].Data))
	f.Add(rootHeader + "0 memories in 0 projects.\n")
	f.Fuzz(func(t *testing.T, root string) {
		secs, episodes, ok := scanRoot("cortex", root)
		if !ok {
			return
		}
		counts := make([]sectionCount, len(secs))
		var b strings.Builder
		for i, r := range secs {
			counts[i] = sectionCount{r.name, r.count}
		}
		b.WriteString(rootHeader)
		b.WriteString(totalsLine(counts, episodes))
		for _, r := range secs {
			var buf bytes.Buffer
			writeRootSection(&buf, "cortex", r.name, r.count, r.head)
			b.Write(buf.Bytes())
		}
		if b.String() != root {
			t.Errorf("root read as %+v renders as\n%q\nnot\n%q", secs, b.String(), root)
		}
	})
}

// TestScanSkipsPages: the pages of a split map are never read as notes.
func TestScanSkipsPages(t *testing.T) {
	v := writtenMap(t, pagedEntries(PagedAbove))
	res, err := v.Scan(NoKnown{}, ScanOptions{StatNotes: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Changed) != 0 {
		t.Errorf("scan found notes in the map's pages: %v", res.Changed)
	}
}

// TestPagePath: no project's page is a mined or superseded section's, even
// where file names ignore case.
func TestPagePath(t *testing.T) {
	seen := map[string]string{}
	for _, name := range []string{DecisionsSection, SessionsSection, SupersededSection, "decisions", "sessions", "superseded", "all", "infra"} {
		p := strings.ToLower(PagePath(name))
		if other, ok := seen[p]; ok {
			t.Errorf("sections %q and %q share the page %s", other, name, p)
		}
		seen[p] = name
	}
}

// BenchmarkSpliceMapPaged: one save spliced into a split map of 42,700
// memories, nearly all in one project.
func BenchmarkSpliceMapPaged(b *testing.B) {
	before := pagedEntries(42700)
	v, err := New(b.TempDir(), "cortex")
	if err != nil {
		b.Fatal(err)
	}
	if err := v.WriteMap(v.RenderMap(before), true); err != nil {
		b.Fatal(err)
	}
	changes := []IndexChange{{New: ptr(entry("small", "fresh", 99999))}}
	l := lookupOf(before)
	b.ResetTimer()
	for range b.N {
		if _, ok := v.SpliceMap(changes, l); !ok {
			b.Fatal("declined")
		}
	}
}
