package copilotcli

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
	line := `{"type":"session.start","data":{"sessionId":"s"},"id":"e1","timestamp":"t","parentId":null}` + "\n"
	const st = ".copilot/session-state/"
	const id1, id2, id3 = "0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d", "1b2c3d4e-5f6a-4b7c-8d9e-0f1a2b3c4d5e", "2c3d4e5f-6a7b-4c8d-9e0f-1a2b3c4d5e6f"
	write(st+id1+"/events.jsonl", line)
	write(st+id1+"/workspace.yaml", "id: x\n")
	write(st+id1+"/plan.md", "- [ ] x\n")
	write(st+id1+"/checkpoints/001.md", "summary")
	write(st+id2+"/workspace.yaml", "id: y\n") // a session without a log yet
	write(st+id3+".jsonl", line)               // the layout before 1.0.11
	write(st+"notes.txt", "x")
	write(st+id2+".jsonl", "")
	write(".copilot/history-session-state/old.json", "{}")
	write(".copilot/config.json", "{}")
	write(".copilot/logs/process.log", "x")
	transcripttest.Symlink(t, home, st+id1+"/events.jsonl", st+"3d4e5f6a-7b8c-4d9e-8f0a-1b2c3d4e5f6a.jsonl")

	d := New().Discover(transcripttest.Env(home, nil))
	files, skipped := transcripttest.Listed(d, filepath.Join(home, ".copilot"))
	wantFiles := []string{
		"session-state/" + id1 + "/events.jsonl session " + id1,
		"session-state/" + id3 + ".jsonl session " + id3,
	}
	if diff := cmp.Diff(wantFiles, files); diff != "" {
		t.Errorf("files (-want +got):\n%s", diff)
	}
	wantSkipped := []string{
		"history-session-state: the preview builds' single-document sessions (chatMessages and timeline), not read",
		"session-state/" + id2 + ".jsonl: empty",
		"session-state/3d4e5f6a-7b8c-4d9e-8f0a-1b2c3d4e5f6a.jsonl: symbolic link, not followed",
		"session-state/notes.txt: not a session log",
	}
	if diff := cmp.Diff(wantSkipped, skipped); diff != "" {
		t.Errorf("skipped (-want +got):\n%s", diff)
	}
	if len(d.Roots) != 1 || !d.Roots[0].Exists || d.Roots[0].From != "default" || d.Source != transcript.CopilotCLI {
		t.Errorf("roots %+v source %s", d.Roots, d.Source)
	}

	// COPILOT_HOME replaces ~/.copilot (and the XDG folder).
	write("elsewhere/session-state/"+id1+"/events.jsonl", line)
	d = New().Discover(transcripttest.Env(home, map[string]string{EnvHome: filepath.Join(home, "elsewhere"), envXDG: filepath.Join(home, "xdg")}))
	files, _ = transcripttest.Listed(d, home)
	if diff := cmp.Diff([]string{"elsewhere/session-state/" + id1 + "/events.jsonl session " + id1}, files); diff != "" {
		t.Errorf("with %s (-want +got):\n%s", EnvHome, diff)
	}
	if len(d.Roots) != 1 || d.Roots[0].From != EnvHome {
		t.Errorf("roots %+v", d.Roots)
	}

	// XDG_CONFIG_HOME adds $XDG_CONFIG_HOME/.copilot, where older builds
	// kept their folder.
	write("xdg/.copilot/session-state/"+id2+".jsonl", line)
	d = New().Discover(transcripttest.Env(home, map[string]string{envXDG: filepath.Join(home, "xdg")}))
	files, _ = transcripttest.Listed(d, home)
	want := []string{
		".copilot/session-state/" + id1 + "/events.jsonl session " + id1,
		".copilot/session-state/" + id3 + ".jsonl session " + id3,
		"xdg/.copilot/session-state/" + id2 + ".jsonl session " + id2,
	}
	if diff := cmp.Diff(want, files); diff != "" {
		t.Errorf("with %s (-want +got):\n%s", envXDG, diff)
	}
	if len(d.Roots) != 2 || d.Roots[1].From != envXDG {
		t.Errorf("roots %+v", d.Roots)
	}

	// No folder, no home: nothing found, the reason said.
	d = New().Discover(transcripttest.Env(home, map[string]string{EnvHome: filepath.Join(home, "nowhere")}))
	if _, skipped := transcripttest.Listed(d, home); len(d.Files) != 0 || !cmp.Equal(skipped, []string{"nowhere: no such folder"}) {
		t.Errorf("missing root: files %v skipped %v", d.Files, skipped)
	}
	d = New().Discover(transcript.Env{})
	if len(d.Files) != 0 || len(d.Skipped) != 1 || !strings.Contains(d.Skipped[0].Reason, EnvHome) {
		t.Errorf("no home: %+v", d)
	}
	if a, b := New().Discover(transcripttest.Env(home, nil)), New().Discover(transcripttest.Env(home, nil)); !cmp.Equal(a, b) {
		t.Error("two discoveries differ")
	}
}
