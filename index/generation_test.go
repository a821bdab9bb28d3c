package index

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/cortexmem/cortex/memories"
)

// ls lists the names in dir.
func ls(t *testing.T, dir string) []string {
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

func TestGenerations(t *testing.T) {
	x := New(filepath.Join(t.TempDir(), "index"), "/notes")
	if _, err := x.Current(); !errors.Is(err, ErrNoCatalog) {
		t.Fatalf("Current of a new index: %v, want ErrNoCatalog", err)
	}

	now := time.Date(2024, 5, 1, 0, 0, 0, 0, time.UTC)
	var gens []string
	for i := range 3 {
		gen, b, err := x.NewGeneration(now)
		if err != nil {
			t.Fatal(err)
		}
		if err := b.Apply(docs(corpus()[i : i+1])); err != nil {
			t.Fatal(err)
		}
		if err := b.Close(); err != nil {
			t.Fatal(err)
		}
		if err := CheckGeneration(gen); err != nil {
			t.Errorf("CheckGeneration(%s): %v", filepath.Base(gen), err)
		}
		gens = append(gens, gen)
	}
	if gens[0] == gens[1] {
		t.Fatalf("two generations made at the same time share a folder: %s", gens[0])
	}
	for _, g := range gens {
		if got, want := filepath.Dir(g), x.Dir; got != want {
			t.Errorf("generation %s is in %s, want %s", g, got, want)
		}
		if !strings.HasPrefix(filepath.Base(g), genPrefix) {
			t.Errorf("generation %s does not start with %q", g, genPrefix)
		}
	}
	// Not generations: they must survive Publish.
	for _, p := range []string{"other", genPrefix + "file"} {
		if p == "other" {
			if err := os.Mkdir(filepath.Join(x.Dir, p), 0o700); err != nil {
				t.Fatal(err)
			}
		} else if err := os.WriteFile(filepath.Join(x.Dir, p), nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	// An unpublished generation is not live.
	if _, err := x.Current(); !errors.Is(err, ErrNoCatalog) {
		t.Errorf("Current before Publish: %v, want ErrNoCatalog", err)
	}

	if err := x.Publish(gens[1]); err != nil {
		t.Fatal(err)
	}
	cur, err := x.Current()
	if err != nil {
		t.Fatal(err)
	}
	if got, want := cur, gens[1]; got != want {
		t.Errorf("Current = %s, want %s", got, want)
	}
	want := []string{currentFile, filepath.Base(gens[1]), genPrefix + "file", "other"}
	slices.Sort(want)
	if diff := cmp.Diff(ls(t, x.Dir), want); diff != "" {
		t.Errorf("index folder after Publish (-got +want):\n%s", diff)
	}

	b, err := OpenGeneration(cur, true)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	ms, err := b.Search(context.Background(), memories.SearchRequest{Size: 10, IncludeSuperseded: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) != 1 || ms[0].ID != corpus()[1].ID {
		t.Errorf("published generation holds %+v, want only %s", ms, corpus()[1].ID)
	}
}

func TestCurrentCorrupt(t *testing.T) {
	for _, tc := range []struct {
		content string
		want    string // the generation named, "" for a CorruptError
	}{
		{"gen-1-abcd\n", "gen-1-abcd"},
		{"  gen-1-abcd \r\n", "gen-1-abcd"},
		{"", ""},
		{"\n", ""},
		{"garbage\n", ""},
		{"../gen-1\n", ""},
		{"gen-1/../../etc\n", ""},
		{`gen-1\..\x` + "\n", ""},
		{"CURRENT", ""},
	} {
		t.Run(tc.content, func(t *testing.T) {
			x := New(t.TempDir(), "/notes")
			if err := os.WriteFile(filepath.Join(x.Dir, currentFile), []byte(tc.content), 0o600); err != nil {
				t.Fatal(err)
			}
			got, err := x.Current()
			if tc.want == "" {
				var ce *CorruptError
				if !errors.As(err, &ce) {
					t.Errorf("Current = %q, %v, want a CorruptError", got, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if want := filepath.Join(x.Dir, tc.want); got != want {
				t.Errorf("Current = %q, want %q", got, want)
			}
		})
	}
}

func TestCheckGeneration(t *testing.T) {
	x := New(t.TempDir(), "/notes")
	gen, b, err := x.NewGeneration(time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(gen, bleveDir, "index_meta.json")); err != nil {
		t.Fatal(err)
	}
	var ce *CorruptError
	if err := CheckGeneration(gen); !errors.As(err, &ce) {
		t.Errorf("CheckGeneration without index_meta.json: %v, want a CorruptError", err)
	}
	if err := CheckGeneration(filepath.Join(x.Dir, "gen-missing")); !errors.As(err, &ce) {
		t.Errorf("CheckGeneration of a missing generation: %v, want a CorruptError", err)
	}
	if _, err := OpenGeneration(filepath.Join(x.Dir, "gen-missing"), true); !errors.As(err, &ce) {
		t.Errorf("OpenGeneration of a missing generation: %v, want a CorruptError", err)
	}
}

func TestGenerationSource(t *testing.T) {
	x := New(t.TempDir(), "/home/me/vault/cortex")
	gen, b, err := x.NewGeneration(time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	if got, err := GenerationSource(gen); err != nil || got != x.Source {
		t.Errorf("GenerationSource = %q, %v; want %q", got, err, x.Source)
	}
	if err := x.CheckSource(gen); err != nil {
		t.Errorf("CheckSource of its own generation: %v", err)
	}
	other := New(x.Dir, "/home/me/other/cortex")
	var ce *CorruptError
	if err := other.CheckSource(gen); !errors.As(err, &ce) || !strings.Contains(err.Error(), "built from /home/me/vault/cortex, not /home/me/other/cortex") {
		t.Errorf("CheckSource of another vault's generation: %v, want a CorruptError naming both", err)
	}
	for _, tc := range []struct{ name, content string }{
		{"missing", ""}, {"empty", "\n"}, {"no newline", "/home/me/vault/cortex"}, {"two lines", "/a\n/b\n"}, {"nul", "/a\x00b\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(gen, sourceFile)
			if tc.name == "missing" {
				_ = os.Remove(p)
			} else if err := os.WriteFile(p, []byte(tc.content), 0o600); err != nil {
				t.Fatal(err)
			}
			if err := x.CheckSource(gen); !errors.As(err, &ce) {
				t.Errorf("CheckSource with a source file %q: %v, want a CorruptError", tc.content, err)
			}
		})
	}
}

func TestStale(t *testing.T) {
	x := New(t.TempDir(), "/notes")
	var gens []string
	for range 3 {
		gen, b, err := x.NewGeneration(time.Now())
		if err != nil {
			t.Fatal(err)
		}
		if err := b.Close(); err != nil {
			t.Fatal(err)
		}
		gens = append(gens, filepath.Base(gen))
	}
	if err := x.Publish(filepath.Join(x.Dir, gens[0])); err != nil {
		t.Fatal(err)
	}
	// What a killed rebuild leaves: a generation being built, a temporary
	// file of the pointer. Not the index's: kept.
	abandoned, b, err := x.NewGeneration(time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	temp := ".CURRENT.cortex-tmp-00aa11bb"
	for name, dir := range map[string]bool{temp: false, "notes.txt": false, "gen-file": false, "other": true} {
		p := filepath.Join(x.Dir, name)
		if dir {
			err = os.Mkdir(p, 0o700)
		} else {
			err = os.WriteFile(p, nil, 0o600)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	live, err := x.Current()
	if err != nil {
		t.Fatal(err)
	}
	stale, err := x.Stale(live)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range stale {
		got = append(got, filepath.Base(p))
	}
	want := []string{temp, filepath.Base(abandoned)}
	slices.Sort(want)
	if diff := cmp.Diff(got, want); diff != "" {
		t.Errorf("Stale (-got +want):\n%s", diff)
	}
	x.RemoveOthers(live)
	want = []string{currentFile, filepath.Base(live), "gen-file", "notes.txt", "other"}
	slices.Sort(want)
	if diff := cmp.Diff(ls(t, x.Dir), want); diff != "" {
		t.Errorf("index folder after RemoveOthers (-got +want):\n%s", diff)
	}
	if stale, err := x.Stale(live); err != nil || len(stale) != 0 {
		t.Errorf("Stale after RemoveOthers = %v, %v", stale, err)
	}
}

// TestCurrentSinceReadsAChangedPointer checks that CurrentSince answers from
// what it read while the pointer file is the one it saw, reads it again once
// another file is renamed over it (as Publish does), and forgets it when it
// is gone.
func TestCurrentSinceReadsAChangedPointer(t *testing.T) {
	x := New(t.TempDir(), "notes")
	path := filepath.Join(x.Dir, currentFile)
	var p Pointer
	if _, err := x.CurrentSince(&p); !errors.Is(err, ErrNoCatalog) {
		t.Fatalf("no pointer: err = %v, want ErrNoCatalog", err)
	}
	publish := func(name string) {
		t.Helper()
		tmp := path + ".tmp"
		if err := os.WriteFile(tmp, []byte(name+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, path); err != nil {
			t.Fatal(err)
		}
	}
	want := func(name string) {
		t.Helper()
		got, err := x.CurrentSince(&p)
		if err != nil || got != filepath.Join(x.Dir, name) {
			t.Fatalf("CurrentSince = %q, %v; want %q", got, err, filepath.Join(x.Dir, name))
		}
	}
	publish("gen-1-aaaa")
	want("gen-1-aaaa")
	// The same file, its size and time kept: not read again. (Nothing
	// writes the pointer in place; this shows that the file is not read.)
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("gen-2-bbbb\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(path, fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
	want("gen-1-aaaa")
	if got, err := x.Current(); err != nil || got != filepath.Join(x.Dir, "gen-2-bbbb") {
		t.Fatalf("Current = %q, %v; want gen-2-bbbb", got, err)
	}
	// Another file renamed over it, even with the same size and time.
	publish("gen-3-cccc")
	if err := os.Chtimes(path, fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
	want("gen-3-cccc")
	want("gen-3-cccc")
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if _, err := x.CurrentSince(&p); !errors.Is(err, ErrNoCatalog) {
		t.Fatalf("pointer removed: err = %v, want ErrNoCatalog", err)
	}
	publish("gen-1-aaaa")
	want("gen-1-aaaa")
}
