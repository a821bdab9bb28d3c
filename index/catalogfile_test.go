package index

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/cortexmem/cortex/internal/golden"
	"github.com/cortexmem/cortex/memories"
	"github.com/cortexmem/cortex/vault"
)

// fixtureFiles returns the fixture's base and a journal of two batches over it.
func fixtureFiles(t testing.TB) (base, journal []byte) {
	t.Helper()
	dir := t.TempDir()
	c := NewCatalog(Schema)
	changes := map[string]*Record{}
	for _, r := range fixture() {
		changes[r.Path] = r
	}
	c.Put(changes)
	if err := c.Write(dir, fixtureDirs, observed); err != nil {
		t.Fatal(err)
	}
	for i, ch := range journalChanges()[:2] {
		if err := c.Commit(dir, ch, []vault.DirStat{{Path: "proj", MTime: int64(i)}}, observed.Add(time.Minute)); err != nil {
			t.Fatal(err)
		}
	}
	c.Close()
	base, err := os.ReadFile(filepath.Join(dir, catalogFile))
	if err != nil {
		t.Fatal(err)
	}
	journal, err = os.ReadFile(filepath.Join(dir, journalFile))
	if err != nil {
		t.Fatal(err)
	}
	return base, journal
}

// loadBytes loads a catalog from the given base and journal (none when nil).
func loadBytes(t testing.TB, dir string, base, journal []byte) (*Catalog, error) {
	t.Helper()
	overwrite(t, filepath.Join(dir, catalogFile), base)
	jpath := filepath.Join(dir, journalFile)
	if journal == nil {
		if err := os.Remove(jpath); err != nil && !errors.Is(err, os.ErrNotExist) {
			t.Fatal(err)
		}
	} else {
		overwrite(t, jpath, journal)
	}
	return LoadCatalog(dir)
}

// overwrite is os.WriteFile without truncating to zero first, which some file
// systems answer with a flush: the damage tests write thousands of files.
func overwrite(t testing.TB, name string, data []byte) {
	t.Helper()
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	_, err = f.WriteAt(data, 0)
	if err == nil {
		err = f.Truncate(int64(len(data)))
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatal(err)
	}
}

// exercise calls every query of c, as commands would on a catalog they loaded,
// and returns the first error.
func exercise(c *Catalog) error {
	// First, while the metadata is not loaded: streamed (eachMeta).
	if _, err := c.BaseProjects(); err != nil {
		return err
	}
	if _, err := c.Readable(); err != nil {
		return err
	}
	var recs []*Record
	if err := c.Records(func(r *Record) error { recs = append(recs, r); return nil }); err != nil {
		return err
	}
	if _, err := c.Entries(); err != nil {
		return err
	}
	c.Len()
	c.RacyAfter(time.Second)
	for _, d := range c.Dirs() {
		c.Files(d.Path)
		c.dirTime(d.Path)
	}
	c.Files("no/such")
	probes := []string{"", "0", "01j0000000aaaaaaaaaaaaaaaa", "zzzz"}
	for _, r := range recs {
		probes = append(probes, r.ID, r.FID)
		if _, err := c.Get(r.Path); err != nil {
			return err
		}
		_, name := splitPath(r.Path)
		if _, err := c.ByNoteName(r.Project, strings.TrimSuffix(name, ".md")); err != nil {
			return err
		}
	}
	for _, id := range probes {
		if _, err := c.ByID(id); err != nil {
			return err
		}
		if _, err := c.Holders(id); err != nil {
			return err
		}
		if _, err := c.ShortID(id); err != nil {
			return err
		}
		for n := range min(len(id), 3) {
			if _, err := c.IDsWithPrefix(id[:n], 2); err != nil {
				return err
			}
		}
	}
	return nil
}

// checkDamaged loads a possibly damaged catalog: it must load and answer, or
// fail with a CorruptError, never panic.
func checkDamaged(t *testing.T, what string, dir string, base, journal []byte) {
	t.Helper()
	c, err := loadBytes(t, dir, base, journal)
	if err != nil {
		if ce := (*CorruptError)(nil); !errors.As(err, &ce) {
			t.Fatalf("%s: LoadCatalog: %v, want a CorruptError", what, err)
		}
		return
	}
	defer c.Close()
	if err := exercise(c); err != nil {
		if ce := (*CorruptError)(nil); !errors.As(err, &ce) {
			t.Fatalf("%s: query: %v, want a CorruptError", what, err)
		}
	}
}

// TestDamagedBase damages every byte of a base in turn, with and without a
// journal over it.
func TestDamagedBase(t *testing.T) {
	base, journal := fixtureFiles(t)
	alone, journaled := t.TempDir(), t.TempDir()
	for _, dir := range []string{alone, journaled} {
		c, err := loadBytes(t, dir, base, journal)
		if err != nil {
			t.Fatalf("undamaged: %v", err)
		}
		if err := exercise(c); err != nil {
			t.Fatalf("undamaged: %v", err)
		}
		c.Close()
	}
	for _, tc := range []struct {
		name   string
		damage func(i int) []byte
	}{
		{"truncated", func(i int) []byte { return base[:i] }},
		{"flipped", func(i int) []byte { b := bytes.Clone(base); b[i] ^= 0xff; return b }},
		{"bit", func(i int) []byte { b := bytes.Clone(base); b[i] ^= 1 << (i % 8); return b }},
		{"grown", func(i int) []byte { return append(bytes.Clone(base[:i]), append([]byte{0}, base[i:]...)...) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for i := range base {
				damaged := tc.damage(i)
				what := fmt.Sprintf("byte %d of %d", i, len(base))
				checkDamaged(t, what, alone, damaged, nil)
				checkDamaged(t, what+" with a journal", journaled, damaged, journal)
			}
		})
	}
}

func TestDamagedBaseErrors(t *testing.T) {
	base, _ := fixtureFiles(t)
	header := func(off int, v uint32) []byte {
		b := bytes.Clone(base)
		b[off], b[off+1], b[off+2], b[off+3] = byte(v), byte(v>>8), byte(v>>16), byte(v>>24)
		return b
	}
	for _, tc := range []struct {
		name string
		data []byte
	}{
		{"empty", nil},
		{"short header", base[:headerLen-1]},
		{"header only", base[:headerLen]},
		{"old format", append([]byte("CXCAT\x01\r\n"), base[8:]...)},
		{"not a catalog", []byte(strings.Repeat("x", 200))},
		{"too long", append(bytes.Clone(base), 0)},
		{"huge folder count", header(16, 1<<31)},
		{"huge file count", header(20, 1<<31)},
		{"huge name pool offset", header(40, 1<<31)},
		{"section past the end", header(36, 1<<31)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := loadBytes(t, t.TempDir(), tc.data, nil)
			var ce *CorruptError
			if !errors.As(err, &ce) {
				t.Fatalf("LoadCatalog: %v, want a CorruptError", err)
			}
			if got, want := ce.File, catalogFile; got != want {
				t.Errorf("CorruptError in %q, want %q", got, want)
			}
		})
	}
}

func TestCorruptErrorMessage(t *testing.T) {
	for _, tc := range []struct {
		err  *CorruptError
		want string
	}{
		{&CorruptError{File: "catalog", Msg: "bad"}, "index catalog: bad"},
		{&CorruptError{File: "catalog.journal", Line: 3, Msg: "bad commit line"}, "index catalog.journal:3: bad commit line"},
	} {
		if got := tc.err.Error(); got != tc.want {
			t.Errorf("Error() = %q, want %q", got, tc.want)
		}
	}
}

// TestJournalGolden pins the journal's text format: records, removals, folder
// times and commit lines, with escaping.
func TestJournalGolden(t *testing.T) {
	dir := writeBase(t, nil, nil)
	c := load(t, dir)
	batches := append([]map[string]*Record{{}}, journalChanges()...)
	for _, r := range fixture() {
		batches[0][r.Path] = r
	}
	for i, ch := range batches {
		dirs := []vault.DirStat{{Path: "proj", MTime: int64(i)}, {Path: "tab\there", MTime: 1}}
		if err := c.Commit(dir, ch, dirs, observed.Add(time.Duration(i)*time.Second)); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.Confirm(dir, []vault.DirStat{{Path: "", MTime: 5}}, observed.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	journal, err := os.ReadFile(filepath.Join(dir, journalFile))
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, filepath.Join("testdata", "journal.golden"), journal)
}

func TestEscape(t *testing.T) {
	for _, tc := range []struct {
		in, want string
	}{
		{"", ""},
		{"plain", "plain"},
		{"tab\there", `tab\there`},
		{"line\nbreak\r\n", `line\nbreak\r\n`},
		{`back\slash`, `back\\slash`},
		{`\t literally`, `\\t literally`},
		{"trailing \\", `trailing \\`},
		{"\\\t\\n", `\\\t\\n`},
		{"日本語\t✓", `日本語\t✓`},
	} {
		got := string(appendEscaped(nil, tc.in))
		if got != tc.want {
			t.Errorf("appendEscaped(%q) = %q, want %q", tc.in, got, tc.want)
		}
		if back := unescape(got); back != tc.in {
			t.Errorf("unescape(%q) = %q, want %q", got, back, tc.in)
		}
	}
}

// sortRecords orders records completely, duplicates included.
func sortRecords(recs []*Record) {
	key := func(r *Record) string { return fmt.Sprintf("%q %+v", r.Path, *r) }
	sort.Slice(recs, func(i, j int) bool { return key(recs[i]) < key(recs[j]) })
}

// FuzzLoadCatalog loads arbitrary bytes as a base and a journal: the catalog
// must load and answer every query, or fail with a CorruptError, never panic.
// What loads must survive compaction: written again and reloaded, it holds the
// same records.
func FuzzLoadCatalog(f *testing.F) {
	base, journal := fixtureFiles(f)
	empty, _ := encodeBase(Schema, 1, nil, nil)
	f.Add(base, journal)
	f.Add(base, []byte(nil))
	f.Add(base, journal[:len(journal)/2])
	f.Add(empty, []byte("d\tx\t5\n-\tx/a.md\n@\t9\n"))
	f.Add(empty, journal)
	f.Add(base[:len(base)/2], journal)
	f.Add([]byte(nil), []byte(nil))
	// Fuzz calls in one worker run one after the other: they share folders.
	dir, out, out2 := f.TempDir(), f.TempDir(), f.TempDir()
	f.Fuzz(func(t *testing.T, base, journal []byte) {
		c, err := loadBytes(t, dir, base, journal)
		if err != nil {
			if ce := (*CorruptError)(nil); !errors.As(err, &ce) {
				t.Fatalf("LoadCatalog: %v, want a CorruptError", err)
			}
			return
		}
		defer c.Close()
		if err := exercise(c); err != nil {
			if ce := (*CorruptError)(nil); !errors.As(err, &ce) {
				t.Fatalf("query: %v, want a CorruptError", err)
			}
			return
		}
		var want []*Record
		if err := c.Records(func(r *Record) error { want = append(want, r); return nil }); err != nil {
			t.Fatal(err)
		}
		for _, r := range want {
			if d, name := splitPath(r.Path); path.Join(d, name) != r.Path || name == "" {
				return // not a vault path ("/a", "a/"): the base keeps folder and name apart
			}
		}
		// What Write does, without its syncs.
		data, err := encodeBase(c.Schema, c.WrittenAt, want, c.Dirs())
		if err != nil {
			return // two readable notes holding one id cannot be written
		}
		re, err := loadBytes(t, out, data, nil)
		if err != nil {
			t.Fatalf("reload after Write: %v", err)
		}
		defer re.Close()
		var got []*Record
		if err := re.Records(func(r *Record) error { got = append(got, r); return nil }); err != nil {
			t.Fatalf("reload after Write: %v", err)
		}
		sortRecords(got)
		sortRecords(want)
		if diff := cmp.Diff(got, want); diff != "" {
			t.Fatalf("records after Write (-got +want):\n%s", diff)
		}
		if err := exercise(re); err != nil {
			t.Fatalf("compacted: %v", err)
		}
		// And Write itself, which takes the base's records the journal
		// left as they were without decoding them: the same records.
		if c.HasDeferred() {
			return
		}
		if err := c.Write(dir, c.Dirs(), time.Unix(0, c.WrittenAt)); err != nil {
			t.Fatalf("Write: %v", err)
		}
		written, err := os.ReadFile(filepath.Join(dir, catalogFile))
		if err != nil {
			t.Fatal(err)
		}
		wr, err := loadBytes(t, out2, written, nil)
		if err != nil {
			t.Fatalf("reload after Write: %v", err)
		}
		defer wr.Close()
		got = nil
		if err := wr.Records(func(r *Record) error { got = append(got, r); return nil }); err != nil {
			t.Fatalf("reload after Write: %v", err)
		}
		sortRecords(got)
		if diff := cmp.Diff(got, want); diff != "" {
			t.Fatalf("records after Write (-got +want):\n%s", diff)
		}
	})
}

// FuzzParseRecord builds a record from arbitrary strings and numbers: written
// as a journal line it must be one line that parses back to the same record,
// and its base metadata must decode to the same metadata.
func FuzzParseRecord(f *testing.F) {
	f.Add("proj/a.md", "01j0000000aaaaaaaaaaaaaaaa", "01j0000000aaaaaaaaaaaaaaaa", "tab\there\nand \\ back", "note", "proj", "area",
		"go,auth", "user", "active", "", "", int64(12), int64(1709287200000000000), uint64(0xdeadbeef), 3, int64(1709287200), int64(-1))
	f.Add("", "", "", "", "", "", "", "", "", "", "", "broken\r\n\\t", int64(-1), int64(0), uint64(0), -5, int64(-1<<63), int64(1<<63-1))
	f.Add("a\\", "\\", "\t", "\n", "\r", ",", ",,", ",a,", "\\n", "\\\\", "x\x00y", "\xff", int64(0), int64(0), uint64(1<<64-1), 0, int64(0), int64(0))
	f.Fuzz(func(t *testing.T, path, fid, id, title, typ, project, area, tags, source, status, supersededBy, broken string,
		size, mtime int64, hash uint64, importance int, created, updated int64) {
		want := &Record{
			Entry: memories.Entry{
				ID: id, Path: path, Title: title, Type: memories.Type(typ), Project: project, Area: area,
				Source: memories.Source(source), Status: memories.Status(status), Importance: importance,
				Created: time.Unix(created, 0).UTC(), Updated: time.Unix(updated, 0).UTC(), SupersededBy: supersededBy,
			},
			Size: size, MTime: mtime, Hash: hash, FID: fid, Broken: broken,
		}
		if tags != "" {
			want.Tags = strings.Split(tags, ",")
		}

		line := appendRecord(nil, want)
		if i := bytes.IndexByte(line, '\n'); i != len(line)-1 {
			t.Fatalf("record line %q has a line break at %d", line, i)
		}
		got, err := parseRecord(string(line[:len(line)-1]))
		if err != nil {
			t.Fatalf("parseRecord(%q): %v", line, err)
		}
		if diff := cmp.Diff(got, want); diff != "" {
			t.Fatalf("parseRecord(%q) (-got +want):\n%s", line, diff)
		}

		got, err = decodeMeta(string(encodeMeta(want)))
		if err != nil {
			t.Fatalf("decodeMeta: %v", err)
		}
		// The base keeps path, size, time and hash in its file table.
		got.Path, got.Size, got.MTime, got.Hash = want.Path, want.Size, want.MTime, want.Hash
		if diff := cmp.Diff(got, want); diff != "" {
			t.Fatalf("decodeMeta (-got +want):\n%s", diff)
		}
	})
}

// encodeBase serialises records (any order) and the folders a scan saw, as
// Write does from the records decoded: the reference the compaction, which
// copies the base's records undecoded, is held to.
func encodeBase(schema string, writtenAt int64, recs []*Record, dirs []vault.DirStat) ([]byte, error) {
	files := make([]baseEntry, len(recs))
	for i, r := range recs {
		files[i] = entryOf(r)
	}
	bp, err := planBase(schema, writtenAt, files, dirs)
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	if err := bp.write(&out); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}
