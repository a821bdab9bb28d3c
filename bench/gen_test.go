package bench

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

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
