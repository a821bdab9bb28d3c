package importer

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/metrics"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/cortexmem/cortex/memories"
)

// fixedTime is the modification time of every file a test writes, so that the
// items of notes without a date of their own are stable.
var fixedTime = time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)

// copyTree copies the fixture folder fixtures/import/<name> to dst, renaming
// the path elements listed in rename (a folder committed without its leading
// dot, say), and gives every file fixedTime.
func copyTree(t *testing.T, name, dst string, rename map[string]string) {
	t.Helper()
	src := filepath.Join("..", "fixtures", "import", name)
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		parts := strings.Split(rel, string(filepath.Separator))
		for i, part := range parts {
			if to, ok := rename[part]; ok {
				parts[i] = to
			}
		}
		out := filepath.Join(append([]string{dst}, parts...)...)
		if d.IsDir() {
			return os.MkdirAll(out, 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if err := os.WriteFile(out, data, 0o644); err != nil {
			return err
		}
		return os.Chtimes(out, fixedTime, fixedTime)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// writeFiles writes files (path relative to root: content) with fixedTime.
func writeFiles(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, fixedTime, fixedTime); err != nil {
			t.Fatal(err)
		}
	}
}

// realTempDir is a new temporary folder, symlinks resolved (macOS's is under
// one), so that the paths in skip reasons start with it.
func realTempDir(t *testing.T) string {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, link); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
}

// goldenItem is an Item as a golden file shows it, its paths under $ROOT.
type goldenItem struct {
	Title   string   `json:"title"`
	Project string   `json:"project,omitempty"`
	Type    string   `json:"type,omitempty"`
	Tags    []string `json:"tags,omitempty"`
	Aliases []string `json:"aliases,omitempty"`
	Created string   `json:"created,omitempty"`
	Source  string   `json:"source"`
	Kind    string   `json:"kind"`
	Content string   `json:"content"`
}

type goldenResult struct {
	Files int          `json:"files"`
	Items []goldenItem `json:"items"`
	Skips []Skip       `json:"skips"`
}

// normalize makes res comparable across machines: root becomes $ROOT and
// paths use slashes.
func normalize(res *Result, root string) goldenResult {
	rel := func(s string) string { return filepath.ToSlash(strings.ReplaceAll(s, root, "$ROOT")) }
	out := goldenResult{Files: res.Files, Items: []goldenItem{}, Skips: []Skip{}}
	for _, it := range res.Items {
		g := goldenItem{Title: it.Title, Project: it.Project, Type: string(it.Type), Tags: it.Tags, Aliases: it.Aliases,
			Source: rel(it.Source), Kind: string(it.Kind), Content: it.Content}
		if !it.Created.IsZero() {
			g.Created = it.Created.Format(time.RFC3339)
		}
		out.Items = append(out.Items, g)
	}
	for _, s := range res.Skips {
		out.Skips = append(out.Skips, Skip{Source: rel(s.Source), Reason: rel(s.Reason)})
	}
	return out
}

// sources lists the sources of res's items and its skips ("source: reason"),
// relative to root, for tests that check what was read rather than how.
func sources(res *Result, root string) (items, skips []string) {
	g := normalize(res, root)
	for _, it := range g.Items {
		items = append(items, strings.TrimPrefix(it.Source, "$ROOT/"))
	}
	for _, s := range g.Skips {
		skips = append(skips, strings.TrimPrefix(s.Source, "$ROOT/")+": "+s.Reason)
	}
	return items, skips
}

func collect(t *testing.T, path string, o Options) *Result {
	t.Helper()
	res, err := Collect(context.Background(), path, o)
	if err != nil {
		t.Fatalf("Collect(%s): %v", path, err)
	}
	return res
}

// TestCollectGolden reads each fixture tree as `cortex import` would, and
// checks that the same tree gives the same result whatever the number of
// workers.
func TestCollectGolden(t *testing.T) {
	tests := []struct {
		fixture string
		rename  map[string]string
		path    string // what is imported, under the copy
	}{
		{fixture: "vault", path: "vault"},
		{fixture: "markdown", path: "markdown"},
		// The home folder, as cortex import ~ reads it: projects with their
		// instructions, and Claude Code's own folder.
		{fixture: "claude", rename: map[string]string{"dot-claude": ".claude"}, path: "."},
	}
	for _, tt := range tests {
		t.Run(tt.fixture, func(t *testing.T) {
			root := realTempDir(t)
			dst := filepath.Join(root, tt.path)
			copyTree(t, tt.fixture, dst, tt.rename)
			o := Options{Home: root, Workers: 1}
			res := collect(t, dst, o)
			got := normalize(res, root)
			golden(t, tt.fixture, got)
			checkCollected(t, res)

			for _, workers := range []int{1, 4} {
				o.Workers = workers
				again := normalize(collect(t, dst, o), root)
				if diff := cmp.Diff(got, again); diff != "" {
					t.Errorf("a second run with %d workers differs (-first +second):\n%s", workers, diff)
				}
			}
		})
	}
}

// checkCollected checks the items of Collect with the invariants every
// parser keeps, each against its own kind.
func checkCollected(t *testing.T, res *Result) {
	t.Helper()
	for _, it := range res.Items {
		checkItems(t, it.Kind, []Item{it}, nil)
	}
	checkItems(t, "", nil, res.Skips)
}

func TestCollectGuard(t *testing.T) {
	root := realTempDir(t)
	home, outside, allowed := filepath.Join(root, "home"), filepath.Join(root, "outside"), filepath.Join(root, "allowed")
	note := "A note long enough to be a memory of its own.\n"
	writeFiles(t, root, map[string]string{
		"home/notes/a.md":     note,
		"outside/secret.md":   note,
		"allowed/shared.md":   note,
		"allowed/deep/b.md":   note,
		"outside/dir/c.md":    note,
		"home/notes/sub/d.md": note,
	})
	symlink(t, outside, filepath.Join(home, "out-link"))
	o := Options{Home: home, AllowedRoots: []string{allowed}}

	t.Run("refused", func(t *testing.T) {
		tests := []struct {
			name, path, rule string
		}{
			{"outside home", filepath.Join(outside, "secret.md"), "is outside your home folder and the allowed roots"},
			{"outside folder", filepath.Join(outside, "dir"), "is outside your home folder and the allowed roots"},
			{"dot-dot climbs out", filepath.Join(home, "notes", "..", "..", "outside"), "is outside your home folder and the allowed roots"},
			{"dot-dot, relative", relPath(t, filepath.Join(home, "notes", "..", "..", "outside", "secret.md")), "is outside your home folder and the allowed roots"},
			{"a symlink in home to outside", filepath.Join(home, "out-link"), "is outside your home folder and the allowed roots"},
			{"missing", filepath.Join(home, "nope.md"), "no such file or folder"},
			{"the parent of home", root, "is outside your home folder and the allowed roots"},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				_, err := Collect(context.Background(), tt.path, o)
				var ae *memories.ArgError
				if !errors.As(err, &ae) {
					t.Fatalf("Collect(%s) = %v, want an *memories.ArgError", tt.path, err)
				}
				if ae.Arg != "path" || !strings.Contains(ae.Rule, tt.rule) {
					t.Errorf("Collect(%s) = %q, want an error about path saying %q", tt.path, err, tt.rule)
				}
				if !errors.Is(err, memories.ErrInvalid) {
					t.Errorf("Collect(%s) = %v, want errors.Is ErrInvalid", tt.path, err)
				}
			})
		}
	})

	t.Run("accepted", func(t *testing.T) {
		tests := []struct {
			name, path string
			want       []string // item sources under root
		}{
			{"a file in home", filepath.Join(home, "notes", "a.md"), []string{"home/notes/a.md"}},
			{"a folder in home", filepath.Join(home, "notes"), []string{"home/notes/a.md", "home/notes/sub/d.md"}},
			{"dot-dot that stays in home", filepath.Join(home, "notes", "sub", "..", "a.md"), []string{"home/notes/a.md"}},
			{"an allowed root outside home", allowed, []string{"allowed/deep/b.md", "allowed/shared.md"}},
			{"a file in an allowed root", filepath.Join(allowed, "deep", "b.md"), []string{"allowed/deep/b.md"}},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				got, skips := sources(collect(t, tt.path, o), root)
				if diff := cmp.Diff(tt.want, got); diff != "" {
					t.Errorf("items (-want +got):\n%s", diff)
				}
				if len(skips) > 0 {
					t.Errorf("skips: %q", skips)
				}
			})
		}
	})

	t.Run("no home and no roots", func(t *testing.T) {
		_, err := Collect(context.Background(), home, Options{})
		var ae *memories.ArgError
		if !errors.As(err, &ae) || ae.Arg != "path" {
			t.Errorf("Collect without a home = %v, want an *memories.ArgError about path", err)
		}
	})
}

// relPath is path relative to the working folder.
func relPath(t *testing.T, path string) string {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	rel, err := filepath.Rel(wd, path)
	if err != nil {
		t.Fatal(err)
	}
	return rel
}

func TestCollectSymlinks(t *testing.T) {
	root := realTempDir(t)
	home := filepath.Join(root, "home")
	note := "A note long enough to be a memory of its own.\n"
	writeFiles(t, root, map[string]string{
		"home/vault/a.md":     note,
		"home/vault/sub/b.md": note,
		"home/elsewhere/c.md": note,
		"home/other/d.md":     note,
		"outside/secret.md":   note,
		"outside/folder/e.md": note,
	})
	vault := filepath.Join(home, "vault")
	symlink(t, filepath.Join(root, "outside", "secret.md"), filepath.Join(vault, "link-out.md"))
	symlink(t, filepath.Join(root, "outside", "folder"), filepath.Join(vault, "folder-out"))
	symlink(t, "..", filepath.Join(vault, "sub", "loop")) // a folder linking to its parent
	symlink(t, vault, filepath.Join(vault, "sub", "top")) // and to the vault
	symlink(t, filepath.Join(home, "elsewhere", "c.md"), filepath.Join(vault, "c-link.md"))
	symlink(t, filepath.Join(home, "other"), filepath.Join(vault, "other-link"))
	symlink(t, filepath.Join(home, "missing.md"), filepath.Join(vault, "broken.md"))
	symlink(t, "a.md", filepath.Join(vault, "z-same.md")) // a second name for a.md
	// Links that would not be read anyway are not followed, nor reported.
	symlink(t, filepath.Join(root, "outside", "folder"), filepath.Join(vault, "node_modules"))
	symlink(t, filepath.Join(root, "outside", "folder"), filepath.Join(vault, ".config"))
	symlink(t, filepath.Join(root, "outside", "folder"), filepath.Join(vault, ".claude", "commands"))

	res := collect(t, vault, Options{Home: home})
	items, skips := sources(res, root)
	wantItems := []string{
		"home/vault/a.md",
		"home/vault/c-link.md",
		"home/vault/other-link/d.md",
		"home/vault/sub/b.md",
	}
	wantSkips := []string{
		"home/vault/.claude/commands: a link among Claude Code's own files (settings, state): of a .claude folder an import reads CLAUDE.md and the auto memory (projects/*/memory); name it to import it",
		"home/vault/.config: a hidden symbolic link: a folder import leaves hidden files and folders out; name it to import it",
		"home/vault/broken.md: broken symbolic link",
		"home/vault/folder-out: symbolic link to $ROOT/outside/folder, outside the allowed roots",
		"home/vault/link-out.md: symbolic link to $ROOT/outside/secret.md, outside the allowed roots",
		"home/vault/node_modules: a dependency folder (node_modules), not notes; name it to import it",
		"home/vault/sub/loop: symbolic link loop: it points to $ROOT/home/vault, a folder that holds it",
		"home/vault/sub/top: symbolic link loop: it points to $ROOT/home/vault, a folder that holds it",
		"home/vault/z-same.md: the same file as $ROOT/home/vault/a.md, read already",
	}
	if diff := cmp.Diff(wantItems, items); diff != "" {
		t.Errorf("items (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(wantSkips, skips); diff != "" {
		t.Errorf("skips (-want +got):\n%s", diff)
	}

	t.Run("a folder reached twice", func(t *testing.T) {
		// b-link comes first in name order: the folder it points to is read
		// through it, and said to be read already when the walk reaches it.
		base := realTempDir(t)
		writeFiles(t, base, map[string]string{"vault/c/note.md": note})
		symlink(t, filepath.Join(base, "vault", "c"), filepath.Join(base, "vault", "b-link"))
		items, skips := sources(collect(t, filepath.Join(base, "vault"), Options{Home: base}), base)
		if diff := cmp.Diff([]string{"vault/b-link/note.md"}, items); diff != "" {
			t.Errorf("items (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff([]string{"vault/c: the same folder as $ROOT/vault/b-link, read already"}, skips); diff != "" {
			t.Errorf("skips (-want +got):\n%s", diff)
		}
	})
}

func TestCollectExclude(t *testing.T) {
	root := realTempDir(t)
	note := "A note long enough to be a memory of its own.\n"
	writeFiles(t, root, map[string]string{
		"vault/mine.md":              note,
		"vault/cortex/memories/a.md": note,
		"vault/cortex/memories/b.md": note,
	})
	vault := filepath.Join(root, "vault")
	own := filepath.Join(vault, "cortex")
	symlink(t, filepath.Join(own, "memories", "a.md"), filepath.Join(vault, "z-link.md"))
	o := Options{Home: root, Exclude: []string{own}}

	tests := []struct {
		name, path string
		items      []string
		skips      []string
	}{
		{"the vault", vault, []string{"vault/mine.md"}, []string{
			"vault/cortex: cortex's own folder: its notes are memories already",
			"vault/z-link.md: in cortex's own folder: its notes are memories already",
		}},
		{"the folder itself", own, nil, []string{"vault/cortex: cortex's own folder: its notes are memories already"}},
		{"a note in it", filepath.Join(own, "memories", "b.md"), nil, []string{
			"vault/cortex/memories/b.md: in cortex's own folder: its notes are memories already",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			items, skips := sources(collect(t, tt.path, o), root)
			if diff := cmp.Diff(tt.items, items); diff != "" {
				t.Errorf("items (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.skips, skips); diff != "" {
				t.Errorf("skips (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCollectWalk(t *testing.T) {
	root := realTempDir(t)
	note := "A note long enough to be a memory of its own.\n"
	writeFiles(t, root, map[string]string{
		"notes/a.md":                             note,
		"notes/.obsidian/app.json":               `{"vimMode": true, "showLineNumber": true, "spellcheck": false}`,
		"notes/.trash/deleted.md":                note,
		"notes/.hidden.md":                       note,
		"notes/.DS_Store":                        "\x00\x00\x00\x01Bud1",
		"notes/node_modules/pkg/README.md":       note,
		"notes/vendor/lib/README.md":             note,
		"notes/img/photo.JPG":                    "\xff\xd8\xff\xe0 not really a photo",
		"notes/img/board.canvas":                 `{"nodes": [], "edges": []}`,
		"notes/big.md":                           strings.Repeat("Long enough, and too long to be read. ", 10),
		"notes/binary.md":                        "some text\x00with a NUL byte in it, which text never has",
		"notes/latin1.md":                        "Cr\xe8me br\xfbl\xe9e: a recipe saved in Latin-1\nnot UTF-8.",
		"notes/main.go":                          "package main\n\n// main prints a greeting to whoever runs it.\nfunc main() { println(\"hello\") }\n",
		"notes/Makefile":                         "test:\n\tgo test ./...\n",
		"notes/bom.md":                           "\xef\xbb\xbf# With a BOM\n\nThe byte order mark in front of the heading is dropped.\n",
		"notes/utf16.md":                         utf16LE("A note saved by Notepad as UTF-16, with its byte order mark.\r\n"),
		"notes/sub/deeper/deepest/note.markdown": note,
	})
	notes := filepath.Join(root, "notes")
	o := Options{Home: root, MaxFileSize: 300}

	res := collect(t, notes, o)
	items, skips := sources(res, root)
	wantItems := []string{
		"notes/a.md",
		"notes/bom.md#With a BOM",
		"notes/sub/deeper/deepest/note.markdown",
		"notes/utf16.md",
	}
	wantSkips := []string{
		"notes/.DS_Store: a hidden file: a folder import leaves hidden files out; name it to import it",
		"notes/.hidden.md: a hidden file: a folder import leaves hidden files out; name it to import it",
		"notes/.obsidian: a hidden folder: a folder import leaves hidden folders out (tools' state: .git, .obsidian, .trash); name it to import it",
		"notes/.trash: a hidden folder: a folder import leaves hidden folders out (tools' state: .git, .obsidian, .trash); name it to import it",
		"notes/Makefile: a data file (no extension), not a note; name it explicitly to import it",
		"notes/big.md: 380 bytes, more than the 300 bytes a file may have (import.max_file_mb)",
		"notes/binary.md: a binary file (it holds a NUL byte)",
		"notes/img/board.canvas: an attachment (.canvas), not a note",
		"notes/img/photo.JPG: an attachment (.jpg), not a note",
		"notes/latin1.md: not valid UTF-8 text: byte 0xe8 at line 1, column 3",
		"notes/main.go: a data file (.go), not a note; name it explicitly to import it",
		"notes/node_modules: a dependency folder (node_modules), not notes; name it to import it",
		"notes/vendor: a dependency folder (vendor), not notes; name it to import it",
	}
	if diff := cmp.Diff(wantItems, items); diff != "" {
		t.Errorf("items (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(wantSkips, skips); diff != "" {
		t.Errorf("skips (-want +got):\n%s", diff)
	}
	if res.Files != len(wantItems)+2 { // and binary.md and latin1.md, read and refused
		t.Errorf("Files = %d, want %d", res.Files, len(wantItems)+2)
	}
	for _, it := range res.Items {
		if strings.ContainsRune(it.Content, '\uFEFF') || strings.ContainsRune(it.Title, '\uFEFF') {
			t.Errorf("%s: the byte order mark is kept: %q", it.Source, it.Title)
		}
	}
	checkCollected(t, res)

	t.Run("named on its own", func(t *testing.T) {
		tests := []struct {
			file  string
			kind  Kind
			skips []string
		}{
			{file: "main.go", kind: KindText},
			{file: "Makefile", skips: []string{"notes/Makefile: too short: 10 letters or digits, at least 20 are needed"}},
			{file: ".hidden.md", kind: KindMarkdown},
			{file: "img/photo.JPG", skips: []string{"notes/img/photo.JPG: an attachment (.jpg), not a note"}},
			{file: "big.md", skips: []string{"notes/big.md: 380 bytes, more than the 300 bytes a file may have (import.max_file_mb)"}},
		}
		for _, tt := range tests {
			t.Run(tt.file, func(t *testing.T) {
				res := collect(t, filepath.Join(notes, filepath.FromSlash(tt.file)), o)
				items, skips := sources(res, root)
				var want []string
				if tt.kind != "" {
					want = []string{"notes/" + tt.file}
				}
				if diff := cmp.Diff(want, items); diff != "" {
					t.Errorf("items (-want +got):\n%s", diff)
				}
				if diff := cmp.Diff(tt.skips, skips); diff != "" {
					t.Errorf("skips (-want +got):\n%s", diff)
				}
				for _, it := range res.Items {
					if it.Kind != tt.kind {
						t.Errorf("kind %q, want %q", it.Kind, tt.kind)
					}
				}
			})
		}
	})
}

// utf16LE is s in UTF-16, little-endian, with a byte order mark.
func utf16LE(s string) string {
	b := []byte{0xff, 0xfe}
	for _, r := range s {
		b = append(b, byte(r), byte(r>>8)) // s is in the BMP
	}
	return string(b)
}

func TestCollectDefaultsToTheFileTime(t *testing.T) {
	root := realTempDir(t)
	writeFiles(t, root, map[string]string{
		"a.md": "A note long enough to be a memory of its own.\n",
		"b.md": "---\ncreated: 2023-05-06\n---\nA note long enough to be a memory of its own.\n",
	})
	res := collect(t, root, Options{Home: root})
	var got []time.Time
	for _, it := range res.Items {
		got = append(got, it.Created)
	}
	want := []time.Time{fixedTime, time.Date(2023, 5, 6, 0, 0, 0, 0, time.UTC)}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("created (-want +got):\n%s", diff)
	}
}

func TestCollectProgressAndCancel(t *testing.T) {
	root := realTempDir(t)
	files := map[string]string{}
	for _, n := range []string{"a", "b", "c", "d", "e"} {
		files[n+".md"] = "A note long enough to be a memory of its own.\n"
	}
	writeFiles(t, root, files)

	var calls [][2]int
	o := Options{Home: root, Workers: 1, Progress: func(done, total int) { calls = append(calls, [2]int{done, total}) }}
	collect(t, root, o)
	want := [][2]int{{1, 5}, {2, 5}, {3, 5}, {4, 5}, {5, 5}}
	if diff := cmp.Diff(want, calls); diff != "" {
		t.Errorf("progress (-want +got):\n%s", diff)
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Collect(ctx, root, Options{Home: root}); !errors.Is(err, context.Canceled) {
		t.Errorf("Collect with a cancelled context = %v, want context.Canceled", err)
	}
}

func TestCollectRefusesAPipe(t *testing.T) {
	root := realTempDir(t)
	p := filepath.Join(root, "pipe.md")
	if err := exec.Command("mkfifo", p).Run(); err != nil {
		t.Skipf("no named pipes here: %v", err)
	}
	_, err := Collect(context.Background(), p, Options{Home: root})
	var ae *memories.ArgError
	if !errors.As(err, &ae) || !strings.Contains(ae.Rule, "not a file or a folder") {
		t.Errorf("Collect(a pipe) = %v, want an *memories.ArgError saying it is not a file", err)
	}
}

func TestSizeString(t *testing.T) {
	tests := []struct {
		n    int64
		want string
	}{
		{0, "0 bytes"},
		{1023, "1023 bytes"},
		{1024, "1 KB"},
		{1536, "1.5 KB"},
		{64 << 20, "64 MB"},
		{70_000_000, "66.8 MB"},
	}
	for _, tt := range tests {
		if got := sizeString(tt.n); got != tt.want {
			t.Errorf("sizeString(%d) = %q, want %q", tt.n, got, tt.want)
		}
	}
}

func TestDecodeText(t *testing.T) {
	tests := []struct {
		name, in, want, reason string
	}{
		{"utf-8", "héllo", "héllo", ""},
		{"bom", "\xef\xbb\xbfhéllo", "héllo", ""},
		{"utf-16 le", "\xff\xfeh\x00\xe9\x00", "hé", ""},
		{"utf-16 be", "\xfe\xff\x00h\x00\xe9", "hé", ""},
		{"utf-16 odd", "\xff\xfeh\x00\xe9", "", "not valid UTF-16 text: an odd number of bytes"},
		{"nul", "a\x00b", "", "a binary file (it holds a NUL byte)"},
		{"latin-1", "ok\nd\xe9j\xe0", "", "not valid UTF-8 text: byte 0xe9 at line 2, column 2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, reason := decodeText([]byte(tt.in))
			if string(got) != tt.want || reason != tt.reason {
				t.Errorf("decodeText(%q) = %q, %q; want %q, %q", tt.in, got, reason, tt.want, tt.reason)
			}
		})
	}
}

func TestReadInClaudeDir(t *testing.T) {
	tests := []struct {
		path  string
		isDir bool
		want  bool
	}{
		{"/h/notes/a.md", false, true},
		{"/h/notes", true, true},
		{"/h/.claude", true, true},
		{"/h/.claude/CLAUDE.md", false, true},
		{"/h/.claude/CLAUDE.local.md", false, true},
		{"/h/.claude/settings.json", false, false},
		{"/h/.claude/commands", true, false},
		{"/h/.claude/projects", true, true},
		{"/h/.claude/projects/-h-app", true, true},
		{"/h/.claude/projects/-h-app/0f3c.jsonl", false, false},
		{"/h/.claude/projects/-h-app/todos", true, false},
		{"/h/.claude/projects/-h-app/memory", true, true},
		{"/h/.claude/projects/-h-app/memory/MEMORY.md", false, true},
		{"/h/.claude/projects/-h-app/memory/old", true, true},
		{"/h/.claude/projects/-h-app/memory/old/x.md", false, true},
		{"/h/src/app/.claude/CLAUDE.md", false, true},
		{"/h/src/app/.claude/agents/reviewer.md", false, false},
		{"/h/src/app/.claude/agents", true, false},
	}
	for _, tt := range tests {
		if got := readInClaudeDir(filepath.FromSlash(tt.path), tt.isDir); got != tt.want {
			t.Errorf("readInClaudeDir(%s, %v) = %v, want %v", tt.path, tt.isDir, got, tt.want)
		}
	}
}

// TestCollectDataFiles: in a folder, only notes and the formats known by
// their content are read; other data files — a site's settings, translation
// maps, tables, JSON that is neither a memory graph nor an export — are
// skipped with the reason, and each is read when named on its own.
func TestCollectDataFiles(t *testing.T) {
	root := realTempDir(t)
	writeFiles(t, root, map[string]string{
		"docs/Home.md":                   "# Home\n\nThe documentation starts here, with the install guide first.\n",
		"docs/site-options.json":         `{"siteName": "Help", "defaultTheme": "dark", "showGraph": true, "navigationOrder": ["Home", "Install"]}`,
		"docs/translations/fr.txt":       "Home.md → Accueil\nInstall.md → Installation\nGuides/Sync.md → Synchroniser vos notes\n",
		"docs/table.csv":                 "name,port\nstaging database,5433\nproduction database,5432\n",
		"docs/settings.yaml":             "theme: dark\nlanguages: [en, fr, ja]\nsearch: true\n",
		"docs/events.jsonl":              "{\"event\": \"opened\", \"page\": \"Home\"}\n{\"event\": \"opened\", \"page\": \"Install\"}\n",
		"docs/graph/memory.jsonl":        string(fixtureBytes(t, "mcp/memory.jsonl")),
		"docs/export/conversations.json": string(fixtureBytes(t, "chat/claude/conversations.json")),
	})
	docs := filepath.Join(root, "docs")
	o := Options{Home: root}
	res := collect(t, docs, o)
	kinds := map[string]Kind{}
	for _, it := range res.Items {
		file, _, _ := strings.Cut(strings.TrimPrefix(it.Source, root+string(filepath.Separator)), "#")
		kinds[filepath.ToSlash(file)] = it.Kind
	}
	wantKinds := map[string]Kind{
		"docs/Home.md":                   KindMarkdown,
		"docs/graph/memory.jsonl":        KindMCPMemory,
		"docs/export/conversations.json": KindClaudeExport,
	}
	if diff := cmp.Diff(wantKinds, kinds); diff != "" {
		t.Errorf("files read (-want +got):\n%s", diff)
	}
	_, skips := sources(res, root)
	var dataSkips []string
	for _, s := range skips {
		if strings.Contains(s, "a data file") {
			dataSkips = append(dataSkips, s)
		}
	}
	wantSkips := []string{
		"docs/events.jsonl: a data file (.jsonl), not a note; name it explicitly to import it",
		"docs/settings.yaml: a data file (.yaml), not a note; name it explicitly to import it",
		"docs/site-options.json: a data file (.json), not a note; name it explicitly to import it",
		"docs/table.csv: a data file (.csv), not a note; name it explicitly to import it",
		"docs/translations/fr.txt: a data file (.txt), not a note; name it explicitly to import it",
	}
	if diff := cmp.Diff(wantSkips, dataSkips); diff != "" {
		t.Errorf("data files skipped (-want +got):\n%s", diff)
	}

	for _, tt := range []struct {
		file string
		kind Kind
	}{
		{"site-options.json", KindJSON},
		{"translations/fr.txt", KindText},
		{"table.csv", KindText},
		{"settings.yaml", KindText},
		{"events.jsonl", KindText},
	} {
		t.Run("named "+tt.file, func(t *testing.T) {
			res := collect(t, filepath.Join(docs, filepath.FromSlash(tt.file)), o)
			if len(res.Items) == 0 || len(res.Skips) != 0 {
				t.Fatalf("items %d, skips %+v; want it read", len(res.Items), res.Skips)
			}
			for _, it := range res.Items {
				if it.Kind != tt.kind {
					t.Errorf("%s: kind %q, want %q", it.Source, it.Kind, tt.kind)
				}
			}
		})
	}
}

// TestCollectNamedFolderUnderHidden: a folder the person names is read even
// when a folder above it is hidden — inside .claude too, where a walk of
// .claude itself reads only instructions and the auto memory — and what the
// walk leaves out inside it (hidden folders, session transcripts) is a skip
// with its reason and kind, never left out without a word.
func TestCollectNamedFolderUnderHidden(t *testing.T) {
	root := t.TempDir()
	note := "# Linter\n\nAlways run the linter before pushing to the main branch.\n"
	files := map[string]string{
		"home/.claude/projects/-home-me-app/notes.md":         note,
		"home/.claude/projects/-home-me-app/memory/MEMORY.md": note,
		"home/.claude/projects/-home-me-app/abc.jsonl":        `{"type":"user"}` + "\n",
		"home/.claude/projects/-home-me-app/.hidden/c.md":     note,
		"home/.claude/settings.json":                          "{}\n",
		"home/.local/share/notes/a.md":                        note,
		"home/.local/share/notes/.obsidian/app.json":          "{}\n",
		"home/.local/share/notes/node_modules/x/README.md":    note,
	}
	for p, c := range files {
		abs := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(abs), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(abs, []byte(c), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	home := filepath.Join(root, "home")
	tests := []struct {
		path  string
		items []string
		skips []string
		kinds []string
	}{
		{".claude/projects/-home-me-app",
			[]string{"home/.claude/projects/-home-me-app/memory/MEMORY.md", "home/.claude/projects/-home-me-app/notes.md"},
			[]string{
				"home/.claude/projects/-home-me-app/.hidden: a hidden folder: a folder import leaves hidden folders out (tools' state: .git, .obsidian, .trash); name it to import it",
				"home/.claude/projects/-home-me-app/abc.jsonl: a Claude Code session transcript, not notes: `cortex scribe run` turns transcripts into notes",
			},
			[]string{KindHiddenFolder, KindTranscript}},
		{".claude",
			[]string{"home/.claude/projects/-home-me-app/memory/MEMORY.md"},
			[]string{
				"home/.claude/projects/-home-me-app/.hidden: a hidden folder: a folder import leaves hidden folders out (tools' state: .git, .obsidian, .trash); name it to import it",
				"home/.claude/projects/-home-me-app/abc.jsonl: a Claude Code session transcript, not notes: `cortex scribe run` turns transcripts into notes",
				"home/.claude/projects/-home-me-app/notes.md: Claude Code's own file (settings, state): of a .claude folder an import reads CLAUDE.md and the auto memory (projects/*/memory); name it to import it",
				"home/.claude/settings.json: Claude Code's own file (settings, state): of a .claude folder an import reads CLAUDE.md and the auto memory (projects/*/memory); name it to import it",
			},
			[]string{KindHiddenFolder, KindTranscript, KindClaudeFile, KindClaudeFile}},
		{".local/share/notes",
			[]string{"home/.local/share/notes/a.md"},
			[]string{
				"home/.local/share/notes/.obsidian: a hidden folder: a folder import leaves hidden folders out (tools' state: .git, .obsidian, .trash); name it to import it",
				"home/.local/share/notes/node_modules: a dependency folder (node_modules), not notes; name it to import it",
			},
			[]string{KindHiddenFolder, KindDependencyFolder}},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			res := collect(t, filepath.Join(home, filepath.FromSlash(tt.path)), Options{Home: home})
			items, skips := sources(res, root)
			var sourcesOf []string
			for _, it := range items {
				sourcesOf = append(sourcesOf, strings.SplitN(it, "#", 2)[0])
			}
			if diff := cmp.Diff(tt.items, sourcesOf); diff != "" {
				t.Errorf("items (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.skips, skips); diff != "" {
				t.Errorf("skips (-want +got):\n%s", diff)
			}
			var kinds []string
			for _, s := range res.Skips {
				kinds = append(kinds, res.Kinds[s.Source])
			}
			if diff := cmp.Diff(tt.kinds, kinds); diff != "" {
				t.Errorf("kinds (-want +got):\n%s", diff)
			}
		})
	}
}

// TestCollectStartsAWorkerPerCore: the files are parsed on o.Workers
// goroutines that each take the next file, not on one goroutine per file
// (each grew a new stack in the YAML and Markdown parsers), and every file
// is read once, in order.
func TestCollectStartsAWorkerPerCore(t *testing.T) {
	root := realTempDir(t)
	files := map[string]string{}
	for i := range 300 {
		files[fmt.Sprintf("note-%03d.md", i)] = fmt.Sprintf("---\ntitle: Note %d\n---\n\nA note long enough to be a memory of its own, number %d.\n", i, i)
	}
	writeFiles(t, root, files)
	s := []metrics.Sample{{Name: "/sched/goroutines-created:goroutines"}}
	metrics.Read(s)
	before := s[0].Value.Uint64()
	res := collect(t, root, Options{Home: root, Workers: 2})
	metrics.Read(s)
	// A few more for what the runtime starts meanwhile.
	if started := s[0].Value.Uint64() - before; started > 2+4 {
		t.Errorf("%d goroutines started for 300 files on 2 workers, want at most 6", started)
	}
	if len(res.Items) != 300 {
		t.Fatalf("%d items, want 300", len(res.Items))
	}
	for i, it := range res.Items {
		if want := fmt.Sprintf("Note %d", i); it.Title != want {
			t.Errorf("item %d is %q, want %q", i, it.Title, want)
		}
	}
}

// TestJoinParsedSizesOnce: the files' items, asides and skips are joined in
// file order, each kind in one slice made at its size (joining ten thousand
// items by appending copied each several times), and a kind no file has
// stays nil.
func TestJoinParsedSizesOnce(t *testing.T) {
	var outs []parsedOut
	var want parsedOut
	for f := range 400 {
		var o parsedOut
		for k := range f % 4 {
			it := Item{Title: fmt.Sprintf("file %d item %d", f, k)}
			a := aside{hash: it.Title}
			o.items, o.asides = append(o.items, it), append(o.asides, a)
			want.items, want.asides = append(want.items, it), append(want.asides, a)
		}
		if f%7 == 0 {
			sk := Skip{Source: fmt.Sprintf("file %d", f), Reason: "unreadable"}
			o.skips, want.skips = append(o.skips, sk), append(want.skips, sk)
		}
		outs = append(outs, o)
	}
	items, asides, skips := joinParsed(outs)
	if diff := cmp.Diff(want, parsedOut{items, asides, skips}, cmp.AllowUnexported(parsedOut{}, aside{})); diff != "" {
		t.Errorf("joined (-want +got):\n%s", diff)
	}
	if cap(items) != len(items) || cap(asides) != len(asides) || cap(skips) != len(skips) {
		t.Errorf("capacities %d, %d, %d for %d items, %d asides, %d skips: want each slice made at its size",
			cap(items), cap(asides), cap(skips), len(items), len(asides), len(skips))
	}
	if !raceEnabled {
		if allocs := testing.AllocsPerRun(20, func() { joinParsed(outs) }); allocs != 3 {
			t.Errorf("%v allocations, want 3: one slice of each kind", allocs)
		}
	}
	noAsides := []parsedOut{{items: []Item{{Title: "a"}}}, {}}
	if items, asides, skips := joinParsed(noAsides); len(items) != 1 || asides != nil || skips != nil {
		t.Errorf("without asides or skips: %d items, asides %v, skips %v; want 1 item and nil", len(items), asides, skips)
	}
}

// TestReadFileAsOsReadFile: readFile gives os.ReadFile's bytes and errors,
// whatever size the walk saw (the file may have changed since).
func TestReadFileAsOsReadFile(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []int{0, 1, 511, 512, 513, 4096, 100_000} {
		p := filepath.Join(dir, fmt.Sprintf("note-%d.md", n))
		data := []byte(strings.Repeat("é and x\n", n/9+1)[:n])
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
		want, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, size := range []int64{int64(n), 0, int64(n) / 2, int64(n) + 7, -1} {
			got, err := readFile(p, size)
			if err != nil {
				t.Fatalf("%d bytes, size %d: %v", n, size, err)
			}
			if string(got) != string(want) {
				t.Errorf("%d bytes, size %d: read %d bytes, want %d", n, size, len(got), len(want))
			}
		}
	}
	for _, p := range []string{filepath.Join(dir, "missing.md"), dir} {
		_, want := os.ReadFile(p)
		_, got := readFile(p, 10)
		if want == nil || fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s: error %v, want %v", p, got, want)
		}
	}
}
