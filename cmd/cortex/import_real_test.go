package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cortexmem/cortex/importer"
	"github.com/cortexmem/cortex/vault"
)

// importCounts is what an import's JSON summary says it did.
type importCounts struct {
	Candidates int `json:"candidates"`
	Imported   int `json:"imported"`
	Duplicates int `json:"duplicates"`
	Unsafe     int `json:"unsafe"`
	Skipped    int `json:"skipped"`
	Memories   []struct {
		Source string `json:"source"`
	} `json:"memories"`
}

// importJSON runs "cortex --json import path" in process on the vault and
// state folder of dir, with home as the home folder.
func importJSON(t *testing.T, home, dir, path string) importCounts {
	t.Helper()
	env := map[string]string{
		"HOME":          home,
		"CORTEX_VAULT":  filepath.Join(dir, "vault"),
		"CORTEX_HOME":   filepath.Join(dir, "state"),
		"CORTEX_CONFIG": filepath.Join(dir, "config.yaml"),
	}
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"--json", "import", path}, nil, &stdout, &stderr, func(k string) string { return env[k] }); code != 0 {
		t.Fatalf("cortex import %s: exit %d: %s", path, code, stderr.String())
	}
	var c importCounts
	if err := json.Unmarshal(stdout.Bytes(), &c); err != nil {
		t.Fatalf("cortex import %s: %v\n%s", path, err, stdout.String())
	}
	return c
}

// copyTree copies the folder from into to.
func copyTree(t *testing.T, from, to string) {
	t.Helper()
	err := filepath.WalkDir(from, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(from, p)
		if err != nil {
			return err
		}
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(to, rel), 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(to, rel), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestImportRealFolderTwice imports real documentation folders (an Obsidian
// vault, and a site in eight languages with data files beside it) again and
// again: the first import keeps what it keeps, every later one adds nothing,
// and a second fresh vault gets the same counts. The first import of each
// refuses sections as repeats of earlier sections of the same import; those
// must be refused again, not imported by the second run.
func TestImportRealFolderTwice(t *testing.T) {
	if testing.Short() {
		t.Skip("imports about 2,000 sections several times")
	}
	for _, name := range []string{"obsidian-tasks", "vitepress"} {
		t.Run(name, func(t *testing.T) {
			home := t.TempDir()
			src := filepath.Join(home, name)
			copyTree(t, filepath.Join("..", "..", "fixtures", "import", name, "docs"), src)
			one, two := t.TempDir(), t.TempDir()
			for _, d := range []string{one, two} {
				if err := os.MkdirAll(filepath.Join(d, "vault"), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			strip := func(c importCounts) importCounts { c.Memories = nil; return c }
			first := importJSON(t, home, one, src)
			if n, examples := danglingLinks(t, filepath.Join(one, "vault")); n > 0 {
				t.Errorf("%d links of the imported notes lead nowhere, such as %q", n, examples)
			}
			if first.Imported == 0 || first.Duplicates == 0 {
				t.Fatalf("first import: %+v; want memories imported and repeats refused", first)
			}
			for _, m := range first.Memories {
				// Only notes: the data files beside them (package.json,
				// lunaria.config.json, robots.txt) are not memories.
				if file, _, _ := strings.Cut(m.Source, "#"); filepath.Ext(file) != ".md" {
					t.Errorf("a memory from %s, not a note", m.Source)
				}
			}
			for run := 2; run <= 3; run++ {
				again := importJSON(t, home, one, src)
				var added []string
				for _, m := range again.Memories {
					added = append(added, m.Source)
				}
				if again.Imported != 0 {
					t.Errorf("import %d added %d memories, want 0: %q", run, again.Imported, added)
				}
				// What was imported or refused as a repeat is a repeat now;
				// the rest is refused or skipped as before.
				want := importCounts{Candidates: first.Candidates, Duplicates: first.Imported + first.Duplicates, Unsafe: first.Unsafe, Skipped: first.Skipped}
				if diff := cmp.Diff(want, strip(again)); diff != "" {
					t.Errorf("import %d (-want +got):\n%s", run, diff)
				}
			}
			other := importJSON(t, home, two, src)
			if diff := cmp.Diff(strip(first), strip(other)); diff != "" {
				t.Errorf("a second vault's first import differs (-first vault +second):\n%s", diff)
			}
		})
	}
}

// danglingLinks counts the wikilinks and embeds in the bodies of the notes
// under root that name no file of it, and gives a few.
func danglingLinks(t *testing.T, root string) (int, []string) {
	t.Helper()
	files := map[string]bool{}
	var notes []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		name := strings.ToLower(d.Name())
		files[name], files[strings.TrimSuffix(name, ".md")] = true, true
		if strings.HasSuffix(name, ".md") && !strings.HasPrefix(name, "_") {
			notes = append(notes, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	var examples []string
	for _, p := range notes {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		note, err := vault.ParseNote(data)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		for _, target := range importer.LinkTargets(string(note.Body)) {
			if target != "" && !files[strings.ToLower(path.Base(target))] {
				n++
				if len(examples) < 5 {
					examples = append(examples, target)
				}
			}
		}
	}
	return n, examples
}
