package claudecode

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cortexmem/cortex/transcript"
)

func TestDiscover(t *testing.T) {
	home := t.TempDir()
	write := func(rel, content string) {
		t.Helper()
		p := filepath.Join(home, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	line := `{"type":"user"}` + "\n"
	write(".claude/projects/-w-b/s2.jsonl", line)
	write(".claude/projects/-w-a/s1.jsonl", line)
	write(".claude/projects/-w-a/s1/subagents/agent-x.jsonl", line)
	write(".claude/projects/-w-a/s1/subagents/agent-x.meta.json", "{}")
	write(".claude/projects/-w-a/s1/subagents/workflows/wf/agent-y.jsonl", line)
	write(".claude/projects/-w-a/s1/tool-results/big.txt", "x")
	write(".claude/projects/-w-a/agent-old.jsonl", line)
	write(".claude/projects/-w-a/empty.jsonl", "")
	write(".claude/projects/-w-a/memory/MEMORY.md", "- a fact")
	if err := os.MkdirAll(filepath.Join(home, ".config"), 0o755); err != nil {
		t.Fatal(err)
	}
	// ~/.config/claude is the same folder, reached through a link.
	if err := os.Symlink(filepath.Join(home, ".claude"), filepath.Join(home, ".config", "claude")); err != nil {
		t.Fatal(err)
	}
	env := func(vars map[string]string) transcript.Env {
		return transcript.Env{Home: home, Getenv: func(k string) string { return vars[k] }}
	}
	rel := func(d transcript.Discovery) (files, skipped []string) {
		for _, f := range d.Files {
			r, _ := filepath.Rel(home, f.Path)
			files = append(files, r+" "+f.Role+" "+f.Session)
		}
		for _, s := range d.Skipped {
			r, _ := filepath.Rel(home, s.Path)
			skipped = append(skipped, r+": "+strings.ReplaceAll(s.Reason, home+"/", ""))
		}
		return files, skipped
	}

	d := New().Discover(env(nil))
	files, skipped := rel(d)
	wantFiles := []string{
		".claude/projects/-w-a/agent-old.jsonl subagent ",
		".claude/projects/-w-a/s1.jsonl session s1",
		".claude/projects/-w-a/s1/subagents/agent-x.jsonl subagent s1",
		".claude/projects/-w-a/s1/subagents/workflows/wf/agent-y.jsonl subagent s1",
		".claude/projects/-w-b/s2.jsonl session s2",
	}
	if diff := cmp.Diff(wantFiles, files); diff != "" {
		t.Errorf("files (-want +got):\n%s", diff)
	}
	wantSkipped := []string{
		".claude/projects/-w-a/empty.jsonl: empty",
		".config/claude/projects: the same folder as .claude/projects",
	}
	if diff := cmp.Diff(wantSkipped, skipped); diff != "" {
		t.Errorf("skipped (-want +got):\n%s", diff)
	}
	if len(d.Roots) != 2 || !d.Roots[0].Exists || d.Roots[1].Exists || d.Roots[0].From != "default" {
		t.Errorf("roots %+v", d.Roots)
	}

	// The override replaces both default folders.
	write("elsewhere/projects/-w/s9.jsonl", line)
	d = New().Discover(env(map[string]string{EnvConfigDir: filepath.Join(home, "elsewhere")}))
	files, _ = rel(d)
	if diff := cmp.Diff([]string{"elsewhere/projects/-w/s9.jsonl session s9"}, files); diff != "" {
		t.Errorf("with %s (-want +got):\n%s", EnvConfigDir, diff)
	}
	if len(d.Roots) != 1 || d.Roots[0].From != EnvConfigDir {
		t.Errorf("roots %+v", d.Roots)
	}

	// Twice the same answer.
	if a, b := New().Discover(env(nil)), New().Discover(env(nil)); !cmp.Equal(a, b) {
		t.Error("two discoveries differ")
	}
}
