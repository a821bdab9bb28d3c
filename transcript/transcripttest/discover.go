package transcripttest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cortexmem/cortex/transcript"
)

// WriteFile writes content to the file rel (with "/") below root, creating
// its folders: a tool's tree for a discovery test.
func WriteFile(t testing.TB, root, rel, content string) {
	t.Helper()
	p := filepath.Join(root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Symlink makes the link rel below root point at target (below root too),
// creating the link's folder.
func Symlink(t testing.TB, root, target, rel string) {
	t.Helper()
	p := filepath.Join(root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(root, filepath.FromSlash(target)), p); err != nil {
		t.Fatal(err)
	}
}

// Env is the environment of a discovery: home as the home folder, vars as
// the variables (none when nil).
func Env(home string, vars map[string]string) transcript.Env {
	return transcript.Env{Home: home, Getenv: func(k string) string { return vars[k] }}
}

// Listed is what d found and skipped, as lines with paths relative to base
// (and base left out of the reasons), to compare with a test's want: files
// as "<path> <role> <session>", skips as "<path>: <reason>".
func Listed(d transcript.Discovery, base string) (files, skipped []string) {
	for _, f := range d.Files {
		r, _ := filepath.Rel(base, f.Path)
		files = append(files, filepath.ToSlash(r)+" "+f.Role+" "+f.Session)
	}
	for _, s := range d.Skipped {
		r, _ := filepath.Rel(base, s.Path)
		skipped = append(skipped, filepath.ToSlash(r)+": "+strings.ReplaceAll(s.Reason, base+string(filepath.Separator), ""))
	}
	return files, skipped
}
