package setup

import (
	"errors"
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

const (
	bin    = "/usr/local/bin/cortex"
	newBin = "/opt/cortex 2/bin/cortex" // a path a shell must be given quoted
)

var when = time.Date(2026, 11, 25, 9, 30, 0, 0, time.UTC)

// tree is a home folder's files: path relative to the home → content.
type tree map[string]string

// readTree reads every file under dir.
func readTree(t *testing.T, dir string) tree {
	t.Helper()
	out := tree{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		out[filepath.ToSlash(rel)] = string(b)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// withoutBackups drops setup's backups from a tree.
func withoutBackups(tr tree) tree {
	out := tree{}
	for k, v := range tr {
		if !strings.Contains(k, BackupSuffix) {
			out[k] = v
		}
	}
	return out
}

func writeTree(t *testing.T, dir string, tr tree) {
	t.Helper()
	for rel, content := range tr {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// copyTree copies testdata/<from> into a new home folder.
func copyTree(t *testing.T, from string) (string, tree) {
	t.Helper()
	home := t.TempDir()
	tr := readTree(t, filepath.Join("testdata", from))
	delete(tr, "README.md")
	writeTree(t, home, tr)
	return home, tr
}

// run prepares and applies a plan, failing the test on an error.
func run(t *testing.T, e Env, c *Client, o Options) (*Plan, []Result) {
	t.Helper()
	p, err := Prepare(e, c, o)
	if err != nil {
		t.Fatalf("prepare %s: %v", c.ID, err)
	}
	res, err := Apply(p, when)
	if err != nil {
		t.Fatalf("apply %s: %v", c.ID, err)
	}
	return p, res
}

// golden compares a tree with testdata/golden/<name>/, or rewrites it with
// -update.
func golden(t *testing.T, name string, got tree) {
	t.Helper()
	dir := filepath.Join("testdata", "golden", name)
	if *update {
		if err := os.RemoveAll(dir); err != nil {
			t.Fatal(err)
		}
		writeTree(t, dir, got)
		return
	}
	if diff := cmp.Diff(readTree(t, dir), got); diff != "" {
		t.Errorf("%s differs from testdata/golden/%s (-want +got); rerun with -update after reading the diff:\n%s", name, name, diff)
	}
}

// subsequence reports whether every byte of a appears in b in order: b is a
// with text added and nothing taken away.
func subsequence(a, b string) bool {
	j := 0
	for i := 0; i < len(b) && j < len(a); i++ {
		if b[i] == a[j] {
			j++
		}
	}
	return j == len(a)
}

func client(t *testing.T, id string) *Client {
	t.Helper()
	c, err := Lookup(id)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestSetupKeepsWhatIsThere sets each client up over configuration files that
// already hold comments, unknown keys, other hooks and other servers: only
// cortex's entries are added, a second run changes nothing, and uninstall
// gives every file back byte for byte.
func TestSetupKeepsWhatIsThere(t *testing.T) {
	tests := []struct {
		name, client, from string
		prompt             bool
	}{
		{"claude-code", "claude-code", "home/claude-code", false},
		{"claude-code-prompt", "claude", "home/claude-code", true},
		{"codex", "codex", "home/codex", false},
		{"gemini-cli", "gemini-cli", "home/gemini-cli", true},
		{"cursor", "cursor", "home/cursor", false},
		{"real-claude-code", "claude-code", "realclients/claude", false},
		{"real-codex", "codex", "realclients/codex", false},
		{"real-gemini-cli", "gemini", "realclients/gemini", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			home, orig := copyTree(t, tt.from)
			if strings.HasPrefix(tt.from, "realclients/") {
				// The real files sit where each client reads them.
				home = t.TempDir()
				orig = relocate(t, home, tt.from)
			}
			c := client(t, tt.client)
			e := Env{Home: home}
			o := Options{Binary: bin, PromptHook: tt.prompt}
			_, res := run(t, e, c, o)
			if len(res) == 0 {
				t.Fatal("setup wrote nothing")
			}
			after := readTree(t, home)
			for _, r := range res {
				rel, _ := filepath.Rel(home, r.Path)
				rel = filepath.ToSlash(rel)
				if old, ok := orig[rel]; ok {
					if r.Action != "updated" || r.Backup == "" {
						t.Errorf("%s: %s with backup %q, want updated with a backup", rel, r.Action, r.Backup)
					}
					if !subsequence(old, after[rel]) {
						t.Errorf("%s: setup took bytes away from the file", rel)
					}
					b, err := os.ReadFile(r.Backup)
					if err != nil || string(b) != old {
						t.Errorf("%s: the backup does not hold the file as it was (%v)", rel, err)
					}
					if fi, err := os.Stat(r.Backup); err != nil || fi.Mode().Perm() != 0o600 {
						t.Errorf("%s: backup mode %v, want 0600 (%v)", rel, fi.Mode().Perm(), err)
					}
					// The files were written 0644: an updated one keeps that.
					if fi, err := os.Stat(r.Path); err != nil || fi.Mode().Perm() != 0o644 {
						t.Errorf("%s: mode %v after the update, want the 0644 it had (%v)", rel, fi.Mode().Perm(), err)
					}
				} else if r.Action != "created" {
					t.Errorf("%s: %s, want created", rel, r.Action)
				}
			}
			golden(t, tt.name, withoutBackups(after))

			p, err := Prepare(e, c, o)
			if err != nil {
				t.Fatal(err)
			}
			if p.Changed() {
				t.Errorf("a second setup would change files: %v", p.Changes)
			}

			run(t, e, c, Options{Binary: bin, Uninstall: true})
			if diff := cmp.Diff(orig, withoutBackups(readTree(t, home))); diff != "" {
				t.Errorf("uninstall did not give the files back (-want +got):\n%s", diff)
			}
			p, err = Prepare(e, c, Options{Binary: bin, Uninstall: true})
			if err != nil {
				t.Fatal(err)
			}
			if p.Changed() {
				t.Error("a second uninstall would change files")
			}
		})
	}
}

// relocate copies the real clients' files into home where each client reads
// them.
func relocate(t *testing.T, home, from string) tree {
	t.Helper()
	src := readTree(t, filepath.Join("testdata", from))
	places := map[string]string{
		"realclients/claude": ".claude/", "realclients/codex": ".codex/", "realclients/gemini": ".gemini/",
	}
	out := tree{}
	for rel, content := range src {
		if rel == "version.txt" || rel == "README.md" {
			continue
		}
		out[places[from]+rel] = content
	}
	writeTree(t, home, out)
	return out
}

// TestSetupFreshHome sets each client up in an empty home: the files are
// created 0600 in folders created 0700, and uninstall removes them again.
func TestSetupFreshHome(t *testing.T) {
	for _, c := range Clients {
		t.Run(c.ID, func(t *testing.T) {
			home := t.TempDir()
			e := Env{Home: home}
			_, res := run(t, e, c, Options{Binary: bin, PromptHook: c.PromptHook})
			for _, r := range res {
				if r.Action != "created" || r.Backup != "" {
					t.Errorf("%s: %s, backup %q; want created, no backup", r.Path, r.Action, r.Backup)
				}
				if runtime.GOOS == "windows" {
					continue
				}
				fi, err := os.Stat(r.Path)
				if err != nil || fi.Mode().Perm() != 0o600 {
					t.Errorf("%s: mode %v, want 0600 (%v)", r.Path, fi.Mode().Perm(), err)
				}
				if filepath.Dir(r.Path) == home {
					continue // the home folder is not setup's
				}
				if di, err := os.Stat(filepath.Dir(r.Path)); err != nil || di.Mode().Perm() != 0o700 {
					t.Errorf("%s: folder mode %v, want 0700 (%v)", filepath.Dir(r.Path), di.Mode().Perm(), err)
				}
			}
			golden(t, "fresh-"+c.ID, readTree(t, home))
			run(t, e, c, Options{Binary: bin, Uninstall: true})
			if got := withoutBackups(readTree(t, home)); len(got) != 0 {
				t.Errorf("uninstall left files: %v", got)
			}
		})
	}
}

// TestSetupEnvOverrides checks that each client's variable moves its files.
func TestSetupEnvOverrides(t *testing.T) {
	tests := []struct {
		client, env string
		want        []string // relative to the variable's folder
	}{
		{"claude-code", "CLAUDE_CONFIG_DIR", []string{"settings.json", ".claude.json"}},
		{"codex", "CODEX_HOME", []string{"config.toml", "hooks.json"}},
		{"gemini-cli", "GEMINI_CLI_HOME", []string{".gemini/settings.json"}},
	}
	for _, tt := range tests {
		t.Run(tt.client, func(t *testing.T) {
			home, moved := t.TempDir(), t.TempDir()
			e := Env{Home: home, Getenv: func(k string) string {
				if k == tt.env {
					return moved
				}
				return ""
			}}
			run(t, e, client(t, tt.client), Options{Binary: bin})
			if got := readTree(t, home); len(got) != 0 {
				t.Errorf("files written in the home folder: %v", got)
			}
			var got []string
			for k := range readTree(t, moved) {
				got = append(got, k)
			}
			sort.Strings(got)
			want := append([]string{}, tt.want...)
			sort.Strings(want)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("files in $%s (-want +got):\n%s", tt.env, diff)
			}
		})
	}
}

// TestSetupRefusesBrokenFile checks that a file setup cannot read fails the
// whole plan with its path and line, and that nothing is written anywhere.
func TestSetupRefusesBrokenFile(t *testing.T) {
	tests := []struct {
		client string
		files  tree
		path   string
		line   int
	}{
		{"claude-code", tree{".claude/settings.json": "{\n  \"model\": \"opus\"\n  \"hooks\": {}\n}\n"}, ".claude/settings.json", 3},
		{"claude-code", tree{".claude.json": "{\"a\": [1, 2}"}, ".claude.json", 1},
		{"codex", tree{".codex/config.toml": "model = \"x\"\n[mcp_servers\n"}, ".codex/config.toml", 2},
		{"codex", tree{".codex/hooks.json": "{\n\n  \"hooks\": {\"Stop\": [}\n}"}, ".codex/hooks.json", 3},
		{"gemini-cli", tree{".gemini/settings.json": "{\n  /* never closed\n}\n"}, ".gemini/settings.json", 2},
		{"gemini-cli", tree{".gemini/settings.json": "{\"hooks\": []}"}, ".gemini/settings.json", 1},
		{"gemini-cli", tree{".gemini/settings.json": "[1, 2]\n"}, ".gemini/settings.json", 1},
		{"cursor", tree{".cursor/hooks.json": "{\"version\": 1, \"hooks\": {\"stop\": {}}}"}, ".cursor/hooks.json", 1},
		{"cursor", tree{".cursor/mcp.json": "{\"mcpServers\": {}, \"mcpServers\": {}}"}, ".cursor/mcp.json", 1},
		{"codex", tree{".codex/config.toml": "# >>> cortex setup codex\n[mcp_servers.cortex]\ncommand = \"cortex\"\n"}, ".codex/config.toml", 1},
	}
	for _, tt := range tests {
		t.Run(tt.client+"/"+tt.path, func(t *testing.T) {
			home := t.TempDir()
			writeTree(t, home, tt.files)
			for _, uninstall := range []bool{false, true} {
				_, err := Prepare(Env{Home: home}, client(t, tt.client), Options{Binary: bin, Uninstall: uninstall})
				var se *SyntaxError
				if !errors.As(err, &se) {
					t.Fatalf("got %v, want a *SyntaxError", err)
				}
				if se.Path != filepath.Join(home, tt.path) || se.Line != tt.line {
					t.Errorf("error at %s line %d, want %s line %d: %v", se.Path, se.Line, tt.path, tt.line, err)
				}
			}
			if diff := cmp.Diff(tt.files, readTree(t, home)); diff != "" {
				t.Errorf("files changed (-want +got):\n%s", diff)
			}
		})
	}
}

// TestSetupRefusesAnotherServer checks that an MCP server called cortex that
// does not run cortex mcp is refused, not replaced.
func TestSetupRefusesAnotherServer(t *testing.T) {
	tests := []struct {
		client string
		files  tree
		line   int
	}{
		{"claude-code", tree{".claude.json": "{\n  \"mcpServers\": {\n    \"cortex\": {\"type\": \"http\", \"url\": \"https://cortex.example\"}\n  }\n}\n"}, 3},
		{"gemini-cli", tree{".gemini/settings.json": "{\"mcpServers\": {\"cortex\": {\"command\": \"node\", \"args\": [\"cortex.js\"]}}}"}, 1},
		{"cursor", tree{".cursor/mcp.json": "{\"mcpServers\": {\"cortex\": {\"command\": \"/bin/cortex\", \"args\": [\"serve\"]}}}"}, 1},
		{"codex", tree{".codex/config.toml": "model = \"x\"\n\n[mcp_servers.cortex]\ncommand = \"other\"\n"}, 3},
		{"codex", tree{".codex/config.toml": "[mcp_servers]\ncortex = { command = \"other\" }\n"}, 2},
	}
	for _, tt := range tests {
		t.Run(tt.client, func(t *testing.T) {
			home := t.TempDir()
			writeTree(t, home, tt.files)
			_, err := Prepare(Env{Home: home}, client(t, tt.client), Options{Binary: bin})
			var ce *ConflictError
			if !errors.As(err, &ce) || !errors.Is(err, ErrConflict) {
				t.Fatalf("got %v, want a *ConflictError", err)
			}
			if ce.Line != tt.line {
				t.Errorf("line %d, want %d: %v", ce.Line, tt.line, err)
			}
			// Uninstall leaves it alone and says so.
			p, err := Prepare(Env{Home: home}, client(t, tt.client), Options{Binary: bin, Uninstall: true})
			if err != nil {
				t.Fatal(err)
			}
			if p.Changed() {
				t.Error("uninstall would change another server's entry")
			}
			if diff := cmp.Diff(tt.files, readTree(t, home)); diff != "" {
				t.Errorf("files changed (-want +got):\n%s", diff)
			}
		})
	}
}

// TestSetupFollowsTheBinary checks that a second setup from a binary
// elsewhere changes only the commands, that --prompt-hook adds and its
// absence removes the prompt hook, and that uninstall still gives the files
// back.
func TestSetupFollowsTheBinary(t *testing.T) {
	for _, c := range Clients {
		t.Run(c.ID, func(t *testing.T) {
			home, orig := copyTree(t, "home/"+c.ID)
			e := Env{Home: home}
			run(t, e, c, Options{Binary: bin, PromptHook: c.PromptHook})
			p, _ := run(t, e, c, Options{Binary: newBin})
			for _, ch := range p.Changes {
				for _, a := range ch.Actions {
					if !strings.Contains(a, newBin) && !strings.HasPrefix(a, "remove the UserPromptSubmit") && !strings.HasPrefix(a, "remove the BeforeAgent") {
						t.Errorf("%s: unexpected change %q", ch.Path, a)
					}
				}
			}
			st := inspect(t, e, c, newBin)
			if !st.Installed() {
				t.Fatal("not installed after the second setup")
			}
			for _, f := range st.Files {
				for _, h := range f.Hooks {
					if !h.ThisBinary || h.Binary != newBin {
						t.Errorf("%s: the %s hook runs %q", f.Path, h.Event, h.Binary)
					}
					if h.Event == "UserPromptSubmit" || h.Event == "BeforeAgent" {
						t.Errorf("%s: the prompt hook is still there without --prompt-hook", f.Path)
					}
				}
				if f.MCP != nil && (!f.MCP.ThisBinary || f.MCP.Command != newBin) {
					t.Errorf("%s: the MCP server runs %q", f.Path, f.MCP.Command)
				}
			}
			if !strings.Contains(readTree(t, home)[relHooks(c)], "'"+newBin+"' hook "+c.ID) {
				t.Errorf("the hook command does not quote %q for the shell", newBin)
			}
			run(t, e, c, Options{Binary: "/somewhere/else/cortex", Uninstall: true})
			if diff := cmp.Diff(orig, withoutBackups(readTree(t, home))); diff != "" {
				t.Errorf("uninstall did not give the files back (-want +got):\n%s", diff)
			}
		})
	}
}

func relHooks(c *Client) string {
	for _, tg := range c.targets(Env{Home: "/"}) {
		if tg.hooks != nil {
			return filepath.ToSlash(strings.TrimPrefix(tg.path, "/"))
		}
	}
	return ""
}

func inspect(t *testing.T, e Env, c *Client, binary string) Status {
	t.Helper()
	for _, s := range Inspect(e, binary) {
		if s.Client == c {
			return s
		}
	}
	t.Fatalf("Inspect does not list %s", c.ID)
	return Status{}
}

// TestSetupRemovesRepeats checks that several hooks of cortex's for one
// event (a file merged by hand) become one.
func TestSetupRemovesRepeats(t *testing.T) {
	home := t.TempDir()
	cmd := func(ev string) string {
		return `{"hooks": [{"type": "command", "command": "/old/cortex hook claude-code ` + ev + `"}]}`
	}
	writeTree(t, home, tree{".claude/settings.json": `{"hooks": {"Stop": [` + cmd("stop") + `, {"hooks": [{"type": "command", "command": "mine"}]}, ` + cmd("stop") + `]}}`})
	run(t, Env{Home: home}, client(t, "claude-code"), Options{Binary: bin})
	got := decode(t, readTree(t, home)[".claude/settings.json"]).(map[string]any)["hooks"].(map[string]any)["Stop"]
	want := []any{
		map[string]any{"hooks": []any{map[string]any{"type": "command", "command": bin + " hook claude-code stop"}}},
		map[string]any{"hooks": []any{map[string]any{"type": "command", "command": "mine"}}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Stop hooks (-want +got):\n%s", diff)
	}
}

// TestSetupThroughSymlink checks that a settings file that is a link (into a
// dotfiles repository) stays a link and its target is changed.
func TestSetupThroughSymlink(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symbolic links need privileges on Windows")
	}
	home, dots := t.TempDir(), t.TempDir()
	writeTree(t, dots, tree{"claude/settings.json": "{\n  \"model\": \"opus\"\n}\n"})
	if err := os.MkdirAll(filepath.Join(home, ".claude"), 0o700); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(home, ".claude", "settings.json")
	if err := os.Symlink(filepath.Join(dots, "claude", "settings.json"), link); err != nil {
		t.Fatal(err)
	}
	run(t, Env{Home: home}, client(t, "claude-code"), Options{Binary: bin})
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("settings.json is no longer a link (%v)", err)
	}
	if got := readTree(t, dots)["claude/settings.json"]; !strings.Contains(got, "hook claude-code session-start") {
		t.Errorf("the link's target was not changed:\n%s", got)
	}
}

// TestApplyReadsAgain checks that a file the client rewrote between the plan
// and the writing is read again, and the client's change kept.
func TestApplyReadsAgain(t *testing.T) {
	home := t.TempDir()
	writeTree(t, home, tree{".claude.json": "{\n  \"numStartups\": 1\n}"})
	e, c := Env{Home: home}, client(t, "claude-code")
	p, err := Prepare(e, c, Options{Binary: bin})
	if err != nil {
		t.Fatal(err)
	}
	writeTree(t, home, tree{".claude.json": "{\n  \"numStartups\": 2\n}"})
	if _, err := Apply(p, when); err != nil {
		t.Fatal(err)
	}
	got := decode(t, readTree(t, home)[".claude.json"]).(map[string]any)
	if got["numStartups"] != "2" || got["mcpServers"] == nil {
		t.Errorf("got %v, want numStartups 2 and cortex's server", got)
	}
}

// TestApplyPutsBack checks that when a later file cannot be written, the
// files already written are put back as they were.
func TestApplyPutsBack(t *testing.T) {
	if runtime.GOOS == "windows" || os.Getuid() == 0 {
		t.Skip("needs a folder this user cannot write to")
	}
	home := t.TempDir()
	writeTree(t, home, tree{".claude/settings.json": "{}\n", ".claude.json": "{}\n"})
	p, err := Prepare(Env{Home: home}, client(t, "claude-code"), Options{Binary: bin})
	if err != nil {
		t.Fatal(err)
	}
	// The second file's folder (the home) becomes read-only: its backup
	// cannot be written.
	if err := os.Chmod(home, 0o500); err != nil {
		t.Fatal(err)
	}
	defer os.Chmod(home, 0o700)
	if _, err := Apply(p, when); err == nil {
		t.Fatal("Apply wrote into a read-only folder")
	}
	if err := os.Chmod(home, 0o700); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(tree{".claude/settings.json": "{}\n", ".claude.json": "{}\n"}, withoutBackups(readTree(t, home))); diff != "" {
		t.Errorf("files not put back (-want +got):\n%s", diff)
	}
}

func TestInspect(t *testing.T) {
	home, _ := copyTree(t, "home/gemini-cli")
	e := Env{Home: home}
	c := client(t, "gemini-cli")
	if st := inspect(t, e, c, bin); st.Installed() {
		t.Fatal("installed before setup")
	}
	run(t, e, c, Options{Binary: bin})
	st := inspect(t, e, c, bin)
	want := []HookStatus{
		{Event: "SessionStart", Command: bin + " hook gemini-cli session-start", Binary: bin, ThisBinary: true},
		{Event: "PreCompress", Command: bin + " hook gemini-cli pre-compact", Binary: bin, ThisBinary: true},
		{Event: "AfterAgent", Command: bin + " hook gemini-cli stop", Binary: bin, ThisBinary: true},
		{Event: "SessionEnd", Command: bin + " hook gemini-cli session-end", Binary: bin, ThisBinary: true},
	}
	if diff := cmp.Diff(want, st.Files[0].Hooks); diff != "" {
		t.Errorf("hooks (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(&ServerStatus{Command: bin, Cortex: true, ThisBinary: true, BySetup: true}, st.Files[0].MCP); diff != "" {
		t.Errorf("server (-want +got):\n%s", diff)
	}
	other := inspect(t, e, c, "/elsewhere/cortex")
	if !other.Installed() || other.Files[0].Hooks[0].ThisBinary || other.Files[0].MCP.ThisBinary {
		t.Errorf("another binary is told it is the one installed: %+v", other.Files[0])
	}
	// A broken file is reported, not fatal.
	writeTree(t, home, tree{".gemini/settings.json": "{"})
	if st := inspect(t, e, c, bin); st.Files[0].Err == nil {
		t.Error("a broken file is not reported")
	}
}

func TestLookup(t *testing.T) {
	for name, want := range map[string]string{"claude": "claude-code", "Claude-Code": "claude-code", "gemini": "gemini-cli", "codex": "codex", "cursor": "cursor"} {
		c, err := Lookup(name)
		if err != nil || c.ID != want {
			t.Errorf("Lookup(%q) = %v, %v; want %s", name, c, err, want)
		}
	}
	if _, err := Lookup("vim"); err == nil || !strings.Contains(err.Error(), "claude-code, codex, cursor, gemini-cli") {
		t.Errorf("Lookup(vim): %v", err)
	}
}

func TestPrepareNeedsAbsoluteBinary(t *testing.T) {
	if _, err := Prepare(Env{Home: t.TempDir()}, client(t, "codex"), Options{Binary: "cortex"}); err == nil {
		t.Error("a relative binary path was accepted")
	}
}

func TestDiff(t *testing.T) {
	ch := &Change{Path: "/h/f.json", Existed: true, Before: []byte("{\n  \"a\": 1\n}"), After: []byte("{\n  \"a\": 1,\n  \"b\": 2\n}")}
	want := "--- /h/f.json\n+++ /h/f.json\n@@ -1,3 +1,4 @@\n {\n-  \"a\": 1\n+  \"a\": 1,\n+  \"b\": 2\n }\n\\ No newline at end of file\n"
	if diff := cmp.Diff(want, ch.Diff()); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if (&Change{Path: "/x", Existed: true, Before: []byte("a"), After: []byte("a")}).Diff() != "" {
		t.Error("a diff for a file that does not change")
	}
}
