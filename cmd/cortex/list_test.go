package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// countingWriter counts the writes made to it.
type countingWriter struct {
	bytes.Buffer
	writes int
}

func (w *countingWriter) Write(p []byte) (int, error) {
	w.writes++
	return w.Buffer.Write(p)
}

// TestListWritesAtOnce: cortex list writes its lines in a few large writes,
// not one per memory (each a system call on a terminal or a pipe: 100,000
// for a vault of that size), and they are the lines of every memory.
func TestListWritesAtOnce(t *testing.T) {
	dir := t.TempDir()
	env := map[string]string{
		"HOME":          dir,
		"CORTEX_VAULT":  filepath.Join(dir, "vault"),
		"CORTEX_HOME":   filepath.Join(dir, "state"),
		"CORTEX_CONFIG": filepath.Join(dir, "config.yaml"),
	}
	if err := os.MkdirAll(env["CORTEX_VAULT"], 0o700); err != nil {
		t.Fatal(err)
	}
	getenv := func(k string) string { return env[k] }
	const n = 40
	for i := range n {
		var out, errb bytes.Buffer
		args := []string{"save", "--project", "web", fmt.Sprintf("Listing check %d: the pool holds %d connections per worker", i, 10+i)}
		if code := run(context.Background(), args, strings.NewReader(""), &out, &errb, getenv); code != 0 {
			t.Fatalf("cortex save: exit %d: %s", code, errb.String())
		}
	}
	var out countingWriter
	var errb bytes.Buffer
	if code := run(context.Background(), []string{"list"}, strings.NewReader(""), &out, &errb, getenv); code != 0 {
		t.Fatalf("cortex list: exit %d: %s", code, errb.String())
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != n+2 || lines[0] != fmt.Sprintf("%d memories", n) || !strings.HasPrefix(lines[2], "- [") {
		t.Fatalf("cortex list printed:\n%s", out.String())
	}
	if out.writes > 2 {
		t.Errorf("cortex list made %d writes for %d lines", out.writes, len(lines))
	}
}

// fault is a runtime error as a fault reading a mapping raises it.
type fault struct{}

func (fault) Error() string { return "unexpected fault address 0x7f0000000000" }
func (fault) RuntimeError() {}

// TestCatalogFault: a fault reading the mapped catalog becomes the
// command's error; any other panic goes on.
func TestCatalogFault(t *testing.T) {
	err := func() (err error) {
		defer catalogFault(&err)
		panic(fault{})
	}()
	if err == nil || !strings.Contains(err.Error(), "the index catalog changed while it was read (unexpected fault address") {
		t.Errorf("error %v", err)
	}
	for _, p := range []any{"a bug", errors.New("a bug")} {
		got := func() (got any) {
			defer func() { got = recover() }()
			var err error
			defer catalogFault(&err)
			panic(p)
		}()
		if got != p {
			t.Errorf("panic %v became %v", p, got)
		}
	}
}
