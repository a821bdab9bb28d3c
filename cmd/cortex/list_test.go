package main

import (
	"bytes"
	"context"
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
