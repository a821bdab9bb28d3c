package setup

// Status is what a client's configuration holds of cortex's, for doctor.
type Status struct {
	Client *Client
	Files  []FileStatus
}

// FileStatus is one configuration file as doctor finds it.
type FileStatus struct {
	Path   string
	Exists bool
	// Err is set when the file cannot be read: nothing else is known.
	Err error
	// Hooks are the events that run cortex hook, in the client's order.
	Hooks []HookStatus
	// WantsHooks and WantsMCP say what cortex setup writes in this file.
	WantsHooks, WantsMCP bool
	// MCP is cortex's MCP server entry, nil when there is none.
	MCP *ServerStatus
}

// HookStatus is one event that runs cortex hook.
type HookStatus struct {
	Event   string // the client's name for it
	Command string
	Binary  string // the binary it runs
	// ThisBinary says it runs the binary doctor was given.
	ThisBinary bool
}

// ServerStatus is cortex's MCP server entry.
type ServerStatus struct {
	Command string
	// Cortex says the entry runs cortex mcp at all (another server may be
	// called cortex).
	Cortex     bool
	ThisBinary bool
	// BySetup is false for an entry a person wrote (Codex's config.toml
	// says which block cortex setup wrote).
	BySetup bool
}

// Installed reports whether the client has any of cortex's hooks or its MCP
// server.
func (s *Status) Installed() bool {
	for _, f := range s.Files {
		if len(f.Hooks) > 0 || f.MCP != nil && f.MCP.Cortex {
			return true
		}
	}
	return false
}

// Inspect reads every client's configuration and says what of cortex's is
// there and whether it runs binary. It writes nothing.
func Inspect(e Env, binary string) []Status {
	var out []Status
	for _, c := range Clients {
		s := Status{Client: c}
		for _, t := range c.targets(e) {
			s.Files = append(s.Files, inspectFile(t, c, binary))
		}
		out = append(out, s)
	}
	return out
}

func inspectFile(t target, c *Client, binary string) FileStatus {
	st := FileStatus{Path: t.path, WantsHooks: t.hooks != nil, WantsMCP: t.mcp != nil || t.tomlMCP}
	src, existed, err := readFile(t.path)
	st.Exists = existed
	if err != nil || !existed {
		st.Err = err
		return st
	}
	if t.format == formatTOML {
		m, err := readTOML(t.path, src)
		if err != nil {
			st.Err = err
			return st
		}
		start, _, err := tomlMarkers(t.path, src)
		if err != nil {
			st.Err = err
			return st
		}
		if e, ok := tomlServer(m); ok {
			cmd, ours := runsCortex(e, binary)
			ours = ours || start >= 0 // the block setup wrote, whatever the binary is called
			st.MCP = &ServerStatus{Command: cmd, Cortex: ours, ThisBinary: ours && SameBinary(cmd, binary), BySetup: start >= 0}
		}
		return st
	}
	d := &jsonEdit{path: t.path, src: src}
	if err := d.reparse(); err != nil {
		st.Err = err
		return st
	}
	if d.root == nil {
		return st
	}
	if t.hooks != nil {
		if hooks, _, err := d.object(d.root, "hooks", "hooks"); err != nil {
			st.Err = err
		} else if hooks != nil {
			for _, ev := range t.hooks.events {
				list, _, err := d.list(hooks, ev.Native, "hooks."+ev.Native)
				if err != nil {
					st.Err = err
					return st
				}
				if list == nil {
					continue
				}
				for _, el := range list.elems {
					if v := ourHook(src, el, t.hooks.shape, c.ID, binary); v != nil {
						bin, _, _ := parseHookCommand(v.str, c.ID, binary)
						st.Hooks = append(st.Hooks, HookStatus{Event: ev.Native, Command: v.str, Binary: bin, ThisBinary: SameBinary(bin, binary)})
						break
					}
				}
			}
		}
	}
	if t.mcp != nil {
		servers, _, err := d.object(d.root, "mcpServers", "mcpServers")
		if err != nil {
			st.Err = err
			return st
		}
		if servers != nil {
			if v, _, err := servers.member(src, ServerName); err == nil && v != nil {
				srv := &ServerStatus{BySetup: true}
				if cmd := ourServer(src, v, binary); cmd != nil {
					srv.Command, srv.Cortex, srv.ThisBinary = cmd.str, true, SameBinary(cmd.str, binary)
				} else if c, _, _ := v.member(src, "command"); c != nil && c.kind == kindString {
					srv.Command = c.str
				}
				st.MCP = srv
			}
		}
	}
	return st
}
