package gemini

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cortexmem/cortex/transcript"
	"github.com/cortexmem/cortex/transcript/transcripttest"
)

func TestDiscover(t *testing.T) {
	home := t.TempDir()
	write := func(rel, content string) { t.Helper(); transcripttest.WriteFile(t, home, rel, content) }
	line := `{"sessionId":"s","projectHash":"p"}` + "\n"
	const tmp = ".gemini/tmp/"
	// A project named by its slug (2026) and one by the SHA-256 of its path.
	write(tmp+"demo-project/chats/session-2026-11-22T04-07-524bc342.jsonl", line)
	write(tmp+"demo-project/chats/session-2026-11-22T04-07-3b8104ad.jsonl", line)
	write(tmp+"demo-project/chats/session-2026-11-22T04-07-3b8104ad.jsonl.tmp", line)
	write(tmp+"demo-project/chats/524bc342-c35c-411a-a9ea-531c4d5f2b24/investigator-5b6c7d8e.jsonl", line)
	write(tmp+"demo-project/chats/524bc342-c35c-411a-a9ea-531c4d5f2b24/notes.txt", "x")
	write(tmp+"demo-project/chats/empty/.keep", "")
	write(tmp+"demo-project/.project_root", "/home/dev/work/demo-project")
	write(tmp+"demo-project/logs.json", "[]")
	write(tmp+"demo-project/checkpoint-before.json", "[]")
	write(tmp+"0fd39519d56fce64caaa383ff166b9f2ed276b818091d74edd33e9077b9373a8/chats/session-2025-12-16T23-47-b4f17607.json", "{}")
	// A legacy file the CLI migrated into JSONL when it resumed it.
	write(tmp+"0fd39519d56fce64caaa383ff166b9f2ed276b818091d74edd33e9077b9373a8/chats/session-2025-12-01T10-00-aaaabbbb.json", "{}")
	write(tmp+"0fd39519d56fce64caaa383ff166b9f2ed276b818091d74edd33e9077b9373a8/chats/session-2025-12-01T10-00-aaaabbbb.jsonl", line)
	write(tmp+"0fd39519d56fce64caaa383ff166b9f2ed276b818091d74edd33e9077b9373a8/chats/session-2025-12-02T10-00-ccccdddd.jsonl", "")
	write(tmp+"bin/rg", "x")
	transcripttest.Symlink(t, home, tmp+"demo-project", tmp+"linked")
	transcripttest.Symlink(t, home, tmp+"demo-project/chats/session-2026-11-22T04-07-524bc342.jsonl",
		tmp+"demo-project/chats/session-2026-11-22T05-00-11112222.jsonl")

	d := New().Discover(transcripttest.Env(home, nil))
	files, skipped := transcripttest.Listed(d, filepath.Join(home, tmp))
	const hash = "0fd39519d56fce64caaa383ff166b9f2ed276b818091d74edd33e9077b9373a8"
	wantFiles := []string{
		hash + "/chats/session-2025-12-01T10-00-aaaabbbb.jsonl session ",
		hash + "/chats/session-2025-12-16T23-47-b4f17607.json session ",
		"demo-project/chats/524bc342-c35c-411a-a9ea-531c4d5f2b24/investigator-5b6c7d8e.jsonl subagent 524bc342-c35c-411a-a9ea-531c4d5f2b24",
		"demo-project/chats/session-2026-11-22T04-07-3b8104ad.jsonl session ",
		"demo-project/chats/session-2026-11-22T04-07-524bc342.jsonl session ",
	}
	if diff := cmp.Diff(wantFiles, files); diff != "" {
		t.Errorf("files (-want +got):\n%s", diff)
	}
	wantSkipped := []string{
		hash + "/chats/session-2025-12-01T10-00-aaaabbbb.json: migrated by the CLI into session-2025-12-01T10-00-aaaabbbb.jsonl",
		hash + "/chats/session-2025-12-02T10-00-ccccdddd.jsonl: empty",
		"demo-project/chats/524bc342-c35c-411a-a9ea-531c4d5f2b24/notes.txt: not a subagent transcript",
		"demo-project/chats/empty/.keep: not a subagent transcript",
		"demo-project/chats/session-2026-11-22T04-07-3b8104ad.jsonl.tmp: not a session file",
		"demo-project/chats/session-2026-11-22T05-00-11112222.jsonl: symbolic link, not followed",
		"linked: symbolic link, not followed",
	}
	if diff := cmp.Diff(wantSkipped, skipped); diff != "" {
		t.Errorf("skipped (-want +got):\n%s", diff)
	}
	if len(d.Roots) != 1 || !d.Roots[0].Exists || d.Roots[0].From != "default" || d.Roots[0].Path != filepath.Join(home, ".gemini", "tmp") {
		t.Errorf("roots %+v", d.Roots)
	}
	if d.Source != transcript.GeminiCLI {
		t.Errorf("source %s", d.Source)
	}

	// GEMINI_CLI_HOME replaces the home folder: its .gemini is read.
	write("elsewhere/.gemini/tmp/p/chats/session-2026-01-01T00-00-99990000.jsonl", line)
	d = New().Discover(transcripttest.Env(home, map[string]string{EnvHome: filepath.Join(home, "elsewhere")}))
	files, _ = transcripttest.Listed(d, home)
	if diff := cmp.Diff([]string{"elsewhere/.gemini/tmp/p/chats/session-2026-01-01T00-00-99990000.jsonl session "}, files); diff != "" {
		t.Errorf("with %s (-want +got):\n%s", EnvHome, diff)
	}
	if len(d.Roots) != 1 || d.Roots[0].From != EnvHome || !d.Roots[0].Exists {
		t.Errorf("roots %+v", d.Roots)
	}

	// No folder: nothing found, the reason said.
	d = New().Discover(transcripttest.Env(home, map[string]string{EnvHome: filepath.Join(home, "nowhere")}))
	if _, skipped := transcripttest.Listed(d, home); len(d.Files) != 0 || len(d.Roots) != 1 || d.Roots[0].Exists ||
		!cmp.Equal(skipped, []string{"nowhere/.gemini/tmp: no such folder"}) {
		t.Errorf("missing root: files %v roots %+v skipped %v", d.Files, d.Roots, skipped)
	}
	d = New().Discover(transcript.Env{})
	if len(d.Files) != 0 || len(d.Skipped) != 1 || !strings.Contains(d.Skipped[0].Reason, EnvHome) {
		t.Errorf("no home: %+v", d)
	}

	// Twice the same answer.
	if a, b := New().Discover(transcripttest.Env(home, nil)), New().Discover(transcripttest.Env(home, nil)); !cmp.Equal(a, b) {
		t.Error("two discoveries differ")
	}
}
