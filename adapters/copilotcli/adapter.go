package copilotcli

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/cortexmem/cortex/transcript"
	"github.com/cortexmem/cortex/transcript/rawjson"
)

// EnvHome is the Copilot CLI's override of its folder: with it set, the CLI
// keeps everything in $COPILOT_HOME instead of ~/.copilot.
const EnvHome = "COPILOT_HOME"

// envXDG is where builds before COPILOT_HOME kept their folder when it was
// set: $XDG_CONFIG_HOME/.copilot.
const envXDG = "XDG_CONFIG_HOME"

// The schema labels Fingerprint gives. The event log has one envelope; the
// copy the VS Code Copilot extension writes for its agent sessions (the same
// envelope, its session.start naming vscodeVersion) is told apart.
const (
	SchemaEvents       = "copilot-cli/events"
	SchemaVSCodeEvents = "copilot-cli/events/vscode"
)

// Adapter reads the GitHub Copilot CLI's session event logs. The zero value
// is ready to use.
type Adapter struct{}

var _ transcript.Adapter = (*Adapter)(nil)

// New returns the Copilot CLI adapter.
func New() *Adapter { return &Adapter{} }

// Source is the GitHub Copilot CLI.
func (a *Adapter) Source() transcript.SourceKind { return transcript.CopilotCLI }

// Discover lists the Copilot CLI's session logs: <root>/session-state/<session>/
// events.jsonl (1.0.11 and later) and the older <root>/session-state/
// <session>.jsonl, where root is $COPILOT_HOME when set, else ~/.copilot and,
// when $XDG_CONFIG_HOME is set, $XDG_CONFIG_HOME/.copilot (where builds
// before COPILOT_HOME kept it). The preview builds' history-session-state/
// documents are skipped, with the reason. A session folder's other files
// (workspace.yaml, plan.md, checkpoints, the session database) are not
// transcripts and are not listed. Symbolic links are not followed.
func (a *Adapter) Discover(env transcript.Env) transcript.Discovery {
	d := transcript.NewDiscovery(transcript.CopilotCLI)
	var roots []transcript.Root
	switch home := env.Lookup(EnvHome); {
	case home != "":
		roots = append(roots, transcript.Root{Path: home, From: EnvHome})
	case env.Home != "":
		roots = append(roots, transcript.Root{Path: filepath.Join(env.Home, ".copilot"), From: "default"})
		if xdg := env.Lookup(envXDG); xdg != "" {
			roots = append(roots, transcript.Root{Path: filepath.Join(xdg, ".copilot"), From: envXDG})
		}
	default:
		d.Skip("~/.copilot", "no home folder and no "+EnvHome)
	}
	for _, r := range roots {
		d.AddRoot(r, func(dir string) { walkRoot(&d, dir) })
	}
	d.Sort()
	return d
}

// walkRoot looks in a Copilot folder for session-state/ and notes the
// preview builds' history-session-state/.
func walkRoot(d *transcript.Discovery, root string) {
	for _, e := range d.ReadDir(root) {
		path := filepath.Join(root, e.Name())
		switch {
		case !e.IsDir():
		case e.Name() == "session-state":
			walkSessions(d, path)
		case e.Name() == "history-session-state":
			d.Skip(path, "the preview builds' single-document sessions (chatMessages and timeline), not read")
		}
	}
}

func walkSessions(d *transcript.Discovery, dir string) {
	for _, e := range d.ReadDir(dir) {
		name, path := e.Name(), filepath.Join(dir, e.Name())
		switch {
		case e.IsDir():
			events := filepath.Join(path, "events.jsonl")
			if exists(events) {
				d.AddFile(events, name, transcript.RoleSession)
			}
		case strings.HasSuffix(name, ".jsonl"):
			d.AddFile(path, strings.TrimSuffix(name, ".jsonl"), transcript.RoleSession)
		default:
			d.Skip(path, "not a session log")
		}
	}
}

// Fingerprint names a record's schema: SchemaEvents for a record of the
// event log ({type: "<namespace>.<event>", data: {…}, id, timestamp,
// parentId}), SchemaVSCodeEvents for the session.start of a log the VS Code
// extension wrote; empty for records that are not Copilot's. A session.start
// gives the CLI's version.
func (a *Adapter) Fingerprint(rec transcript.Record) transcript.Variant {
	v := transcript.Variant{Source: transcript.CopilotCLI}
	if !rawjson.IsObject(rec.Data) || !rawjson.Valid(rec.Data) {
		return v
	}
	m := rawjson.AsObject(rec.Data)
	typ := rawjson.AsString(m.Get("type"))
	data := rawjson.AsObject(m.Get("data"))
	if data == nil || !isEventType(typ) || !m.Has("id") && !m.Has("timestamp") && !m.Has("parentId") {
		return v
	}
	v.Schema = SchemaEvents
	if typ == "session.start" {
		v.ToolVersion = rawjson.AsString(data.Get("copilotVersion"))
		if data.Has("vscodeVersion") {
			v.Schema = SchemaVSCodeEvents
		}
	}
	return v
}

// isEventType reports whether typ has the shape of the log's event types:
// "<namespace>.<event>" in lower case and underscores, or "abort".
func isEventType(typ string) bool {
	if typ == "abort" {
		return true
	}
	dot := strings.IndexByte(typ, '.')
	if dot <= 0 || dot == len(typ)-1 {
		return false
	}
	for i := 0; i < len(typ); i++ {
		c := typ[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_' || c == '.') {
			return false
		}
	}
	return true
}

// exists reports whether there is something (of any type, a link included)
// at path.
func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}
