package cline

import (
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cortexmem/cortex/transcript"
	"github.com/cortexmem/cortex/transcript/transcripttest"
)

func TestDiscover(t *testing.T) {
	home := t.TempDir()
	const code = ".config/Code/User/globalStorage/"
	transcripttest.WriteFile(t, home, code+"saoudrizwan.claude-dev/tasks/1/"+HistoryFile, "[]")
	transcripttest.WriteFile(t, home, code+"saoudrizwan.claude-dev/tasks/1/"+UIFile, "[]")
	transcripttest.WriteFile(t, home, code+"saoudrizwan.claude-dev/tasks/1/task_metadata.json", "{}")
	transcripttest.WriteFile(t, home, code+"saoudrizwan.claude-dev/tasks/2/"+UIFile, "[]")
	transcripttest.WriteFile(t, home, code+"saoudrizwan.claude-dev/tasks/stray.txt", "x")
	transcripttest.WriteFile(t, home, code+"rooveterinaryinc.roo-cline/tasks/r1/"+HistoryFile, "[]")
	transcripttest.WriteFile(t, home, ".config/VSCodium/User/settings.json", "{}")
	transcripttest.WriteFile(t, home, ".cline/data/tasks/3/"+HistoryFile, "[]")
	transcripttest.WriteFile(t, home, ".cline/data/sessions/s1/s1.messages.json", "[]")

	linux := &Adapter{kind: transcript.Cline, goos: "linux"}
	d := linux.Discover(transcripttest.Env(home, nil))
	files, skipped := transcripttest.Listed(d, home)
	wantFiles := []string{
		".cline/data/tasks/3/" + HistoryFile + " session 3",
		code + "saoudrizwan.claude-dev/tasks/1/" + HistoryFile + " session 1",
	}
	wantSkipped := []string{
		".cline/data/sessions: Cline 4 sessions (<id>/<id>.messages.json, the SDK's messages format), which cortex does not read yet",
		".config/Code/User/globalStorage/saoudrizwan.claude-dev/tasks/1/" + UIFile + ": the task's panel messages; the conversation is read from " + HistoryFile + " beside it",
		".config/Code/User/globalStorage/saoudrizwan.claude-dev/tasks/2: a task folder without " + HistoryFile,
		".config/Code/User/globalStorage/saoudrizwan.claude-dev/tasks/2/" + UIFile + ": the task's panel messages; the conversation is read from " + HistoryFile + " beside it",
		".config/Code/User/globalStorage/saoudrizwan.claude-dev/tasks/stray.txt: not a task folder",
		".config/VSCodium/User/globalStorage/saoudrizwan.claude-dev/tasks: no such folder",
	}
	if diff := cmp.Diff(wantFiles, files); diff != "" {
		t.Errorf("files (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(wantSkipped, skipped); diff != "" {
		t.Errorf("skipped (-want +got):\n%s", diff)
	}

	roo := &Adapter{kind: transcript.RooCode, goos: "linux"}
	files, _ = transcripttest.Listed(roo.Discover(transcripttest.Env(home, nil)), home)
	if diff := cmp.Diff([]string{code + "rooveterinaryinc.roo-cline/tasks/r1/" + HistoryFile + " session r1"}, files); diff != "" {
		t.Errorf("roo code files (-want +got):\n%s", diff)
	}

	// macOS and Windows folders, the CLI's overrides, a portable VS Code.
	transcripttest.WriteFile(t, home, "Library/Application Support/Cursor/User/globalStorage/kilocode.kilo-code/tasks/k/"+HistoryFile, "[]")
	kilo := &Adapter{kind: transcript.KiloCode, goos: "darwin"}
	files, _ = transcripttest.Listed(kilo.Discover(transcripttest.Env(home, nil)), home)
	if diff := cmp.Diff([]string{"Library/Application Support/Cursor/User/globalStorage/kilocode.kilo-code/tasks/k/" + HistoryFile + " session k"}, files); diff != "" {
		t.Errorf("macOS (-want +got):\n%s", diff)
	}
	transcripttest.WriteFile(t, home, "roaming/Code - Insiders/User/globalStorage/saoudrizwan.claude-dev/tasks/w/"+HistoryFile, "[]")
	transcripttest.WriteFile(t, home, "clinedir/data/tasks/c/"+HistoryFile, "[]")
	transcripttest.WriteFile(t, home, "portable/user-data/User/globalStorage/saoudrizwan.claude-dev/tasks/p/"+HistoryFile, "[]")
	win := &Adapter{kind: transcript.Cline, goos: "windows"}
	env := transcripttest.Env(home, map[string]string{"APPDATA": filepath.Join(home, "roaming"), EnvClineDir: filepath.Join(home, "clinedir"), EnvPortable: filepath.Join(home, "portable")})
	d = win.Discover(env)
	files, _ = transcripttest.Listed(d, home)
	wantFiles = []string{
		"clinedir/data/tasks/c/" + HistoryFile + " session c",
		"portable/user-data/User/globalStorage/saoudrizwan.claude-dev/tasks/p/" + HistoryFile + " session p",
		"roaming/Code - Insiders/User/globalStorage/saoudrizwan.claude-dev/tasks/w/" + HistoryFile + " session w",
	}
	if diff := cmp.Diff(wantFiles, files); diff != "" {
		t.Errorf("windows (-want +got):\n%s", diff)
	}
	var froms []string
	for _, r := range d.Roots {
		froms = append(froms, r.From)
	}
	if diff := cmp.Diff([]string{"default", EnvPortable, EnvClineDir}, froms); diff != "" {
		t.Errorf("roots' origins (-want +got):\n%s", diff)
	}

	// No editor at all: one line says so.
	none := &Adapter{kind: transcript.RooCode, goos: "linux"}
	d = none.Discover(transcripttest.Env(t.TempDir(), nil))
	if len(d.Roots) != 0 || len(d.Skipped) != 1 {
		t.Errorf("no editor: %+v", d)
	}
}
