package transcript

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestAddRoot: a folder is walked once, however many paths reach it; a
// missing folder, a file and a repeat are skipped with their reasons.
func TestAddRoot(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "real")
	if err := os.Mkdir(real, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(real, filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "file"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	d := NewDiscovery(ClaudeCode)
	var walked []string
	walk := func(p string) { walked = append(walked, p) }
	for _, name := range []string{"real", "link", "missing", "file"} {
		d.AddRoot(Root{Path: filepath.Join(dir, name), From: "default"}, walk)
	}
	d.Sort()
	if diff := cmp.Diff([]string{real}, walked); diff != "" {
		t.Errorf("walked (-want +got):\n%s", diff)
	}
	want := []Skip{
		{filepath.Join(dir, "file"), "not a folder"},
		{filepath.Join(dir, "link"), "the same folder as " + real},
		{filepath.Join(dir, "missing"), "no such folder"},
	}
	if diff := cmp.Diff(want, d.Skipped); diff != "" {
		t.Errorf("skipped (-want +got):\n%s", diff)
	}
	if len(d.Roots) != 4 || !d.Roots[0].Exists || d.Roots[1].Exists || d.Roots[2].Exists {
		t.Errorf("roots: %+v", d.Roots)
	}
}

// TestAddFile: a regular file with something in it is found; anything else
// is skipped with its reason — a symbolic link too, even to a transcript
// (discovery does not follow links, whichever adapter walks).
func TestAddFile(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	full := write("s1.jsonl", "{}\n")
	empty := write("empty.jsonl", "")
	link := filepath.Join(dir, "link.jsonl")
	if err := os.Symlink(full, link); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(dir, "folder.jsonl")
	if err := os.Mkdir(sub, 0o700); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "missing.jsonl")

	d := NewDiscovery(Codex)
	d.AddFile(full, "s1", RoleSession)
	d.AddFile(empty, "", RoleSession)
	d.AddFile(link, "s1", RoleSession)
	d.AddFile(sub, "", RoleSubagent)
	d.AddFile(missing, "", RoleSession)
	d.Sort()
	if diff := cmp.Diff([]Found{{Path: full, Session: "s1", Role: RoleSession, Size: 3}}, d.Files); diff != "" {
		t.Errorf("files (-want +got):\n%s", diff)
	}
	var got []string
	for _, s := range d.Skipped {
		got = append(got, filepath.Base(s.Path)+": "+strings.ReplaceAll(s.Reason, dir, "$DIR"))
	}
	want := []string{
		"empty.jsonl: empty",
		"folder.jsonl: not a regular file",
		"link.jsonl: symbolic link, not followed",
		"missing.jsonl: lstat $DIR/missing.jsonl: no such file or directory",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("skipped (-want +got):\n%s", diff)
	}
}

// TestWalkFiles: every file below a folder, at any depth, in order; links
// to files and to folders are skipped with the reason, not followed; the
// folder walked may itself be reached through a link.
func TestWalkFiles(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"real/b.jsonl", "real/a/2.jsonl", "real/a/1.jsonl", "elsewhere/x.jsonl"} {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("{}\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for link, target := range map[string]string{"real/to-folder": "elsewhere", "real/a/to-file.jsonl": "elsewhere/x.jsonl", "root": "real"} {
		if err := os.Symlink(filepath.Join(dir, target), filepath.Join(dir, link)); err != nil {
			t.Fatal(err)
		}
	}
	d := NewDiscovery(Codex)
	var files []string
	d.WalkFiles(filepath.Join(dir, "root"), func(path string) {
		rel, _ := filepath.Rel(dir, path)
		files = append(files, rel)
	})
	if diff := cmp.Diff([]string{"root/a/1.jsonl", "root/a/2.jsonl", "root/b.jsonl"}, files); diff != "" {
		t.Errorf("files (-want +got):\n%s", diff)
	}
	want := []Skip{
		{filepath.Join(dir, "root", "a", "to-file.jsonl"), "symbolic link, not followed"},
		{filepath.Join(dir, "root", "to-folder"), "symbolic link, not followed"},
	}
	d.Sort()
	if diff := cmp.Diff(want, d.Skipped); diff != "" {
		t.Errorf("skipped (-want +got):\n%s", diff)
	}
	d = NewDiscovery(Codex)
	d.WalkFiles(filepath.Join(dir, "missing"), func(string) { t.Error("a file in a missing folder") })
	if len(d.Skipped) != 1 || d.Skipped[0].Path != filepath.Join(dir, "missing") {
		t.Errorf("a missing folder: %+v", d.Skipped)
	}
}
