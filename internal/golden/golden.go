// Package golden compares what a test produced with the golden file that
// holds what it should produce, or, when the tests run with -update
// (go test ./pkg -update), writes the file instead. The -update flag is
// registered here, once for every package whose tests import golden.
//
// Golden files are compared byte for byte and shown as a diff of text; the
// test normalises unstable values (temp paths, times) before it checks.
package golden

import (
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/rogpeppe/go-internal/txtar"
)

var update = flag.Bool("update", false, "rewrite the golden files with what the tests produce")

// Update reports whether the tests run with -update: a test that keeps its
// expected output in a form of its own (testscript's scripts) rewrites it
// then.
func Update() bool { return *update }

// Check compares got with the file at path; with -update it writes got
// there instead, creating the folder.
func Check(t testing.TB, path string, got []byte) {
	t.Helper()
	if *update {
		write(t, path, got)
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run the tests with -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s differs (-want +got):\n%s", path, diff)
	}
}

// CheckOrAbsent is Check where producing nothing is kept as no file: a
// missing file expects nothing, and -update removes the file when got is
// empty.
func CheckOrAbsent(t testing.TB, path string, got []byte) {
	t.Helper()
	if *update {
		if len(got) == 0 {
			if err := os.Remove(path); err != nil && !os.IsNotExist(err) {
				t.Fatal(err)
			}
			return
		}
		write(t, path, got)
		return
	}
	want, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s differs (-want +got):\n%s", path, diff)
	}
}

// CheckDir compares the files below dir with got (their contents by path
// relative to dir, with "/"); with -update it replaces dir's content with
// got instead.
func CheckDir(t testing.TB, dir string, got map[string]string) {
	t.Helper()
	if *update {
		if err := os.RemoveAll(dir); err != nil {
			t.Fatal(err)
		}
		for rel, text := range got {
			write(t, filepath.Join(dir, filepath.FromSlash(rel)), []byte(text))
		}
		return
	}
	want := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		want[filepath.ToSlash(rel)] = string(data)
		return nil
	})
	if err != nil {
		t.Fatalf("%v (run the tests with -update to create it)", err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("%s differs (-want +got):\n%s", dir, diff)
	}
}

// Archive is a golden txtar archive: one file of named sections, each
// checked on its own. With -update the archive is rewritten, with the
// sections in the order they were checked, when the test ends without
// failing.
type Archive struct {
	t    testing.TB
	path string
	want map[string]string
	got  []txtar.File
}

// NewArchive reads the archive at path for t.
func NewArchive(t testing.TB, path string) *Archive {
	t.Helper()
	a := &Archive{t: t, path: path, want: map[string]string{}}
	if data, err := os.ReadFile(path); err == nil {
		for _, f := range txtar.Parse(data).Files {
			a.want[f.Name] = string(f.Data)
		}
	} else if !*update {
		t.Fatalf("%v (run the tests with -update to create it)", err)
	}
	t.Cleanup(a.write)
	return a
}

// Check compares got (a final newline added when it has none) with the
// section name.
func (a *Archive) Check(name, got string) {
	a.t.Helper()
	if len(got) == 0 || got[len(got)-1] != '\n' {
		got += "\n"
	}
	a.got = append(a.got, txtar.File{Name: name, Data: []byte(got)})
	if *update {
		return
	}
	if diff := cmp.Diff(a.want[name], got); diff != "" {
		a.t.Errorf("%s of %s (-want +got):\n%s", name, a.path, diff)
	}
}

func (a *Archive) write() {
	if !*update || a.t.Failed() {
		return
	}
	if err := os.WriteFile(a.path, txtar.Format(&txtar.Archive{Files: a.got}), 0o644); err != nil {
		a.t.Error(err)
	}
}

func write(t testing.TB, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}
