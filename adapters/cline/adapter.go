package cline

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/cortexmem/cortex/transcript"
	"github.com/cortexmem/cortex/transcript/jsondoc"
	"github.com/cortexmem/cortex/transcript/rawjson"
)

// The files of a task folder.
const (
	// HistoryFile is the conversation the model saw, the file the adapter
	// reads.
	HistoryFile = "api_conversation_history.json"
	// UIFile is what the extension's panel shows; the adapter does not read
	// it (the conversation is in HistoryFile).
	UIFile = "ui_messages.json"
)

// EnvClineDir is the Cline CLI's override of ~/.cline.
const EnvClineDir = "CLINE_DIR"

// EnvClineDataDir is the Cline CLI's override of ~/.cline/data.
const EnvClineDataDir = "CLINE_DATA_DIR"

// EnvPortable is set by a portable VS Code: its user data is in
// $VSCODE_PORTABLE/user-data.
const EnvPortable = "VSCODE_PORTABLE"

// Schema is the label Fingerprint gives a task's conversation.
const Schema = "cline/api_conversation_history"

// extensions are the extension folders (VS Code's globalStorage/<id>) of the
// tools this package reads.
var extensions = map[transcript.SourceKind]string{
	transcript.Cline:    "saoudrizwan.claude-dev",
	transcript.RooCode:  "rooveterinaryinc.roo-cline",
	transcript.KiloCode: "kilocode.kilo-code",
}

// editors are the VS Code family's user data folders the extensions run in.
var editors = []string{"Code", "Code - Insiders", "VSCodium", "Cursor", "Windsurf"}

// Adapter reads the task conversations of Cline or of one of its forks, Roo
// Code and Kilo Code: the same files in the extension's own folder.
type Adapter struct {
	jsondoc.Framer
	kind transcript.SourceKind
	// goos picks the editors' folders (linux, darwin, windows).
	goos string
}

var (
	_ transcript.Adapter = (*Adapter)(nil)
	_ transcript.Framer  = (*Adapter)(nil)
)

// New returns the Cline adapter.
func New() *Adapter { return &Adapter{kind: transcript.Cline, goos: runtime.GOOS} }

// NewRoo returns the Roo Code adapter.
func NewRoo() *Adapter { return &Adapter{kind: transcript.RooCode, goos: runtime.GOOS} }

// NewKilo returns the Kilo Code adapter.
func NewKilo() *Adapter { return &Adapter{kind: transcript.KiloCode, goos: runtime.GOOS} }

// Source is the tool the adapter reads.
func (a *Adapter) Source() transcript.SourceKind { return a.kind }

// ForFile returns the adapter of the tool whose extension folder the path
// is in (a Roo Code task read through the Cline adapter, say: their files
// look the same), a itself when the path names none.
func (a *Adapter) ForFile(path string) transcript.Adapter {
	p := filepath.ToSlash(path)
	for _, k := range []transcript.SourceKind{transcript.Cline, transcript.RooCode, transcript.KiloCode} {
		if strings.Contains(p, "/"+extensions[k]+"/") && k != a.kind {
			return &Adapter{kind: k, goos: a.goos}
		}
	}
	return a
}

// userDataDirs returns the VS Code family's user data folders for the OS,
// each the folder that holds User/.
func (a *Adapter) userDataDirs(env transcript.Env) (base string, dirs []string) {
	switch a.goos {
	case "darwin":
		base = filepath.Join(env.Home, "Library", "Application Support")
	case "windows":
		base = env.Lookup("APPDATA")
		if base == "" {
			base = filepath.Join(env.Home, "AppData", "Roaming")
		}
	default:
		base = env.Lookup("XDG_CONFIG_HOME")
		if base == "" {
			base = filepath.Join(env.Home, ".config")
		}
	}
	for _, e := range editors {
		dirs = append(dirs, filepath.Join(base, e))
	}
	return base, dirs
}

// Discover lists the tasks' conversations: <editor>/User/globalStorage/
// <extension>/tasks/<task id>/api_conversation_history.json for each
// VS Code family editor installed (Code, Code - Insiders, VSCodium,
// Cursor, Windsurf, under ~/.config or $XDG_CONFIG_HOME on Linux,
// ~/Library/Application Support on macOS, %APPDATA% on Windows), a
// portable VS Code's ($VSCODE_PORTABLE/user-data/User), and for Cline its
// CLI's ~/.cline/data/tasks ($CLINE_DATA_DIR, or $CLINE_DIR/data). The
// task's other files are skipped with the reason; Cline 4's session
// folders (~/.cline/data/sessions), of another format, are reported as not
// read. Links are not followed.
func (a *Adapter) Discover(env transcript.Env) transcript.Discovery {
	d := transcript.NewDiscovery(a.kind)
	if env.Home == "" && env.Lookup("APPDATA") == "" {
		d.Skip("~", "no home folder")
		return d
	}
	ext := extensions[a.kind]
	base, dirs := a.userDataDirs(env)
	installed := 0
	for _, dir := range dirs {
		if fi, err := os.Stat(filepath.Join(dir, "User")); err != nil || !fi.IsDir() {
			continue
		}
		installed++
		r := transcript.Root{Path: filepath.Join(dir, "User", "globalStorage", ext, "tasks"), From: "default"}
		d.AddRoot(r, func(tasks string) { walkTasks(&d, tasks) })
	}
	if p := env.Lookup(EnvPortable); p != "" {
		installed++
		r := transcript.Root{Path: filepath.Join(p, "user-data", "User", "globalStorage", ext, "tasks"), From: EnvPortable}
		d.AddRoot(r, func(tasks string) { walkTasks(&d, tasks) })
	}
	if installed == 0 {
		d.Skip(base, "no VS Code family editor's user folder ("+strings.Join(editors, ", ")+") here")
	}
	if a.kind == transcript.Cline {
		data, from := filepath.Join(env.Home, ".cline", "data"), "default"
		switch {
		case env.Lookup(EnvClineDataDir) != "":
			data, from = env.Lookup(EnvClineDataDir), EnvClineDataDir
		case env.Lookup(EnvClineDir) != "":
			data, from = filepath.Join(env.Lookup(EnvClineDir), "data"), EnvClineDir
		}
		d.AddRoot(transcript.Root{Path: filepath.Join(data, "tasks"), From: from}, func(tasks string) { walkTasks(&d, tasks) })
		sessions := filepath.Join(data, "sessions")
		if fi, err := os.Lstat(sessions); err == nil && fi.IsDir() {
			d.Skip(sessions, "Cline 4 sessions (<id>/<id>.messages.json, the SDK's messages format), which cortex does not read yet")
		} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
			d.Skip(sessions, err.Error())
		}
	}
	d.Sort()
	return d
}

// walkTasks lists each task folder's conversation.
func walkTasks(d *transcript.Discovery, dir string) {
	for _, t := range d.ReadDir(dir) {
		path := filepath.Join(dir, t.Name())
		if !t.IsDir() {
			d.Skip(path, "not a task folder")
			continue
		}
		found := false
		for _, f := range d.ReadDir(path) {
			p := filepath.Join(path, f.Name())
			switch name := f.Name(); {
			case name == HistoryFile && !f.IsDir():
				d.AddFile(p, t.Name(), transcript.RoleSession)
				found = true
			case name == UIFile:
				d.Skip(p, "the task's panel messages; the conversation is read from "+HistoryFile+" beside it")
			}
		}
		if !found {
			d.Skip(path, "a task folder without "+HistoryFile)
		}
	}
}

// Fingerprint names the schema of a task's conversation: a JSON array of
// messages {role: user | assistant, content}; empty for anything else.
func (a *Adapter) Fingerprint(rec transcript.Record) transcript.Variant {
	v := transcript.Variant{Source: a.kind}
	if rawjson.IsArray(rec.Data) && rawjson.Valid(rec.Data) && isHistory(rawjson.AsArray(rec.Data)) {
		v.Schema = Schema
	}
	return v
}

// isHistory reports whether msgs look like a task's conversation: its
// first element a message of role user or assistant with content.
func isHistory(msgs [][]byte) bool {
	if len(msgs) == 0 {
		return false
	}
	m := rawjson.AsObject(msgs[0])
	role := rawjson.AsString(m.Get("role"))
	return (role == "user" || role == "assistant") && m.Has("content")
}
