package vault

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
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
	total, biggest, listed := 0, 0, 0
	for _, f := range files {
		total += len(f.Data)
		biggest = max(biggest, len(f.Data))
		lines := strings.Count(string(f.Data), "\n- [[cortex/memories/")
		if lines > PageLines {
			t.Errorf("%s lists %d memories, want at most %d a page", f.Rel, lines, PageLines)
		}
		if f.Rel != IndexFile {
			listed += lines
		}
	}
	// Every listed memory is on one page (the root repeats a few).
	if listed != 42707 {
		t.Errorf("the pages list %d memories, want 42707", listed)
	}
	if len(files) != 1+4+1+43 {
		t.Errorf("%d files, want the root, four section pages, big's page and its 43 parts", len(files))
	}
	t.Logf("%d memories: root %d bytes, %d pages, the largest %d bytes, %d bytes in all, rendered in %v", len(entries), len(root), len(files)-1, biggest, total, took)
}

// partsEntries is pagedEntries with big split into parts, the last of which
// lists last lines.
func partsEntries(last int) []memories.Entry { return pagedEntries(2*PageLines + last) }

// TestRenderMapPartsGolden: a section of more than PageLines lines has a
// page listing its parts, newest first, and parts of PageLines lines counted
// from its oldest line, each in the single file's form.
func TestRenderMapPartsGolden(t *testing.T) {
	files := mapVault.RenderMap(partsEntries(3))
	byRel := map[string][]byte{}
	var rels []string
	for _, f := range files {
		byRel[f.Rel] = f.Data
		rels = append(rels, f.Rel)
	}
	want := []string{"_index.md", "_index/All decisions.md", "_index/All sessions.md", "_index/All superseded.md",
		"_index/big.md", "_index/big/0001.md", "_index/big/0002.md", "_index/big/0003.md", "_index/small.md"}
	if d := cmp.Diff(want, rels); d != "" {
		t.Fatalf("files (-want +got):\n%s", d)
	}
	golden.Check(t, filepath.Join("testdata", "index", "parts-page.golden"), byRel["_index/big.md"])
	golden.Check(t, filepath.Join("testdata", "index", "parts-last.golden"), byRel["_index/big/0003.md"])
	// Part 1 holds the oldest thousand, newest first; part 2 the next.
	for _, c := range []struct {
		rel         string
		first, last int
	}{{"_index/big/0001.md", 999, 0}, {"_index/big/0002.md", 1999, 1000}} {
		page := string(byRel[c.rel])
		if strings.Count(page, "\n- [[") != PageLines ||
			!strings.Contains(page, fmt.Sprintf("## big (%d)\n\n- [[cortex/memories/big/note-%06d|", PageLines, c.first)) ||
			!strings.HasSuffix(page, fmt.Sprintf("- [[cortex/memories/big/note-%06d|Title of note-%06d]] #t\n", c.last, c.last)) {
			t.Errorf("%s does not list notes %d to %d:\n%.300s", c.rel, c.first, c.last, page)
		}
	}
	// At PageLines the section keeps one page.
	for _, f := range mapVault.RenderMap(pagedEntries(PageLines)) {
		if strings.HasPrefix(f.Rel, "_index/big/") {
			t.Errorf("a section of %d lines has a part %s", PageLines, f.Rel)
		}
	}
}

// TestSpliceMapParts: a change to the newest part of a split section is
// spliced into that part, the section's page and the root, giving the bytes
// a full render gives; one that needs a new part, or touches an older part,
// is declined.
func TestSpliceMapParts(t *testing.T) {
	newestOf := func(es []memories.Entry) *memories.Entry { return &es[len(es)-11] } // big's newest
	full, short, three := partsEntries(PageLines), partsEntries(2), partsEntries(3)
	replaced := *newestOf(three)
	replaced.Status, replaced.SupersededBy, replaced.Updated = memories.StatusSuperseded, "", indexBase.Add(time.Hour*1000)
	tests := []struct {
		name    string
		before  []memories.Entry
		changes []IndexChange
		want    bool
		files   []string // the files the splice writes
	}{
		{"a save", three, []IndexChange{{New: ptr(entry("big", "fresh", 99999, "k"))}}, true,
			[]string{"_index.md", "_index/All superseded.md", "_index/big.md", "_index/big/0003.md"}},
		{"a delete of the newest", three, []IndexChange{{Old: newestOf(three)}}, true,
			[]string{"_index.md", "_index/All superseded.md", "_index/big.md", "_index/big/0003.md"}},
		{"a delete leaving one line in the last part", short, []IndexChange{{Old: newestOf(short)}}, true,
			[]string{"_index.md", "_index/All superseded.md", "_index/big.md", "_index/big/0003.md"}},
		{"a supersede of the newest", three, []IndexChange{{Old: newestOf(three), New: &replaced}}, true,
			[]string{"_index.md", "_index/All superseded.md", "_index/big.md", "_index/big/0003.md"}},
		{"a save of another section", three, []IndexChange{{New: ptr(entry("small", "fresh", 99999))}}, true,
			[]string{"_index.md", "_index/All superseded.md", "_index/small.md"}},
		{"a save when the last part is full", full, []IndexChange{{New: ptr(entry("big", "fresh", 99999))}}, false, nil},
		{"a save that splits the page", pagedEntries(PageLines), []IndexChange{{New: ptr(entry("big", "fresh", 99999))}}, false, nil},
		{"a delete in an older part", three, []IndexChange{{Old: &three[5]}}, false, nil},
		{"the last part emptied", partsEntries(1), []IndexChange{{Old: newestOf(partsEntries(1))}}, false, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := writtenMap(t, tt.before)
			out, ok := v.SpliceMap(tt.changes, lookupOf(tt.before))
			if ok != tt.want {
				t.Fatalf("spliced = %v, want %v", ok, tt.want)
			}
			if !ok {
				return
			}
			var rels []string
			for _, f := range out {
				rels = append(rels, f.Rel)
			}
			sort.Strings(rels)
			if d := cmp.Diff(tt.files, rels); d != "" {
				t.Errorf("files spliced (-want +got):\n%s", d)
			}
			if err := v.WriteMap(out, false); err != nil {
				t.Fatal(err)
			}
			want := v.RenderMap(afterChanges(tt.before, tt.changes))
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

// TestWriteMapPruneParts: a full write removes the parts a section no
// longer has and their folder, but never a file there cortex did not
// write, nor the folder holding it.
func TestWriteMapPruneParts(t *testing.T) {
	v := writtenMap(t, partsEntries(3))
	mine := filepath.Join(v.Dir, IndexDir, "big", "mine.md")
	if err := os.WriteFile(mine, []byte("my notes\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	fewer := partsEntries(-PageLines + 3) // two parts
	if v.MapMatches(v.RenderMap(fewer)) {
		t.Fatal("a map of three parts matches one of two")
	}
	if err := v.WriteMap(v.RenderMap(fewer), true); err != nil {
		t.Fatal(err)
	}
	if !v.MapMatches(v.RenderMap(fewer)) {
		t.Error("the written map does not match")
	}
	if _, err := os.Stat(v.Abs("_index/big/0003.md")); !os.IsNotExist(err) {
		t.Errorf("the third part is left: %v", err)
	}
	if err := v.WriteMap(v.RenderMap(pagedEntries(PagedAbove+1)), true); err != nil {
		t.Fatal(err)
	}
	ents, err := os.ReadDir(filepath.Join(v.Dir, IndexDir, "big"))
	if err != nil {
		t.Fatal(err)
	}
	if len(ents) != 1 || ents[0].Name() != "mine.md" {
		t.Errorf("_index/big/ holds %v, want only the person's file", ents)
	}
	if err := os.Remove(mine); err != nil {
		t.Fatal(err)
	}
	v2 := writtenMap(t, partsEntries(3))
	if err := v2.WriteMap(v2.RenderMap(pagedEntries(PagedAbove+1)), true); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(v2.Abs("_index/big")); !os.IsNotExist(err) {
		t.Errorf("the folder of big's parts is left once they are gone: %v", err)
	}
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
// memories, nearly all in one project: into the small project, and into
// the big one (whose page is in parts).
func BenchmarkSpliceMapPaged(b *testing.B) {
	before := pagedEntries(42700)
	v, err := New(b.TempDir(), "cortex")
	if err != nil {
		b.Fatal(err)
	}
	if err := v.WriteMap(v.RenderMap(before), true); err != nil {
		b.Fatal(err)
	}
	l := lookupOf(before)
	for _, project := range []string{"small", "big"} {
		b.Run(project, func(b *testing.B) {
			changes := []IndexChange{{New: ptr(entry(project, "fresh", 99999))}}
			for range b.N {
				out, ok := v.SpliceMap(changes, l)
				if !ok {
					b.Fatal("declined")
				}
				n := 0
				for _, f := range out {
					n += len(f.Data)
				}
				b.ReportMetric(float64(n), "bytes-written/op")
			}
		})
	}
}

// TestSpliceMapSupersededParts: when the superseded section is split, a
// change to a note that a line of an older part links to is declined (the
// line would keep showing it), as in a section on one page; other changes
// are spliced.
func TestSpliceMapSupersededParts(t *testing.T) {
	before := pagedEntries(PagedAbove)
	target, other := before[PagedAbove-1], before[PagedAbove-2] // big's two newest
	for i := range PageLines + 3 {
		e := entry("small", fmt.Sprintf("gone-%04d", i), 200000+i)
		e.Status, e.Updated = memories.StatusSuperseded, indexBase.Add(time.Duration(100000+i)*time.Minute)
		if i == 0 { // the oldest: in part 1
			e.SupersededBy = target.ID
		}
		before = append(before, e)
	}
	v := writtenMap(t, before)
	part1, err := os.ReadFile(v.Abs(PartPath(SupersededSection, 1)))
	if err != nil || !strings.Contains(string(part1), " → [[cortex/memories/big/note-000399|") {
		t.Fatalf("part 1 of the superseded section does not link to the note (%v):\n%.400s", err, part1)
	}
	if _, ok := v.SpliceMap([]IndexChange{{Old: &target}}, lookupOf(before)); ok {
		t.Error("the delete of a note an older part links to was spliced")
	}
	out, ok := v.SpliceMap([]IndexChange{{Old: &other}}, lookupOf(before))
	if !ok {
		t.Fatal("the delete of a note no line links to was declined")
	}
	if err := v.WriteMap(out, false); err != nil {
		t.Fatal(err)
	}
	if !v.MapMatches(v.RenderMap(afterChanges(before, []IndexChange{{Old: &other}}))) {
		t.Error("spliced map differs from a full render")
	}
}

// FuzzSpliceParts: whatever a split section's page and its last part hold,
// a splice never panics, and what it writes lists at most PageLines lines a
// page; pages as cortex wrote them are spliced as a full render gives them.
func FuzzSpliceParts(f *testing.F) {
	before := partsEntries(3)
	files := mapVault.RenderMap(before)
	var page0, last0 string // as cortex wrote them
	for _, fl := range files {
		switch fl.Rel {
		case PagePath("big"):
			page0 = string(fl.Data)
		case PartPath("big", 3):
			last0 = string(fl.Data)
		}
	}
	f.Add(page0, last0)
	f.Add(page0, strings.Replace(last0, "(3)", "(2)", 1))
	f.Add(strings.Replace(page0, "(3)", "(1000)", 1), last0)
	f.Add(page0, partHeader("cortex", "big", 3)+"\n## big (1)\n\n- [[x]]\n")
	save := []IndexChange{{New: ptr(entry("big", "fresh", 99999, "k"))}}
	want := mapVault.RenderMap(afterChanges(before, save))
	f.Fuzz(func(t *testing.T, page, last string) {
		v := writtenMap(t, before)
		if err := os.WriteFile(v.Abs(PagePath("big")), []byte(page), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(v.Abs(PartPath("big", 3)), []byte(last), 0o600); err != nil {
			t.Fatal(err)
		}
		out, ok := v.SpliceMap(save, lookupOf(before))
		if !ok {
			return
		}
		for _, fl := range out {
			if n := strings.Count(string(fl.Data), "\n- [[cortex/memories/"); n > PageLines {
				t.Errorf("%s lists %d lines", fl.Rel, n)
			}
		}
		if page == page0 && last == last0 {
			if err := v.WriteMap(out, false); err != nil {
				t.Fatal(err)
			}
			if !v.MapMatches(want) {
				t.Error("the pages as cortex wrote them were not spliced as a full render")
			}
		}
	})
}

// TestSpliceMapCopiesOnlyTheTouchedPages: the lines a run of server saves
// owes the map (16, spread over the projects) are spliced into the pages
// they touch copying each page per line at most, not every touched page per
// line: a splice of 16 lines into 12 pages of 900 lines allocated 4 MB per
// line when the pages were spliced as one text (28 MB in all).
func TestSpliceMapCopiesOnlyTheTouchedPages(t *testing.T) {
	const projects, per = 12, 900
	var before []memories.Entry
	for p := range projects {
		for i := range per {
			before = append(before, entry(fmt.Sprintf("p%02d", p), fmt.Sprintf("note-%06d", i), 100+p*per+i, "t"))
		}
	}
	var changes []IndexChange
	for i := range 16 {
		changes = append(changes, IndexChange{New: ptr(entry(fmt.Sprintf("p%02d", i%projects), fmt.Sprintf("fresh-%02d", i), 100000+i))})
	}
	v := writtenMap(t, before)
	var pages int64
	for p := range projects {
		fi, err := os.Stat(v.Abs(PagePath(fmt.Sprintf("p%02d", p))))
		if err != nil {
			t.Fatal(err)
		}
		pages += fi.Size()
	}
	look := lookupOf(before)
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	out, ok := v.SpliceMap(changes, look)
	runtime.ReadMemStats(&m1)
	if !ok {
		t.Fatal("the saves were not spliced")
	}
	// Reading the pages, the lines of each page copied once per line
	// spliced into it (16 lines into 12 pages: 2 at most), and the output.
	if got, most := int64(m1.TotalAlloc-m0.TotalAlloc), 8*pages; got > most {
		t.Errorf("splicing 16 lines into %d pages of %d bytes allocated %d bytes, want at most %d", projects, pages, got, most)
	}
	if err := v.WriteMap(out, false); err != nil {
		t.Fatal(err)
	}
	if !v.MapMatches(v.RenderMap(afterChanges(before, changes))) {
		t.Fatal("spliced map differs from a full render")
	}
}
