package vault

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// fakeKnown is what an index remembers: folders with their times and notes.
type fakeKnown struct {
	dirs  []DirStat
	files map[string][]KnownFile
}

func (k *fakeKnown) Dirs() []DirStat { return k.dirs }

func (k *fakeKnown) Files(dir string) []KnownFile { return k.files[dir] }

// remember is what an index knows after recording res, the result of a scan
// that stat'ed every note (so that Changed holds them all).
func remember(res *ScanResult) *fakeKnown {
	k := &fakeKnown{dirs: res.Dirs, files: map[string][]KnownFile{}}
	for _, f := range append(slices.Clone(res.Changed), res.Suspect...) {
		dir, name := filepath.Split(filepath.FromSlash(f.Path))
		dir = filepath.ToSlash(filepath.Clean(dir))
		if dir == "." {
			dir = ""
		}
		k.files[dir] = append(k.files[dir], KnownFile{Name: name, Size: f.Size, MTime: f.MTime})
	}
	for _, files := range k.files {
		slices.SortFunc(files, func(a, b KnownFile) int { return strings.Compare(a.Name, b.Name) })
	}
	return k
}

// The times a scan test gives files and folders: everything starts at t0; a
// change made later is stamped t1. Both are long before racyAfter, so a scan
// trusts them, unless a test says otherwise.
var (
	t0        = time.Date(2024, 1, 1, 10, 0, 0, 0, time.UTC)
	t1        = t0.Add(time.Minute)
	racyAfter = t0.Add(time.Hour).UnixNano()
)

// writeTree writes files (slash paths under root, contents) and stamps every
// file and folder under root with t0.
func writeTree(t testing.TB, root string, files map[string]string) {
	t.Helper()
	for p, content := range files {
		writeAt(t, filepath.Join(root, filepath.FromSlash(p)), content, t0)
	}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return os.Chtimes(p, t0, t0)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// writeAt writes a file, making its folders, and gives it time at.
func writeAt(t testing.TB, path, content string, at time.Time) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	stamp(t, path, at)
}

func stamp(t testing.TB, path string, at time.Time) {
	t.Helper()
	if err := os.Chtimes(path, at, at); err != nil {
		t.Fatal(err)
	}
}

// scanSummary is the part of a ScanResult the scan tests compare.
type scanSummary struct {
	Changed, Suspect, Removed, Temps []string
}

func summarize(res *ScanResult) scanSummary {
	var s scanSummary
	for _, f := range res.Changed {
		s.Changed = append(s.Changed, f.Path)
	}
	for _, f := range res.Suspect {
		s.Suspect = append(s.Suspect, f.Path)
	}
	s.Removed = res.Removed
	s.Temps = res.Temps
	return s
}

func scan(t *testing.T, root string, known Known, opts ScanOptions) *ScanResult {
	t.Helper()
	res, err := Scan(root, known, opts)
	if err != nil {
		t.Fatalf("Scan: %v", err)
	}
	for _, p := range res.Problems {
		t.Errorf("scan problem: %v", p)
	}
	return res
}

// sampleVault is a cortex folder with notes and what a scan must skip.
var sampleVault = map[string]string{
	"_index.md":                          "# Cortex memory index\n",
	"memories/api/one.md":                "one",
	"memories/api/two.md":                "two",
	"memories/web/three.md":              "three",
	"memories/web/notes.txt":             "not a note",
	"memories/web/.hidden.md":            "hidden",
	"memories/web/UPPER.MD":              "upper-case extension",
	"memories/_index.md":                 "a note that happens to have this name",
	"playbooks/deploy.md":                "not a memory",
	".obsidian/workspace.md":             "Obsidian's own",
	"memories/.trash/deleted.md":         "in a hidden folder",
	"memories/api/.two.md.cortex-tmp-ab": "left by a writer that died",
}

func TestScanFindsEverything(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, sampleVault)
	for _, known := range []Known{NoKnown{}, &fakeKnown{}} {
		res := scan(t, root, known, ScanOptions{RacyAfter: racyAfter})
		want := scanSummary{
			Changed: []string{"memories/_index.md", "memories/api/one.md", "memories/api/two.md", "memories/web/UPPER.MD", "memories/web/three.md"},
			Temps:   []string{"memories/api/.two.md.cortex-tmp-ab"},
		}
		if diff := cmp.Diff(want, summarize(res), cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
		wantDirs := []DirStat{
			{Path: "", MTime: t0.UnixNano()},
			{Path: "memories", MTime: t0.UnixNano()},
			{Path: "memories/api", MTime: t0.UnixNano()},
			{Path: "memories/web", MTime: t0.UnixNano()},
		}
		if diff := cmp.Diff(wantDirs, res.Dirs); diff != "" {
			t.Errorf("Dirs (-want +got):\n%s", diff)
		}
		if len(res.Changed) != 5 {
			t.Errorf("%d notes changed, want all 5", len(res.Changed))
		}
		for _, f := range res.Changed {
			if f.Path == "memories/api/two.md" && (f.Size != 3 || f.MTime != t0.UnixNano()) {
				t.Errorf("%s: size %d, time %d; want 3, %d", f.Path, f.Size, f.MTime, t0.UnixNano())
			}
		}
	}
}

func TestScanChanges(t *testing.T) {
	tests := []struct {
		name  string
		light bool // also scan without StatNotes, expecting wantLight
		// change alters the vault at root after the index remembered it.
		change    func(t *testing.T, root string)
		racyAfter int64 // 0: racyAfter
		want      scanSummary
		wantLight scanSummary
	}{
		{
			name: "nothing",
		},
		{
			name: "new note",
			change: func(t *testing.T, root string) {
				writeAt(t, filepath.Join(root, "memories/api/new.md"), "new", t1)
				stamp(t, filepath.Join(root, "memories/api"), t1)
			},
			want:      scanSummary{Changed: []string{"memories/api/new.md"}},
			wantLight: scanSummary{Changed: []string{"memories/api/new.md"}},
		},
		{
			name: "edited in place",
			change: func(t *testing.T, root string) {
				writeAt(t, filepath.Join(root, "memories/api/one.md"), "one, edited", t1)
				stamp(t, filepath.Join(root, "memories/api"), t0) // a folder's time does not change
			},
			want: scanSummary{Changed: []string{"memories/api/one.md"}},
		},
		{
			name: "edited in place, same size",
			change: func(t *testing.T, root string) {
				writeAt(t, filepath.Join(root, "memories/api/one.md"), "ONE", t1)
				stamp(t, filepath.Join(root, "memories/api"), t0)
			},
			want: scanSummary{Changed: []string{"memories/api/one.md"}},
		},
		{
			name: "edited in place, same size and time",
			change: func(t *testing.T, root string) {
				writeAt(t, filepath.Join(root, "memories/api/one.md"), "ONE", t0)
				stamp(t, filepath.Join(root, "memories/api"), t0)
			},
		},
		{
			name: "edited in place in a folder that changed",
			change: func(t *testing.T, root string) {
				writeAt(t, filepath.Join(root, "memories/api/one.md"), "one, edited", t1)
				writeAt(t, filepath.Join(root, "memories/api/new.md"), "new", t1)
				stamp(t, filepath.Join(root, "memories/api"), t1)
			},
			want:      scanSummary{Changed: []string{"memories/api/new.md", "memories/api/one.md"}},
			wantLight: scanSummary{Changed: []string{"memories/api/new.md"}},
		},
		{
			name: "deleted",
			change: func(t *testing.T, root string) {
				remove(t, filepath.Join(root, "memories/web/three.md"))
				stamp(t, filepath.Join(root, "memories/web"), t1)
			},
			want:      scanSummary{Removed: []string{"memories/web/three.md"}},
			wantLight: scanSummary{Removed: []string{"memories/web/three.md"}},
		},
		{
			name: "deleted, folder time unchanged",
			change: func(t *testing.T, root string) {
				remove(t, filepath.Join(root, "memories/web/three.md"))
				stamp(t, filepath.Join(root, "memories/web"), t0)
			},
			want: scanSummary{Removed: []string{"memories/web/three.md"}},
		},
		{
			name: "renamed",
			change: func(t *testing.T, root string) {
				rename(t, filepath.Join(root, "memories/api/one.md"), filepath.Join(root, "memories/api/uno.md"))
				stamp(t, filepath.Join(root, "memories/api"), t1)
			},
			want:      scanSummary{Changed: []string{"memories/api/uno.md"}, Removed: []string{"memories/api/one.md"}},
			wantLight: scanSummary{Changed: []string{"memories/api/uno.md"}, Removed: []string{"memories/api/one.md"}},
		},
		{
			name: "moved to another folder",
			change: func(t *testing.T, root string) {
				rename(t, filepath.Join(root, "memories/api/two.md"), filepath.Join(root, "memories/web/two.md"))
				stamp(t, filepath.Join(root, "memories/api"), t1)
				stamp(t, filepath.Join(root, "memories/web"), t1)
			},
			want:      scanSummary{Changed: []string{"memories/web/two.md"}, Removed: []string{"memories/api/two.md"}},
			wantLight: scanSummary{Changed: []string{"memories/web/two.md"}, Removed: []string{"memories/api/two.md"}},
		},
		{
			name: "new folder",
			change: func(t *testing.T, root string) {
				writeAt(t, filepath.Join(root, "memories/docs/four.md"), "four", t1)
				writeAt(t, filepath.Join(root, "memories/docs/deep/five.md"), "five", t1)
				stamp(t, filepath.Join(root, "memories/docs/deep"), t1)
				stamp(t, filepath.Join(root, "memories/docs"), t1)
				stamp(t, filepath.Join(root, "memories"), t1)
			},
			want:      scanSummary{Changed: []string{"memories/docs/deep/five.md", "memories/docs/four.md"}},
			wantLight: scanSummary{Changed: []string{"memories/docs/deep/five.md", "memories/docs/four.md"}},
		},
		{
			name: "new folder deep down, folders above unchanged",
			change: func(t *testing.T, root string) {
				writeAt(t, filepath.Join(root, "memories/api/sub/six.md"), "six", t1)
				stamp(t, filepath.Join(root, "memories/api/sub"), t1)
				stamp(t, filepath.Join(root, "memories/api"), t1)
				stamp(t, filepath.Join(root, "memories"), t0)
				stamp(t, root, t0)
			},
			want:      scanSummary{Changed: []string{"memories/api/sub/six.md"}},
			wantLight: scanSummary{Changed: []string{"memories/api/sub/six.md"}},
		},
		{
			name: "folder removed",
			change: func(t *testing.T, root string) {
				if err := os.RemoveAll(filepath.Join(root, "memories/web")); err != nil {
					t.Fatal(err)
				}
				stamp(t, filepath.Join(root, "memories"), t1)
			},
			want:      scanSummary{Removed: []string{"memories/web/UPPER.MD", "memories/web/three.md"}},
			wantLight: scanSummary{Removed: []string{"memories/web/UPPER.MD", "memories/web/three.md"}},
		},
		{
			name: "folder replaced by a file",
			change: func(t *testing.T, root string) {
				if err := os.RemoveAll(filepath.Join(root, "memories/web")); err != nil {
					t.Fatal(err)
				}
				writeAt(t, filepath.Join(root, "memories/web"), "a file now", t1)
				stamp(t, filepath.Join(root, "memories"), t1)
			},
			want:      scanSummary{Removed: []string{"memories/web/UPPER.MD", "memories/web/three.md"}},
			wantLight: scanSummary{Removed: []string{"memories/web/UPPER.MD", "memories/web/three.md"}},
		},
		{
			name: "temporary file",
			change: func(t *testing.T, root string) {
				writeAt(t, filepath.Join(root, "memories/web/.three.md.cortex-tmp-0123456789ab"), "half", t1)
				stamp(t, filepath.Join(root, "memories/web"), t1)
			},
			want:      scanSummary{Temps: []string{"memories/web/.three.md.cortex-tmp-0123456789ab"}},
			wantLight: scanSummary{Temps: []string{"memories/web/.three.md.cortex-tmp-0123456789ab"}},
		},
		{
			name: "skipped: hidden, playbooks, the map, not markdown",
			change: func(t *testing.T, root string) {
				for _, p := range []string{
					"memories/web/.new-hidden.md", ".obsidian/plugins/x.md", "memories/.trash/gone.md",
					"playbooks/new.md", "playbooks/deep/new.md", "_index.md", "memories/web/new.txt",
					".cortex-tmp-no-leading-name",
				} {
					writeAt(t, filepath.Join(root, p), "x", t1)
				}
				for _, d := range []string{"", "memories", "memories/web", ".obsidian", "playbooks", "memories/.trash"} {
					stamp(t, filepath.Join(root, d), t1)
				}
			},
			want:      scanSummary{Temps: []string{".cortex-tmp-no-leading-name"}},
			wantLight: scanSummary{Temps: []string{".cortex-tmp-no-leading-name"}},
		},
		{
			name: "racy folder is read again although its time matches",
			change: func(t *testing.T, root string) {
				writeAt(t, filepath.Join(root, "memories/api/new.md"), "new", t0)
				stamp(t, filepath.Join(root, "memories/api"), t0)
			},
			racyAfter: t0.UnixNano(),
			// Every note was written at t0, so in full mode each is suspect.
			want:      scanSummary{Changed: []string{"memories/api/new.md"}, Suspect: []string{"memories/_index.md", "memories/api/one.md", "memories/api/two.md", "memories/web/UPPER.MD", "memories/web/three.md"}},
			wantLight: scanSummary{Changed: []string{"memories/api/new.md"}},
		},
		{
			name: "a folder whose time matches is trusted",
			change: func(t *testing.T, root string) {
				writeAt(t, filepath.Join(root, "memories/api/new.md"), "new", t0)
				stamp(t, filepath.Join(root, "memories/api"), t0)
			},
			// The light scan cannot see the note; the full one reads the
			// folder's notes it knows, not new ones.
		},
		{
			name: "racy note with matching size and time is suspect",
			change: func(t *testing.T, root string) {
				writeAt(t, filepath.Join(root, "memories/api/one.md"), "ONE", t0)
			},
			racyAfter: t0.UnixNano(),
			want:      scanSummary{Suspect: []string{"memories/_index.md", "memories/api/one.md", "memories/api/two.md", "memories/web/UPPER.MD", "memories/web/three.md"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			writeTree(t, root, sampleVault)
			known := remember(scan(t, root, NoKnown{}, ScanOptions{StatNotes: true, RacyAfter: racyAfter}))
			if tt.change != nil {
				tt.change(t, root)
			}
			racy := racyAfter
			if tt.racyAfter != 0 {
				racy = tt.racyAfter
			}
			wantTemps := []string{"memories/api/.two.md.cortex-tmp-ab"}
			for _, mode := range []struct {
				statNotes bool
				want      scanSummary
			}{{true, tt.want}, {false, tt.wantLight}} {
				res := scan(t, root, known, ScanOptions{StatNotes: mode.statNotes, RacyAfter: racy})
				got := summarize(res)
				// The leftover temporary file of the sample is reported by
				// the scans that read its folder; these tests are about
				// the rest.
				got.Temps = slices.DeleteFunc(got.Temps, func(p string) bool { return slices.Contains(wantTemps, p) })
				if diff := cmp.Diff(mode.want, got, cmpopts.EquateEmpty()); diff != "" {
					t.Errorf("StatNotes=%v (-want +got):\n%s", mode.statNotes, diff)
				}
				if mode.statNotes && tt.want.Changed == nil && tt.want.Removed == nil && tt.want.Suspect == nil && !res.Clean() {
					t.Errorf("StatNotes=%v: Clean() = false for %+v", mode.statNotes, got)
				}
			}
		})
	}
}

func remove(t *testing.T, path string) {
	t.Helper()
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
}

func rename(t *testing.T, from, to string) {
	t.Helper()
	if err := os.Rename(from, to); err != nil {
		t.Fatal(err)
	}
}

// TestScanUnsettled: a folder read again because of its time counts as
// unsettled; one that is trusted does not.
func TestScanUnsettled(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, map[string]string{"memories/api/one.md": "one"})
	known := remember(scan(t, root, NoKnown{}, ScanOptions{StatNotes: true, RacyAfter: racyAfter}))
	if res := scan(t, root, known, ScanOptions{RacyAfter: racyAfter}); res.Unsettled != 0 {
		t.Errorf("settled vault: Unsettled = %d, want 0", res.Unsettled)
	}
	if res := scan(t, root, known, ScanOptions{RacyAfter: t0.UnixNano()}); res.Unsettled != 3 {
		t.Errorf("racy vault: Unsettled = %d, want 3 (every folder)", res.Unsettled)
	}
}

func TestScanMissingRoot(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, map[string]string{"memories/api/one.md": "one", "memories/web/two.md": "two"})
	known := remember(scan(t, root, NoKnown{}, ScanOptions{StatNotes: true, RacyAfter: racyAfter}))
	if err := os.RemoveAll(root); err != nil {
		t.Fatal(err)
	}
	for _, statNotes := range []bool{true, false} {
		res := scan(t, root, known, ScanOptions{StatNotes: statNotes, RacyAfter: racyAfter})
		want := scanSummary{Removed: []string{"memories/api/one.md", "memories/web/two.md"}}
		if diff := cmp.Diff(want, summarize(res), cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("StatNotes=%v (-want +got):\n%s", statNotes, diff)
		}
	}
	res := scan(t, root, NoKnown{}, ScanOptions{StatNotes: true})
	if !res.Clean() || len(res.Dirs) != 0 {
		t.Errorf("a missing vault unknown to the index: %+v, want an empty result", res)
	}
}

func TestScanUnreadableFolder(t *testing.T) {
	if runtime.GOOS == "windows" || os.Geteuid() == 0 {
		t.Skip("needs a folder the test cannot read")
	}
	root := t.TempDir()
	writeTree(t, root, map[string]string{"memories/api/one.md": "one", "memories/web/two.md": "two"})
	locked := filepath.Join(root, "memories/web")
	if err := os.Chmod(locked, 0); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(locked, 0o755) })
	res, err := Scan(root, NoKnown{}, ScanOptions{StatNotes: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Problems) != 1 || !errors.Is(res.Problems[0], fs.ErrPermission) {
		t.Errorf("Problems = %v, want one permission error", res.Problems)
	}
	if got := summarize(res).Changed; !slices.Equal(got, []string{"memories/api/one.md"}) {
		t.Errorf("Changed = %q, want the readable note", got)
	}
}

// TestScanSymlinks: a link to a note is a note; a link to anything else, or to
// nothing, is not.
func TestScanSymlinks(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symbolic links need privileges on Windows")
	}
	root := t.TempDir()
	writeTree(t, root, map[string]string{"memories/api/one.md": "one", "outside/target.md": "linked"})
	for link, target := range map[string]string{
		"memories/api/link.md":     filepath.Join(root, "outside/target.md"),
		"memories/api/dangling.md": filepath.Join(root, "nowhere.md"),
		"memories/api/folder.md":   filepath.Join(root, "outside"),
	} {
		if err := os.Symlink(target, filepath.Join(root, link)); err != nil {
			t.Fatal(err)
		}
	}
	res := scan(t, root, NoKnown{}, ScanOptions{StatNotes: true, RacyAfter: racyAfter})
	want := []string{"memories/api/link.md", "memories/api/one.md", "outside/target.md"}
	if diff := cmp.Diff(want, summarize(res).Changed); diff != "" {
		t.Errorf("Changed (-want +got):\n%s", diff)
	}
}

func TestVaultScan(t *testing.T) {
	root := t.TempDir()
	v, err := New(root, "cortex")
	if err != nil {
		t.Fatal(err)
	}
	writeTree(t, root, map[string]string{"cortex/memories/api/one.md": "one", "elsewhere/not-ours.md": "x"})
	res, err := v.Scan(NoKnown{}, ScanOptions{StatNotes: true})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"memories/api/one.md"}, summarize(res).Changed); diff != "" {
		t.Errorf("Changed (-want +got):\n%s", diff)
	}
}

// BenchmarkScanChangedFolder is the scan a save makes after another: one
// folder of 1,000 known notes whose time changed (the last save wrote a
// note into it), so it is listed and its names compared with the known
// ones, and the other folders trusted on their time.
func BenchmarkScanChangedFolder(b *testing.B) {
	root, known := listedFolder(b, 1000)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		res, err := Scan(root, known, ScanOptions{})
		if err != nil || !res.Clean() {
			b.Fatalf("scan: %v, %+v", err, res)
		}
	}
}

// listedFolder is a cortex folder whose folder memories/webapp holds n
// notes, and what an index knows of it after the last save wrote there:
// every note, with the folder's time since changed, so that a scan lists it.
func listedFolder(tb testing.TB, n int) (string, *fakeKnown) {
	tb.Helper()
	root := tb.TempDir()
	dir := filepath.Join(root, "memories", "webapp")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		tb.Fatal(err)
	}
	for i := range n {
		name := fmt.Sprintf("2026-10-%02d-a-memory-of-the-webapp-number-%04d.md", 1+i%28, i)
		if err := os.WriteFile(filepath.Join(dir, name), []byte("note"), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	res, err := Scan(root, NoKnown{}, ScanOptions{StatNotes: true})
	if err != nil {
		tb.Fatal(err)
	}
	known := remember(res)
	for i := range known.dirs {
		if known.dirs[i].Path == "memories/webapp" {
			known.dirs[i].MTime-- // changed since: listed again
		}
	}
	return root, known
}

// A save lists the folder the last save wrote to: comparing its hundreds of
// names with the known ones must not allocate for each of them (a map of
// the known names and every note's path did: 1,095 allocations for 1,000
// notes).
func TestScanListsAFolderWithFewAllocations(t *testing.T) {
	root, known := listedFolder(t, 1000)
	allocs := testing.AllocsPerRun(20, func() {
		res, err := Scan(root, known, ScanOptions{})
		if err != nil || !res.Clean() {
			t.Fatalf("scan: %v, %+v", err, res)
		}
	})
	if allocs > 200 {
		t.Errorf("a scan listing 1,000 known notes made %.0f allocations, want at most 200", allocs)
	}
}

// Known promises its notes sorted by name; notes given in another order are
// still all found, and the missing and new ones told apart.
func TestScanKnownNotSorted(t *testing.T) {
	root, known := listedFolder(t, 50)
	files := known.files["memories/webapp"]
	slices.Reverse(files)
	gone := files[10].Name
	if err := os.Remove(filepath.Join(root, "memories", "webapp", gone)); err != nil {
		t.Fatal(err)
	}
	writeAt(t, filepath.Join(root, "memories", "webapp", "new.md"), "new", t1)
	got := summarize(scan(t, root, known, ScanOptions{}))
	want := scanSummary{Changed: []string{"memories/webapp/new.md"}, Removed: []string{"memories/webapp/" + gone}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("scan (-want +got):\n%s", diff)
	}
}

// TestKnownNamesFind: a folder's known notes are found by hash at their
// positions, in any order, the first of a name given twice; names not
// known, and any name in a folder of none, are not.
func TestKnownNamesFind(t *testing.T) {
	many := make([]KnownFile, 3000)
	for i := range many {
		many[i] = KnownFile{Name: fmt.Sprintf("note-%05d.md", (i*7919)%3000)}
	}
	for _, tc := range []struct {
		name  string
		files []KnownFile
		ask   map[string]int
	}{
		{"none", nil, map[string]int{"a.md": -1, "": -1}},
		{"sorted", []KnownFile{{Name: "a.md"}, {Name: "b.md"}, {Name: "c.md"}}, map[string]int{"a.md": 0, "c.md": 2, "d.md": -1, "A.md": -1}},
		{"unsorted, a name twice", []KnownFile{{Name: "z.md"}, {Name: "b.md"}, {Name: "z.md"}, {Name: "a.md"}}, map[string]int{"z.md": 0, "a.md": 3, "b.md": 1, "y.md": -1}},
		{"thousands", many, map[string]int{many[0].Name: 0, many[1234].Name: 1234, many[2999].Name: 2999, "note-03000.md": -1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k := newKnownNames(tc.files)
			for name, want := range tc.ask {
				if got := k.find(name); got != want {
					t.Errorf("find(%q) = %d, want %d", name, got, want)
				}
			}
			for i, f := range tc.files {
				if got := k.find(f.Name); got != i && tc.files[got].Name != f.Name {
					t.Errorf("find(%q) = %d, want %d", f.Name, got, i)
				}
			}
		})
	}
}

// notesKnown is a fakeKnown that tells one note without listing its
// folder (KnownNotes), and counts the folders it was asked to list.
type notesKnown struct {
	*fakeKnown
	mu     sync.Mutex // Scan lists folders on several goroutines
	listed map[string]int
}

func (k *notesKnown) Files(dir string) []KnownFile {
	k.mu.Lock()
	k.listed[dir]++
	k.mu.Unlock()
	return k.fakeKnown.Files(dir)
}

func (k *notesKnown) KnowsNote(p string) bool {
	dir, name := path.Split(p)
	_, ok := slices.BinarySearchFunc(k.fakeKnown.Files(strings.TrimSuffix(dir, "/")), name, func(f KnownFile, n string) int { return strings.Compare(f.Name, n) })
	return ok
}

// TestUnchangedAsksNotesOneByOne: a folder whose time changed is offered
// to ScanOptions.Unchanged with a question per name, answered by a
// KnownNotes without listing the folder's notes (a project folder holds
// thousands, and a resident writer asks at every save); any other Known
// gives the same answers from the folder's listing. StatNotes lists it,
// to stat what it holds.
func TestUnchangedAsksNotesOneByOne(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, map[string]string{"memories/api/one.md": "one", "memories/api/two.md": "two"})
	full, err := Scan(root, NoKnown{}, ScanOptions{RacyAfter: racyAfter, StatNotes: true})
	if err != nil {
		t.Fatal(err)
	}
	plain := remember(full)
	writeAt(t, filepath.Join(root, "memories/api/three.md"), "three", t1)
	stamp(t, filepath.Join(root, "memories/api"), t1)
	for _, c := range []struct {
		name  string
		known func() (Known, map[string]int)
		stat  bool
		lists int
	}{
		{"notes known one by one", func() (Known, map[string]int) {
			k := &notesKnown{fakeKnown: plain, listed: map[string]int{}}
			return k, k.listed
		}, false, 0},
		{"notes known one by one, every note stat'ed", func() (Known, map[string]int) {
			k := &notesKnown{fakeKnown: plain, listed: map[string]int{}}
			return k, k.listed
		}, true, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			k, listed := c.known()
			var answers []bool
			opts := ScanOptions{RacyAfter: racyAfter, StatNotes: c.stat, Unchanged: func(rel string, known func(string) bool) bool {
				if rel != "memories/api" {
					return false
				}
				answers = append(answers, known("one.md"), known("two.md"), known("three.md"))
				return true
			}}
			res, err := Scan(root, k, opts)
			if err != nil {
				t.Fatal(err)
			}
			if want := []bool{true, true, false}; !slices.Equal(answers, want) {
				t.Errorf("known answered %v, want %v", answers, want)
			}
			if listed["memories/api"] != c.lists {
				t.Errorf("the folder's notes were listed %d times, want %d", listed["memories/api"], c.lists)
			}
			if slices.Contains(res.Read, "memories/api") {
				t.Error("a folder Unchanged vouched for was read")
			}
		})
	}
	// A Known that cannot tell one note answers from the listing.
	var answers []bool
	_, err = Scan(root, plain, ScanOptions{RacyAfter: racyAfter, Unchanged: func(rel string, known func(string) bool) bool {
		if rel == "memories/api" {
			answers = append(answers, known("one.md"), known("two.md"), known("three.md"), known("zzz.md"))
		}
		return false
	}})
	if err != nil {
		t.Fatal(err)
	}
	if want := []bool{true, true, false, false}; !slices.Equal(answers, want) {
		t.Errorf("from the listing, known answered %v, want %v", answers, want)
	}
}

// A vault with more folders than one goroutine checks (see dirsPerChecker)
// shares them out: every change in any of them is still found, once, with
// each folder listed in Dirs once.
func TestScanManyFolders(t *testing.T) {
	const n = 3*dirsPerChecker + 5
	root := t.TempDir()
	files := map[string]string{}
	for i := range n {
		files[fmt.Sprintf("memories/p%03d/note.md", i)] = "note"
	}
	writeTree(t, root, files)
	known := remember(scan(t, root, NoKnown{}, ScanOptions{RacyAfter: racyAfter, StatNotes: true}))
	var want scanSummary
	for _, i := range []int{0, dirsPerChecker, 2*dirsPerChecker + 1, n - 1} {
		dir := filepath.Join(root, "memories", fmt.Sprintf("p%03d", i))
		writeAt(t, filepath.Join(dir, "new.md"), "new", t1)
		stamp(t, dir, t1)
		want.Changed = append(want.Changed, fmt.Sprintf("memories/p%03d/new.md", i))
	}
	gone := fmt.Sprintf("memories/p%03d", dirsPerChecker+7)
	if err := os.RemoveAll(filepath.Join(root, gone)); err != nil {
		t.Fatal(err)
	}
	stamp(t, filepath.Join(root, "memories"), t1)
	want.Removed = []string{gone + "/note.md"}
	for range 3 {
		res := scan(t, root, known, ScanOptions{RacyAfter: racyAfter})
		if diff := cmp.Diff(want, summarize(res), cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
		if len(res.Dirs) != n+1 { // the root and memories, less the one removed
			t.Errorf("%d folders in Dirs, want %d", len(res.Dirs), n+1)
		}
		for i := 1; i < len(res.Dirs); i++ {
			if res.Dirs[i-1].Path >= res.Dirs[i].Path {
				t.Errorf("Dirs not sorted or repeated at %q, %q", res.Dirs[i-1].Path, res.Dirs[i].Path)
			}
		}
	}
}

// BenchmarkScanUnchangedFolders is the check a resident store makes before
// every read: 28 known folders, none changed, so each is one stat.
func BenchmarkScanUnchangedFolders(b *testing.B) {
	root := b.TempDir()
	files := map[string]string{}
	for p := range 26 {
		files[fmt.Sprintf("memories/project-%02d/note.md", p)] = "note"
	}
	writeTree(b, root, files)
	opts := ScanOptions{RacyAfter: racyAfter}
	res, err := Scan(root, NoKnown{}, ScanOptions{RacyAfter: racyAfter, StatNotes: true})
	if err != nil {
		b.Fatal(err)
	}
	known := remember(res)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		res, err := Scan(root, known, opts)
		if err != nil || !res.Clean() || len(res.Dirs) != 28 || len(res.Read) != 0 {
			b.Fatalf("scan: %v, %+v", err, res)
		}
	}
}

// TestRacyTimes: a time before RacyAfter is trusted; one at or after it is
// not, unless it is a fine time (not whole milliseconds) before
// FineRacyAfter on a folder that keeps fine times — and only then is the
// folder asked.
func TestRacyTimes(t *testing.T) {
	const ms = int64(time.Millisecond)
	o := ScanOptions{RacyAfter: 1000 * ms, FineRacyAfter: 1990 * ms}
	for _, tt := range []struct {
		name       string
		mtime      int64
		fine       bool
		want, asks bool
	}{
		{"before the margin", 999*ms + 7, false, false, false},
		{"fine, before the fine margin", 1500*ms + 7, true, false, true},
		{"fine time on a coarse folder", 1500*ms + 7, false, true, true},
		{"whole milliseconds", 1500 * ms, true, true, false},
		{"within the fine margin", 1995*ms + 7, true, true, false},
	} {
		asked := false
		got := o.Racy(tt.mtime, func() bool { asked = true; return tt.fine })
		if got != tt.want || asked != tt.asks {
			t.Errorf("%s: Racy = %v (folder asked: %v); want %v (%v)", tt.name, got, asked, tt.want, tt.asks)
		}
	}
	// Without a fine margin (zero), every time from RacyAfter on is racy.
	if !(ScanOptions{RacyAfter: 1000 * ms}).Racy(1500*ms+7, func() bool { return true }) {
		t.Error("no FineRacyAfter: a fine time after RacyAfter is trusted; want racy")
	}
}
