package vault

import (
	"errors"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/cortexmem/cortex/atomicfile"
	"github.com/cortexmem/cortex/memories"
)

func newVault(t *testing.T) *Vault {
	t.Helper()
	v, err := New(t.TempDir(), "cortex")
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestNew(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, root, folder string
		wantErr            bool
		wantInvalid        bool
	}{
		{name: "existing root", root: dir, folder: "cortex"},
		{name: "root not made yet", root: filepath.Join(dir, "later"), folder: "cortex"},
		{name: "nested folder", root: dir, folder: "a/b"},
		{name: "empty root", root: "", folder: "cortex", wantErr: true, wantInvalid: true},
		{name: "root is a file", root: file, folder: "cortex", wantErr: true, wantInvalid: true},
		{name: "empty folder", root: dir, folder: "", wantErr: true, wantInvalid: true},
		{name: "absolute folder", root: dir, folder: filepath.Join(dir, "x"), wantErr: true, wantInvalid: true},
		{name: "folder outside the vault", root: dir, folder: "../x", wantErr: true, wantInvalid: true},
		{name: "folder outside the vault after cleaning", root: dir, folder: "a/../../x", wantErr: true, wantInvalid: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := New(tt.root, tt.folder)
			if (err != nil) != tt.wantErr {
				t.Fatalf("New(%q, %q) = %v, %v; want error %v", tt.root, tt.folder, v, err, tt.wantErr)
			}
			if err != nil {
				if got := errors.Is(err, memories.ErrInvalid); got != tt.wantInvalid {
					t.Errorf("errors.Is(%v, ErrInvalid) = %v, want %v", err, got, tt.wantInvalid)
				}
				return
			}
			if want := filepath.Join(tt.root, tt.folder); v.Dir != want || v.Root != tt.root {
				t.Errorf("Root, Dir = %q, %q; want %q, %q", v.Root, v.Dir, tt.root, want)
			}
		})
	}
}

func TestPaths(t *testing.T) {
	v := &Vault{Root: filepath.FromSlash("/vault"), Dir: filepath.FromSlash("/vault/cortex")}
	if got, want := v.Abs("memories/a/x.md"), filepath.FromSlash("/vault/cortex/memories/a/x.md"); got != want {
		t.Errorf("Abs = %q, want %q", got, want)
	}
	if got, want := v.VaultPath("memories/a/x.md"), "cortex/memories/a/x.md"; got != want {
		t.Errorf("VaultPath = %q, want %q", got, want)
	}
	if got, want := v.IndexPath(), filepath.FromSlash("/vault/cortex/_index.md"); got != want {
		t.Errorf("IndexPath = %q, want %q", got, want)
	}
}

func TestCreateNames(t *testing.T) {
	v := newVault(t)
	mem := func(id, title, project string) *memories.Memory {
		return &memories.Memory{ID: id, Title: title, Project: project, Body: "Body of " + id}
	}
	tests := []struct {
		m       *memories.Memory
		want    string
		wantErr bool
	}{
		{m: mem("01hv4x8k2m3n4p5q6r7s8t9v0w", "Deploy it!", "infra"), want: "memories/infra/deploy-it-01hv4x8k.md"},
		// Same title and id start: the name takes more of the id.
		{m: mem("01hv4x8kaaaaaaaaaaaaaaaaaa", "Deploy it!", "infra"), want: "memories/infra/deploy-it-01hv4x8kaaaa.md"},
		{m: mem("01hv4x8kaaaabbbbbbbbbbbbbb", "Deploy it!", "infra"), want: "memories/infra/deploy-it-01hv4x8kaaaabbbbbbbbbbbbbb.md"},
		{m: mem("01hv4x8kaaaabbbbbbbbbbbbbb", "Deploy it!", "infra"), wantErr: true},
		{m: mem("01hv4x8kaaaaaaaaaaaaaaaaaa", "Deploy it?", "infra"), want: "memories/infra/deploy-it-01hv4x8kaaaaaaaaaaaaaaaaaa.md"}, // the same slug
		{m: mem("01hv4x8k2m3n4p5q6r7s8t9v0w", "Deploy it!", "web"), want: "memories/web/deploy-it-01hv4x8k.md"},
		{m: mem("01hv4x8k2m3n4p5q6r7s8t9v0w", "Another title", "infra"), want: "memories/infra/another-title-01hv4x8k.md"},
		{m: mem("01hv4x8k2m3n4p5q6r7s8t9v0w", "!!!", "infra"), want: "memories/infra/note-01hv4x8k.md"},
		{m: mem("my-id", "Short id", "infra"), want: "memories/infra/short-id-my-id.md"},
		{m: mem("my-id", "Short id", "infra"), wantErr: true},
	}
	for _, tt := range tests {
		err := v.Create(tt.m)
		if tt.wantErr {
			if err == nil {
				t.Errorf("Create(%s, %q) made %s, want an error", tt.m.ID, tt.m.Title, tt.m.Path)
			}
			continue
		}
		if err != nil {
			t.Errorf("Create(%s, %q): %v", tt.m.ID, tt.m.Title, err)
			continue
		}
		if tt.m.Path != tt.want {
			t.Errorf("Create(%s, %q) made %s, want %s", tt.m.ID, tt.m.Title, tt.m.Path, tt.want)
		}
		n, err := NewNote(tt.m)
		if err != nil {
			t.Fatal(err)
		}
		checkContent(t, v.Abs(tt.want), string(mustBytes(t, n)))
	}
	if runtime.GOOS != "windows" {
		fi, err := os.Stat(v.Abs("memories/infra/deploy-it-01hv4x8k.md"))
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != atomicfile.FilePerm {
			t.Errorf("note permissions %v, want %v", fi.Mode().Perm(), atomicfile.FilePerm)
		}
	}
	// Every note is there once, and no temporary file is left.
	res := scan(t, v.Dir, NoKnown{}, ScanOptions{StatNotes: true})
	if len(res.Changed) != 8 || len(res.Temps) != 0 {
		t.Errorf("the vault holds %d notes and temporary files %q; want 8 and none", len(res.Changed), res.Temps)
	}
}

// TestCreateAll: the notes CreateAll writes are those Create would write, under
// the same names, and a clash stops it with the notes before it written.
func TestCreateAll(t *testing.T) {
	v := newVault(t)
	mem := func(id, title, project string) *memories.Memory {
		return &memories.Memory{ID: id, Title: title, Project: project, Body: "Body of " + id}
	}
	ms := []*memories.Memory{
		mem("01hv4x8k2m3n4p5q6r7s8t9v0w", "Deploy it!", "infra"),
		mem("01hv4x8kaaaaaaaaaaaaaaaaaa", "Deploy it!", "infra"),
		mem("01hv4x8k2m3n4p5q6r7s8t9v0w", "Deploy it!", "web"),
		mem("01hv4x8k2m3n4p5q6r7s8t9v0x", "Another", "general"),
	}
	written, err := v.CreateAll(ms)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"memories/infra/deploy-it-01hv4x8k.md", "memories/infra/deploy-it-01hv4x8kaaaa.md",
		"memories/web/deploy-it-01hv4x8k.md", "memories/general/another-01hv4x8k.md"}
	for i, m := range ms {
		if m.Path != want[i] {
			t.Errorf("note %d at %s, want %s", i, m.Path, want[i])
		}
		n, err := NewNote(m)
		if err != nil {
			t.Fatal(err)
		}
		checkContent(t, v.Abs(m.Path), string(mustBytes(t, n)))
		fi, err := os.Stat(v.Abs(m.Path))
		if err != nil {
			t.Fatal(err)
		}
		if w := written[i]; string(w.Data) != string(mustBytes(t, n)) || w.Stat.Path != m.Path || w.Stat.Size != fi.Size() || w.Stat.MTime != fi.ModTime().UnixNano() {
			t.Errorf("written[%d] = %s %d %d, the file %d %d", i, w.Stat.Path, w.Stat.Size, w.Stat.MTime, fi.Size(), fi.ModTime().UnixNano())
		}
	}
	// A memory whose every name is taken: nothing is written, no path set,
	// and no temporary file is left.
	again := []*memories.Memory{
		mem("01hv4x8kcccccccccccccccccc", "Fresh", "infra"),
		mem("01hv4x8kaaaaaaaaaaaaaaaaaa", "Deploy it!", "infra"), // takes the name of the whole id
		mem("01hv4x8kaaaaaaaaaaaaaaaaaa", "Deploy it!", "infra"), // has none left
	}
	if _, err := v.CreateAll(again); err == nil {
		t.Fatal("a clash on every name was not an error")
	}
	for i, m := range again {
		if m.Path != "" {
			t.Errorf("memory %d has path %q after a failed CreateAll", i, m.Path)
		}
	}
	res := scan(t, v.Dir, NoKnown{}, ScanOptions{StatNotes: true})
	if len(res.Changed) != 4 || len(res.Temps) != 0 {
		t.Errorf("the vault holds %d notes and temporary files %q; want 4 and none", len(res.Changed), res.Temps)
	}
	// Paths assigned beforehand are used as they are.
	pre := []*memories.Memory{mem("01hv4x8keeeeeeeeeeeeeeeeee", "Planned", "infra"), mem("01hv4x8kffffffffffffffffff", "Planned", "infra")}
	if err := v.AssignPaths(pre); err != nil {
		t.Fatal(err)
	}
	if pre[0].Path != "memories/infra/planned-01hv4x8k.md" || pre[1].Path != "memories/infra/planned-01hv4x8kffff.md" {
		t.Fatalf("assigned %q and %q", pre[0].Path, pre[1].Path)
	}
	if _, err := v.CreateAll(pre); err != nil {
		t.Fatal(err)
	}
	checkContent(t, v.Abs(pre[1].Path), string(mustBytes(t, must(NewNote(pre[1])))))
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

func TestSlug(t *testing.T) {
	tests := []struct {
		title, want string
	}{
		{"Deploy with blue-green", "deploy-with-blue-green"},
		{"Hello, World!", "hello-world"},
		{"  --Leading and trailing--  ", "leading-and-trailing"},
		{"a  \t b", "a-b"},
		{"C++ & Go: a/b_c", "c-go-a-b-c"},
		{"v1.2.3", "v1-2-3"},
		{"Café déjà vu", "café-déjà-vu"},
		{"ÜBER Straße", "über-straße"},
		{"日本語のメモ", "日本語のメモ"},
		{"🚀 launch 🚀", "launch"},
		{"", "note"},
		{"!!!", "note"},
		{"🚀", "note"},
		{strings.Repeat("a", 70), strings.Repeat("a", 60)},
		{strings.Repeat("abc ", 30), strings.TrimSuffix(strings.Repeat("abc-", 15), "-")},
		// A word that would end past the limit is cut, and no dash is left
		// dangling.
		{strings.Repeat("a", 59) + " bcd", strings.Repeat("a", 59)},
		{strings.Repeat("a", 58) + " bcd", strings.Repeat("a", 58) + "-b"},
		{strings.Repeat("é", 70), strings.Repeat("é", 60)},
	}
	for _, tt := range tests {
		if got := Slug(tt.title); got != tt.want {
			t.Errorf("Slug(%q) = %q, want %q", tt.title, got, tt.want)
		}
	}
}

// TestSlugShape: whatever the title, a slug is 1 to 60 letters, digits and
// single inner dashes.
func TestSlugShape(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	alphabet := []rune("ab -_.!é日🚀\t\n")
	for range 5000 {
		r := make([]rune, rng.IntN(200))
		for i := range r {
			r[i] = alphabet[rng.IntN(len(alphabet))]
		}
		title := string(r)
		s := Slug(title)
		n := utf8.RuneCountInString(s)
		ok := n >= 1 && n <= maxSlug && !strings.HasPrefix(s, "-") && !strings.HasSuffix(s, "-") && !strings.Contains(s, "--")
		for _, c := range s {
			ok = ok && (c == '-' || unicode.IsLetter(c) || unicode.IsDigit(c))
		}
		if !ok {
			t.Fatalf("Slug(%q) = %q (%d characters)", title, s, n)
		}
	}
}

func TestReadAndLoad(t *testing.T) {
	v := newVault(t)
	const rel = "memories/infra/note.md"
	const text = "---\ntitle: Loaded\ntags: [a]\n---\nBody.\n"
	writeAt(t, v.Abs(rel), text, t0)

	n, st, err := v.Read(rel)
	if err != nil {
		t.Fatal(err)
	}
	if want := (FileStat{Path: rel, Size: int64(len(text)), MTime: t0.UnixNano()}); st != want {
		t.Errorf("stat = %+v, want %+v", st, want)
	}
	if diff := cmp.Diff([]string{"title", "tags"}, n.Keys()); diff != "" {
		t.Errorf("keys (-want +got):\n%s", diff)
	}

	m, err := v.Load(rel)
	if err != nil {
		t.Fatal(err)
	}
	want := &memories.Memory{
		ID: memories.DerivedID(rel), Title: "Loaded", Type: memories.TypeNote, Project: "infra", Tags: []string{"a"},
		Source: memories.SourceUser, Status: memories.StatusActive, Importance: 3, Created: t0, Updated: t0,
		Body: "Body.\n", Path: rel,
	}
	if diff := cmp.Diff(want, m); diff != "" {
		t.Errorf("Load (-want +got):\n%s", diff)
	}
}

func TestReadErrors(t *testing.T) {
	v := newVault(t)
	writeAt(t, v.Abs("memories/bad.md"), "---\ntitle: a\ntitle: b\n---\n", t0)
	_, _, err := v.Read("memories/bad.md")
	var pe *ParseError
	if !errors.As(err, &pe) || pe.Path != "cortex/memories/bad.md" || pe.Line != 3 {
		t.Errorf("Read of a bad note: got %v, want a *ParseError at cortex/memories/bad.md:3", err)
	}
	if _, err := v.Load("memories/bad.md"); !errors.As(err, &pe) {
		t.Errorf("Load of a bad note: got %v, want a *ParseError", err)
	}

	if _, _, err := v.Read("memories/missing.md"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Read of a missing note: got %v, want fs.ErrNotExist", err)
	}

	big := v.Abs("memories/big.md")
	if err := os.WriteFile(big, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(big, MaxNoteBytes+1); err != nil {
		t.Fatal(err)
	}
	_, st, err := v.ReadRaw("memories/big.md")
	if !errors.Is(err, ErrTooLarge) || st.Size != MaxNoteBytes+1 {
		t.Errorf("ReadRaw of a large note: got size %d, %v; want %d, ErrTooLarge", st.Size, err, MaxNoteBytes+1)
	}
	if err := os.Truncate(big, MaxNoteBytes); err != nil {
		t.Fatal(err)
	}
	if data, _, err := v.ReadRaw("memories/big.md"); err != nil || len(data) != MaxNoteBytes {
		t.Errorf("ReadRaw of a note at the limit: %d bytes, %v", len(data), err)
	}
}

func TestRewrite(t *testing.T) {
	v := newVault(t)
	const rel = "memories/infra/note.md"
	const text = "---\nid: abc\ntitle: Same\n---\nBody.\n"
	writeAt(t, v.Abs(rel), text, t0)
	n, _, err := v.Read(rel)
	if err != nil {
		t.Fatal(err)
	}

	// Unchanged bytes: nothing is written, so the file keeps its time.
	if changed, err := v.Rewrite(rel, n); err != nil || changed {
		t.Fatalf("unchanged note: changed %v, %v", changed, err)
	}
	if fi, err := os.Stat(v.Abs(rel)); err != nil || !fi.ModTime().Equal(t0) {
		t.Errorf("an unchanged note was written again (time %v, %v)", fi.ModTime(), err)
	}

	if err := n.Apply(&memories.Memory{Title: "Changed"}, "title"); err != nil {
		t.Fatal(err)
	}
	if changed, err := v.Rewrite(rel, n); err != nil || !changed {
		t.Fatalf("changed note: changed %v, %v", changed, err)
	}
	checkContent(t, v.Abs(rel), "---\nid: abc\ntitle: Changed\n---\nBody.\n")

	// A note that is not there yet is written.
	if _, err := v.Rewrite("memories/infra/new.md", n); err != nil {
		t.Fatal(err)
	}
	checkContent(t, v.Abs("memories/infra/new.md"), "---\nid: abc\ntitle: Changed\n---\nBody.\n")
	if got := dirNames(t, v.Abs("memories/infra")); !cmp.Equal(got, []string{"new.md", "note.md"}) {
		t.Errorf("folder holds %q, want the two notes only", got)
	}
}

func TestWriteIndex(t *testing.T) {
	v := newVault(t) // cortex's folder does not exist yet
	data := v.RenderIndex([]memories.Entry{entry("a", "x", 1)})
	if err := v.WriteIndex(data); err != nil {
		t.Fatal(err)
	}
	checkContent(t, v.IndexPath(), string(data))
	stamp(t, v.IndexPath(), t0)
	if err := v.WriteIndex(data); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(v.IndexPath()); err != nil || !fi.ModTime().Equal(t0) {
		t.Errorf("an unchanged map was written again (time %v, %v)", fi.ModTime(), err)
	}
	other := v.RenderIndex(nil)
	if err := v.ReplaceIndex(other); err != nil {
		t.Fatal(err)
	}
	checkContent(t, v.IndexPath(), string(other))
}

func TestCleanTemps(t *testing.T) {
	v := newVault(t)
	writeAt(t, v.Abs("memories/a/.x.md.cortex-tmp-1"), "half", t0)
	writeAt(t, v.Abs("memories/a/x.md"), "note", t0)
	temps := []string{"memories/a/.x.md.cortex-tmp-1", "memories/a/.gone.md.cortex-tmp-2"}
	if err := v.CleanTemps(temps); err != nil {
		t.Fatalf("CleanTemps: %v", err)
	}
	if got := dirNames(t, v.Abs("memories/a")); !cmp.Equal(got, []string{"x.md"}) {
		t.Errorf("folder holds %q, want only x.md", got)
	}
	// A temporary path that is a non-empty folder cannot go, and says so.
	writeAt(t, v.Abs("memories/b/.y.cortex-tmp-3/inside"), "x", t0)
	if err := v.CleanTemps([]string{"memories/b/.y.cortex-tmp-3"}); err == nil {
		t.Error("CleanTemps of a folder with files succeeded")
	}
}

// dirNames lists the names in dir, sorted.
func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	des, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, de := range des {
		names = append(names, de.Name())
	}
	return names
}

func checkContent(t *testing.T, path, want string) {
	t.Helper()
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Errorf("%s holds %q, want %q", filepath.Base(path), got, want)
	}
}

// TestCreateUnlistedWrittenIsWhatAReadGives: what CreateUnlistedWritten
// returns of a note (its bytes, size and modification time) is what
// ReadRaw reads of it, so that a writer can index it without reading it
// back; a name taken takes more of the id, as Create does.
func TestCreateUnlistedWrittenIsWhatAReadGives(t *testing.T) {
	v := newVault(t)
	for _, want := range []string{"memories/infra/deploy-it-01hv4x8k.md", "memories/infra/deploy-it-01hv4x8k2m3n.md"} {
		m := &memories.Memory{ID: "01hv4x8k2m3n4p5q6r7s8t9v0w", Title: "Deploy it!", Project: "infra", Body: "Tag, then deploy."}
		w, err := v.CreateUnlistedWritten(m)
		if err != nil {
			t.Fatal(err)
		}
		if m.Path != want || w.Stat.Path != want {
			t.Errorf("written at %s (stat of %s), want %s", m.Path, w.Stat.Path, want)
		}
		data, st, err := v.ReadRaw(m.Path)
		if err != nil {
			t.Fatal(err)
		}
		if string(data) != string(w.Data) || st != w.Stat {
			t.Errorf("written %+v %q, read %+v %q", w.Stat, w.Data, st, data)
		}
	}
}
