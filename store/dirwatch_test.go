//go:build linux

package store_test

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cortexmem/cortex/config"
	"github.com/cortexmem/cortex/memories"
	"github.com/cortexmem/cortex/store"
	"github.com/cortexmem/cortex/vault"
)

// TestWriterTrustsTheFolderItFollows: a resident store's save does not list
// the folder of its last save again (its own note changed the folder's
// time), yet every note created, removed or renamed there by anyone else,
// and a leftover temporary file or a new subfolder, makes it list the
// folder, and the save after takes the change in.
func TestWriterTrustsTheFolderItFollows(t *testing.T) {
	ctx := context.Background()
	e, st := residentStore(t)
	svc := memories.NewService(st)
	n := 0
	save := func() *memories.SaveResult {
		t.Helper()
		n++
		words := []string{"alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet", "kilo", "lima"}
		var b strings.Builder
		for i := range 12 {
			b.WriteString(words[(i*n+n)%len(words)] + strings.Repeat("x", n%7+i%3) + " ")
		}
		res, err := svc.Save(ctx, memories.SaveRequest{Content: "Note " + strings.Repeat("z", n) + " about " + b.String(), Project: "api"})
		if err != nil {
			t.Fatalf("save %d: %v", n, err)
		}
		return res
	}
	trusts := func() bool {
		t.Helper()
		ok, err := st.WriterTrusts(ctx, "memories/api")
		if err != nil {
			t.Fatal(err)
		}
		return ok
	}
	first := save()
	dir := filepath.Dir(e.abs(strings.TrimPrefix(first.Path, "cortex/")))
	for range 3 {
		save()
		if !trusts() {
			t.Fatal("after a save into the folder it follows, the next save lists it again")
		}
	}
	paths := func() []string {
		t.Helper()
		var out []string
		for _, m := range e.list() {
			out = append(out, m.Path)
		}
		slices.Sort(out)
		return out
	}
	onDisk := func() []string {
		t.Helper()
		var out []string
		err := filepath.WalkDir(dir, func(p string, de fs.DirEntry, err error) error {
			if err == nil && strings.HasSuffix(de.Name(), ".md") && !strings.HasPrefix(de.Name(), ".") {
				rel, _ := filepath.Rel(dir, p)
				out = append(out, "memories/api/"+filepath.ToSlash(rel))
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		slices.Sort(out)
		return out
	}
	for _, c := range []struct {
		name   string
		change func(t *testing.T)
		reads  bool // the next writer must read the folder again
	}{
		{"a note made by another program", func(t *testing.T) {
			writeFile(t, filepath.Join(dir, "from-obsidian.md"), "---\ntitle: From Obsidian\nproject: api\n---\n\nWritten in Obsidian while the server ran.\n")
		}, true},
		{"a note removed", func(t *testing.T) {
			if err := os.Remove(filepath.Join(dir, "from-obsidian.md")); err != nil {
				t.Fatal(err)
			}
		}, true},
		{"a note renamed", func(t *testing.T) {
			if err := os.Rename(e.abs(strings.TrimPrefix(first.Path, "cortex/")), filepath.Join(dir, "renamed.md")); err != nil {
				t.Fatal(err)
			}
		}, true},
		{"a note moved in from elsewhere", func(t *testing.T) {
			other := filepath.Join(e.root, "elsewhere.md")
			writeFile(t, other, "---\ntitle: Moved in\nproject: api\n---\n\nMoved into the folder from outside the vault's notes.\n")
			if err := os.Rename(other, filepath.Join(dir, "moved-in.md")); err != nil {
				t.Fatal(err)
			}
		}, true},
		{"a leftover temporary file", func(t *testing.T) {
			writeFile(t, filepath.Join(dir, ".x.md.cortex-tmp-123"), "half")
		}, true},
		{"a subfolder", func(t *testing.T) {
			if err := os.Mkdir(filepath.Join(dir, "sub"), 0o700); err != nil {
				t.Fatal(err)
			}
			writeFile(t, filepath.Join(dir, "sub", "deeper.md"), "---\ntitle: Deeper\nproject: api\n---\n\nA note in a new subfolder.\n")
		}, true},
		{"the folder replaced by another", func(t *testing.T) {
			other := filepath.Join(e.root, "other")
			if err := os.Mkdir(other, 0o700); err != nil {
				t.Fatal(err)
			}
			writeFile(t, filepath.Join(other, "only.md"), "---\ntitle: Only\nproject: api\n---\n\nThe one note of a folder put in the project's place.\n")
			if err := os.Rename(dir, filepath.Join(e.root, "gone")); err != nil {
				t.Fatal(err)
			}
			if err := os.Rename(other, dir); err != nil {
				t.Fatal(err)
			}
		}, true},
		{"a file that is no note", func(t *testing.T) {
			writeFile(t, filepath.Join(dir, "diagram.png"), "png")
		}, false},
		{"a hidden file", func(t *testing.T) {
			writeFile(t, filepath.Join(dir, ".obsidian-state"), "x")
		}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			c.change(t)
			if trusts() == c.reads {
				t.Fatalf("the next writer trusts the folder: %v, want %v", !c.reads, c.reads)
			}
			save()
			if got, want := paths(), onDisk(); !slices.Equal(got, want) {
				t.Fatalf("after the save the store knows\n%v\nthe folder holds\n%v", got, want)
			}
			if !trusts() {
				t.Fatal("after the save took the change in, the next writer lists the folder again")
			}
		})
	}
}

func writeFile(t *testing.T, p, content string) {
	t.Helper()
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestFolderNeverFollowedIsListedRarely: a folder the watch stopped
// following and cannot follow again (a link among its notes keeps its
// listing from matching the catalog) is listed to arm the watch after 1, 2,
// 4, … saves, not after every one.
func TestFolderNeverFollowedIsListedRarely(t *testing.T) {
	ctx := context.Background()
	e, st := residentStore(t)
	svc := memories.NewService(st)
	first, err := svc.Save(ctx, memories.SaveRequest{Content: "The first note of the project, before the link.", Project: "api"})
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Dir(e.abs(strings.TrimPrefix(first.Path, "cortex/")))
	if err := os.Symlink(filepath.Base(first.Path), filepath.Join(dir, "link.md")); err != nil {
		t.Fatal(err)
	}
	// A new subfolder stops the watch: the saves below try to arm it again.
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o700); err != nil {
		t.Fatal(err)
	}
	before := store.FollowListings()
	const saves = 40
	for i := range saves {
		content := fmt.Sprintf("Save %d of a run: port %d answers, queue %d drains, cache %d warms up.", i, 8000+i*7, i*i*13, i*31+5)
		if _, err := svc.Save(ctx, memories.SaveRequest{Content: content, Project: "api"}); err != nil {
			t.Fatalf("save %d: %v", i, err)
		}
	}
	if got := store.FollowListings() - before; got > 8 {
		t.Errorf("%d saves into a folder that cannot be followed listed it %d times to follow it, want at most 8", saves, got)
	}
}

// residentStore opens a resident store, as the MCP server does, on a new
// vault whose checks trust the folders' times for an hour.
func residentStore(t *testing.T) (*env, *store.Store) {
	t.Helper()
	e := newEnv(t, time.Hour)
	v, err := vault.New(e.root, "cortex")
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(store.Options{Vault: v, State: config.State{Home: e.home}, LockTimeout: 10 * time.Second,
		Freshness: time.Hour, Resident: true})
	if err != nil {
		t.Fatal(err)
	}
	return e, st
}
