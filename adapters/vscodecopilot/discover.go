package vscodecopilot

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/cortexmem/cortex/transcript"
)

// EnvPortable is VS Code's portable mode: with it set, VS Code keeps its
// user data in $VSCODE_PORTABLE/user-data instead of the per-user folder.
const EnvPortable = "VSCODE_PORTABLE"

// flavors are the builds of VS Code that run Copilot Chat, by the name of
// their folder in the per-user application data.
var flavors = []string{"Code", "Code - Insiders", "VSCodium"}

// Discover lists VS Code's chat sessions: <User>/workspaceStorage/<hash>/
// chatSessions/<session>.json (one document, rewritten) and .jsonl (the
// mutation log of newer builds), and <User>/globalStorage/
// emptyWindowChatSessions/ (chats opened without a folder), for VS Code,
// VS Code Insiders and VSCodium, where <User> is, per system,
// ~/.config/<build>/User ($XDG_CONFIG_HOME replacing ~/.config) on Linux,
// ~/Library/Application Support/<build>/User on macOS and
// %APPDATA%\<build>\User on Windows; $VSCODE_PORTABLE/user-data/User
// replaces them. A .json with a .jsonl of the same session beside it is the
// older copy and is skipped. The Copilot extension's own transcripts
// (workspaceStorage/<hash>/GitHub.copilot-chat/transcripts/) hold the same
// sessions in the Copilot CLI's event format and are skipped, with the
// reason. Symbolic links are not followed.
func (a *Adapter) Discover(env transcript.Env) transcript.Discovery {
	return discover(env, runtime.GOOS)
}

// discover is Discover on the system goos (a parameter, so each system's
// folders can be tested on any).
func discover(env transcript.Env, goos string) transcript.Discovery {
	d := transcript.NewDiscovery(transcript.VSCodeCopilotChat)
	for _, r := range userDirs(env, goos, &d) {
		d.AddRoot(r, func(dir string) { walkUser(&d, dir) })
	}
	d.Sort()
	return d
}

// userDirs are the User folders of every build on goos.
func userDirs(env transcript.Env, goos string, d *transcript.Discovery) []transcript.Root {
	if p := env.Lookup(EnvPortable); p != "" {
		return []transcript.Root{{Path: filepath.Join(p, "user-data", "User"), From: EnvPortable}}
	}
	var base, from string
	switch goos {
	case "windows":
		base, from = env.Lookup("APPDATA"), "APPDATA"
		if base == "" && env.Home != "" {
			base, from = filepath.Join(env.Home, "AppData", "Roaming"), "default"
		}
	case "darwin":
		if env.Home != "" {
			base, from = filepath.Join(env.Home, "Library", "Application Support"), "default"
		}
	default:
		base, from = env.Lookup("XDG_CONFIG_HOME"), "XDG_CONFIG_HOME"
		if base == "" && env.Home != "" {
			base, from = filepath.Join(env.Home, ".config"), "default"
		}
	}
	if base == "" {
		d.Skip("VS Code's user folder", "no home folder and no "+EnvPortable)
		return nil
	}
	var out []transcript.Root
	for _, f := range flavors {
		out = append(out, transcript.Root{Path: filepath.Join(base, f, "User"), From: from})
	}
	return out
}

// walkUser looks in a User folder's workspace and global storage.
func walkUser(d *transcript.Discovery, user string) {
	ws := filepath.Join(user, "workspaceStorage")
	if isDir(ws) {
		for _, e := range d.ReadDir(ws) {
			if !e.IsDir() {
				continue
			}
			dir := filepath.Join(ws, e.Name())
			if chats := filepath.Join(dir, "chatSessions"); isDir(chats) {
				walkChats(d, chats)
			}
			if tr := filepath.Join(dir, "GitHub.copilot-chat", "transcripts"); isDir(tr) {
				d.Skip(tr, "the sessions of chatSessions again, in the Copilot CLI's event format (cortex scribe parse --as copilot-cli reads one)")
			}
		}
	}
	if empty := filepath.Join(user, "globalStorage", "emptyWindowChatSessions"); isDir(empty) {
		walkChats(d, empty)
	}
}

// walkChats lists the session files of a chatSessions folder.
func walkChats(d *transcript.Discovery, dir string) {
	for _, e := range d.ReadDir(dir) {
		name, path := e.Name(), filepath.Join(dir, e.Name())
		switch {
		case e.IsDir():
			d.Skip(path, "a folder inside chatSessions")
		case strings.HasSuffix(name, ".jsonl"):
			d.AddFile(path, strings.TrimSuffix(name, ".jsonl"), transcript.RoleSession)
		case strings.HasSuffix(name, ".json") && exists(path+"l"):
			d.Skip(path, "an older copy of "+name+"l")
		case strings.HasSuffix(name, ".json"):
			d.AddFile(path, strings.TrimSuffix(name, ".json"), transcript.RoleSession)
		default:
			d.Skip(path, "not a chat session")
		}
	}
}

// isDir reports whether path is a folder (not a link to one).
func isDir(path string) bool {
	fi, err := os.Lstat(path)
	return err == nil && fi.IsDir()
}

// exists reports whether there is something (of any type, a link included)
// at path.
func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}
