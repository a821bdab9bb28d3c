package bench

import (
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/cortexmem/cortex/memories"
	"github.com/cortexmem/cortex/vault"
)

var end = time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)

func TestGeneratorIsDeterministic(t *testing.T) {
	a, b := NewGenerator(7, end), NewGenerator(7, end)
	for i := 0; i < 50; i++ {
		if diff := cmp.Diff(a.Memory(), b.Memory()); diff != "" {
			t.Fatalf("memory %d differs between two generators with one seed:\n%s", i, diff)
		}
	}
	if NewGenerator(8, end).Memory().Body == NewGenerator(7, end).Memory().Body {
		t.Error("two seeds gave the same first memory")
	}
}

func TestGeneratedMemoriesAreValid(t *testing.T) {
	g := NewGenerator(1, end)
	for i := 0; i < 200; i++ {
		m := g.Memory()
		if err := memories.CheckContent("content", m.Body); err != nil {
			t.Fatalf("memory %d: %v", i, err)
		}
		if _, err := memories.CheckTitle(m.Title); err != nil {
			t.Fatalf("memory %d: %v", i, err)
		}
		if len(m.ID) != memories.IDLen || !m.Created.After(end.AddDate(-1, 0, -1)) || m.Created.After(end) {
			t.Fatalf("memory %d: id %q created %s", i, m.ID, m.Created)
		}
	}
}

func TestWriteVault(t *testing.T) {
	root := t.TempDir()
	ids, err := WriteVault(root, 120, 3, end)
	if err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(VaultDir(root), "memories", "*", "*.md"))
	if len(ids) != 120 || len(files) != 120 {
		t.Fatalf("%d ids, %d files; want 120 of each", len(ids), len(files))
	}
	seen := map[string]bool{}
	names := map[string]bool{}
	var links []string
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		n, err := vault.ParseNote(data)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		seen[n.ID()] = true
		names[strings.TrimSuffix(filepath.Base(f), ".md")] = true
		links = append(links, n.Memory(f, end).Related...)
	}
	// About three notes in ten link to earlier ones, and every link resolves.
	if len(links) < 20 {
		t.Errorf("%d related links in 120 notes", len(links))
	}
	for _, l := range links {
		if !names[l] {
			t.Errorf("related link %q names no note", l)
		}
	}
	for _, id := range ids {
		if !seen[id] {
			t.Errorf("id %s has no note", id)
		}
	}
}

func loadCorpus(t *testing.T) *Corpus {
	t.Helper()
	c, err := LoadCorpus(filepath.Join("..", "fixtures"))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestRealGeneratorIsDeterministic(t *testing.T) {
	c := loadCorpus(t)
	a, b := NewRealGenerator(c, 7, end), NewRealGenerator(c, 7, end)
	for i := 0; i < 50; i++ {
		if diff := cmp.Diff(a.Memory(), b.Memory()); diff != "" {
			t.Fatalf("memory %d differs between two generators with one seed:\n%s", i, diff)
		}
		if qa, qb := a.Query(), b.Query(); qa != qb {
			t.Fatalf("query %d: %q and %q", i, qa, qb)
		}
		if qa, qb := a.Question(), b.Question(); qa != qb {
			t.Fatalf("question %d: %q and %q", i, qa, qb)
		}
	}
}

// TestQuestions: a question is as an agent asks recall, longer than a query:
// 8 to 14 words, a question's opening and two or more words drawn like the
// synthetic notes' text; 8
// to 16 words of a real-shaped note's sentence, or 16 to 24 characters of a
// script written without spaces. Seeded alike, generators ask alike.
func TestQuestions(t *testing.T) {
	g, again := NewGenerator(3, end), NewGenerator(3, end)
	for i := 0; i < 200; i++ {
		q := g.Question()
		if n := len(strings.Fields(q)); n < 8 || n > 14 || !strings.HasSuffix(q, "?") || strings.HasSuffix(q, " ?") {
			t.Fatalf("synthetic question %d: %q (%d words)", i, q, n)
		}
		if q2 := again.Question(); q2 != q {
			t.Fatalf("question %d: %q and %q", i, q, q2)
		}
	}
	r := NewRealGenerator(loadCorpus(t), 3, end)
	long := 0
	for i := 0; i < 200; i++ {
		q := r.Question()
		n := len(strings.Fields(q))
		switch {
		case n >= 8 && n <= 16:
			long++
		case n == 1 && utf8.RuneCountInString(q) >= 16 && utf8.RuneCountInString(q) <= 24:
		default:
			t.Fatalf("real-shaped question %d: %q (%d words)", i, q, n)
		}
	}
	if long < 100 {
		t.Errorf("%d of 200 real-shaped questions have 8 words or more", long)
	}
}

// TestRealShape: real-shaped memories are what a real documentation vault
// imported whole gives — one project, several kilobytes typically, many
// languages and scripts, markdown with headings, lists, code and links — and
// every one is a memory cortex would accept.
func TestRealShape(t *testing.T) {
	c := loadCorpus(t)
	if len(c.Langs) < 20 {
		t.Errorf("the corpus has %d languages, want the fixtures' twenty and more: %v", len(c.Langs), c.Langs)
	}
	g := NewRealGenerator(c, 1, end)
	const n = 600
	var sizes []int
	scripts := map[string]bool{}
	marks := map[string]int{}
	prefixes := map[string]int{} // memories by their id's first MinPrefix characters
	for i := 0; i < n; i++ {
		m := g.Memory()
		if m.Project != RealProject {
			t.Fatalf("memory %d in project %q, want %q", i, m.Project, RealProject)
		}
		if err := memories.CheckContent("content", m.Body); err != nil {
			t.Fatalf("memory %d: %v", i, err)
		}
		if _, err := memories.CheckTitle(m.Title); err != nil {
			t.Fatalf("memory %d: %v", i, err)
		}
		sizes = append(sizes, len(m.Body))
		prefixes[m.ID[:memories.MinPrefix]]++
		for _, r := range m.Body {
			for name, tab := range map[string]*unicode.RangeTable{"Latin": unicode.Latin, "Han": unicode.Han, "Cyrillic": unicode.Cyrillic,
				"Arabic": unicode.Arabic, "Hangul": unicode.Hangul, "Devanagari": unicode.Devanagari, "Thai": unicode.Thai} {
				if unicode.Is(tab, r) {
					scripts[name] = true
				}
			}
		}
		for _, mk := range []string{"\n### ", "\n- ", "```", "[[", "`"} {
			if strings.Contains(m.Body, mk) {
				marks[mk]++
			}
		}
	}
	if len(scripts) < 7 {
		t.Errorf("scripts seen: %v, want all seven", scripts)
	}
	// The ids an import mints, within a second: they share their first
	// MinPrefix characters by the hundred.
	if len(prefixes) > n/50 {
		t.Errorf("%d memories' ids begin %d ways, want at most %d: ids minted as an import mints them", n, len(prefixes), n/50)
	}
	sort.Ints(sizes)
	if p50 := sizes[n/2]; p50 < 1500 || p50 > 5000 {
		t.Errorf("median body %d bytes, want a few kilobytes", p50)
	}
	if sizes[n*9/10] < 2*sizes[n/2] {
		t.Errorf("bodies from %d to %d bytes: want a long tail", sizes[0], sizes[n-1])
	}
	for _, mk := range []string{"\n### ", "\n- ", "```", "[[", "`"} {
		if marks[mk] < n/20 {
			t.Errorf("%q in %d of %d bodies", mk, marks[mk], n)
		}
	}
	for i := 0; i < 100; i++ {
		if q := g.Query(); strings.TrimSpace(q) == "" {
			t.Fatalf("query %d is empty", i)
		}
	}
}

// TestRealNotes: the notes folder to import holds documents of several
// sections, about as many as asked for.
func TestRealNotes(t *testing.T) {
	dir := t.TempDir()
	if err := NewRealGenerator(loadCorpus(t), 2, end).WriteNotes(dir, 200); err != nil {
		t.Fatal(err)
	}
	var files, sections int
	err := filepath.WalkDir(dir, func(p string, de fs.DirEntry, err error) error {
		if err != nil || de.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		files++
		sections += strings.Count(string(data), "\n## ") + strings.Count(string(data), "\n### ")
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if sections < 200 || sections > 260 || files > 100 {
		t.Errorf("%d files with %d sections, want about 200 sections in a few dozen files", files, sections)
	}
}
