package setup

import (
	"errors"
	"fmt"
)

// Options say what setup writes.
type Options struct {
	// Binary is the absolute path of the cortex binary the hooks and the MCP
	// server entry run.
	Binary string
	// PromptHook also writes the opt-in events (recall for each prompt).
	PromptHook bool
	// Uninstall removes cortex's entries instead.
	Uninstall bool
}

// ErrConflict is a configuration that holds an entry named like cortex's that
// cortex did not write: setup leaves it alone and refuses.
var ErrConflict = errors.New("conflicting entry")

// ConflictError says which entry is in the way, and where.
type ConflictError struct {
	Path string
	Line int
	Msg  string
}

func (e *ConflictError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s: line %d: %s", e.Path, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.Path, e.Msg)
}

// Unwrap makes errors.Is(err, ErrConflict) true.
func (e *ConflictError) Unwrap() error { return ErrConflict }

// jsonEdit is one JSON document being edited: its text, re-read after every
// splice so each edit works on true offsets.
type jsonEdit struct {
	path    string
	src     []byte
	root    *jvalue
	st      style
	actions []string
	notes   []string
}

func (d *jsonEdit) reparse() error {
	root, err := parseJSON(d.src)
	if err != nil {
		var se *SyntaxError
		if errors.As(err, &se) {
			se.Path = d.path
		}
		return err
	}
	if root != nil && root.kind != kindObject {
		return &SyntaxError{Path: d.path, Line: lineOf(d.src, root.start), Column: columnOf(d.src, root.start),
			Msg: "the file holds a value that is not an object; settings are an object in { }"}
	}
	d.root = root
	return nil
}

// object returns the member key of obj when it is an object, nil when obj has
// no such member, and an error when it is something else.
func (d *jsonEdit) object(obj *jvalue, key, where string) (*jvalue, int, error) {
	v, i, err := obj.member(d.src, key)
	if err != nil {
		return nil, -1, d.located(err)
	}
	if v != nil && v.kind != kindObject {
		return nil, -1, &SyntaxError{Path: d.path, Line: lineOf(d.src, v.start), Column: columnOf(d.src, v.start),
			Msg: fmt.Sprintf("%s is not an object", where)}
	}
	return v, i, nil
}

func (d *jsonEdit) list(obj *jvalue, key, where string) (*jvalue, int, error) {
	v, i, err := obj.member(d.src, key)
	if err != nil {
		return nil, -1, d.located(err)
	}
	if v != nil && v.kind != kindArray {
		return nil, -1, &SyntaxError{Path: d.path, Line: lineOf(d.src, v.start), Column: columnOf(d.src, v.start),
			Msg: fmt.Sprintf("%s is not a list", where)}
	}
	return v, i, nil
}

func (d *jsonEdit) located(err error) error {
	var se *SyntaxError
	if errors.As(err, &se) {
		se.Path = d.path
	}
	return err
}

// addMember adds key: val at the end of obj, then re-reads the document.
func (d *jsonEdit) addMember(obj *jvalue, key string, val jnode) error {
	d.src = insertItem(d.src, obj, d.st, func(indent string, inline bool) string {
		return quote(key) + ": " + render(val, indent, d.st.unit, d.st.nl, inline)
	})
	return d.reparse()
}

func (d *jsonEdit) addElem(list *jvalue, val jnode) error {
	d.src = insertItem(d.src, list, d.st, func(indent string, inline bool) string {
		return render(val, indent, d.st.unit, d.st.nl, inline)
	})
	return d.reparse()
}

func (d *jsonEdit) remove(c *jvalue, i int) error {
	d.src = removeItem(d.src, c, i)
	return d.reparse()
}

func (d *jsonEdit) replace(v *jvalue, text string) error {
	d.src = splice(d.src, v.start, v.end, text)
	return d.reparse()
}

// patchJSON returns src with cortex's entries for t as o asks, or without
// them for an uninstall, and what changed in words.
func patchJSON(path string, src []byte, existed bool, t target, c *Client, o Options) (out []byte, remove bool, actions, notes []string, err error) {
	d := &jsonEdit{path: path, src: src}
	if err := d.reparse(); err != nil {
		return nil, false, nil, nil, err
	}
	if d.root == nil {
		if o.Uninstall {
			return src, false, nil, nil, nil
		}
		// A new or empty file starts as the client's own empty settings.
		d.src = []byte(t.skeleton)
		if err := d.reparse(); err != nil {
			return nil, false, nil, nil, err
		}
	}
	d.st = styleOf(d.src, d.root)
	if t.hooks != nil {
		for _, ev := range t.hooks.events {
			want := !o.Uninstall && (!ev.OptIn || o.PromptHook)
			if err := d.syncHook(t.hooks, ev, c.ID, o.Binary, want); err != nil {
				return nil, false, nil, nil, err
			}
		}
	}
	if t.mcp != nil {
		if err := d.syncMCP(t.mcp, o.Binary, !o.Uninstall); err != nil {
			return nil, false, nil, nil, err
		}
	}
	if _, err := parseJSON(d.src); err != nil {
		// Never reached: every splice above keeps the document whole. If it
		// ever is, the file is left untouched.
		return nil, false, nil, nil, fmt.Errorf("setup would make %s unreadable (%v): nothing written", path, err)
	}
	remove = o.Uninstall && existed && len(d.actions) > 0 && string(d.src) == t.skeleton
	return d.src, remove, d.actions, d.notes, nil
}

// ourHook finds, in one element of an event's list, a hook cortex setup wrote:
// a group whose only hook runs cortex hook for this client (grouped
// clients), or an entry that does (Cursor). It returns the command's value.
func ourHook(src []byte, el *jvalue, shape hookShape, client, binary string) *jvalue {
	if el.kind != kindObject {
		return nil
	}
	h := el
	if shape == grouped {
		hs, _, err := el.member(src, "hooks")
		if err != nil || hs == nil || hs.kind != kindArray || len(hs.elems) != 1 || hs.elems[0].kind != kindObject {
			return nil
		}
		h = hs.elems[0]
	}
	cmd, _, err := h.member(src, "command")
	if err != nil || cmd == nil || cmd.kind != kindString {
		return nil
	}
	if _, _, ok := parseHookCommand(cmd.str, client, binary); !ok {
		return nil
	}
	return cmd
}

// hookEntry is the element cortex adds to an event's list.
func hookEntry(spec *hookSpec, cmd string) jnode {
	if spec.shape == flat {
		return jobj{{"command", cmd}}
	}
	var h jobj
	if spec.name != "" {
		h = append(h, jfield{"name", spec.name})
	}
	h = append(h, jfield{"type", "command"}, jfield{"command", cmd})
	if spec.timeout > 0 {
		h = append(h, jfield{"timeout", spec.timeout})
	}
	return jobj{{"hooks", []jnode{h}}}
}

// syncHook makes the event's list hold exactly one hook of cortex's running
// the right command (want), or none.
func (d *jsonEdit) syncHook(spec *hookSpec, ev Event, client, binary string, want bool) error {
	cmd := hookCommand(binary, client, ev.Cortex)
	where := "hooks." + ev.Native
	find := func() (hooks, list *jvalue, ours []int, err error) {
		hooks, _, err = d.object(d.root, "hooks", "hooks")
		if err != nil || hooks == nil {
			return hooks, nil, nil, err
		}
		list, _, err = d.list(hooks, ev.Native, where)
		if err != nil || list == nil {
			return hooks, list, nil, err
		}
		for i, el := range list.elems {
			if ourHook(d.src, el, spec.shape, client, binary) != nil {
				ours = append(ours, i)
			}
		}
		return hooks, list, ours, nil
	}
	hooks, list, ours, err := find()
	if err != nil {
		return err
	}
	if want && len(ours) == 0 {
		if hooks == nil {
			if err := d.addMember(d.root, "hooks", jobj{}); err != nil {
				return err
			}
			if hooks, _, _, err = find(); err != nil {
				return err
			}
		}
		if list == nil {
			if err := d.addMember(hooks, ev.Native, []jnode{}); err != nil {
				return err
			}
			if _, list, _, err = find(); err != nil {
				return err
			}
		}
		if err := d.addElem(list, hookEntry(spec, cmd)); err != nil {
			return err
		}
		d.actions = append(d.actions, fmt.Sprintf("add the %s hook (%s)", ev.Native, ev.Cortex))
		return nil
	}
	keep := 0
	if want {
		if v := ourHook(d.src, list.elems[ours[0]], spec.shape, client, binary); v.str != cmd {
			if err := d.replace(v, quote(cmd)); err != nil {
				return err
			}
			d.actions = append(d.actions, fmt.Sprintf("point the %s hook at %s", ev.Native, cmd))
		}
		keep = 1
	}
	removed := 0
	for {
		_, list, ours, err = find()
		if err != nil {
			return err
		}
		if len(ours) <= keep {
			break
		}
		if err := d.remove(list, ours[len(ours)-1]); err != nil {
			return err
		}
		removed++
	}
	if removed == 0 {
		return nil
	}
	if want {
		d.actions = append(d.actions, fmt.Sprintf("remove %d repeated %s hook(s)", removed, ev.Native))
	} else {
		d.actions = append(d.actions, fmt.Sprintf("remove the %s hook", ev.Native))
	}
	// A list or object left empty by the removal goes with its key.
	return d.prune([]string{"hooks", ev.Native})
}

// prune removes the member at path when its value is now empty, then its
// parent when that is empty too.
func (d *jsonEdit) prune(path []string) error {
	for n := len(path); n > 0; n-- {
		parent := d.root
		for _, k := range path[:n-1] {
			v, _, err := parent.member(d.src, k)
			if err != nil || v == nil || v.kind != kindObject {
				return d.located(err)
			}
			parent = v
		}
		v, i, err := parent.member(d.src, path[n-1])
		if err != nil || v == nil {
			return d.located(err)
		}
		if len(v.members) > 0 || len(v.elems) > 0 || v.kind != kindObject && v.kind != kindArray {
			return nil
		}
		if !blank(d.src[v.start+1:v.end-1], false) {
			return nil // a comment inside: the person's, kept
		}
		if err := d.remove(parent, i); err != nil {
			return err
		}
	}
	return nil
}

// ourServer reports whether an mcpServers entry runs cortex's MCP server, and
// returns its command's value.
func ourServer(src []byte, v *jvalue, binary string) *jvalue {
	if v.kind != kindObject {
		return nil
	}
	cmd, _, err := v.member(src, "command")
	if err != nil || cmd == nil || cmd.kind != kindString || !isCortex(cmd.str, binary) {
		return nil
	}
	args, _, err := v.member(src, "args")
	if err != nil || args == nil || args.kind != kindArray || len(args.elems) == 0 ||
		args.elems[0].kind != kindString || args.elems[0].str != "mcp" {
		return nil
	}
	return cmd
}

func serverEntry(spec *mcpSpec, binary string) jnode {
	var e jobj
	if spec.stdioType {
		e = append(e, jfield{"type", "stdio"})
	}
	return append(e, jfield{"command", binary}, jfield{"args", []jnode{"mcp"}})
}

// syncMCP makes mcpServers.cortex run this binary's MCP server (want), or
// removes it.
func (d *jsonEdit) syncMCP(spec *mcpSpec, binary string, want bool) error {
	servers, _, err := d.object(d.root, "mcpServers", "mcpServers")
	if err != nil {
		return err
	}
	var entry *jvalue
	idx := -1
	if servers != nil {
		if entry, idx, err = servers.member(d.src, ServerName); err != nil {
			return d.located(err)
		}
	}
	var cmd *jvalue
	if entry != nil {
		cmd = ourServer(d.src, entry, binary)
		if cmd == nil {
			if !want {
				d.notes = append(d.notes, fmt.Sprintf("%s: mcpServers.%s does not run cortex mcp; left as it is", d.path, ServerName))
				return nil
			}
			return &ConflictError{Path: d.path, Line: lineOf(d.src, servers.members[idx].keyStart),
				Msg: fmt.Sprintf("mcpServers.%s is already there and does not run cortex mcp: rename or remove it, then run cortex setup again", ServerName)}
		}
	}
	switch {
	case want && entry == nil:
		if servers == nil {
			if err := d.addMember(d.root, "mcpServers", jobj{}); err != nil {
				return err
			}
			if servers, _, err = d.object(d.root, "mcpServers", "mcpServers"); err != nil {
				return err
			}
		}
		if err := d.addMember(servers, ServerName, serverEntry(spec, binary)); err != nil {
			return err
		}
		d.actions = append(d.actions, "add the MCP server "+ServerName)
	case want && cmd.str != binary:
		if err := d.replace(cmd, quote(binary)); err != nil {
			return err
		}
		d.actions = append(d.actions, "point the MCP server "+ServerName+" at "+binary)
	case !want && entry != nil:
		if err := d.remove(servers, idx); err != nil {
			return err
		}
		d.actions = append(d.actions, "remove the MCP server "+ServerName)
		return d.prune([]string{"mcpServers"})
	}
	return nil
}
