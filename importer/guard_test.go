package importer

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cortexmem/cortex/memories"
)

func TestSecretIn(t *testing.T) {
	tests := []struct {
		path string
		rule string // "" for none
		end  int    // the names the store takes
	}{
		{".ssh/id_ed25519", "ssh", 1},
		{"backup/.ssh/config", "ssh", 2},
		{".aws/credentials", "aws", 1},
		{".docker/config.json", "docker", 1},
		{".kube/config", "kube", 1},
		{".config/gh/hosts.yml", "gh", 2},
		{".config/gcloud/application_default_credentials.json", "gcloud", 2},
		{".azure/msal_token_cache.json", "azure", 1},
		{".netrc", "netrc", 1},
		{".npmrc", "npmrc", 1},
		{".pypirc", "pypirc", 1},
		{".pgpass", "pgpass", 1},
		{".git-credentials", "git-credentials", 1},
		{"src/app/.env", "dotenv", 3},
		{"src/app/.env.production", "dotenv", 3},
		{".bash_history", "shell-history", 1},
		{".zsh_history", "shell-history", 1},
		{".local/share/fish/fish_history", "shell-history", 4},
		{".python_history", "shell-history", 1},
		{".lesshst", "shell-history", 1},
		{"Library/Keychains/login.keychain-db", "keychain", 2},
		{".local/share/keyrings/login.keyring", "keychain", 3},
		{".mozilla/firefox/x.default/logins.json", "browser-profile", 1},
		{".config/google-chrome/Default/Login Data", "browser-profile", 2},
		{"Library/Application Support/Google/Chrome/Default/Preferences", "browser-profile", 4},
		{"Library/Application Support/Firefox/Profiles/x/key4.db", "browser-profile", 3},
		{"Downloads/bitwarden_export_20240101.json", "password-export", 2},
		{"Documents/Passwords.KDBX", "password-export", 2},
		{"certs/server.pem", "private-key", 2},
		{"certs/tls.key", "private-key", 2},
		{"certs/client.p12", "private-key", 2},
		{"keys/id_rsa", "private-key", 2},
		{"infra/prod.tfstate", "terraform-state", 2},
		{".codex/auth.json", "tool-credentials", 2},
		{".claude/.credentials.json", "tool-credentials", 2},
		// Look-alikes.
		{"notes/ssh.md", "", 0},
		{"notes/history.md", "", 0},
		{"notes/shell_history.md", "", 0},
		{"notes/env.md", "", 0},
		{"notes/.environment.md", "", 0},
		{"notes/id_mapping.md", "", 0},
		{"notes/keys.md", "", 0},
		{".config/nvim/init.lua", "", 0},
		{"docker/compose.md", "", 0},
		{"Library/Application Support/Obsidian/obsidian.json", "", 0},
		{"", "", 0},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			var names []string
			if tt.path != "" {
				names = strings.Split(tt.path, "/")
			}
			rule, end := secretIn(names)
			got := ""
			if rule != nil {
				got = rule.id
			}
			if got != tt.rule || end != tt.end {
				t.Errorf("secretIn(%q) = %q, %d; want %q, %d", tt.path, got, end, tt.rule, tt.end)
			}
		})
	}
}

func TestHiddenIn(t *testing.T) {
	tests := []struct {
		path  string
		isDir bool
		want  int
	}{
		{"notes/a.md", false, -1},
		{".claude", true, -1},
		{".claude/CLAUDE.md", false, -1},
		{"code/app/.claude/CLAUDE.md", false, -1},
		{".claude/projects", true, -1},
		{".claude/projects/-home-me-app", true, -1},
		{".claude/projects/-home-me-app/memory", true, -1},
		{".claude/projects/-home-me-app/memory/MEMORY.md", false, -1},
		{".claude/projects/-home-me-app/memory/topics/go.md", false, -1},
		{".codex/AGENTS.md", false, -1},
		{".gemini/GEMINI.md", false, -1},
		{"code/app/.cursor/rules/go.mdc", false, -1},
		{"code/app/.github/copilot-instructions.md", false, -1},
		{"code/app/.github/instructions/go.instructions.md", false, -1},
		// Refused: the index of the hidden name.
		{".claude/settings.json", false, 0},
		{".claude/projects/-home-me-app/abc.jsonl", false, 0},
		{".claude/projects/-home-me-app/memory/.cache/x.md", false, 0},
		{".claude/CLAUDE.md", true, 0},
		{".codex", true, 0},
		{".codex/config.toml", false, 0},
		{".codex/sessions/2025/01/01/rollout.jsonl", false, 0},
		{"code/app/.github/workflows/ci.yml", false, 2},
		{"notes/.obsidian/app.json", false, 1},
		{".config/notes/a.md", false, 0},
		{".bashrc", false, 0},
		{"notes/.hidden.md", false, 1},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			if got := hiddenIn(strings.Split(tt.path, "/"), tt.isDir); got != tt.want {
				t.Errorf("hiddenIn(%q, dir %v) = %d, want %d", tt.path, tt.isDir, got, tt.want)
			}
		})
	}
}

// fakeHome is a home folder holding the credential stores and histories of
// a developer's machine, a note, a CLAUDE.md and a link named like a note to
// the SSH key. Each store's file holds text a scan would let through, so
// that only the path rules keep it out.
func fakeHome(t *testing.T) (root, home string) {
	t.Helper()
	root = realTempDir(t)
	home = filepath.Join(root, "home")
	plain := "plain words that no content scan would refuse on their own\n"
	writeFiles(t, home, map[string]string{
		"notes/a.md":                          "A note long enough to be a memory of its own.\n",
		".claude/CLAUDE.md":                   "# Conventions\n\nRun the linters before every commit, always.\n",
		".claude/settings.json":               `{"model": "opus", "permissions": {"allow": ["Bash(go test:*)"]}}`,
		".ssh/id_ed25519":                     plain,
		".ssh/config":                         "Host prod\n  User deploy\n  " + plain,
		".aws/credentials":                    "[default]\n" + plain,
		".docker/config.json":                 `{"note": "` + strings.TrimSpace(plain) + `"}`,
		".kube/config":                        "apiVersion: v1\nkind: Config\n# " + plain,
		".config/gh/hosts.yml":                "github.com:\n    user: octo\n# " + plain,
		".config/gcloud/credentials.db":       plain,
		".config/nvim/init.lua":               "-- " + plain,
		".netrc":                              plain,
		".npmrc":                              plain,
		".pypirc":                             plain,
		".bash_history":                       "ls\ncd projects\n" + plain,
		".zsh_history":                        ": 1700000000:0;make test\n" + plain,
		".local/share/keyrings/login.keyring": plain,
		"Library/Keychains/login.keychain-db": plain,
		"Library/Application Support/Google/Chrome/Default/Preferences.json": `{"note": "` + strings.TrimSpace(plain) + `"}`,
		"projects/app/.env":              "GREETING=" + plain,
		"projects/app/prod.tfstate.json": `{"note": "` + strings.TrimSpace(plain) + `"}`,
		"projects/app/notes.md":          "The app's notes are long enough to be a memory too.\n",
		"projects/app/server.pem":        plain,
	})
	symlink(t, filepath.Join(home, ".ssh", "id_ed25519"), filepath.Join(home, "notes", "key-notes.md"))
	return root, home
}

// TestCollectAgentGuard imports every store of a fake home as an agent would
// (ForAgent): each is refused with an error naming the path and the rule; the
// home folder as a whole gives the note and CLAUDE.md only, and names every
// store it leaves out.
func TestCollectAgentGuard(t *testing.T) {
	root, home := fakeHome(t)
	agent := ForAgent(context.Background())
	o := Options{Home: home}

	t.Run("refused", func(t *testing.T) {
		tests := []struct {
			path string // under home
			rule string
		}{
			{".ssh/id_ed25519", "ssh"},
			{".ssh", "ssh"},
			{".aws/credentials", "aws"},
			{".docker/config.json", "docker"},
			{".kube/config", "kube"},
			{".config/gh/hosts.yml", "gh"},
			{".config/gcloud", "gcloud"},
			{".netrc", "netrc"},
			{".npmrc", "npmrc"},
			{".pypirc", "pypirc"},
			{".bash_history", "shell-history"},
			{".zsh_history", "shell-history"},
			{".local/share/keyrings", "keychain"},
			{"Library/Keychains/login.keychain-db", "keychain"},
			{"Library/Application Support/Google/Chrome", "browser-profile"},
			{"projects/app/.env", "dotenv"},
			{"projects/app/server.pem", "private-key"},
			{"notes/key-notes.md", "ssh"}, // a link named like a note
			{".config/nvim/init.lua", "hidden"},
			{".claude/settings.json", "hidden"},
			{".config", "hidden"},
		}
		for _, tt := range tests {
			t.Run(tt.path, func(t *testing.T) {
				p := filepath.Join(home, filepath.FromSlash(tt.path))
				_, err := Collect(agent, p, o)
				var ae *memories.ArgError
				if !errors.As(err, &ae) || ae.Arg != "path" {
					t.Fatalf("Collect(%s) = %v, want an *memories.ArgError about path", tt.path, err)
				}
				for _, want := range []string{p + " is refused for an agent", "(rule " + tt.rule + ")", `"cortex import ` + p + `" from a shell`, "import.agent_allow"} {
					if !strings.Contains(ae.Rule, want) {
						t.Errorf("the error says:\n%s\nwant it to say %q", ae.Rule, want)
					}
				}
			})
		}
		_, err := Collect(agent, filepath.Join(home, "notes", "key-notes.md"), o)
		if want := "a link to " + filepath.Join(home, ".ssh") + ", an SSH key store (rule ssh)"; err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("a link to the key: %v, want it to say %q", err, want)
		}
	})

	t.Run("home folder", func(t *testing.T) {
		items, skips := sources(collectAs(t, agent, home, o), root)
		wantItems := []string{"home/.claude/CLAUDE.md#Conventions", "home/notes/a.md", "home/projects/app/notes.md"}
		if diff := cmp.Diff(wantItems, items); diff != "" {
			t.Errorf("items (-want +got):\n%s", diff)
		}
		agentTail := `: an agent may not import it; a person can run "cortex import" from a shell, or allow it for agents with import.agent_allow`
		wantSkips := []string{
			"home/.aws: AWS credentials (rule aws)" + agentTail,
			"home/.bash_history: a shell or REPL history (rule shell-history)" + agentTail,
			"home/.claude/settings.json: Claude Code's own file (settings, state): of a .claude folder an import reads CLAUDE.md and the auto memory (projects/*/memory); name it to import it",
			"home/.config: a hidden folder (rule hidden)" + agentTail,
			"home/.config/gcloud: Google Cloud credentials (rule gcloud)" + agentTail,
			"home/.config/gh: GitHub CLI tokens (rule gh)" + agentTail,
			"home/.docker: Docker registry credentials (rule docker)" + agentTail,
			"home/.kube: Kubernetes credentials (rule kube)" + agentTail,
			"home/.local: a hidden folder (rule hidden)" + agentTail,
			"home/.local/share/keyrings: a keychain (rule keychain)" + agentTail,
			"home/.netrc: a .netrc of logins (rule netrc)" + agentTail,
			"home/.npmrc: npm registry tokens (rule npmrc)" + agentTail,
			"home/.pypirc: PyPI credentials (rule pypirc)" + agentTail,
			"home/.ssh: an SSH key store (rule ssh)" + agentTail,
			"home/.zsh_history: a shell or REPL history (rule shell-history)" + agentTail,
			"home/Library/Application Support/Google/Chrome: a browser profile (rule browser-profile)" + agentTail,
			"home/Library/Keychains: a keychain (rule keychain)" + agentTail,
			"home/notes/key-notes.md: a link to $ROOT/home/.ssh, an SSH key store (rule ssh)" + agentTail,
			"home/projects/app/.env: an environment file (rule dotenv)" + agentTail,
			"home/projects/app/prod.tfstate.json: a data file (.json), not a note; name it explicitly to import it",
			"home/projects/app/server.pem: a private key (rule private-key)" + agentTail,
		}
		if diff := cmp.Diff(wantSkips, skips); diff != "" {
			t.Errorf("skips (-want +got):\n%s", diff)
		}
	})

	t.Run("allowed dot paths", func(t *testing.T) {
		items, _ := sources(collectAs(t, agent, filepath.Join(home, ".claude", "CLAUDE.md"), o), root)
		if diff := cmp.Diff([]string{"home/.claude/CLAUDE.md#Conventions"}, items); diff != "" {
			t.Errorf("items (-want +got):\n%s", diff)
		}
	})

	t.Run("a link into a hidden folder", func(t *testing.T) {
		writeFiles(t, home, map[string]string{".config/nvim/notes.md": "Notes kept in a hidden folder about the editor setup.\n"})
		symlink(t, filepath.Join(home, ".config", "nvim", "notes.md"), filepath.Join(home, "docs", "editor.md"))
		_, skips := sources(collectAs(t, agent, filepath.Join(home, "docs"), o), root)
		want := []string{`home/docs/editor.md: a link to $ROOT/home/.config, a hidden folder (rule hidden): an agent may not import it; a person can run "cortex import" from a shell, or allow it for agents with import.agent_allow`}
		if diff := cmp.Diff(want, skips); diff != "" {
			t.Errorf("skips (-want +got):\n%s", diff)
		}
	})

	t.Run("a hidden allowed root", func(t *testing.T) {
		// An allowed root counts from itself: a hidden folder the person
		// allowed as a root needs no agent entry.
		writeFiles(t, home, map[string]string{".wiki/page.md": "A wiki page long enough to be a memory of its own.\n"})
		o := Options{Home: home, AllowedRoots: []string{filepath.Join(home, ".wiki")}}
		items, _ := sources(collectAs(t, agent, filepath.Join(home, ".wiki"), o), root)
		if diff := cmp.Diff([]string{"home/.wiki/page.md"}, items); diff != "" {
			t.Errorf("items (-want +got):\n%s", diff)
		}
	})

	t.Run("agent_allow", func(t *testing.T) {
		o := Options{Home: home, AgentAllow: []string{filepath.Join(home, ".config", "nvim"), filepath.Join(home, ".s*h")}}
		if _, err := Collect(agent, filepath.Join(home, ".config", "nvim", "init.lua"), o); err != nil {
			t.Errorf("a file the person allowed: %v", err)
		}
		// A glob allows a store, which is then read as a person's import
		// would read it: a named file is read and scanned.
		if _, err := Collect(agent, filepath.Join(home, ".ssh", "config"), o); err != nil {
			t.Errorf("a file under a glob the person allowed: %v", err)
		}
		if _, err := Collect(agent, filepath.Join(home, ".config", "gh", "hosts.yml"), o); err == nil {
			t.Error("a store nobody allowed was read")
		}
		if _, err := Collect(agent, home, Options{Home: home, AgentAllow: []string{"[bad"}}); err == nil || !strings.Contains(err.Error(), "import.agent_allow") {
			t.Errorf("a bad pattern: %v, want an error naming import.agent_allow", err)
		}
	})
}

// collectAs is collect with a context: ForAgent's, or a person's.
func collectAs(t *testing.T, ctx context.Context, path string, o Options) *Result {
	t.Helper()
	res, err := Collect(ctx, path, o)
	if err != nil {
		t.Fatalf("Collect(%s): %v", path, err)
	}
	return res
}

// TestCollectPersonGuard imports the same home as a person would (the
// CLI): a folder walk reads no secret store and names each, and the hidden
// files and folders it leaves out with their reason; a file of a store named on
// its own is read (the scan of memories.Import still judges it), a store's
// folder is not walked.
func TestCollectPersonGuard(t *testing.T) {
	root, home := fakeHome(t)
	o := Options{Home: home}
	items, skips := sources(collect(t, home, o), root)
	wantItems := []string{"home/.claude/CLAUDE.md#Conventions", "home/notes/a.md", "home/projects/app/notes.md"}
	if diff := cmp.Diff(wantItems, items); diff != "" {
		t.Errorf("items (-want +got):\n%s", diff)
	}
	tail := ": a folder import never reads it; name a file of it on its own to import it (its content is still scanned)"
	wantSkips := []string{
		"home/.aws: AWS credentials (rule aws)" + tail,
		"home/.bash_history: a shell or REPL history (rule shell-history)" + tail,
		"home/.claude/settings.json: Claude Code's own file (settings, state): of a .claude folder an import reads CLAUDE.md and the auto memory (projects/*/memory); name it to import it",
		"home/.config: a hidden folder: a folder import leaves hidden folders out (tools' state: .git, .obsidian, .trash); name it to import it",
		"home/.config/gcloud: Google Cloud credentials (rule gcloud)" + tail,
		"home/.config/gh: GitHub CLI tokens (rule gh)" + tail,
		"home/.docker: Docker registry credentials (rule docker)" + tail,
		"home/.kube: Kubernetes credentials (rule kube)" + tail,
		"home/.local: a hidden folder: a folder import leaves hidden folders out (tools' state: .git, .obsidian, .trash); name it to import it",
		"home/.local/share/keyrings: a keychain (rule keychain)" + tail,
		"home/.netrc: a .netrc of logins (rule netrc)" + tail,
		"home/.npmrc: npm registry tokens (rule npmrc)" + tail,
		"home/.pypirc: PyPI credentials (rule pypirc)" + tail,
		"home/.ssh: an SSH key store (rule ssh)" + tail,
		"home/.zsh_history: a shell or REPL history (rule shell-history)" + tail,
		"home/Library/Application Support/Google/Chrome: a browser profile (rule browser-profile)" + tail,
		"home/Library/Keychains: a keychain (rule keychain)" + tail,
		"home/notes/key-notes.md: a link to $ROOT/home/.ssh, an SSH key store (rule ssh)" + tail,
		"home/projects/app/.env: an environment file (rule dotenv)" + tail,
		"home/projects/app/prod.tfstate.json: a data file (.json), not a note; name it explicitly to import it",
		"home/projects/app/server.pem: a private key (rule private-key)" + tail,
	}
	if diff := cmp.Diff(wantSkips, skips); diff != "" {
		t.Errorf("skips (-want +got):\n%s", diff)
	}

	t.Run("named", func(t *testing.T) {
		tests := []struct {
			path  string
			items []string
			skips []string
		}{
			{".docker/config.json", []string{"home/.docker/config.json"}, nil},
			{".bash_history", []string{"home/.bash_history"}, nil},
			{".config/nvim/init.lua", []string{"home/.config/nvim/init.lua"}, nil},
			{"notes/key-notes.md", []string{"home/notes/key-notes.md"}, nil},
			{".ssh", nil, []string{"home/.ssh: an SSH key store (rule ssh)" + tail}},
			{"Library/Keychains", nil, []string{"home/Library/Keychains: a keychain (rule keychain)" + tail}},
		}
		for _, tt := range tests {
			t.Run(tt.path, func(t *testing.T) {
				items, skips := sources(collect(t, filepath.Join(home, filepath.FromSlash(tt.path)), o), root)
				if diff := cmp.Diff(tt.items, items); diff != "" {
					t.Errorf("items (-want +got):\n%s", diff)
				}
				if diff := cmp.Diff(tt.skips, skips); diff != "" {
					t.Errorf("skips (-want +got):\n%s", diff)
				}
			})
		}
	})

	t.Run("a link in a folder", func(t *testing.T) {
		// A link named like a note, to a key outside any store's folder,
		// is known by its target's name.
		writeFiles(t, home, map[string]string{"keys/deploy.key": "plain words that no content scan would refuse on their own\n"})
		symlink(t, filepath.Join(home, "keys", "deploy.key"), filepath.Join(home, "vault", "deploy.md"))
		_, skips := sources(collect(t, filepath.Join(home, "vault"), o), root)
		want := []string{"home/vault/deploy.md: a link to $ROOT/home/keys/deploy.key, a private key (rule private-key)" + tail}
		if diff := cmp.Diff(want, skips); diff != "" {
			t.Errorf("skips (-want +got):\n%s", diff)
		}
	})
}
