package mcp

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cortexmem/cortex/config"
	"github.com/cortexmem/cortex/importer"
	"github.com/cortexmem/cortex/memories"
	"github.com/cortexmem/cortex/store"
	"github.com/cortexmem/cortex/vault"
	"github.com/cortexmem/cortex/view"
)

// credentialHome writes a home folder holding the credential stores,
// histories and key files of a developer's machine, with secrets in them,
// beside two files an agent may import: a note and ~/.claude/CLAUDE.md. It
// returns the secrets, which must never reach the vault. Every secret is put
// together at run time so that this file holds none.
func credentialHome(t *testing.T, home string) []string {
	t.Helper()
	b64 := func(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }
	dash := strings.Repeat("-", 5)
	secrets := map[string]string{
		"docker":  "deploy:" + "Qw7nZr2Lk" + "Vx9Tb4Hs",
		"kube":    "kTq8Zr3Lw" + "Vn6Yb1Hs9Dc4Fm7G",
		"gh":      "gh" + "o_" + "R8kQ2nZ7wLx4Tb9Vc1Hs6Dm3Fy5Gj0Ka",
		"aws":     "AK" + "IA" + "QX7Z3LW9VN6YB1HS",
		"history": "mysql -u root -p" + "Hunter2Zebra" + "Crane",
		"npm":     "8f3a1c2e-" + "5b7d-4e9f-a1b2-c3d4e5f6a7b8",
		"pypi":    "correct" + "horsebattery",
		"netrc":   "s3cr3t" + "Machine" + "Pass",
		"ssh":     "b3BlbnNzaC1rZXktdjEAAAAA" + "BG5vbmUAAAAEbm9uZQAAAAAAAAAB",
		"env":     "sk_" + "live_" + "Zr2LkVx9Tb4HsQw7n",
		"gcloud":  "1//" + "0gZr2LkVx9Tb4HsQw7nRt",
		"firefox": "MDoEEPgAAAAAAAAAAAAA" + "AAAAAAEwFAYIKoZIhvcNAwcECA",
		"tfstate": "db-" + "admin-" + "Vx9Tb4HsQw7n",
	}
	files := map[string]string{
		"notes/ideas.md":       "# Release ideas\n\nShip the importer guard before the sync feature goes out.\n",
		".claude/CLAUDE.md":    "# Conventions\n\nRun the linters before every commit, and never push to main.\n",
		".docker/config.json":  "{\n\t\"auths\": {\n\t\t\"https://index.docker.io/v1/\": {\n\t\t\t\"auth\": \"" + b64(secrets["docker"]) + "\"\n\t\t}\n\t}\n}\n",
		".kube/config":         "apiVersion: v1\nkind: Config\ncurrent-context: prod\nusers:\n- name: admin\n  user:\n    token: " + secrets["kube"] + "\n",
		".config/gh/hosts.yml": "github.com:\n    user: octo\n    oauth_token: " + secrets["gh"] + "\n    git_protocol: https\n",
		".aws/credentials":     "[default]\naws_access_key_id = " + secrets["aws"] + "\n",
		".bash_history":        "ls\ncd projects\n" + secrets["history"] + "\n",
		".zsh_history":         ": 1700000000:0;" + secrets["history"] + "\n",
		".npmrc":               "//registry.npmjs.org/:_authToken=" + secrets["npm"] + "\n",
		".pypirc":              "[pypi]\nusername = octo\npassword = " + secrets["pypi"] + "\n",
		".netrc":               "machine api.acme.io login octo password " + secrets["netrc"] + "\n",
		".ssh/id_ed25519":      dash + "BEGIN OPENSSH PRIVATE KEY" + dash + "\n" + secrets["ssh"] + "\n" + dash + "END OPENSSH PRIVATE KEY" + dash + "\n",
		".config/gcloud/application_default_credentials.json": `{"refresh_token": "` + secrets["gcloud"] + `", "type": "authorized_user"}`,
		".mozilla/firefox/x.default/logins.json":              `{"logins": [{"encryptedPassword": "` + secrets["firefox"] + `"}]}`,
		"Library/Keychains/login.keychain-db":                 "keychain " + secrets["firefox"],
		"projects/app/.env":                                   "STRIPE_KEY=" + secrets["env"] + "\n",
		"projects/app/terraform.tfstate":                      `{"resources": [{"instances": [{"attributes": {"password": "` + secrets["tfstate"] + `"}}]}]}`,
	}
	for name, content := range files {
		p := filepath.Join(home, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	// A link named like a note, to the SSH key.
	if err := os.Symlink(filepath.Join(home, ".ssh", "id_ed25519"), filepath.Join(home, "notes", "deploy-notes.md")); err != nil {
		t.Skipf("symbolic links: %v", err)
	}
	var out []string
	for _, s := range secrets {
		out = append(out, s)
	}
	slices.Sort(out)
	return out
}

// newImportSession is a client session with a server whose home folder is
// root/home and whose import.agent_allow is allow.
func newImportSession(t *testing.T, root string, allow []string) *mcp.ClientSession {
	t.Helper()
	v, err := vault.New(filepath.Join(root, "vault"), "cortex")
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(store.Options{Vault: v, State: config.State{Home: filepath.Join(root, "state")}, LockTimeout: 10 * time.Second, Freshness: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	clock := now
	svc := memories.NewService(st,
		memories.WithClock(func() time.Time { clock = clock.Add(time.Minute); return clock }),
		memories.WithIDGen(memories.NewULIDGen(rand.NewChaCha8([32]byte{1}))),
		memories.WithImporter(&importer.Source{Options: importer.Options{
			Home: filepath.Join(root, "home"), Exclude: []string{v.Dir}, Vault: v.Root, AgentAllow: allow,
		}}))
	srv := New(svc, Options{Version: "test", Abs: v.Abs})
	ct, st2 := mcp.NewInMemoryTransports()
	ctx := context.Background()
	if _, err := srv.Connect(ctx, st2, nil); err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// importCall calls memory_import and returns the result's text, whether it
// is an error, and its structured content.
func importCall(t *testing.T, cs *mcp.ClientSession, path string) (string, bool, view.Import) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "memory_import", Arguments: map[string]any{"source_path": path}})
	if err != nil {
		t.Fatalf("memory_import %s: a protocol error, want a tool result: %v", path, err)
	}
	var text strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			text.WriteString(tc.Text)
		}
	}
	var out view.Import
	if !res.IsError {
		data, _ := json.Marshal(res.StructuredContent)
		if err := json.Unmarshal(data, &out); err != nil {
			t.Fatal(err)
		}
	}
	return text.String(), res.IsError, out
}

// vaultHolds fails the test when a note of the vault holds one of secrets.
func vaultHolds(t *testing.T, root string, secrets []string) {
	t.Helper()
	err := filepath.WalkDir(filepath.Join(root, "vault"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for _, s := range secrets {
			if strings.Contains(string(data), s) {
				t.Errorf("%s holds the secret %q", p, s)
			}
		}
		return nil
	})
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
}

// TestImportGuard drives memory_import through a client session as a
// prompt-injected agent would: every credential store, history and key file
// of the home folder, named on its own, is refused with the path and the rule
// and a pointer to the shell; the home folder as a whole imports the note and
// CLAUDE.md only, naming every store it left out; no secret reaches the
// vault.
func TestImportGuard(t *testing.T) {
	root := t.TempDir()
	home := filepath.Join(root, "home")
	secrets := credentialHome(t, home)
	cs := newImportSession(t, root, nil)

	refused := []struct {
		path string // under home
		rule string
	}{
		{".docker/config.json", "docker"},
		{".docker", "docker"},
		{".kube/config", "kube"},
		{".config/gh/hosts.yml", "gh"},
		{".aws/credentials", "aws"},
		{".bash_history", "shell-history"},
		{".zsh_history", "shell-history"},
		{".npmrc", "npmrc"},
		{".pypirc", "pypirc"},
		{".netrc", "netrc"},
		{".ssh/id_ed25519", "ssh"},
		{".ssh", "ssh"},
		{".config/gcloud/application_default_credentials.json", "gcloud"},
		{".mozilla/firefox/x.default/logins.json", "browser-profile"},
		{"Library/Keychains/login.keychain-db", "keychain"},
		{"projects/app/.env", "dotenv"},
		{"projects/app/terraform.tfstate", "terraform-state"},
		{"notes/deploy-notes.md", "ssh"},
		{".config", "hidden"},
	}
	for _, tt := range refused {
		t.Run(tt.path, func(t *testing.T) {
			p := filepath.Join(home, filepath.FromSlash(tt.path))
			text, isErr, _ := importCall(t, cs, p)
			if !isErr {
				t.Fatalf("memory_import %s was not refused: %s", tt.path, text)
			}
			for _, want := range []string{p + " is refused for an agent", "(rule " + tt.rule + ")", `"cortex import ` + p + `" from a shell`} {
				if !strings.Contains(text, want) {
					t.Errorf("the refusal says:\n%s\nwant it to say %q", text, want)
				}
			}
		})
	}

	text, isErr, res := importCall(t, cs, home)
	if isErr {
		t.Fatalf("memory_import of the home folder: %s", text)
	}
	var got []string
	for _, m := range res.Memories {
		got = append(got, strings.TrimPrefix(m.Source, home+string(filepath.Separator)))
	}
	slices.Sort(got)
	if diff := cmp.Diff([]string{".claude/CLAUDE.md#Conventions", "notes/ideas.md#Release ideas"}, got); diff != "" {
		t.Errorf("imported (-want +got):\n%s", diff)
	}
	skips := map[string]string{}
	for _, s := range res.Skips {
		skips[strings.TrimPrefix(s.Source, home+string(filepath.Separator))] = s.Reason
	}
	for store, rule := range map[string]string{
		".docker": "docker", ".kube": "kube", ".config/gh": "gh", ".aws": "aws", ".bash_history": "shell-history",
		".zsh_history": "shell-history", ".npmrc": "npmrc", ".pypirc": "pypirc", ".netrc": "netrc", ".ssh": "ssh",
		".config/gcloud": "gcloud", ".mozilla": "browser-profile", "Library/Keychains": "keychain",
		"projects/app/.env": "dotenv", "projects/app/terraform.tfstate": "terraform-state", "notes/deploy-notes.md": "ssh",
	} {
		if r, ok := skips[store]; !ok || !strings.Contains(r, "(rule "+rule+"): an agent may not import it") {
			t.Errorf("the import of the home folder does not name %s (rule %s) among its skips: %q", store, rule, r)
		}
	}
	if !strings.Contains(text, "Skipped:\n") {
		t.Errorf("the text lists no skips:\n%s", text)
	}
	vaultHolds(t, root, secrets)

	t.Run("agent_allow", func(t *testing.T) {
		// What the person lists is read as a person's import reads it: the
		// file, and its content scanned, which refuses the kubeconfig's
		// token now that the path allows it.
		root := t.TempDir()
		home := filepath.Join(root, "home")
		secrets := credentialHome(t, home)
		cs := newImportSession(t, root, []string{filepath.Join(home, ".kube")})
		text, isErr, res := importCall(t, cs, filepath.Join(home, ".kube", "config"))
		if isErr {
			t.Fatalf("an allowed path refused: %s", text)
		}
		if res.Imported != 0 || res.Unsafe != 1 || len(res.Rejected) != 1 || res.Rejected[0].Rule != "credential.kubeconfig_credential" {
			t.Errorf("the kubeconfig: %s; want it rejected as unsafe by credential.kubeconfig_credential", text)
		}
		if text, isErr, _ := importCall(t, cs, filepath.Join(home, ".docker", "config.json")); !isErr {
			t.Errorf("a store the person did not allow was read: %s", text)
		}
		vaultHolds(t, root, secrets)
	})
}
