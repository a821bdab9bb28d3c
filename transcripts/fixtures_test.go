package transcripts

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fixtureRoot is the repository's fixtures folder.
const fixtureRoot = "../fixtures"

// placeFixture copies the fixture file rel (below fixtures/) into home where
// its tool's discovery finds it, and returns where it went.
func placeFixture(t *testing.T, home, rel string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(fixtureRoot, rel))
	if err != nil {
		t.Fatal(err)
	}
	dst := fixturePlace(home, rel)
	if err := os.MkdirAll(filepath.Dir(dst), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return dst
}

// fixturePlace is where placeFixture puts rel: Claude Code's projects
// folder (subagent trees kept), Codex's dated sessions (rollout- names),
// Gemini CLI's chats folder (session- names, subagent folders kept).
func fixturePlace(home, rel string) string {
	parts := strings.Split(filepath.ToSlash(rel), "/")
	tool, rest := parts[0], parts[1:]
	flat := strings.ReplaceAll(strings.Join(rest, "-"), "/", "-")
	switch {
	case tool == "claude-code" || tool == "conformance" && rest[0] == "claude-code":
		if tool == "conformance" {
			rest = rest[1:]
		}
		if i := indexOf(rest, "subagents"); i > 0 {
			return filepath.Join(home, ".claude", "projects", "-home-dev-work-"+rest[0], filepath.Join(rest[i-1:]...))
		}
		if len(rest) >= 2 && !strings.HasSuffix(rest[0], ".jsonl") {
			return filepath.Join(home, ".claude", "projects", "-home-dev-work-"+rest[0], strings.Join(rest[1:], "-"))
		}
		return filepath.Join(home, ".claude", "projects", "-home-dev-work-misc", flat)
	case tool == "codex" || tool == "conformance" && rest[0] == "codex":
		return filepath.Join(home, ".codex", "sessions", "2026", "11", "22", "rollout-"+strings.ReplaceAll(flat, "/", "-"))
	default:
		if tool == "conformance" {
			rest = rest[1:]
		}
		if len(rest) >= 3 && !strings.Contains(rest[len(rest)-2], ".") && rest[len(rest)-3] == "subagent" {
			return filepath.Join(home, ".gemini", "tmp", "proj", "chats", rest[len(rest)-2], rest[len(rest)-1])
		}
		return filepath.Join(home, ".gemini", "tmp", "proj", "chats", "session-"+flat)
	}
}

func indexOf(list []string, s string) int {
	for i, x := range list {
		if x == s {
			return i
		}
	}
	return -1
}

func layFixtures(t *testing.T, home string) {
	t.Helper()
	for _, rel := range []string{
		"claude-code/2.1.197/a_qa.jsonl", "claude-code/2.1.197/b_write_edit.jsonl", "claude-code/2.1.197/e2_after_compact.jsonl",
		"claude-code/hand-made/rewind_fork.jsonl",
		"claude-code/2.1.207/subagent/0a1b2c3d-4e5f-4061-8071-2a3b4c5d6e7f.jsonl",
		"claude-code/2.1.207/subagent/0a1b2c3d-4e5f-4061-8071-2a3b4c5d6e7f/subagents/agent-a0ad4f44468bdf20d.jsonl",
		"codex/0.169.0/a_qa.jsonl", "codex/hand-made/rollback_compaction.jsonl",
		"gemini-cli/0.61.0/a_qa.jsonl", "gemini-cli/hand-made/compress_mask.jsonl", "gemini-cli/legacy/large.json",
	} {
		placeFixture(t, home, rel)
	}
}
