package vscodecopilot

import (
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cortexmem/cortex/transcript"
	"github.com/cortexmem/cortex/transcript/transcripttest"
)

func TestDiscover(t *testing.T) {
	home := t.TempDir()
	write := func(rel, content string) { t.Helper(); transcripttest.WriteFile(t, home, rel, content) }
	const id1, id2, id3 = "0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d", "1b2c3d4e-5f6a-4b7c-8d9e-0f1a2b3c4d5e", "2c3d4e5f-6a7b-4c8d-9e0f-1a2b3c4d5e6f"
	const user = ".config/Code/User/"
	write(user+"workspaceStorage/a1/chatSessions/"+id1+".jsonl", `{"kind":0,"v":{"version":3,"requests":[]}}`+"\n")
	write(user+"workspaceStorage/a1/chatSessions/"+id1+".json", `{"version":3,"requests":[]}`) // migrated into the log
	write(user+"workspaceStorage/a1/chatSessions/"+id2+".json", `{"version":3,"requests":[]}`)
	write(user+"workspaceStorage/a1/chatSessions/notes.txt", "x")
	write(user+"workspaceStorage/a1/workspace.json", `{"folder":"file:///home/dev/work/demo-project"}`)
	write(user+"workspaceStorage/a1/state.vscdb", "x")
	write(user+"workspaceStorage/a1/GitHub.copilot-chat/transcripts/"+id1+".jsonl", `{"type":"session.start","data":{}}`+"\n")
	write(user+"workspaceStorage/b2/state.vscdb", "x") // a workspace without chats
	write(user+"globalStorage/emptyWindowChatSessions/"+id3+".jsonl", `{"kind":0,"v":{"version":3,"requests":[]}}`+"\n")
	write(".config/Code - Insiders/User/workspaceStorage/c3/chatSessions/"+id2+".jsonl", "")

	d := discover(transcripttest.Env(home, nil), "linux")
	files, skipped := transcripttest.Listed(d, filepath.Join(home, ".config"))
	wantFiles := []string{
		"Code/User/globalStorage/emptyWindowChatSessions/" + id3 + ".jsonl session " + id3,
		"Code/User/workspaceStorage/a1/chatSessions/" + id1 + ".jsonl session " + id1,
		"Code/User/workspaceStorage/a1/chatSessions/" + id2 + ".json session " + id2,
	}
	if diff := cmp.Diff(wantFiles, files); diff != "" {
		t.Errorf("files (-want +got):\n%s", diff)
	}
	wantSkipped := []string{
		"Code - Insiders/User/workspaceStorage/c3/chatSessions/" + id2 + ".jsonl: empty",
		"Code/User/workspaceStorage/a1/GitHub.copilot-chat/transcripts: the sessions of chatSessions again, in the Copilot CLI's event format (cortex scribe parse --as copilot-cli reads one)",
		"Code/User/workspaceStorage/a1/chatSessions/" + id1 + ".json: an older copy of " + id1 + ".jsonl",
		"Code/User/workspaceStorage/a1/chatSessions/notes.txt: not a chat session",
		"VSCodium/User: no such folder",
	}
	if diff := cmp.Diff(wantSkipped, skipped); diff != "" {
		t.Errorf("skipped (-want +got):\n%s", diff)
	}
	var roots []string
	for _, r := range d.Roots {
		rel, _ := filepath.Rel(home, r.Path)
		roots = append(roots, filepath.ToSlash(rel)+" "+r.From)
	}
	if diff := cmp.Diff([]string{".config/Code/User default", ".config/Code - Insiders/User default", ".config/VSCodium/User default"}, roots); diff != "" {
		t.Errorf("roots (-want +got):\n%s", diff)
	}
	if d.Source != transcript.VSCodeCopilotChat {
		t.Errorf("source %s", d.Source)
	}
	if a, b := discover(transcripttest.Env(home, nil), "linux"), discover(transcripttest.Env(home, nil), "linux"); !cmp.Equal(a, b) {
		t.Error("two discoveries differ")
	}
}

// TestDiscoverPerSystem checks where each system keeps VS Code's user
// folders, and the variables that move them.
func TestDiscoverPerSystem(t *testing.T) {
	home := "/home/dev"
	tests := []struct {
		goos string
		vars map[string]string
		want []string
	}{
		{"linux", nil, []string{"/home/dev/.config/Code/User default", "/home/dev/.config/Code - Insiders/User default", "/home/dev/.config/VSCodium/User default"}},
		{"linux", map[string]string{"XDG_CONFIG_HOME": "/xdg"}, []string{"/xdg/Code/User XDG_CONFIG_HOME", "/xdg/Code - Insiders/User XDG_CONFIG_HOME", "/xdg/VSCodium/User XDG_CONFIG_HOME"}},
		{"darwin", nil, []string{"/home/dev/Library/Application Support/Code/User default", "/home/dev/Library/Application Support/Code - Insiders/User default", "/home/dev/Library/Application Support/VSCodium/User default"}},
		{"windows", map[string]string{"APPDATA": "/appdata"}, []string{"/appdata/Code/User APPDATA", "/appdata/Code - Insiders/User APPDATA", "/appdata/VSCodium/User APPDATA"}},
		{"windows", nil, []string{"/home/dev/AppData/Roaming/Code/User default", "/home/dev/AppData/Roaming/Code - Insiders/User default", "/home/dev/AppData/Roaming/VSCodium/User default"}},
		{"darwin", map[string]string{EnvPortable: "/portable"}, []string{"/portable/user-data/User " + EnvPortable}},
	}
	for _, tt := range tests {
		d := transcript.NewDiscovery(transcript.VSCodeCopilotChat)
		var got []string
		for _, r := range userDirs(transcripttest.Env(home, tt.vars), tt.goos, &d) {
			got = append(got, filepath.ToSlash(r.Path)+" "+r.From)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s %v (-want +got):\n%s", tt.goos, tt.vars, diff)
		}
	}
	d := transcript.NewDiscovery(transcript.VSCodeCopilotChat)
	if roots := userDirs(transcript.Env{}, "linux", &d); roots != nil || len(d.Skipped) != 1 {
		t.Errorf("no home: roots %v skipped %v", roots, d.Skipped)
	}
}
