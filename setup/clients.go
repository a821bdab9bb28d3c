package setup

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"
)

// Client is an agent cortex can be set up for: where its configuration lives
// and what cortex adds there.
type Client struct {
	ID      string   // the name cortex hook and cortex setup take: "claude-code"
	Name    string   // as people write it: "Claude Code"
	Aliases []string // other names cortex setup accepts
	// PromptHook says whether the client can add recalled memories to a
	// prompt as it is sent (cortex setup --prompt-hook).
	PromptHook bool
	// Env is the variable that moves the client's configuration folder.
	Env string

	targets func(e Env) []target
	notes   func(o Options) []string
}

// Env is where setup looks: the home folder and the environment (for the
// clients' own overrides of their folders).
type Env struct {
	Home   string
	Getenv func(string) string
}

func (e Env) get(k string) string {
	if e.Getenv == nil {
		return ""
	}
	return e.Getenv(k)
}

// Event is one lifecycle event cortex hooks into: the client's name for it
// and the event cortex hook is given.
type Event struct {
	Native string // "SessionStart", "PreCompress", "stop"
	Cortex string // "session-start", "pre-compact", "stop"
	// OptIn events are written only with --prompt-hook.
	OptIn bool
}

// The events cortex hook handles, by the names cortex hook takes.
const (
	evSessionStart = "session-start"
	evPrompt       = "user-prompt-submit"
	evPreCompact   = "pre-compact"
	evStop         = "stop"
	evSessionEnd   = "session-end"
)

// hookShape is how a client lists the commands of an event.
type hookShape int

const (
	// grouped: event → [{matcher?, hooks: [{type: "command", command, timeout}]}]
	// (Claude Code, Codex, Gemini CLI).
	grouped hookShape = iota + 1
	// flat: event → [{command}] (Cursor).
	flat
)

// hookSpec is the hooks cortex writes in one JSON file.
type hookSpec struct {
	shape   hookShape
	events  []Event
	timeout int    // the timeout written with each hook, in the client's unit; 0 writes none
	name    string // a "name" for each hook, for clients that show one; "" writes none
}

// mcpSpec is the MCP server entry cortex writes in one JSON file, under
// mcpServers.cortex.
type mcpSpec struct {
	stdioType bool // write "type": "stdio" (Claude Code's own form)
}

// format is how a file is written.
type format int

const (
	formatJSON format = iota + 1
	formatTOML
)

// target is one file setup edits.
type target struct {
	path     string
	format   format
	skeleton string // what a new file starts from; uninstall removes a file left exactly so
	hooks    *hookSpec
	mcp      *mcpSpec // JSON files
	tomlMCP  bool     // Codex's [mcp_servers.cortex]
}

// ServerName is the name of cortex's MCP server in every client.
const ServerName = "cortex"

var claudeEvents = []Event{
	{Native: "SessionStart", Cortex: evSessionStart},
	{Native: "UserPromptSubmit", Cortex: evPrompt, OptIn: true},
	{Native: "PreCompact", Cortex: evPreCompact},
	{Native: "Stop", Cortex: evStop},
	{Native: "SessionEnd", Cortex: evSessionEnd},
}

// Clients are the agents cortex setup knows, in the order it lists them.
var Clients = []*Client{
	{
		ID: "claude-code", Name: "Claude Code", Aliases: []string{"claude"}, PromptHook: true, Env: "CLAUDE_CONFIG_DIR",
		targets: func(e Env) []target {
			dir, state := filepath.Join(e.Home, ".claude"), filepath.Join(e.Home, ".claude.json")
			if d := e.get("CLAUDE_CONFIG_DIR"); d != "" {
				// With the variable set, Claude Code keeps its user state
				// (where 'claude mcp add --scope user' writes) in the folder too.
				dir, state = d, filepath.Join(d, ".claude.json")
			}
			return []target{
				{path: filepath.Join(dir, "settings.json"), format: formatJSON, skeleton: "{}\n",
					hooks: &hookSpec{shape: grouped, events: claudeEvents, timeout: 10}},
				{path: state, format: formatJSON, skeleton: "{}\n", mcp: &mcpSpec{stdioType: true}},
			}
		},
		notes: func(o Options) []string {
			return []string{"Start a new Claude Code session to load them: /hooks lists the hooks, /mcp shows the cortex server."}
		},
	},
	{
		ID: "codex", Name: "Codex", PromptHook: true, Env: "CODEX_HOME",
		targets: func(e Env) []target {
			dir := filepath.Join(e.Home, ".codex")
			if d := e.get("CODEX_HOME"); d != "" {
				dir = d
			}
			return []target{
				{path: filepath.Join(dir, "config.toml"), format: formatTOML, tomlMCP: true},
				{path: filepath.Join(dir, "hooks.json"), format: formatJSON, skeleton: "{}\n",
					hooks: &hookSpec{shape: grouped, events: claudeEvents, timeout: 10}},
			}
		},
		notes: func(o Options) []string {
			if o.Uninstall {
				return nil
			}
			return []string{
				"Codex runs a new or changed hook only once you trust it: start codex, open /hooks, review the cortex hooks and trust them.",
				"Until then Codex skips them without a word (codex --dangerously-bypass-hook-trust runs them untrusted).",
			}
		},
	},
	{
		ID: "gemini-cli", Name: "Gemini CLI", Aliases: []string{"gemini"}, PromptHook: true, Env: "GEMINI_CLI_HOME",
		targets: func(e Env) []target {
			home := e.Home
			if d := e.get("GEMINI_CLI_HOME"); d != "" {
				home = d // it stands for the home folder: the settings are in its .gemini
			}
			return []target{{
				path: filepath.Join(home, ".gemini", "settings.json"), format: formatJSON, skeleton: "{}\n",
				hooks: &hookSpec{shape: grouped, timeout: 10000, name: "cortex", events: []Event{
					{Native: "SessionStart", Cortex: evSessionStart},
					{Native: "BeforeAgent", Cortex: evPrompt, OptIn: true},
					{Native: "PreCompress", Cortex: evPreCompact},
					{Native: "AfterAgent", Cortex: evStop},
					{Native: "SessionEnd", Cortex: evSessionEnd},
				}},
				mcp: &mcpSpec{},
			}}
		},
		notes: func(o Options) []string {
			return []string{"Start a new Gemini CLI session to load them: /mcp shows the cortex server."}
		},
	},
	{
		ID: "cursor", Name: "Cursor",
		targets: func(e Env) []target {
			dir := filepath.Join(e.Home, ".cursor")
			return []target{
				{path: filepath.Join(dir, "mcp.json"), format: formatJSON, skeleton: "{}\n", mcp: &mcpSpec{}},
				{path: filepath.Join(dir, "hooks.json"), format: formatJSON, skeleton: "{\n  \"version\": 1\n}\n",
					hooks: &hookSpec{shape: flat, events: []Event{
						{Native: "sessionStart", Cortex: evSessionStart},
						{Native: "preCompact", Cortex: evPreCompact},
						{Native: "stop", Cortex: evStop},
						{Native: "sessionEnd", Cortex: evSessionEnd},
					}}},
			}
		},
		notes: func(o Options) []string {
			return []string{"Restart Cursor to load them: Cursor Settings lists the hooks and the MCP servers."}
		},
	},
}

// Lookup finds a client by its id or an alias, ignoring case.
func Lookup(name string) (*Client, error) {
	n := strings.ToLower(strings.TrimSpace(name))
	for _, c := range Clients {
		if n == c.ID {
			return c, nil
		}
		for _, a := range c.Aliases {
			if n == a {
				return c, nil
			}
		}
	}
	return nil, fmt.Errorf("unknown client %q: choose one of %s", name, strings.Join(Names(), ", "))
}

// Names lists the clients' ids, sorted.
func Names() []string {
	var out []string
	for _, c := range Clients {
		out = append(out, c.ID)
	}
	sort.Strings(out)
	return out
}

// Events lists the events cortex hooks into for c, with --prompt-hook or not.
func (c *Client) Events(promptHook bool) []Event {
	var out []Event
	for _, t := range c.targets(Env{}) {
		if t.hooks == nil {
			continue
		}
		for _, ev := range t.hooks.events {
			if !ev.OptIn || promptHook {
				out = append(out, ev)
			}
		}
	}
	return out
}

// Files lists the files setup edits for c.
func (c *Client) Files(e Env) []string {
	var out []string
	for _, t := range c.targets(e) {
		out = append(out, t.path)
	}
	return out
}
