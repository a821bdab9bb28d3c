package codex

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/cortexmem/cortex/transcript"
	"github.com/cortexmem/cortex/transcript/rawjson"
)

// EnvHome is Codex's own override of its folder (~/.codex).
const EnvHome = "CODEX_HOME"

// Adapter reads Codex rollouts. The zero value is ready to use.
type Adapter struct{}

// New returns the Codex adapter.
func New() *Adapter { return &Adapter{} }

// Source is Codex.
func (a *Adapter) Source() transcript.SourceKind { return transcript.Codex }

// Discover lists Codex's rollouts: <root>/sessions/YYYY/MM/DD/rollout-*.jsonl
// and the archived ones under <root>/archived_sessions (flat or dated), where
// root is $CODEX_HOME when set, else ~/.codex. Codex Desktop and the VS Code
// extension write to the same tree; subagents' and forks' rollouts sit beside
// the others (their records say what they are), so every file's role is
// "session". Passed over, with the reason: rollouts Codex has compressed
// (rollout-*.jsonl.zst, after about a week: the plain file wins when both
// are there), the single-JSON sessions of the TypeScript CLI, empty files and
// symbolic links (not followed).
func (a *Adapter) Discover(env transcript.Env) transcript.Discovery {
	d := transcript.NewDiscovery(transcript.Codex)
	home, from := env.Lookup(EnvHome), EnvHome
	if home == "" {
		if env.Home == "" {
			d.Skip("~/.codex/sessions", "no home folder and no "+EnvHome)
			return d
		}
		home, from = filepath.Join(env.Home, ".codex"), "default"
	}
	for _, sub := range []string{"sessions", "archived_sessions"} {
		d.AddRoot(transcript.Root{Path: filepath.Join(home, sub), From: from}, func(dir string) { walkRoot(&d, dir) })
	}
	d.Sort()
	return d
}

// walkRoot finds the rollouts below root, at any depth (sessions/ is dated,
// archived_sessions/ mostly flat).
func walkRoot(d *transcript.Discovery, root string) {
	d.WalkFiles(root, func(path string) {
		switch name := filepath.Base(path); {
		case !strings.HasPrefix(name, "rollout-"):
		case strings.HasSuffix(name, ".jsonl"):
			d.AddFile(path, sessionOf(strings.TrimSuffix(name, ".jsonl")), transcript.RoleSession)
		case strings.HasSuffix(name, ".jsonl.zst"):
			plain := strings.TrimSuffix(path, ".zst")
			reason := "compressed by Codex (zstd, after about a week of inactivity); only plain .jsonl rollouts are read"
			if fi, err := os.Lstat(plain); err == nil && fi.Mode().IsRegular() {
				reason = "a compressed copy of " + filepath.Base(plain) + ", which is read instead"
			}
			d.Skip(path, reason)
		case strings.HasSuffix(name, ".json"):
			d.Skip(path, "a session of the TypeScript Codex CLI (one JSON document), not a rollout")
		}
	})
}

// sessionOf returns the thread id at the end of a rollout's name
// (rollout-YYYY-MM-DDThh-mm-ss-<uuid>), or "" when there is none.
func sessionOf(stem string) string {
	if len(stem) < 36 {
		return ""
	}
	id := stem[len(stem)-36:]
	for i, c := range id {
		switch {
		case i == 8 || i == 13 || i == 18 || i == 23:
			if c != '-' {
				return ""
			}
		case c >= '0' && c <= '9', c >= 'a' && c <= 'f', c >= 'A' && c <= 'F':
		default:
			return ""
		}
	}
	return id
}

// The schema variants Fingerprint names.
const (
	// SchemaEnvelope is a line {"timestamp", "type", "payload"} (Codex since
	// about 0.3x, September 2025; newer lines add "ordinal").
	SchemaEnvelope = "codex/rollout/envelope"
	// SchemaBare is a line of the early Rust CLI (mid-2025): a bare session
	// header {"id", "timestamp", "instructions", "git"}, bare response items
	// ({"type": "message", …}) and {"record_type": "state"} markers.
	SchemaBare = "codex/rollout/bare"
)

// bareItems are the response item types the early Rust CLI wrote without an
// envelope.
var bareItems = map[string]bool{
	"message": true, "reasoning": true, "function_call": true, "function_call_output": true,
	"custom_tool_call": true, "custom_tool_call_output": true, "local_shell_call": true,
	"web_search_call": true,
}

// Fingerprint names a record's schema: SchemaEnvelope or SchemaBare, with
// "/v<major.minor>" and the tool version for a session header that says
// which Codex wrote it; empty for records that are not Codex's (not a JSON
// object, or not one of the two shapes — Claude Code's and Gemini CLI's
// records have neither a payload nor a bare item type).
func (a *Adapter) Fingerprint(rec transcript.Record) transcript.Variant {
	v := transcript.Variant{Source: transcript.Codex}
	if len(rec.Data) == 0 || rec.Data[0] != '{' || !rawjson.Valid(rec.Data) {
		return v
	}
	m := rawjson.AsObject(rec.Data)
	var version []byte
	typ, hasType := rawjson.String(m.Get("type"))
	switch {
	case m.Get("payload") != nil:
		if !hasType || m.Get("timestamp") == nil {
			return v
		}
		v.Schema = SchemaEnvelope
		if typ == "session_meta" {
			version = rawjson.AsObject(m.Get("payload")).Get("cli_version")
		}
	case m.Get("uuid") != nil || m.Get("sessionId") != nil:
		return v
	case m.Get("record_type") != nil:
		v.Schema = SchemaBare
	case hasType:
		if !bareItems[typ] {
			return v
		}
		v.Schema = SchemaBare
	case m.Get("type") == nil && isBareHeader(m):
		v.Schema = SchemaBare
		version = m.Get("cli_version")
	default:
		return v
	}
	v.ToolVersion = rawjson.AsString(version)
	if parts := strings.SplitN(v.ToolVersion, ".", 3); len(parts) >= 2 && isDigits(parts[0]) && isDigits(parts[1]) {
		v.Schema += "/v" + parts[0] + "." + parts[1]
	}
	return v
}

// isBareHeader reports whether m is the early Rust CLI's first line: an id, a
// timestamp and the instructions or git fields, no type.
func isBareHeader(m rawjson.Object) bool {
	_, id := rawjson.String(m.Get("id"))
	return id && m.Get("timestamp") != nil && (m.Get("instructions") != nil || m.Get("git") != nil)
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
