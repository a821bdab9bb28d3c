package golden

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// recorder is a testing.TB that keeps the failures of the check it runs.
type recorder struct {
	testing.TB
	errs     []string
	cleanups []func()
}

func (r *recorder) Helper()                   {}
func (r *recorder) Errorf(f string, a ...any) { r.errs = append(r.errs, fmt.Sprintf(f, a...)) }
func (r *recorder) Error(a ...any)            { r.errs = append(r.errs, fmt.Sprint(a...)) }
func (r *recorder) Fatalf(f string, a ...any) { r.Errorf(f, a...); runtime.Goexit() }
func (r *recorder) Fatal(a ...any)            { r.Error(a...); runtime.Goexit() }
func (r *recorder) Cleanup(f func())          { r.cleanups = append(r.cleanups, f) }
func (r *recorder) Failed() bool              { return len(r.errs) > 0 }

// run runs check as a test of its own, with or without -update, and returns
// its failures.
func run(t *testing.T, updating bool, check func(tb testing.TB)) []string {
	t.Helper()
	defer func(old bool) { *update = old }(*update)
	*update = updating
	r := &recorder{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		check(r)
	}()
	<-done
	for i := len(r.cleanups) - 1; i >= 0; i-- {
		r.cleanups[i]()
	}
	return r.errs
}

func read(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// failures summarises failures by their first line, for comparing.
func failures(errs []string) []string {
	var out []string
	for _, e := range errs {
		out = append(out, strings.SplitN(e, "\n", 2)[0])
	}
	return out
}

func TestCheck(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "a.golden")
	writeFile(t, path, "one\ntwo\n")
	missing := filepath.Join(dir, "sub", "new.golden")
	tests := []struct {
		name     string
		updating bool
		path     string
		got      string
		want     []string
	}{
		{"same", false, path, "one\ntwo\n", nil},
		{"differs", false, path, "one\n2\n", []string{path + " differs (-want +got):"}},
		{"missing", false, missing, "x", []string{"open " + missing + ": no such file or directory (run the tests with -update to create it)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			errs := run(t, tt.updating, func(tb testing.TB) { Check(tb, tt.path, []byte(tt.got)) })
			if diff := cmp.Diff(tt.want, failures(errs)); diff != "" {
				t.Errorf("failures (-want +got):\n%s", diff)
			}
		})
	}
	// -update writes, creating the folder, and then the check passes.
	if errs := run(t, true, func(tb testing.TB) { Check(tb, missing, []byte("new\n")) }); errs != nil {
		t.Fatal(errs)
	}
	if got := read(t, missing); got != "new\n" {
		t.Errorf("written %q", got)
	}
	if errs := run(t, false, func(tb testing.TB) { Check(tb, missing, []byte("new\n")) }); errs != nil {
		t.Errorf("after -update: %v", errs)
	}
}

func TestCheckOrAbsent(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "n.golden")
	check := func(updating bool, got string) []string {
		return failures(run(t, updating, func(tb testing.TB) { CheckOrAbsent(tb, path, []byte(got)) }))
	}
	if errs := check(false, ""); errs != nil {
		t.Errorf("nothing, no file: %v", errs)
	}
	if diff := cmp.Diff([]string{path + " differs (-want +got):"}, check(false, "x\n")); diff != "" {
		t.Errorf("something, no file (-want +got):\n%s", diff)
	}
	if errs := check(true, "x\n"); errs != nil || read(t, path) != "x\n" {
		t.Errorf("-update with something: %v", errs)
	}
	if errs := check(true, ""); errs != nil {
		t.Errorf("-update with nothing: %v", errs)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("-update with nothing left the file: %v", err)
	}
}

func TestCheckDir(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "rendered")
	writeFile(t, filepath.Join(dir, "a.md"), "a\n")
	writeFile(t, filepath.Join(dir, "sub", "b.md"), "b\n")
	check := func(updating bool, got map[string]string) []string {
		return failures(run(t, updating, func(tb testing.TB) { CheckDir(tb, dir, got) }))
	}
	if errs := check(false, map[string]string{"a.md": "a\n", "sub/b.md": "b\n"}); errs != nil {
		t.Errorf("same: %v", errs)
	}
	if diff := cmp.Diff([]string{dir + " differs (-want +got):"}, check(false, map[string]string{"a.md": "a\n"})); diff != "" {
		t.Errorf("a file fewer (-want +got):\n%s", diff)
	}
	// -update replaces the folder's content: the file no longer made goes.
	if errs := check(true, map[string]string{"a.md": "A\n", "c/d.md": "d\n"}); errs != nil {
		t.Fatal(errs)
	}
	if errs := check(false, map[string]string{"a.md": "A\n", "c/d.md": "d\n"}); errs != nil {
		t.Errorf("after -update: %v", errs)
	}
	if _, err := os.Stat(filepath.Join(dir, "sub", "b.md")); !os.IsNotExist(err) {
		t.Errorf("-update kept a file no longer made: %v", err)
	}
}

func TestArchive(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tools.txtar")
	writeFile(t, path, "-- one --\n1\n-- two --\n2\n")
	errs := run(t, false, func(tb testing.TB) {
		a := NewArchive(tb, path)
		a.Check("one", "1")
		a.Check("two", "two\n")
		a.Check("three", "3\n")
	})
	want := []string{"two of " + path + " (-want +got):", "three of " + path + " (-want +got):"}
	if diff := cmp.Diff(want, failures(errs)); diff != "" {
		t.Errorf("failures (-want +got):\n%s", diff)
	}
	// -update rewrites the archive with the sections checked, in order...
	if errs := run(t, true, func(tb testing.TB) {
		a := NewArchive(tb, path)
		a.Check("two", "2")
		a.Check("one", "1\n")
	}); errs != nil {
		t.Fatal(errs)
	}
	if got, want := read(t, path), "-- two --\n2\n-- one --\n1\n"; got != want {
		t.Errorf("archive %q, want %q", got, want)
	}
	// ...but not when the test failed.
	run(t, true, func(tb testing.TB) {
		a := NewArchive(tb, path)
		a.Check("one", "changed")
		tb.Error("the test failed")
	})
	if got, want := read(t, path), "-- two --\n2\n-- one --\n1\n"; got != want {
		t.Errorf("a failed test rewrote the archive: %q", got)
	}
}
