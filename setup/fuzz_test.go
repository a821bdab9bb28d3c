package setup

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// jsonTargets are the JSON files setup edits, one per kind of content.
func jsonTargets() []struct {
	c *Client
	t target
} {
	var out []struct {
		c *Client
		t target
	}
	for _, c := range Clients {
		for _, t := range c.targets(Env{Home: "/h"}) {
			if t.format == formatJSON {
				out = append(out, struct {
					c *Client
					t target
				}{c, t})
			}
		}
	}
	return out
}

func addSeeds(f *testing.F, dir string, add func([]byte)) {
	f.Helper()
	_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if b, err := os.ReadFile(p); err == nil {
				add(b)
			}
		}
		return nil
	})
}

// emptyOnPath reports whether a container setup inserts into is empty (or
// holds only comments): the one case where uninstall gives back "{}" for
// "{ }" rather than the bytes it found.
func emptyOnPath(src []byte, t target) bool {
	root, err := parseJSON(src)
	if err != nil || root == nil {
		return true
	}
	if len(root.members) == 0 {
		return true
	}
	if t.hooks != nil {
		if h, _, _ := root.member(src, "hooks"); h != nil {
			if len(h.members) == 0 {
				return true
			}
			for _, ev := range t.hooks.events {
				if l, _, _ := h.member(src, ev.Native); l != nil && len(l.elems) == 0 {
					return true
				}
			}
		}
	}
	if t.mcp != nil {
		if m, _, _ := root.member(src, "mcpServers"); m != nil && len(m.members) == 0 {
			return true
		}
	}
	return false
}

// FuzzPatchJSON checks the JSON edits on any input: no panic; a file that
// cannot be read is refused; what setup writes always parses, holds cortex's
// entries, is left alone by a second run; and uninstall gives back the bytes
// it started from.
func FuzzPatchJSON(f *testing.F) {
	for _, s := range []string{
		"", "{}", "{ }", "{\n}\n", `{"hooks": {}}`, `{"hooks": {"Stop": []}}`, `{"mcpServers": {}}`,
		"{\n  \"a\": 1, // c\n}", "{\n  // c\n}", "{/* , */ \"a\": [1, /* , */ 2,],}", "\uFEFF{\"a\":1}",
		"{\r\n\t\"hooks\": {\r\n\t\t\"Stop\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"x\"}]}]\r\n\t}\r\n}\r\n",
		`{"hooks": {"Stop": [{"hooks": [{"command": "/old/cortex hook claude-code stop"}]}]}}`,
		`{"mcpServers": {"cortex": {"command": "/x/cortex", "args": ["mcp"], "env": {"A": "1"}}}}`,
		`{"hooks": []}`, `[1]`, `{"a": "\ud800"}`, `{"a" : 1 /* x */ , "b" : 2}`,
	} {
		f.Add([]byte(s), uint8(0), false)
	}
	addSeeds(f, "testdata/home", func(b []byte) { f.Add(b, uint8(1), true) })
	addSeeds(f, "testdata/realclients", func(b []byte) { f.Add(b, uint8(2), false) })
	targets := jsonTargets()
	f.Fuzz(func(t *testing.T, data []byte, which uint8, prompt bool) {
		tg := targets[int(which)%len(targets)]
		o := Options{Binary: bin, PromptHook: prompt}
		out, _, _, _, err := patchJSON("f.json", data, true, tg.t, tg.c, o)
		_, perr := parseJSON(data)
		if perr != nil && err == nil {
			t.Fatalf("a file that does not parse (%v) was accepted", perr)
		}
		if err != nil {
			return
		}
		if _, err := parseJSON(out); err != nil {
			t.Fatalf("setup wrote a file that does not parse: %v\n%s", err, out)
		}
		again, _, actions, _, err := patchJSON("f.json", out, true, tg.t, tg.c, o)
		if err != nil || !bytes.Equal(again, out) {
			t.Fatalf("a second run changed the file (%v, %v):\n%s\n---\n%s", actions, err, out, again)
		}
		checkEntries(t, out, tg.t, tg.c, o)
		back, _, _, _, err := patchJSON("f.json", out, true, tg.t, tg.c, Options{Binary: bin, Uninstall: true})
		if err != nil {
			t.Fatalf("uninstall: %v", err)
		}
		if _, err := parseJSON(back); err != nil {
			t.Fatalf("uninstall wrote a file that does not parse: %v\n%s", err, back)
		}
		none, _, _, _, _ := patchJSON("f.json", data, true, tg.t, tg.c, Options{Binary: bin, Uninstall: true})
		if bytes.Equal(none, data) && !emptyOnPath(data, tg.t) && !bytes.Equal(back, data) {
			t.Fatalf("uninstall did not give the bytes back:\n%q\n---\n%q", data, back)
		}
	})
}

// checkEntries checks that out holds exactly one hook of cortex's per event
// and its MCP server.
func checkEntries(t *testing.T, out []byte, tg target, c *Client, o Options) {
	t.Helper()
	root, err := parseJSON(out)
	if err != nil || root == nil {
		t.Fatalf("no document: %v", err)
	}
	if tg.hooks != nil {
		h, _, _ := root.member(out, "hooks")
		for _, ev := range tg.hooks.events {
			want := 0
			if !ev.OptIn || o.PromptHook {
				want = 1
			}
			n := 0
			if h != nil {
				if l, _, _ := h.member(out, ev.Native); l != nil {
					for _, el := range l.elems {
						if v := ourHook(out, el, tg.hooks.shape, c.ID, bin); v != nil {
							n++
							if v.str != hookCommand(bin, c.ID, ev.Cortex) {
								t.Fatalf("%s runs %q", ev.Native, v.str)
							}
						}
					}
				}
			}
			if n != want {
				t.Fatalf("%d hooks of cortex's for %s, want %d:\n%s", n, ev.Native, want, out)
			}
		}
	}
	if tg.mcp != nil {
		m, _, _ := root.member(out, "mcpServers")
		if m == nil {
			t.Fatalf("no mcpServers:\n%s", out)
		}
		s, _, _ := m.member(out, ServerName)
		if s == nil || ourServer(out, s, bin) == nil || ourServer(out, s, bin).str != bin {
			t.Fatalf("no cortex server running %s:\n%s", bin, out)
		}
	}
}

// FuzzPatchTOML checks Codex's config.toml edits: no panic; a file that is not
// TOML is refused; what setup writes is TOML, is left alone by a second run,
// and uninstall gives back the bytes it started from.
func FuzzPatchTOML(f *testing.F) {
	for _, s := range []string{
		"", "a = 1", "a = 1\n", "a = 1\r\n", "[mcp_servers.gh]\ncommand = \"gh\"\n",
		"mcp_servers = {}\n", "[mcp_servers]\n", "x = '''\n# >>> cortex setup\n'''\n",
		"[mcp_servers.cortex]\ncommand = \"cortex\"\nargs = [\"mcp\"]\n",
		"# >>> cortex setup codex\n[mcp_servers.cortex]\ncommand = \"/x/cortex\"\nargs = [\"mcp\"]\n# <<< cortex setup codex\n",
	} {
		f.Add([]byte(s))
	}
	addSeeds(f, "testdata/home/codex", func(b []byte) { f.Add(b) })
	addSeeds(f, "testdata/realclients/codex", func(b []byte) { f.Add(b) })
	f.Fuzz(func(t *testing.T, data []byte) {
		out, _, _, notes, err := patchTOML("config.toml", data, true, bin, false)
		if _, rerr := readTOML("config.toml", data); rerr != nil && err == nil {
			t.Fatalf("a file that is not TOML (%v) was accepted", rerr)
		}
		if err != nil {
			return
		}
		m, err := readTOML("config.toml", out)
		if err != nil {
			t.Fatalf("setup wrote a file that is not TOML: %v\n%s", err, out)
		}
		if e, ok := tomlServer(m); !ok || len(notes) == 0 && e["command"] != bin {
			t.Fatalf("no cortex server running %s:\n%s", bin, out)
		}
		again, _, _, _, err := patchTOML("config.toml", out, true, bin, false)
		if err != nil || !bytes.Equal(again, out) {
			t.Fatalf("a second run changed the file (%v)", err)
		}
		back, _, _, _, err := patchTOML("config.toml", out, true, bin, true)
		if err != nil {
			t.Fatalf("uninstall: %v", err)
		}
		if start, _, _ := tomlMarkers("config.toml", data); start < 0 && !bytes.Equal(back, data) {
			t.Fatalf("uninstall did not give the bytes back:\n%q\n---\n%q", data, back)
		}
	})
}
