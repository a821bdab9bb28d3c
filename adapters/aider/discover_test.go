package aider

import (
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cortexmem/cortex/transcript/transcripttest"
)

func TestDiscover(t *testing.T) {
	home := t.TempDir()
	transcripttest.WriteFile(t, home, "work/app/.git/HEAD", "ref: refs/heads/main\n")
	transcripttest.WriteFile(t, home, "work/app/"+HistoryFile, "# aider chat started at 2026-01-01 10:00:00\n")
	transcripttest.WriteFile(t, home, "work/app/"+InputHistoryFile, "\n# 2026-01-01 10:00:01\n+hi\n")
	transcripttest.WriteFile(t, home, "a/b/c/d/"+HistoryFile, "x\n")        // depth 4: found
	transcripttest.WriteFile(t, home, "a/b/c/d/e/"+HistoryFile, "x\n")      // depth 5: too deep
	transcripttest.WriteFile(t, home, ".hidden/"+HistoryFile, "x\n")        // hidden folders are not searched
	transcripttest.WriteFile(t, home, "node_modules/x/"+HistoryFile, "x\n") // nor dependencies
	transcripttest.WriteFile(t, home, "elsewhere/chat.md", "x\n")

	// The home folder searched, the repository $PWD is in found (once).
	env := transcripttest.Env(home, map[string]string{EnvPWD: filepath.Join(home, "work/app/sub")})
	d := New().Discover(env)
	files, skipped := transcripttest.Listed(d, home)
	wantFiles := []string{"a/b/c/d/" + HistoryFile + " session ", "work/app/" + HistoryFile + " session "}
	if diff := cmp.Diff(wantFiles, files); diff != "" {
		t.Errorf("files (-want +got):\n%s", diff)
	}
	wantSkipped := []string{"work/app/" + InputHistoryFile + ": the prompts typed, without the replies " + HistoryFile + " beside it holds; name it to read it"}
	if diff := cmp.Diff(wantSkipped, skipped); diff != "" {
		t.Errorf("skipped (-want +got):\n%s", diff)
	}
	var froms []string
	for _, r := range d.Roots {
		froms = append(froms, r.From)
	}
	if diff := cmp.Diff([]string{EnvPWD, "default"}, froms); diff != "" {
		t.Errorf("roots (-want +got):\n%s", diff)
	}

	// AIDER_CHAT_HISTORY_FILE, relative to $PWD.
	env = transcripttest.Env("", map[string]string{EnvHistoryFile: "chat.md", EnvPWD: filepath.Join(home, "elsewhere")})
	files, _ = transcripttest.Listed(New().Discover(env), home)
	if diff := cmp.Diff([]string{"elsewhere/chat.md session "}, files); diff != "" {
		t.Errorf("%s: (-want +got):\n%s", EnvHistoryFile, diff)
	}
	env = transcripttest.Env("", map[string]string{EnvHistoryFile: filepath.Join(home, "elsewhere/none.md")})
	_, skipped = transcripttest.Listed(New().Discover(env), home)
	if diff := cmp.Diff([]string{"elsewhere/none.md: no such file"}, skipped); diff != "" {
		t.Errorf("a missing file (-want +got):\n%s", diff)
	}
}
