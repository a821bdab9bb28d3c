package index

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/cortexmem/cortex/memories"
	"github.com/cortexmem/cortex/vault"
)

// Ids chosen so that their shortest unique prefixes differ: idA and idB share 25
// characters, idC shares 9 with them, idD shares only "01j" with the others.
const (
	idA = "01j0000000aaaaaaaaaaaaaaaa"
	idB = "01j0000000aaaaaaaaaaaaaaab"
	idC = "01j0000001bbbbbbbbbbbbbbbb"
	idD = "01j1000000cccccccccccccccc"
	idE = "01j2000000dddddddddddddddd"
)

var (
	t0 = time.Date(2024, 3, 1, 10, 0, 0, 0, time.UTC)
	// observed is when the tests' writers pretend their scans began.
	observed = time.Date(2024, 3, 2, 12, 0, 0, 0, time.UTC)
)

// rec is a readable record whose frontmatter id is its id.
func rec(path, id, title string) *Record {
	return &Record{
		Entry: memories.Entry{
			ID: id, Path: path, Title: title, Type: memories.TypeNote, Project: "proj",
			Source: memories.SourceUser, Status: memories.StatusActive, Importance: 3,
			Created: t0, Updated: t0.Add(time.Hour),
		},
		Size: int64(100 + len(title)), MTime: t0.UnixNano() + int64(len(path)), Hash: uint64(len(path)) * 0x9e3779b97f4a7c15,
		FID: id,
	}
}

// fixture is a catalog's worth of records that exercises the format: the top
// folder and nested ones, titles that need escaping, tags, a broken note, a
// copy (FID ≠ ID) and a note without a frontmatter id.
func fixture() []*Record {
	a := rec("top.md", idA, "Ünïcödé — 日本語 title")
	a.Tags = []string{"go", "auth"}
	a.Area = "backend"

	b := rec("proj/b.md", idB, "tab\there and\nnewline\r\n and \\ backslash \\t not a tab")
	b.Type = memories.TypeDecision
	b.Status = memories.StatusSuperseded
	b.SupersededBy = idC

	c := rec("proj/a/b/deep.md", idC, "deep, with comma")
	c.Tags = []string{"x"}
	c.Importance = -2
	c.Created = time.Unix(-86400, 0).UTC() // before 1970

	d := rec("proj/x/other.md", idD, "")

	cp := rec("proj/x/copy.md", memories.DerivedID("proj/x/copy.md"), "copy of top")
	cp.FID = idA

	noFID := rec("misc/hand made.md", memories.DerivedID("misc/hand made.md"), "hand made")
	noFID.FID = ""
	noFID.Project = "other"

	broken := &Record{
		Entry:  memories.Entry{ID: memories.DerivedID("proj/broken.md"), Path: "proj/broken.md"},
		Size:   7,
		MTime:  t0.UnixNano(),
		Hash:   42,
		FID:    idE,
		Broken: "proj/broken.md:3: yaml: mapping values are not allowed\there",
	}
	return []*Record{a, b, c, d, cp, noFID, broken}
}

// fixtureDirs are the folders a scan saw; "proj/a" is missing on purpose: a
// folder holding notes but not scanned is remembered with time 0.
var fixtureDirs = []vault.DirStat{
	{Path: "", MTime: 100}, {Path: "proj", MTime: 200}, {Path: "proj/a/b", MTime: 400},
	{Path: "proj/x", MTime: 500}, {Path: "misc", MTime: 600}, {Path: "empty", MTime: 700},
}

// model is what a catalog should hold.
type model struct {
	recs map[string]*Record
	dirs map[string]int64
}

func newModel(recs []*Record, dirs []vault.DirStat) *model {
	m := &model{recs: map[string]*Record{}, dirs: map[string]int64{}}
	for _, d := range dirs {
		m.dirs[d.Path] = d.MTime
	}
	m.put(recs...)
	return m
}

func (m *model) put(recs ...*Record) {
	for _, r := range recs {
		m.recs[r.Path] = r
		d, _ := splitPath(r.Path)
		if _, ok := m.dirs[d]; !ok {
			m.dirs[d] = 0
		}
	}
}

// remove drops notes; their folders stay known (a removed note's folder usually
// still exists).
func (m *model) remove(paths ...string) {
	for _, p := range paths {
		delete(m.recs, p)
		d, _ := splitPath(p)
		if _, ok := m.dirs[d]; !ok {
			m.dirs[d] = 0
		}
	}
}

func (m *model) sorted() []*Record {
	var out []*Record
	for _, p := range slices.Sorted(maps.Keys(m.recs)) {
		out = append(out, m.recs[p])
	}
	return out
}

// writeBase writes recs as a catalog in a new folder and returns the folder.
func writeBase(t *testing.T, recs []*Record, dirs []vault.DirStat) string {
	t.Helper()
	dir := t.TempDir()
	c := NewCatalog(Schema)
	changes := map[string]*Record{}
	for _, r := range recs {
		changes[r.Path] = r
	}
	c.Put(changes)
	if err := c.Write(dir, dirs, observed); err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	return dir
}

func load(t *testing.T, dir string) *Catalog {
	t.Helper()
	c, err := LoadCatalog(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

func allRecords(t *testing.T, c *Catalog) []*Record {
	t.Helper()
	var out []*Record
	if err := c.Records(func(r *Record) error { out = append(out, r); return nil }); err != nil {
		t.Fatal(err)
	}
	return out
}

var byPath = cmpopts.SortSlices(func(a, b *Record) bool { return a.Path < b.Path })

// checkCatalog compares everything c answers with the model: records, entries,
// lookups by path and id, and the folder view vault.Scan uses. gone are ids
// that must no longer resolve.
func checkCatalog(t *testing.T, c *Catalog, m *model, gone ...string) {
	t.Helper()
	want := m.sorted()
	if diff := cmp.Diff(allRecords(t, c), want, byPath); diff != "" {
		t.Errorf("Records (-got +want):\n%s", diff)
	}
	if got, want := c.Len(), len(want); got != want {
		t.Errorf("Len = %d, want %d", got, want)
	}

	var wantEntries []memories.Entry
	for _, r := range want {
		if r.Broken == "" {
			wantEntries = append(wantEntries, r.Entry)
		}
	}
	// Asked before Entries, which keeps what it decoded and Readable counts.
	if n, err := c.Readable(); err != nil || n != len(wantEntries) {
		t.Errorf("Readable = %d, %v, want %d", n, err, len(wantEntries))
	}
	entries, err := c.Entries()
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(entries, wantEntries, cmpopts.EquateEmpty(), cmpopts.SortSlices(func(a, b memories.Entry) bool { return a.Path < b.Path })); diff != "" {
		t.Errorf("Entries (-got +want):\n%s", diff)
	}
	if n, err := c.Readable(); err != nil || n != len(wantEntries) {
		t.Errorf("Readable after Entries = %d, %v, want %d", n, err, len(wantEntries))
	}

	for _, r := range want {
		got, err := c.Get(r.Path)
		if err != nil {
			t.Fatalf("Get(%q): %v", r.Path, err)
		}
		if diff := cmp.Diff(got, r); diff != "" {
			t.Errorf("Get(%q) (-got +want):\n%s", r.Path, diff)
		}
		var wantByID *Record
		if r.Broken == "" {
			wantByID = r
		}
		got, err = c.ByID(r.ID)
		if err != nil {
			t.Fatalf("ByID(%q): %v", r.ID, err)
		}
		if diff := cmp.Diff(got, wantByID); diff != "" {
			t.Errorf("ByID(%q) (-got +want):\n%s", r.ID, diff)
		}
	}
	for _, p := range []string{"missing.md", "proj/missing.md", "nowhere/missing.md", "proj", ""} {
		if _, ok := m.recs[p]; ok {
			continue
		}
		if got, err := c.Get(p); err != nil || got != nil {
			t.Errorf("Get(%q) = %v, %v, want nil", p, got, err)
		}
	}
	for _, id := range append(gone, "01j9999999zzzzzzzzzzzzzzzz") {
		if got, err := c.ByID(id); err != nil || got != nil {
			t.Errorf("ByID(%q) = %v, %v, want nil", id, got, err)
		}
	}

	var wantDirs []vault.DirStat
	for _, d := range slices.Sorted(maps.Keys(m.dirs)) {
		wantDirs = append(wantDirs, vault.DirStat{Path: d, MTime: m.dirs[d]})
	}
	if diff := cmp.Diff(c.Dirs(), wantDirs, cmpopts.EquateEmpty(), cmpopts.SortSlices(func(a, b vault.DirStat) bool { return a.Path < b.Path })); diff != "" {
		t.Errorf("Dirs (-got +want):\n%s", diff)
	}
	for _, d := range append(slices.Sorted(maps.Keys(m.dirs)), "no/such/folder") {
		var want []vault.KnownFile
		for _, r := range m.sorted() {
			if rd, name := splitPath(r.Path); rd == d {
				want = append(want, vault.KnownFile{Name: name, Size: r.Size, MTime: r.MTime})
			}
		}
		sort.Slice(want, func(i, j int) bool { return want[i].Name < want[j].Name })
		if diff := cmp.Diff(c.Files(d), want, cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("Files(%q) (-got +want):\n%s", d, diff)
		}
	}
}

func TestCatalogRoundTrip(t *testing.T) {
	dir := writeBase(t, fixture(), fixtureDirs)
	c := load(t, dir)
	if got, want := c.Schema, Schema; got != want {
		t.Errorf("Schema = %q, want %q", got, want)
	}
	if got, want := c.WrittenAt, observed.UnixNano(); got != want {
		t.Errorf("WrittenAt = %d, want %d", got, want)
	}
	checkCatalog(t, c, newModel(fixture(), fixtureDirs), memories.DerivedID("proj/broken.md"))
}

func TestCatalogEmpty(t *testing.T) {
	for _, tc := range []struct {
		name string
		open func(t *testing.T) *Catalog
	}{
		{"new", func(*testing.T) *Catalog { return NewCatalog(Schema) }},
		{"written", func(t *testing.T) *Catalog { return load(t, writeBase(t, nil, nil)) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := tc.open(t)
			checkCatalog(t, c, newModel(nil, nil))
			ids, err := c.IDsWithPrefix("", 0)
			if err != nil || ids != nil {
				t.Errorf("IDsWithPrefix = %q, %v, want none", ids, err)
			}
			hs, err := c.Holders(idA)
			if err != nil || hs != nil {
				t.Errorf("Holders = %v, %v, want none", hs, err)
			}
			r, err := c.ByNoteName("proj", "top")
			if err != nil || r != nil {
				t.Errorf("ByNoteName = %v, %v, want nil", r, err)
			}
		})
	}
}

func TestLoadCatalogMissing(t *testing.T) {
	dir := t.TempDir()
	if _, err := LoadCatalog(dir); !errors.Is(err, ErrNoCatalog) {
		t.Errorf("LoadCatalog of an empty folder: %v, want ErrNoCatalog", err)
	}
	// A journal alone is not a catalog.
	if err := os.WriteFile(filepath.Join(dir, journalFile), []byte("@\t1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadCatalog(dir); !errors.Is(err, ErrNoCatalog) {
		t.Errorf("LoadCatalog of a journal alone: %v, want ErrNoCatalog", err)
	}
}

func TestWriteRejectsSharedID(t *testing.T) {
	c := NewCatalog(Schema)
	c.Put(map[string]*Record{"a.md": rec("a.md", idA, "a"), "b.md": rec("b.md", idA, "b")})
	if err := c.Write(t.TempDir(), nil, observed); err == nil {
		t.Error("Write of two notes holding one id succeeded")
	}
}

// journalChanges are the batches TestCatalogJournal commits, in order.
func journalChanges() []map[string]*Record {
	top := rec("top.md", idA, "top, edited")
	top.Hash, top.Size = 7, 999
	moved := rec("proj/new/deep moved.md", idC, "moved \t deep")
	brokenNow := &Record{
		Entry: memories.Entry{ID: memories.DerivedID("proj/x/other.md"), Path: "proj/x/other.md"},
		FID:   idD, Broken: "bad yaml\nline 2",
	}
	fixed := rec("proj/broken.md", idE, "fixed now")
	return []map[string]*Record{
		{"top.md": top, "proj/n1.md": rec("proj/n1.md", "01j3000000eeeeeeeeeeeeeeee", "new one")},
		{"proj/a/b/deep.md": nil, "proj/new/deep moved.md": moved},
		{"proj/x/other.md": brokenNow, "proj/broken.md": fixed, "fresh/one.md": rec("fresh/one.md", "01j4000000ffffffffffffffff", "one")},
		{"proj/n1.md": nil, "never/was.md": nil},
	}
}

func TestCatalogJournal(t *testing.T) {
	dir := writeBase(t, fixture(), fixtureDirs)
	m := newModel(fixture(), fixtureDirs)
	c := load(t, dir)
	batches := journalChanges()
	batchDirs := [][]vault.DirStat{
		{{Path: "proj", MTime: 250}},
		{{Path: "proj", MTime: 250}, {Path: "proj/new", MTime: 260}}, // "proj" unchanged: no line
		nil,
		{{Path: "empty", MTime: 0}},
	}
	for i, changes := range batches {
		at := observed.Add(time.Duration(i+1) * time.Minute)
		if err := c.Commit(dir, changes, batchDirs[i], at); err != nil {
			t.Fatal(err)
		}
		for p, r := range changes {
			if r == nil {
				m.remove(p)
			} else {
				m.put(r)
			}
		}
		for _, d := range batchDirs[i] {
			m.dirs[d.Path] = d.MTime
		}
		if got, want := c.WrittenAt, at.UnixNano(); got != want {
			t.Errorf("batch %d: WrittenAt = %d, want %d", i, got, want)
		}
		checkCatalog(t, c, m)
		re := load(t, dir)
		if got, want := re.WrittenAt, at.UnixNano(); got != want {
			t.Errorf("batch %d: reloaded WrittenAt = %d, want %d", i, got, want)
		}
		checkCatalog(t, re, m)
	}
	// Ids no longer held by any readable note resolve to nothing (idC moved,
	// so it still resolves).
	gone := []string{memories.DerivedID("proj/broken.md"), idD, "01j3000000eeeeeeeeeeeeeeee"}
	c = load(t, dir)
	checkCatalog(t, c, m, gone...)

	data, err := os.ReadFile(filepath.Join(dir, journalFile))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Count(string(data), "\nd\tproj\t"), 1; got != want {
		t.Errorf("journal has %d folder lines for proj, want %d (a folder line only when the time changes):\n%s", got, want, data)
	}

	// Compaction folds the journal into a new base with the same content.
	later := observed.Add(time.Hour)
	if err := c.Write(dir, c.Dirs(), later); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, journalFile)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("journal still there after compaction: %v", err)
	}
	checkCatalog(t, c, m, gone...)
	re := load(t, dir)
	if got, want := re.WrittenAt, later.UnixNano(); got != want {
		t.Errorf("compacted WrittenAt = %d, want %d", got, want)
	}
	checkCatalog(t, re, m, gone...)

	// The compacted catalog journals on afresh.
	after := rec("after.md", "01j8000000jjjjjjjjjjjjjjjj", "after compaction")
	if err := c.Commit(dir, map[string]*Record{after.Path: after, "top.md": nil}, nil, later.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	m.put(after)
	m.remove("top.md")
	checkCatalog(t, c, m, idA)
	checkCatalog(t, load(t, dir), m, idA)
}

func TestCommitNothing(t *testing.T) {
	dir := writeBase(t, fixture(), fixtureDirs)
	c := load(t, dir)
	if err := c.Commit(dir, nil, []vault.DirStat{{Path: "proj", MTime: 1}}, observed.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, journalFile)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("an empty commit wrote a journal: %v", err)
	}
	if got, want := c.WrittenAt, observed.UnixNano(); got != want {
		t.Errorf("WrittenAt = %d, want %d", got, want)
	}
}

func TestConfirm(t *testing.T) {
	dir := writeBase(t, fixture(), fixtureDirs)
	c := load(t, dir)
	m := newModel(fixture(), fixtureDirs)

	// A check that began before the last write proves nothing.
	if err := c.Confirm(dir, []vault.DirStat{{Path: "proj", MTime: 1}}, observed.Add(-time.Second)); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, journalFile)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Confirm of an older check wrote the journal: %v", err)
	}
	if got, want := c.WrittenAt, observed.UnixNano(); got != want {
		t.Errorf("WrittenAt after an older check = %d, want %d", got, want)
	}

	later := observed.Add(time.Minute)
	dirs := []vault.DirStat{{Path: "proj", MTime: 222}, {Path: "proj/a", MTime: 333}, {Path: "new", MTime: 444}, {Path: "misc", MTime: 600}}
	if err := c.Confirm(dir, dirs, later); err != nil {
		t.Fatal(err)
	}
	for _, d := range dirs {
		m.dirs[d.Path] = d.MTime
	}
	for _, c := range []*Catalog{c, load(t, dir)} {
		if got, want := c.WrittenAt, later.UnixNano(); got != want {
			t.Errorf("WrittenAt = %d, want %d", got, want)
		}
		if got, want := c.RacyAfter(time.Second), later.Add(-time.Second).UnixNano(); got != want {
			t.Errorf("RacyAfter = %d, want %d", got, want)
		}
		for _, d := range dirs {
			if got, ok := c.dirTime(d.Path); !ok || got != d.MTime {
				t.Errorf("dirTime(%q) = %d, %v, want %d", d.Path, got, ok, d.MTime)
			}
		}
		if _, ok := c.dirTime("no/such"); ok {
			t.Error("dirTime of an unknown folder is known")
		}
		checkCatalog(t, c, m)
	}
}

// TestJournalTornTail cuts the journal at every byte of its last batch, as a
// crash in the middle of an append would: the last batch is lost, the earlier
// ones are kept, and a later batch appended after the torn tail is read back
// without the lost batch.
func TestJournalTornTail(t *testing.T) {
	batches := journalChanges()
	dir := writeBase(t, fixture(), fixtureDirs)
	c := load(t, dir)
	if err := c.Commit(dir, batches[0], nil, observed.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	want := dump(t, load(t, dir))
	jpath := filepath.Join(dir, journalFile)
	first, err := os.ReadFile(jpath)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Commit(dir, batches[2], []vault.DirStat{{Path: "proj", MTime: 9}}, observed.Add(2*time.Minute)); err != nil {
		t.Fatal(err)
	}
	full, err := os.ReadFile(jpath)
	if err != nil {
		t.Fatal(err)
	}
	m := newModel(fixture(), fixtureDirs)
	for _, r := range batches[0] {
		m.put(r)
	}
	for n := len(first); n < len(full); n++ {
		if err := os.WriteFile(jpath, full[:n], 0o600); err != nil {
			t.Fatal(err)
		}
		c, err := LoadCatalog(dir)
		if err != nil {
			t.Fatalf("journal cut at %d of %d: %v", n, len(full), err)
		}
		// dump is a quick check; checkCatalog says what differs.
		if got := dump(t, c); got != want {
			checkCatalog(t, c, m)
			t.Fatalf("journal cut at %d of %d:\n%s", n, len(full), full[:n])
		}
		c.Close()
	}
	checkCatalog(t, load(t, dir), m)

	// A writer that loaded the torn journal appends its own batch: the lost
	// batch must stay lost and the journal readable.
	// The cut just before the commit line leaves whole, uncommitted lines.
	commitAt := strings.LastIndex(string(full[:len(full)-1]), "\n") + 1
	for _, n := range []int{len(first) + 1, len(first) + 20, commitAt, len(full) - 1} {
		if err := os.WriteFile(jpath, full[:n], 0o600); err != nil {
			t.Fatal(err)
		}
		c := load(t, dir)
		next := map[string]*Record{"later.md": rec("later.md", "01j5000000gggggggggggggggg", "later")}
		if err := c.Commit(dir, next, nil, observed.Add(3*time.Minute)); err != nil {
			t.Fatal(err)
		}
		want := newModel(m.sorted(), fixtureDirs)
		want.put(next["later.md"])
		re, err := LoadCatalog(dir)
		if err != nil {
			t.Errorf("cut at %d of %d, then a commit: %v", n, len(full), err)
			continue
		}
		checkCatalog(t, re, want)
		re.Close()
	}
}

// dump is everything c holds, as text.
func dump(t *testing.T, c *Catalog) string {
	t.Helper()
	var b strings.Builder
	fmt.Fprintf(&b, "%s %d\n", c.Schema, c.WrittenAt)
	recs := allRecords(t, c)
	sort.Slice(recs, func(i, j int) bool { return recs[i].Path < recs[j].Path })
	for _, r := range recs {
		fmt.Fprintf(&b, "%+v\n", *r)
	}
	dirs := c.Dirs()
	sort.Slice(dirs, func(i, j int) bool { return dirs[i].Path < dirs[j].Path })
	for _, d := range dirs {
		fmt.Fprintf(&b, "%q %d %v\n", d.Path, d.MTime, c.Files(d.Path))
	}
	return b.String()
}

func TestJournalCorrupt(t *testing.T) {
	good := string(appendRecord(nil, rec("ok.md", idD, "ok")))
	for _, tc := range []struct {
		name    string
		journal string
		line    int // of the CorruptError; 0 for none
	}{
		{"empty", "", 0},
		{"uncommitted garbage", good + "garbage\n", 2}, // whole lines are read even past the last commit
		{"torn garbage", good + "@\t5\ngarbage", 0},
		{"garbage", "garbage\n@\t5\n", 1},
		{"blank line", good + "\n@\t5\n", 2},
		{"bad commit", good + "@\tsoon\n", 2},
		{"bad folder time", "d\tproj\tnoon\n@\t5\n", 1},
		{"folder without time", "d\tproj\n@\t5\n", 1},
		{"short record", "+\ta.md\t1\t2\n@\t5\n", 1},
		{"bad size", strings.Replace(good, "\t", "\tx", 2) + "@\t5\n", 1},
		{"bad hash", strings.Replace(good, fmt.Sprintf("\t%x\t", rec("ok.md", idD, "ok").Hash), "\tnothex\t", 1) + "@\t5\n", 1},
		{"good", good + "@\t5\n", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := writeBase(t, nil, nil)
			if err := os.WriteFile(filepath.Join(dir, journalFile), []byte(tc.journal), 0o600); err != nil {
				t.Fatal(err)
			}
			c, err := LoadCatalog(dir)
			if tc.line == 0 {
				if err != nil {
					t.Fatalf("LoadCatalog: %v", err)
				}
				c.Close()
				return
			}
			var ce *CorruptError
			if !errors.As(err, &ce) {
				t.Fatalf("LoadCatalog: %v, want a CorruptError", err)
			}
			if got, want := [2]any{ce.File, ce.Line}, [2]any{journalFile, tc.line}; got != want {
				t.Errorf("CorruptError at %v, want %v (%v)", got, want, ce)
			}
		})
	}
}

func TestNeedsCompaction(t *testing.T) {
	dir := writeBase(t, fixture(), fixtureDirs)
	c := load(t, dir)
	changes := map[string]*Record{}
	for i := range compactAfter {
		p := fmt.Sprintf("bulk/%04d.md", i)
		changes[p] = rec(p, fmt.Sprintf("01j6%022d", i), "bulk")
	}
	if err := c.Commit(dir, changes, nil, observed.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	if c.NeedsCompaction() {
		t.Errorf("NeedsCompaction after %d records", compactAfter)
	}
	if err := c.Commit(dir, map[string]*Record{"one.md": nil}, nil, observed.Add(2*time.Minute)); err != nil {
		t.Fatal(err)
	}
	if !c.NeedsCompaction() {
		t.Errorf("no NeedsCompaction after %d records", compactAfter+1)
	}
	if re := load(t, dir); !re.NeedsCompaction() {
		t.Error("no NeedsCompaction after reloading the journal")
	}
	if err := c.Write(dir, nil, observed.Add(3*time.Minute)); err != nil {
		t.Fatal(err)
	}
	if c.NeedsCompaction() {
		t.Error("NeedsCompaction right after Write")
	}
	if got, want := c.Len(), len(fixture())+compactAfter; got != want {
		t.Errorf("Len after compaction = %d, want %d", got, want)
	}
}

func TestCloneAndEntriesCache(t *testing.T) {
	dir := writeBase(t, fixture(), fixtureDirs)
	c := load(t, dir)
	before, err := c.Entries()
	if err != nil {
		t.Fatal(err)
	}
	n := len(before)

	cl := c.Clone()
	cl.Put(map[string]*Record{"top.md": nil, "added.md": rec("added.md", "01j7000000hhhhhhhhhhhhhhhh", "added")})
	if r, _ := c.Get("top.md"); r == nil {
		t.Error("Put on a clone removed top.md from the original")
	}
	if r, _ := c.Get("added.md"); r != nil {
		t.Error("Put on a clone added to the original")
	}
	if got, _ := cl.ByID(idA); got != nil {
		t.Errorf("clone ByID(%s) = %v after removal", idA, got)
	}
	ce, err := cl.Entries()
	if err != nil {
		t.Fatal(err)
	}
	if got, want := len(ce), n; got != want {
		t.Errorf("clone has %d entries, want %d (one removed, one added)", got, want)
	}

	// Put must invalidate the cached entries.
	c.Put(map[string]*Record{"top.md": nil})
	after, err := c.Entries()
	if err != nil {
		t.Fatal(err)
	}
	if got, want := len(after), n-1; got != want {
		t.Errorf("after Put, %d entries, want %d", got, want)
	}
}

// Ids the id tests' journal adds: idC2 replaces idC at the same path, idD2
// shares 14 characters with idD.
const (
	idC2 = "01j0000001bbbbbbbbbbbbbbbz"
	idD2 = "01j1000000cccczzzzzzzzzzzz"
)

// idCatalogs are the fixture as a base alone, with a journal over it, and with
// a journal that removes the owner of idA.
func idCatalogs(t *testing.T) map[string]*Catalog {
	t.Helper()
	deep := rec("proj/a/b/deep.md", idC2, "deep, new id")
	copyEdited := rec("proj/x/copy.md", memories.DerivedID("proj/x/copy.md"), "copy, edited")
	copyEdited.FID = idA
	copy2 := rec("j/copy2.md", memories.DerivedID("j/copy2.md"), "another copy")
	copy2.FID = idA
	brokenCopy := &Record{Entry: memories.Entry{ID: memories.DerivedID("j/broken.md"), Path: "j/broken.md"}, FID: idA, Broken: "bad"}
	journal := map[string]*Record{
		"proj/b.md":        nil,
		"proj/a/b/deep.md": deep,
		"j/new.md":         rec("j/new.md", idD2, "new"),
		"j/copy2.md":       copy2,
		"j/broken.md":      brokenCopy,
		"proj/x/copy.md":   copyEdited,
	}
	cats := map[string]*Catalog{}
	for name, changes := range map[string]map[string]*Record{
		"base":          nil,
		"journal":       journal,
		"owner removed": {"top.md": nil},
	} {
		dir := writeBase(t, fixture(), fixtureDirs)
		if changes != nil {
			c := load(t, dir)
			if err := c.Commit(dir, changes, nil, observed.Add(time.Minute)); err != nil {
				t.Fatal(err)
			}
		}
		cats[name] = load(t, dir)
	}
	return cats
}

func TestIDsWithPrefix(t *testing.T) {
	cats := idCatalogs(t)
	copyID, handID := memories.DerivedID("proj/x/copy.md"), memories.DerivedID("misc/hand made.md")
	all := []string{idA, idB, idC, idD, copyID, handID}
	sort.Strings(all)
	for _, tc := range []struct {
		cat    string
		prefix string
		limit  int
		want   []string
	}{
		{"base", "01j0", 0, []string{idA, idB, idC}},
		{"base", "01j0", 2, []string{idA, idB}},
		{"base", "01j0", 3, []string{idA, idB, idC}},
		{"base", "01j0", 4, []string{idA, idB, idC}},
		{"base", "01j0000000", 0, []string{idA, idB}},
		{"base", idD, 0, []string{idD}},
		{"base", idD + "x", 0, nil},
		{"base", "", 0, all},
		{"base", "", -1, all},
		{"base", "zz", 0, nil},
		{"base", memories.DerivedID("proj/broken.md"), 0, nil}, // broken notes have no id to resolve
		{"journal", "01j0", 0, []string{idA, idC2}},            // idB removed, idC replaced
		{"journal", "01j1", 0, []string{idD, idD2}},
		{"journal", "01j1", 1, []string{idD}},
		{"journal", "z", 0, []string{copyID, memories.DerivedID("j/copy2.md"), handID}},
		{"owner removed", "01j0000000", 0, []string{idB}},
	} {
		t.Run(fmt.Sprintf("%s/%s/%d", tc.cat, tc.prefix, tc.limit), func(t *testing.T) {
			got, err := cats[tc.cat].IDsWithPrefix(tc.prefix, tc.limit)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(got, tc.want); diff != "" {
				t.Errorf("IDsWithPrefix(%q, %d) (-got +want):\n%s", tc.prefix, tc.limit, diff)
			}
		})
	}
}

func TestShortID(t *testing.T) {
	cats := idCatalogs(t)
	for _, tc := range []struct {
		cat, id, want string
	}{
		{"base", idA, idA}, // idB shares all but the last character
		{"base", idB, idB},
		{"base", idC, "01j0000001"},
		{"base", idD, "01j10000"},
		{"base", idE, "01j20000"}, // held by a broken note only: nothing to tell apart
		{"base", "01j0000000aaaaaaaaaaaaaaaz", "01j0000000aaaaaaaaaaaaaaaz"}, // not in the catalog
		{"base", "01j9", "01j9"},
		{"base", "", ""},
		{"base", "01j10000", "01j10000"},
		{"journal", idA, "01j0000000"}, // idB removed
		{"journal", idC2, "01j0000001"},
		{"journal", idD, "01j1000000ccccc"}, // idD2 from the journal
		{"journal", idD2, "01j1000000cccc" + "z"},
		{"owner removed", idB, "01j0000000"},
	} {
		t.Run(tc.cat+"/"+tc.id, func(t *testing.T) {
			got, err := cats[tc.cat].ShortID(tc.id)
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("ShortID(%q) = %q, want %q", tc.id, got, tc.want)
			}
		})
	}
}

// shortIDByPrefix is ShortID as it was written first: the longest prefix
// id shares with any other id of those that share its first MinPrefix
// characters, plus one.
func shortIDByPrefix(t *testing.T, c *Catalog, id string) string {
	t.Helper()
	n := memories.MinPrefix
	if len(id) <= n {
		return id
	}
	ids, err := c.IDsWithPrefix(id[:n], 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, other := range ids {
		if other != id {
			n = max(n, sharedPrefix(id, other)+1)
		}
	}
	return id[:min(n, len(id))]
}

// TestShortIDAsByPrefix: ShortID looks only at an id's nearest neighbours
// in the catalog's order, and gives what comparing it with every id of its
// first MinPrefix characters gives, for ids in the catalog and not, over a
// base whose ids share long prefixes (as an import's, minted within a
// second, do) and a journal that removes, replaces and adds some.
func TestShortIDAsByPrefix(t *testing.T) {
	r := rand.New(rand.NewPCG(18, 7))
	const alphabet = "0123456789abcdefghjkmnpqrstvwxyz"
	newID := func() string {
		// Few characters after a shared start, so neighbours share a lot.
		b := []byte("01kx7c")
		for range 20 {
			if r.IntN(3) == 0 {
				b = append(b, alphabet[r.IntN(len(alphabet))])
			} else {
				b = append(b, alphabet[r.IntN(2)])
			}
		}
		return string(b)
	}
	var recs []*Record
	for i := range 400 {
		recs = append(recs, rec(fmt.Sprintf("proj/n%03d.md", i), newID(), "note"))
	}
	dir := writeBase(t, recs, fixtureDirs)
	changes := map[string]*Record{}
	for i := range 60 {
		p := recs[r.IntN(len(recs))].Path
		switch i % 3 {
		case 0:
			changes[p] = nil
		case 1:
			changes[p] = rec(p, newID(), "replaced")
		default:
			p = fmt.Sprintf("proj/new%02d.md", i)
			changes[p] = rec(p, newID(), "added")
		}
	}
	base := load(t, dir)
	var ids []string
	for _, r := range recs {
		ids = append(ids, r.ID, r.ID[:len(r.ID)-1], r.ID+"0")
	}
	for _, r := range changes {
		if r != nil {
			ids = append(ids, r.ID)
		}
	}
	ids = append(ids, newID(), "01kx7c", "")
	check := func(name string, c *Catalog) {
		for _, id := range ids {
			got, err := c.ShortID(id)
			if err != nil {
				t.Fatal(err)
			}
			if want := shortIDByPrefix(t, c, id); got != want {
				t.Errorf("%s: ShortID(%q) = %q, want %q", name, id, got, want)
			}
		}
	}
	check("base", base)
	if err := base.Commit(dir, changes, nil, observed.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	check("journal", load(t, dir))
	for name, c := range idCatalogs(t) {
		ids = ids[:0]
		all, err := c.IDsWithPrefix("", 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, id := range all {
			ids = append(ids, id, id[:len(id)-1], id+"0")
		}
		check(name, c)
	}
}

func TestHolders(t *testing.T) {
	cats := idCatalogs(t)
	for _, tc := range []struct {
		cat, fid string
		want     []string // paths, with titles to tell versions apart
	}{
		{"base", idA, []string{"proj/x/copy.md: copy of top", "top.md: Ünïcödé — 日本語 title"}},
		{"base", idB, []string{"proj/b.md: tab\there and\nnewline\r\n and \\ backslash \\t not a tab"}},
		{"base", idE, nil}, // its only holder is broken
		{"base", "01j9999999zzzzzzzzzzzzzzzz", nil},
		{"base", "", nil},
		{"journal", idA, []string{"j/copy2.md: another copy", "proj/x/copy.md: copy, edited", "top.md: Ünïcödé — 日本語 title"}},
		{"journal", idB, nil},
		{"journal", idC, nil}, // the note at its path now holds idC2
		{"journal", idC2, []string{"proj/a/b/deep.md: deep, new id"}},
		{"owner removed", idA, []string{"proj/x/copy.md: copy of top"}},
	} {
		t.Run(tc.cat+"/"+tc.fid, func(t *testing.T) {
			hs, err := cats[tc.cat].Holders(tc.fid)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, h := range hs {
				got = append(got, h.Path+": "+h.Title)
			}
			sort.Strings(got)
			if diff := cmp.Diff(got, tc.want); diff != "" {
				t.Errorf("Holders(%q) (-got +want):\n%s", tc.fid, diff)
			}
			if len(hs) > 0 && hs[0].ID != tc.fid {
				if owner, _ := cats[tc.cat].ByID(tc.fid); owner != nil {
					t.Errorf("Holders(%q) starts with %s, not its owner %s", tc.fid, hs[0].Path, owner.Path)
				}
			}
		})
	}
}

// TestHoldersAfterPut: Holders indexes the overlay by written id on first use;
// later Puts keep that index right, as a catalog that never looked agrees.
func TestHoldersAfterPut(t *testing.T) {
	c := idCatalogs(t)["journal"]
	if _, err := c.Holders(idA); err != nil { // builds the index
		t.Fatal(err)
	}
	moved := rec("j/copy2.md", memories.DerivedID("j/copy2.md"), "no longer a copy")
	moved.FID = idC2
	third := rec("k/copy3.md", memories.DerivedID("k/copy3.md"), "third copy")
	third.FID = idA
	changes := map[string]*Record{"j/copy2.md": moved, "proj/x/copy.md": nil, "k/copy3.md": third}
	fresh := c.Clone() // no index yet: built after the changes
	c.Put(changes)
	fresh.Put(changes)
	for _, fid := range []string{idA, idC2} {
		got, err := c.Holders(fid)
		if err != nil {
			t.Fatal(err)
		}
		want, err := fresh.Holders(fid)
		if err != nil {
			t.Fatal(err)
		}
		paths := func(rs []*Record) []string {
			var out []string
			for _, r := range rs {
				out = append(out, r.Path)
			}
			return out
		}
		if diff := cmp.Diff(paths(got), paths(want)); diff != "" {
			t.Errorf("Holders(%s) after Put (-kept index +fresh):\n%s", fid, diff)
		}
	}
	if got, _ := c.Holders(idA); len(got) != 2 {
		t.Errorf("Holders(idA) = %d records, want the owner and the third copy", len(got))
	}
}

func TestByNoteName(t *testing.T) {
	cats := idCatalogs(t)
	for _, tc := range []struct {
		cat, project, name string
		want               string // "path: title", "" for none
	}{
		{"base", "proj", "deep", "proj/a/b/deep.md: deep, with comma"},
		{"base", "proj", "top", "top.md: Ünïcödé — 日本語 title"},
		{"base", "other", "hand made", "misc/hand made.md: hand made"},
		{"base", "proj", "hand made", ""}, // another project's note
		{"base", "", "deep", ""},
		{"base", "proj", "broken", ""}, // broken notes are not linked
		{"base", "proj", "deep.md", ""},
		{"base", "proj", "b/deep", ""},
		{"journal", "proj", "deep", "proj/a/b/deep.md: deep, new id"},
		{"journal", "proj", "b", ""}, // removed
		{"journal", "proj", "new", "j/new.md: new"},
		{"journal", "proj", "copy", "proj/x/copy.md: copy, edited"},
		{"owner removed", "proj", "top", ""},
	} {
		t.Run(tc.cat+"/"+tc.project+"/"+tc.name, func(t *testing.T) {
			r, err := cats[tc.cat].ByNoteName(tc.project, tc.name)
			if err != nil {
				t.Fatal(err)
			}
			got := ""
			if r != nil {
				got = r.Path + ": " + r.Title
			}
			if got != tc.want {
				t.Errorf("ByNoteName(%q, %q) = %q, want %q", tc.project, tc.name, got, tc.want)
			}
		})
	}
}

// TestEntriesWhere: EntriesWhere lists what Entries lists and keep accepts,
// in the same order, for a base alone and with a journal over it, before and
// after the entries are cached; keep sees each entry's project, area and
// file name, and is never asked about a broken note.
func TestEntriesWhere(t *testing.T) {
	keeps := map[string]func(project, area, name string) bool{
		"all":           func(string, string, string) bool { return true },
		"none":          func(string, string, string) bool { return false },
		"project other": func(p, _, _ string) bool { return p == "other" },
		"area backend":  func(_, a, _ string) bool { return a == "backend" },
		"named":         func(_, _, n string) bool { return n == "deep.md" || n == "hand made.md" || n == "new.md" },
	}
	for cname, c := range idCatalogs(t) {
		for _, cached := range []bool{false, true} {
			all, err := c.Clone().Entries()
			if err != nil {
				t.Fatal(err)
			}
			if cached {
				if _, err := c.Entries(); err != nil {
					t.Fatal(err)
				}
			}
			for kname, keep := range keeps {
				var want []memories.Entry
				for _, e := range all {
					if keep(e.Project, e.Area, path.Base(e.Path)) {
						want = append(want, e)
					}
				}
				var asked []string
				got, err := c.EntriesWhere(func(p, a, n string) bool {
					asked = append(asked, n)
					return keep(p, a, n)
				})
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("%s, cached %v, keep %s: (-want +got)\n%s", cname, cached, kname, diff)
				}
				if slices.Contains(asked, "broken.md") {
					t.Errorf("%s, cached %v: keep was asked about a broken note", cname, cached)
				}
			}
		}
	}
}

// TestCompactionAtScale: a large catalog is compacted after a journal of a
// few hundred records, not of a tenth of its notes: every command replays
// the journal when it loads the catalog.
func TestCompactionAtScale(t *testing.T) {
	for _, tc := range []struct {
		base, limit int
	}{
		{base: 0, limit: compactAfter},
		{base: 1000, limit: compactAfter},
		{base: 10000, limit: 200},
		{base: 100000, limit: 632},
	} {
		if got := CompactLimit(tc.base); got != tc.limit {
			t.Errorf("CompactLimit(%d) = %d, want %d", tc.base, got, tc.limit)
		}
	}
	var recs []*Record
	for i := range 10000 {
		p := fmt.Sprintf("bulk/%05d.md", i)
		recs = append(recs, rec(p, fmt.Sprintf("01j7%022d", i), "bulk"))
	}
	dir := writeBase(t, recs, fixtureDirs)
	c := load(t, dir)
	for i := range 201 {
		p := fmt.Sprintf("new/%04d.md", i)
		if err := c.Commit(dir, map[string]*Record{p: rec(p, fmt.Sprintf("01j8%022d", i), "saved")}, nil, observed.Add(time.Duration(i+1)*time.Second)); err != nil {
			t.Fatal(err)
		}
		if want := i == 200; c.NeedsCompaction() != want {
			t.Fatalf("NeedsCompaction after %d saves into a 10,000-note catalog = %v, want %v", i+1, !want, want)
		}
	}
}

// TestEntriesWhereAllocatesTheResultOnce: the entries kept are decoded into
// one slice of the right size, not grown by appends, which copied the
// thousands a briefing keeps several times over (and faulted in fresh
// memory for every copy). What EntriesWhere allocates is the result, the
// paths it builds and a little more, however many entries it keeps.
func TestEntriesWhereAllocatesTheResultOnce(t *testing.T) {
	var recs []*Record
	for i := range 5000 {
		r := rec(fmt.Sprintf("kept/%05d.md", i), fmt.Sprintf("01j7%022d", i), "kept")
		if i%4 == 3 {
			r.Project = "other"
		}
		recs = append(recs, r)
	}
	c := load(t, writeBase(t, recs, fixtureDirs))
	keep := func(p, _, _ string) bool { return p == "proj" }
	if _, err := c.EntriesWhere(keep); err != nil { // the metadata is read once, before
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	got, err := c.EntriesWhere(keep)
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3750 {
		t.Fatalf("EntriesWhere kept %d entries, want 3750", len(got))
	}
	result := uint64(cap(got)) * uint64(unsafe.Sizeof(memories.Entry{}))
	paths := uint64(len(got)) * uint64(len("kept/00000.md")+3) // rounded up to a size class
	allocated := after.TotalAlloc - before.TotalAlloc
	if limit := result + paths + result/4; allocated > limit {
		t.Errorf("EntriesWhere allocated %d bytes for a result of %d (%d entries) and %d of paths; want at most %d",
			allocated, result, len(got), paths, limit)
	}
}

// TestEntriesDecodeInPlace: Entries lists the readable records' entries, in
// Records' order, for a base alone and with a journal over it; and it
// decodes them in place: one allocation a note (its path), not a record
// allocated and copied for each (three a note before).
func TestEntriesDecodeInPlace(t *testing.T) {
	for cname, c := range idCatalogs(t) {
		var want []memories.Entry
		if err := c.Records(func(r *Record) error {
			if r.Broken == "" {
				want = append(want, r.Entry)
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		got, err := c.Clone().Entries()
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s: (-records +entries)\n%s", cname, diff)
		}
	}
	const n = 1000
	var recs []*Record
	for i := range n {
		recs = append(recs, rec(fmt.Sprintf("proj/note-%04d.md", i), fmt.Sprintf("01j%023d", i), fmt.Sprintf("note %d", i)))
	}
	c := load(t, writeBase(t, recs, nil))
	if _, err := c.Entries(); err != nil { // the metadata read once
		t.Fatal(err)
	}
	allocs := testing.AllocsPerRun(5, func() {
		c.entries = nil
		if es, err := c.Entries(); err != nil || len(es) != n {
			t.Fatalf("%d entries, %v", len(es), err)
		}
	})
	if allocs > 1.1*n {
		t.Errorf("Entries made %.0f allocations for %d notes", allocs, n)
	}
}

// TestEntriesNamed: EntriesNamed lists what EntriesWhere lists for the same
// test of the file name, in the same order, for a base alone and with a
// journal over it, before and after the entries are cached.
func TestEntriesNamed(t *testing.T) {
	keeps := map[string]func(name string) bool{
		"all":    func(string) bool { return true },
		"none":   func(string) bool { return false },
		"named":  func(n string) bool { return n == "deep.md" || n == "hand made.md" || n == "new.md" },
		"broken": func(n string) bool { return n == "broken.md" },
		"copies": func(n string) bool { return strings.HasPrefix(n, "copy") },
	}
	for cname, c := range idCatalogs(t) {
		for _, cached := range []bool{false, true} {
			c := c.Clone()
			if cached {
				if _, err := c.Entries(); err != nil {
					t.Fatal(err)
				}
			}
			for kname, keep := range keeps {
				want, err := c.EntriesWhere(func(_, _, n string) bool { return keep(n) })
				if err != nil {
					t.Fatal(err)
				}
				got, err := c.EntriesNamed(keep)
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("%s, cached %v, keep %s: (-where +named)\n%s", cname, cached, kname, diff)
				}
			}
		}
	}
}

// TestPeekByIDs: PeekByIDs gives, in the order asked, the entry ByID finds
// for each id (its path aside), passes over the ids ByID finds nothing for
// (unknown, removed, broken, replaced since the base), and stops when told;
// from a base file read or mapped.
func TestPeekByIDs(t *testing.T) {
	type peeked struct {
		ID    string
		Entry memories.Entry
	}
	for _, mapped := range []bool{false, true} {
		mapCatalogs.Store(mapped)
		cats := idCatalogs(t)
		mapCatalogs.Store(false)
		for name, c := range cats {
			all, err := c.Clone().Entries()
			if err != nil {
				t.Fatal(err)
			}
			ids := []string{"01j9999999zzzzzzzzzzzzzzzz", idB, memories.DerivedID("j/broken.md")}
			for i := len(all) - 1; i >= 0; i-- { // not in the catalog's order
				ids = append(ids, all[i].ID, all[i].ID)
			}
			ids = append(ids, idA, idB, idC, idC2, idD, idD2)
			var want []peeked
			for _, id := range ids {
				r, err := c.ByID(id)
				if err != nil {
					t.Fatal(err)
				}
				if r != nil {
					e := r.Entry
					e.Path = ""
					want = append(want, peeked{id, e})
				}
			}
			var got []peeked
			err = c.PeekByIDs(ids, func(id string, e *memories.Entry) bool {
				cp := *e
				cp.Path = ""
				cp.Tags = slices.Clone(cp.Tags)
				got = append(got, peeked{id, cp})
				return true
			})
			if err != nil {
				t.Fatal(err)
			}
			if len(want) < 4 {
				t.Fatalf("%s: ByID finds %d of the ids: the test needs more", name, len(want))
			}
			if diff := cmp.Diff(want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("%s (mapped %v): PeekByIDs (-ByID +got):\n%s", name, mapped, diff)
			}
			calls := 0
			if err := c.PeekByIDs(ids, func(string, *memories.Entry) bool { calls++; return calls < 2 }); err != nil {
				t.Fatal(err)
			}
			if calls != 2 {
				t.Errorf("%s (mapped %v): fn was called %d times, want it stopped at the second", name, mapped, calls)
			}
		}
	}
}

// TestCompactionCopiesTheBase: a compaction writes, byte for byte, the base
// of the records as Records decodes them (the base's records the journal
// left as they were taken without decoding them; changed, removed and added
// ones from the journal), and allocates less than half of what decoding
// them all and encoding them again does.
func TestCompactionCopiesTheBase(t *testing.T) {
	var recs []*Record
	for i := range 6000 {
		r := rec(fmt.Sprintf("p%d/%05d.md", i%7, i), fmt.Sprintf("01j7%022d", i), fmt.Sprintf("note %d", i))
		r.Tags = []string{"a", fmt.Sprint(i % 13)}
		if i%97 == 0 {
			r.FID = fmt.Sprintf("01j9%022d", i) // a copy's id apart from its own
		}
		if i%151 == 0 {
			r.Broken, r.ID = "bad yaml", ""
		}
		recs = append(recs, r)
	}
	dir := writeBase(t, recs, fixtureDirs)
	c := load(t, dir)
	changes := map[string]*Record{}
	for i := 0; i < 6000; i += 37 {
		r := rec(fmt.Sprintf("p%d/%05d.md", i%7, i), fmt.Sprintf("01j7%022d", i), fmt.Sprintf("note %d, edited", i))
		changes[r.Path] = r
	}
	for i := 5; i < 6000; i += 61 {
		changes[fmt.Sprintf("p%d/%05d.md", i%7, i)] = nil
	}
	for i := range 300 {
		r := rec(fmt.Sprintf("new%d/%04d.md", i%3, i), fmt.Sprintf("01j8%022d", i), "added")
		changes[r.Path] = r
	}
	if err := c.Commit(dir, changes, nil, observed.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	c = load(t, dir)
	later := observed.Add(2 * time.Minute)

	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	var decoded []*Record
	if err := c.Records(func(r *Record) error { decoded = append(decoded, r); return nil }); err != nil {
		t.Fatal(err)
	}
	want, err := encodeBase(c.Schema, later.UnixNano(), decoded, c.Dirs())
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	decoding := after.TotalAlloc - before.TotalAlloc
	decoded = nil

	runtime.GC()
	runtime.ReadMemStats(&before)
	if err := c.Write(dir, c.Dirs(), later); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	got, err := os.ReadFile(filepath.Join(dir, catalogFile))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("the compacted base (%d bytes) is not the base of the records decoded (%d bytes)", len(got), len(want))
	}
	if writing := after.TotalAlloc - before.TotalAlloc; 2*writing > decoding {
		t.Errorf("the compaction allocated %d bytes, decoding the records and encoding them %d: want less than half", writing, decoding)
	}
}
