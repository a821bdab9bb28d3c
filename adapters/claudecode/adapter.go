package claudecode

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"

	"github.com/cortexmem/cortex/transcript"
)

// EnvConfigDir is Claude Code's own override of its folder (~/.claude).
const EnvConfigDir = "CLAUDE_CONFIG_DIR"

// Adapter reads Claude Code transcripts. The zero value is ready to use.
type Adapter struct{}

// New returns the Claude Code adapter.
func New() *Adapter { return &Adapter{} }

// Source is Claude Code.
func (a *Adapter) Source() transcript.SourceKind { return transcript.ClaudeCode }

// Discover lists Claude Code's transcripts: <root>/projects/<encoded-cwd>/
// <session>.jsonl, subagents' <session>/subagents/**/agent-*.jsonl and the
// older agent-*.jsonl beside the sessions, where root is $CLAUDE_CONFIG_DIR
// when set, else ~/.claude and the XDG ~/.config/claude (a folder reached
// twice through a link is read once). Symbolic links are not followed.
func (a *Adapter) Discover(env transcript.Env) transcript.Discovery {
	d := transcript.NewDiscovery(transcript.ClaudeCode)
	var roots []transcript.Root
	if dir := env.Lookup(EnvConfigDir); dir != "" {
		roots = append(roots, transcript.Root{Path: filepath.Join(dir, "projects"), From: EnvConfigDir})
	} else if env.Home != "" {
		roots = append(roots, transcript.Root{Path: filepath.Join(env.Home, ".claude", "projects"), From: "default"})
		xdg, from := env.Lookup("XDG_CONFIG_HOME"), "XDG_CONFIG_HOME"
		if xdg == "" {
			xdg, from = filepath.Join(env.Home, ".config"), "default"
		}
		roots = append(roots, transcript.Root{Path: filepath.Join(xdg, "claude", "projects"), From: from})
	} else {
		d.Skip("~/.claude/projects", "no home folder and no "+EnvConfigDir)
	}
	for _, r := range roots {
		d.AddRoot(r, func(dir string) { walkRoot(&d, dir) })
	}
	d.Sort()
	return d
}

func walkRoot(d *transcript.Discovery, root string) {
	for _, p := range d.ReadDir(root) {
		if p.IsDir() {
			walkProject(d, filepath.Join(root, p.Name()))
		}
	}
}

func walkProject(d *transcript.Discovery, dir string) {
	for _, e := range d.ReadDir(dir) {
		path := filepath.Join(dir, e.Name())
		switch {
		case e.IsDir():
			sub := filepath.Join(path, "subagents")
			if fi, err := os.Lstat(sub); err == nil && fi.IsDir() {
				walkSubagents(d, sub, e.Name())
			}
		case strings.HasSuffix(e.Name(), ".jsonl"):
			name := strings.TrimSuffix(e.Name(), ".jsonl")
			if strings.HasPrefix(name, "agent-") {
				d.AddFile(path, "", transcript.RoleSubagent)
			} else {
				d.AddFile(path, name, transcript.RoleSession)
			}
		}
	}
}

// walkSubagents finds agent-*.jsonl under a session's subagents folder,
// workflows included.
func walkSubagents(d *transcript.Discovery, dir, session string) {
	d.WalkFiles(dir, func(path string) {
		switch name := filepath.Base(path); {
		case strings.HasPrefix(name, "agent-") && strings.HasSuffix(name, ".jsonl"):
			d.AddFile(path, session, transcript.RoleSubagent)
		case name == "journal.jsonl":
			d.Skip(path, "a workflow journal, not a transcript")
		}
	})
}

// fingerprint is the part of a record Fingerprint reads.
type fingerprint struct {
	Type      *string         `json:"type"`
	UUID      string          `json:"uuid"`
	SessionID string          `json:"sessionId"`
	Version   string          `json:"version"`
	LeafUUID  string          `json:"leafUuid"`
	Snapshot  json.RawMessage `json:"snapshot"`
	Payload   json.RawMessage `json:"payload"`
}

// Fingerprint names a record's schema: "claude-code/jsonl/v<major.minor>"
// for records that say which version wrote them, "claude-code/jsonl" for the
// others; empty for records that are not Claude Code's (not a JSON object
// with a type, or without the session id, uuid or link Claude Code's records
// carry).
func (a *Adapter) Fingerprint(rec transcript.Record) transcript.Variant {
	v := transcript.Variant{Source: transcript.ClaudeCode}
	var f fingerprint
	if len(rec.Data) == 0 || rec.Data[0] != '{' || json.Unmarshal(rec.Data, &f) != nil || f.Type == nil || f.Payload != nil {
		return v
	}
	if f.SessionID == "" && f.UUID == "" && f.LeafUUID == "" && f.Snapshot == nil {
		return v
	}
	v.Schema = "claude-code/jsonl"
	v.ToolVersion = f.Version
	if parts := strings.SplitN(f.Version, ".", 3); len(parts) >= 2 && isDigits(parts[0]) && isDigits(parts[1]) {
		v.Schema += "/v" + parts[0] + "." + parts[1]
	}
	return v
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}
