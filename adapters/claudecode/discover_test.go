package claudecode

import (
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cortexmem/cortex/transcript/transcripttest"
)

func TestDiscover(t *testing.T) {
	home := t.TempDir()
	write := func(rel, content string) { t.Helper(); transcripttest.WriteFile(t, home, rel, content) }
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
	// ~/.config/claude is the same folder, reached through a link.
	transcripttest.Symlink(t, home, ".claude", ".config/claude")

	d := New().Discover(transcripttest.Env(home, nil))
	files, skipped := transcripttest.Listed(d, home)
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
	d = New().Discover(transcripttest.Env(home, map[string]string{EnvConfigDir: filepath.Join(home, "elsewhere")}))
	files, _ = transcripttest.Listed(d, home)
	if diff := cmp.Diff([]string{"elsewhere/projects/-w/s9.jsonl session s9"}, files); diff != "" {
		t.Errorf("with %s (-want +got):\n%s", EnvConfigDir, diff)
	}
	if len(d.Roots) != 1 || d.Roots[0].From != EnvConfigDir {
		t.Errorf("roots %+v", d.Roots)
	}

	// Twice the same answer.
	if a, b := New().Discover(transcripttest.Env(home, nil)), New().Discover(transcripttest.Env(home, nil)); !cmp.Equal(a, b) {
		t.Error("two discoveries differ")
	}
}
