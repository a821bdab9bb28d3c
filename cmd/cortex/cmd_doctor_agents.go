package main

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/cortexmem/cortex/setup"
)

// Doctor's report on the coding agents: for each client cortex setup knows,
// whether its hooks and MCP server entry are there and run this binary.

type agentHookJSON struct {
	Event      string `json:"event"`
	Command    string `json:"command"`
	ThisBinary bool   `json:"this_binary"`
}

type agentServerJSON struct {
	Command    string `json:"command"`
	Cortex     bool   `json:"runs_cortex"`
	ThisBinary bool   `json:"this_binary"`
	BySetup    bool   `json:"by_setup"`
}

type agentFileJSON struct {
	Path   string           `json:"path"`
	Exists bool             `json:"exists"`
	Error  string           `json:"error,omitempty"`
	Hooks  []agentHookJSON  `json:"hooks"`
	MCP    *agentServerJSON `json:"mcp"`
}

type agentJSON struct {
	Client    string          `json:"client"`
	Installed bool            `json:"installed"`
	Files     []agentFileJSON `json:"files"`
}

type agentsJSON struct {
	Binary  string      `json:"binary"`
	Clients []agentJSON `json:"clients"`
}

// agentsReport reads every client's configuration; it never fails: what
// cannot be read is part of the report.
func (a *app) agentsReport() (string, []setup.Status) {
	bin, err := thisBinary()
	if err != nil {
		bin = ""
	}
	return bin, setup.Inspect(setup.Env{Home: a.home(), Getenv: a.getenv}, bin)
}

func agentsToJSON(bin string, sts []setup.Status) agentsJSON {
	out := agentsJSON{Binary: bin, Clients: []agentJSON{}}
	for _, s := range sts {
		aj := agentJSON{Client: s.Client.ID, Installed: s.Installed(), Files: []agentFileJSON{}}
		for _, f := range s.Files {
			fj := agentFileJSON{Path: f.Path, Exists: f.Exists, Hooks: []agentHookJSON{}}
			if f.Err != nil {
				fj.Error = f.Err.Error()
			}
			for _, h := range f.Hooks {
				fj.Hooks = append(fj.Hooks, agentHookJSON{Event: h.Event, Command: h.Command, ThisBinary: h.ThisBinary})
			}
			if f.MCP != nil {
				fj.MCP = &agentServerJSON{Command: f.MCP.Command, Cortex: f.MCP.Cortex, ThisBinary: f.MCP.ThisBinary, BySetup: f.MCP.BySetup}
			}
			aj.Files = append(aj.Files, fj)
		}
		out.Clients = append(out.Clients, aj)
	}
	return out
}

// printAgents writes one line per client (and a line per problem under it):
// ✓ set up and running this binary, ! set up in part or for another binary,
// ✗ a configuration file cannot be read, - not set up.
func printAgents(w io.Writer, bin string, sts []setup.Status) {
	for _, s := range sts {
		id := s.Client.ID
		var problems, hooks, servers []string
		unreadable := false
		for _, f := range s.Files {
			if f.Err != nil {
				problems = append(problems, f.Err.Error())
				unreadable = true
				continue
			}
			if len(f.Hooks) > 0 {
				var evs, others []string
				for _, h := range f.Hooks {
					evs = append(evs, h.Event)
					if b := hookBinary(h); !h.ThisBinary && !slices.Contains(others, b) {
						others = append(others, b)
					}
				}
				hooks = append(hooks, fmt.Sprintf("hooks %s (%s)", strings.Join(evs, ", "), f.Path))
				if len(others) > 0 {
					problems = append(problems, fmt.Sprintf("the hooks in %s run %s, not this binary: cortex setup %s points them here", f.Path, strings.Join(others, ", "), id))
				}
			} else if f.WantsHooks && s.Installed() {
				problems = append(problems, fmt.Sprintf("no hooks in %s: cortex setup %s adds them", f.Path, id))
			}
			switch {
			case f.MCP != nil && !f.MCP.Cortex:
				problems = append(problems, fmt.Sprintf("the MCP server called cortex in %s runs %q, not cortex mcp", f.Path, f.MCP.Command))
			case f.MCP != nil:
				servers = append(servers, fmt.Sprintf("MCP server (%s)", f.Path))
				if !f.MCP.ThisBinary {
					problems = append(problems, fmt.Sprintf("the MCP server in %s runs %s, not this binary: cortex setup %s points it here", f.Path, f.MCP.Command, id))
				}
			case f.WantsMCP && s.Installed():
				problems = append(problems, fmt.Sprintf("no MCP server entry in %s: cortex setup %s adds it", f.Path, id))
			}
		}
		if s.Installed() && !unreadable {
			problems = append(problems, missingHooks(s)...)
		}
		have := append(hooks, servers...)
		mark, line := "-", fmt.Sprintf("not set up (cortex setup %s)", id)
		if len(have) > 0 {
			mark, line = "✓", strings.Join(have, "; ")
		}
		if len(problems) > 0 {
			mark = "!"
		}
		if unreadable {
			mark = "✗"
			if len(have) == 0 {
				line = "its configuration cannot be read:"
			}
		}
		fmt.Fprintf(w, "%s %-12s%s\n", mark, id, line)
		for _, p := range problems {
			fmt.Fprintf(w, "                %s\n", p)
		}
	}
	if bin != "" {
		fmt.Fprintf(w, "  %-12s%s (what the hooks and MCP entries should run)\n", "binary", bin)
	}
}

// missingHooks names the events setup hooks into that have no hook of
// cortex's (a file edited by hand, or written by an older setup).
func missingHooks(s setup.Status) []string {
	found := map[string]bool{}
	some := false
	for _, f := range s.Files {
		for _, h := range f.Hooks {
			found[h.Event], some = true, true
		}
	}
	if !some {
		return nil // reported as "no hooks" above
	}
	var out []string
	for _, ev := range s.Client.Events(false) {
		if !found[ev.Native] {
			out = append(out, fmt.Sprintf("no %s hook (%s): cortex setup %s adds it", ev.Native, ev.Cortex, s.Client.ID))
		}
	}
	return out
}

func hookBinary(h setup.HookStatus) string {
	if h.Binary != "" {
		return h.Binary
	}
	return h.Command
}
