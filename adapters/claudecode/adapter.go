package claudecode

import (
	"encoding/json"
	"io/fs"
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
	projects, err := os.ReadDir(root)
	if err != nil {
		d.Skip(root, err.Error())
		return
	}
	for _, p := range projects {
		dir := filepath.Join(root, p.Name())
		switch {
		case p.Type()&fs.ModeSymlink != 0:
			d.Skip(dir, "symbolic link, not followed")
		case p.IsDir():
			walkProject(d, dir)
		}
	}
}

func walkProject(d *transcript.Discovery, dir string) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		d.Skip(dir, err.Error())
		return
	}
	for _, e := range entries {
		path := filepath.Join(dir, e.Name())
		switch {
		case e.Type()&fs.ModeSymlink != 0:
			d.Skip(path, "symbolic link, not followed")
		case e.IsDir():
			sub := filepath.Join(path, "subagents")
			if fi, err := os.Lstat(sub); err == nil && fi.IsDir() {
				walkSubagents(d, sub, e.Name())
			}
		case strings.HasSuffix(e.Name(), ".jsonl"):
			name := strings.TrimSuffix(e.Name(), ".jsonl")
			if strings.HasPrefix(name, "agent-") {
				addFile(d, path, "", "subagent")
			} else {
				addFile(d, path, name, "session")
			}
		}
	}
}

// walkSubagents finds agent-*.jsonl under a session's subagents folder,
// workflows included.
func walkSubagents(d *transcript.Discovery, dir, session string) {
	err := filepath.WalkDir(dir, func(path string, e fs.DirEntry, err error) error {
		switch {
		case err != nil:
			d.Skip(path, err.Error())
			if e != nil && e.IsDir() {
				return fs.SkipDir
			}
		case e.Type()&fs.ModeSymlink != 0:
			d.Skip(path, "symbolic link, not followed")
		case !e.IsDir() && strings.HasPrefix(e.Name(), "agent-") && strings.HasSuffix(e.Name(), ".jsonl"):
			addFile(d, path, session, "subagent")
		case !e.IsDir() && e.Name() == "journal.jsonl":
			d.Skip(path, "a workflow journal, not a transcript")
		}
		return nil
	})
	if err != nil {
		d.Skip(dir, err.Error())
	}
}

func addFile(d *transcript.Discovery, path, session, role string) {
	fi, err := os.Stat(path)
	switch {
	case err != nil:
		d.Skip(path, err.Error())
	case !fi.Mode().IsRegular():
		d.Skip(path, "not a regular file")
	case fi.Size() == 0:
		d.Skip(path, "empty")
	default:
		d.Files = append(d.Files, transcript.Found{Path: path, Session: session, Role: role, Size: fi.Size()})
	}
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
