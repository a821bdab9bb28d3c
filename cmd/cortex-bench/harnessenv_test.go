package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// treeOf is every entry under root: its kind, mode, modification time and
// bytes (or link target).
func treeOf(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		info, err := os.Lstat(p)
		if err != nil {
			return err
		}
		v := info.Mode().String() + " " + info.ModTime().UTC().Format(time.RFC3339Nano)
		switch {
		case info.Mode()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			v += " -> " + target
		case info.Mode().IsRegular():
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			v += " " + string(b)
		}
		out[rel] = v
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestHarnessEnvCopiesTheState: the in-process rows' copy of a state
// folder is the folder: the same entries, bytes, modes and modification
// times (an index whose files look changed would be read again), folders'
// times included; the vault is the binary's own.
func TestHarnessEnvCopiesTheState(t *testing.T) {
	tmp := t.TempDir()
	src := filepath.Join(tmp, "state-after")
	old := time.Date(2024, 5, 6, 7, 8, 9, 123456789, time.UTC)
	if err := os.MkdirAll(filepath.Join(src, "vaults/abc/index/gen-1/bleve"), 0o700); err != nil {
		t.Fatal(err)
	}
	files := map[string]fs.FileMode{
		"access.log": 0o600, "vaults/abc/catalog": 0o644, "vaults/abc/index/gen-1/bleve/000001.zap": 0o400, "none.yaml": 0o600,
	}
	for f, mode := range files {
		p := filepath.Join(src, f)
		if err := os.WriteFile(p, []byte("bytes of "+f), mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, old, old); err != nil {
			t.Fatal(err)
		}
		old = old.Add(time.Hour)
	}
	if err := os.Symlink("gen-1", filepath.Join(src, "vaults/abc/index/current")); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{"vaults/abc/index/gen-1/bleve", "vaults/abc", "."} {
		if err := os.Chtimes(filepath.Join(src, d), old, old); err != nil {
			t.Fatal(err)
		}
		old = old.Add(time.Minute)
	}
	e := &env{bin: "/bin/cortex", vault: filepath.Join(tmp, "vault-after"), home: src, name: "after"}
	for range 2 { // a second copy replaces the first
		he, err := harnessEnv(e)
		if err != nil {
			t.Fatal(err)
		}
		if he.home == e.home || he.vault != e.vault || he.bin != e.bin {
			t.Fatalf("harness env %+v of %+v: want its own state folder and the binary's vault", he, e)
		}
		if diff := cmp.Diff(treeOf(t, src), treeOf(t, he.home)); diff != "" {
			t.Errorf("copy (-state +copy):\n%s", diff)
		}
	}
}

// TestHarnessEnvWithoutState: a state folder that cannot be copied stops
// the run with an error that says what was copied.
func TestHarnessEnvWithoutState(t *testing.T) {
	e := &env{bin: "/bin/cortex", vault: t.TempDir(), home: filepath.Join(t.TempDir(), "missing")}
	if _, err := harnessEnv(e); err == nil || !strings.Contains(err.Error(), "copy the state folder") {
		t.Fatalf("harnessEnv of a missing state folder: %v, want the copy's error", err)
	}
}
