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

// vaultStamps reads every file of the vault: path to content and time.
func vaultStamps(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		out[rel] = fi.ModTime().UTC().Format(time.RFC3339Nano) + "\n" + string(data)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestMCPFollowsTheVault: the server follows the vault's notes itself. With
// a freshness window so long that a call would not look for edits made in
// place for a minute, a note edited by hand is recalled as edited once the
// debounce window has passed; a note the server saves is recalled at once;
// and following the vault never rewrites a note, not even one it cannot
// read.
func TestMCPFollowsTheVault(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	bin, env, root := cortexBin(t)
	config := strings.TrimPrefix(env[len(env)-1], "CORTEX_CONFIG=")
	if err := os.WriteFile(config, []byte("lock_timeout: 60s\nfreshness: 1m\nwatch:\n  debounce: 100ms\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := runCortex(t, bin, env, "save", "--project", "api", "--title", "Staging pool", "The staging database connection pool is 20 per pod, because of max_connections."); err != nil {
		t.Fatal(err)
	}
	broken := filepath.Join(root, "cortex", "memories", "api", "broken.md")
	if err := os.WriteFile(broken, []byte("---\ntitle: [unclosed\n---\nNot YAML a person would want rewritten.\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cs, stderr := mcpClient(t, bin, env)
	if text, _ := callTool(t, cs, "memory_recall", map[string]any{"query": "staging pool"}); !strings.Contains(text, "20 per pod") {
		t.Fatalf("recall before the edit: %s", text)
	}
	// Saved through the server: recalled at once.
	if text, isErr := callTool(t, cs, "memory_save", map[string]any{"content": "Kafka consumers rebalance when a pod restarts; keep sessions under 45 seconds.", "project": "api"}); isErr {
		t.Fatalf("save: %s", text)
	}
	if text, _ := callTool(t, cs, "memory_recall", map[string]any{"query": "kafka rebalance"}); !strings.Contains(text, "Kafka consumers rebalance") {
		t.Errorf("recall right after the server's own save: %s", text)
	}
	// Edited by hand, in place, as Obsidian saves: recalled as edited once
	// the debounce has passed (the watcher's re-index is what shows it).
	var pool string
	for _, p := range notes(t, root) {
		if data, err := os.ReadFile(p); err == nil && strings.Contains(string(data), "20 per pod") {
			pool = p
		}
	}
	if pool == "" {
		t.Fatal("the saved note is not in the vault")
	}
	data, err := os.ReadFile(pool)
	if err != nil {
		t.Fatal(err)
	}
	edited := strings.Replace(string(data), "20 per pod", "35 per pod since the zanzibar load test", 1)
	dir, err := os.Stat(filepath.Dir(pool))
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(pool, os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(edited); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	// Writing in place leaves the folder's time as it was.
	if err := os.Chtimes(filepath.Dir(pool), dir.ModTime(), dir.ModTime()); err != nil {
		t.Fatal(err)
	}
	editedAt := time.Now()
	before := vaultStamps(t, root)
	var text string
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if text, _ = callTool(t, cs, "memory_recall", map[string]any{"query": "zanzibar load test"}); strings.Contains(text, "35 per pod") {
			break
		}
	}
	if !strings.Contains(text, "35 per pod") {
		t.Fatalf("the edit made by hand was not recalled within 20s: %s", text)
	}
	t.Logf("the edit was recalled %v after it was made", time.Since(editedAt).Round(time.Millisecond))
	// Following the vault wrote no note: not the edited one, not the one it
	// cannot read, not any other. (The map of contents is cortex's own,
	// written after every re-index.)
	time.Sleep(300 * time.Millisecond)
	after := vaultStamps(t, root)
	delete(before, filepath.Join("cortex", "_index.md"))
	delete(after, filepath.Join("cortex", "_index.md"))
	if diff := cmp.Diff(before, after); diff != "" {
		t.Errorf("the vault changed while the server followed it (-before +after):\n%s", diff)
	}
	if s := stderr.String(); strings.Contains(s, "following the vault") || strings.Contains(s, "cannot follow") {
		t.Errorf("the server warned about following the vault: %s", s)
	}
}
