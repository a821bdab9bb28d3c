package transcripts

import (
	"io/fs"
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
		if len(rest) >= 3 && strings.HasPrefix(rest[len(rest)-3], "subagent") {
			return filepath.Join(home, ".gemini", "tmp", "proj", "chats", rest[len(rest)-2], rest[len(rest)-1])
		}
		return filepath.Join(home, ".gemini", "tmp", "proj", "chats", "session-"+flat)
	}
}

// placed reports whether fixturePlace knows where the conformance file rel
// goes: the tools whose transcripts are files of their own (the others'
// conformance files are rows of their databases).
func placed(rel string) bool {
	for _, tool := range []string{"claude-code", "codex", "gemini-cli"} {
		if strings.HasPrefix(rel, "conformance/"+tool+"/") {
			return true
		}
	}
	return false
}

func indexOf(list []string, s string) int {
	for i, x := range list {
		if x == s {
			return i
		}
	}
	return -1
}

// fixtureFiles are the transcripts among the fixtures of the tools cortex
// reads (the golden outputs beside them and sidecars left out), sorted.
func fixtureFiles(t *testing.T) []string {
	t.Helper()
	var out []string
	for _, dir := range []string{"claude-code", "codex", "gemini-cli", "conformance"} {
		err := filepath.WalkDir(filepath.Join(fixtureRoot, dir), func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			name := d.Name()
			if rel, _ := filepath.Rel(fixtureRoot, p); dir == "conformance" && !placed(filepath.ToSlash(rel)) {
				return nil
			}
			if strings.HasSuffix(name, ".ndjson") || strings.HasSuffix(name, ".meta.json") || strings.HasSuffix(name, ".md") ||
				!(strings.HasSuffix(name, ".jsonl") || strings.HasSuffix(name, ".json")) {
				return nil
			}
			rel, err := filepath.Rel(fixtureRoot, p)
			out = append(out, filepath.ToSlash(rel))
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if len(out) < 60 {
		t.Fatalf("found %d fixture transcripts; expected the repository's (is the fixtures folder there?)", len(out))
	}
	return out
}
