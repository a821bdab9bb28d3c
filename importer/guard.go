package importer

import (
	"context"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"

	"github.com/cortexmem/cortex/memories"
)

// What an import may read.
//
// Every import reads only inside the home folder and the allowed roots
// (import.allowed_roots), symlinks resolved. Within them:
//
//   - Secret stores (secretRules: credential stores, shell histories,
//     keychains, browser profiles, password vaults, private keys, Terraform
//     state) are never read in a folder: each is skipped with its rule, even
//     when a link with an innocent name leads to it. A person who names one
//     file of them on the command line gets it read, and scanned like any
//     other: that is a decision, not an accident of a walk.
//   - An agent's import (ForAgent: through MCP) is refused, as a whole, for a
//     path in a secret store or with a hidden file or folder in its path
//     below the root, whatever the path's own name or the link it went
//     through; inside a folder such paths are skipped. The instructions and
//     memories agents keep in dot folders are the exception (agentDotPaths),
//     as is what the person lists in import.agent_allow (Options.AgentAllow).
//
// A prompt-injected agent must not be able to copy ~/.docker/config.json or
// ~/.bash_history into a vault that syncs elsewhere; the content scan catches
// many secrets but not all (a history holds commands, a config a base64
// login), so the path decides first.

// agentKey marks a context as an agent's import.
type agentKey struct{}

// ForAgent marks ctx as the context of an import an agent asked for: the
// MCP server's memory_import. Such an import is held to the agent rules (see
// above); any other is a person's.
func ForAgent(ctx context.Context) context.Context {
	return context.WithValue(ctx, agentKey{}, true)
}

func byAgent(ctx context.Context) bool {
	v, _ := ctx.Value(agentKey{}).(bool)
	return v
}

// secretRule names files that hold secrets: each pattern is a path of one or
// more names, each a glob (path.Match) compared without regard to case, that
// matches the same names in a row anywhere in a path below its root.
type secretRule struct {
	id       string
	what     string // with its article: "an SSH key store"
	patterns []string
}

// secretRules are the secret stores no folder import reads.
var secretRules = []secretRule{
	{"ssh", "an SSH key store", []string{".ssh"}},
	{"gnupg", "a GnuPG keyring", []string{".gnupg"}},
	{"aws", "AWS credentials", []string{".aws"}},
	{"azure", "Azure credentials", []string{".azure"}},
	{"gcloud", "Google Cloud credentials", []string{".config/gcloud"}},
	{"kube", "Kubernetes credentials", []string{".kube"}},
	{"docker", "Docker registry credentials", []string{".docker"}},
	{"gh", "GitHub CLI tokens", []string{".config/gh", ".config/hub", ".config/github-copilot"}},
	{"netrc", "a .netrc of logins", []string{".netrc", "_netrc"}},
	{"npmrc", "npm registry tokens", []string{".npmrc", ".yarnrc.yml"}},
	{"pypirc", "PyPI credentials", []string{".pypirc"}},
	{"pgpass", "database passwords", []string{".pgpass", ".my.cnf"}},
	{"git-credentials", "git credentials", []string{".git-credentials", ".config/git/credentials"}},
	{"dotenv", "an environment file", []string{".env", ".env.*", ".envrc"}},
	{"tool-credentials", "a tool's stored credentials", []string{
		".vault-token", ".terraform.d", ".cargo/credentials", ".cargo/credentials.toml", ".gem/credentials",
		".config/op", ".s3cfg", ".boto", ".oci", ".codex/auth.json", ".claude/.credentials.json", ".gemini/oauth_creds.json"}},
	{"shell-history", "a shell or REPL history", []string{"*_history", ".history", ".zhistory", ".zsh_sessions", ".lesshst", ".viminfo", ".Rhistory"}},
	{"keychain", "a keychain", []string{"Library/Keychains", ".local/share/keyrings", ".password-store"}},
	{"browser-profile", "a browser profile", []string{
		".mozilla", ".config/google-chrome", ".config/chromium", ".config/BraveSoftware", ".config/microsoft-edge", ".config/vivaldi",
		"snap/firefox", "snap/chromium",
		"Library/Application Support/Google/Chrome", "Library/Application Support/Chromium", "Library/Application Support/Firefox",
		"Library/Application Support/BraveSoftware", "Library/Application Support/Microsoft Edge", "Library/Safari", "Library/Cookies",
		"AppData/Local/Google/Chrome", "AppData/Roaming/Mozilla", "AppData/Local/Microsoft/Edge"}},
	{"password-export", "a password manager's vault or export", []string{
		"*.kdbx", "*.kdb", "*.1pux", "*.1pif", "*.psafe3", "*.opvault", "*.agilekeychain", "bitwarden_export*", "bitwarden_encrypted_export*"}},
	// id_* only by the names ssh-keygen gives: "id_mapping.md" is a note.
	{"private-key", "a private key", []string{
		"*.pem", "*.key", "*.p12", "*.pfx", "*.jks", "*.keystore", "*.ppk",
		"id_rsa", "id_dsa", "id_ecdsa", "id_ed25519", "id_ecdsa_sk", "id_ed25519_sk"}},
	{"terraform-state", "Terraform state, which holds resources' secrets in clear", []string{"*.tfstate", "*.tfstate.backup"}},
}

// hiddenRule is the id of the agent rule for hidden files and folders.
const hiddenRule = "hidden"

// agentDotPaths are the hidden paths an agent may import: the instructions
// and memories coding agents keep in dot folders, which are what importing
// is for. Each is a path from the dot folder (a name in it may be a glob,
// "**" any number of folders, neither ever a hidden name), for folders, files
// or both.
var agentDotPaths = []struct {
	pattern   string
	dir, file bool
}{
	// Claude Code: instructions, and the auto memory (a walk of .claude reads
	// nothing else; see readInClaudeDir).
	{".claude", true, false},
	{".claude/projects", true, false},
	{".claude/projects/*", true, false},
	{".claude/projects/*/memory/**", true, true},
	{".claude/CLAUDE.md", false, true},
	{".claude/CLAUDE.local.md", false, true},
	// Codex and Gemini CLI: global instructions.
	{".codex/AGENTS.md", false, true},
	{".codex/AGENTS.override.md", false, true},
	{".gemini/GEMINI.md", false, true},
	// Cursor's project rules and GitHub Copilot's instructions.
	{".cursor/rules/**", true, true},
	{".github/copilot-instructions.md", false, true},
	{".github/instructions/**", true, true},
}

// guard knows the folders imports may come from and what in them they may
// read.
type guard struct {
	roots []string // symlinks resolved
	// raw are the roots as given, made absolute: a path as the user typed
	// it is below them even when a root is reached through a link.
	raw     []string
	exclude []string
	agent   bool
	allow   []string // import.agent_allow, absolute, and resolved when they exist
}

func newGuard(ctx context.Context, o Options) (*guard, error) {
	g := &guard{agent: byAgent(ctx)}
	for _, r := range append([]string{o.Home}, o.AllowedRoots...) {
		if r == "" {
			continue
		}
		abs, err := filepath.Abs(r)
		if err != nil {
			continue
		}
		g.raw = append(g.raw, abs)
		if real, err := filepath.EvalSymlinks(r); err == nil {
			g.roots = append(g.roots, real)
		} else {
			g.roots = append(g.roots, abs)
		}
	}
	if len(g.roots) == 0 {
		return nil, &memories.ArgError{Arg: "path", Rule: "the home folder is unknown and no root is allowed (import.allowed_roots)"}
	}
	for _, x := range o.Exclude {
		if real, err := filepath.EvalSymlinks(x); err == nil {
			g.exclude = append(g.exclude, real)
		}
	}
	for _, a := range o.AgentAllow {
		if _, err := filepath.Match(a, ""); err != nil {
			return nil, &memories.ArgError{Arg: "import.agent_allow", Rule: fmt.Sprintf("%q is not a valid pattern: %v", a, err)}
		}
		g.allow = append(g.allow, filepath.Clean(a))
		if !hasMeta(a) {
			if real, err := filepath.EvalSymlinks(a); err == nil && real != filepath.Clean(a) {
				g.allow = append(g.allow, real)
			}
		}
	}
	return g, nil
}

func within(path, root string) bool {
	rel, err := filepath.Rel(root, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

func (g *guard) allowed(real string) bool {
	for _, r := range g.roots {
		if within(real, r) {
			return true
		}
	}
	return false
}

func (g *guard) excluded(real string) bool {
	for _, x := range g.exclude {
		if within(real, x) {
			return true
		}
	}
	return false
}

// below splits p into the root it is below (the innermost, so that an
// allowed root inside the home folder counts from itself) and the names
// under it; ok is false when p is below none.
func (g *guard) below(p string) (root string, names []string, ok bool) {
	for _, r := range append(append([]string{}, g.roots...), g.raw...) {
		if within(p, r) && len(r) > len(root) {
			root, ok = r, true
		}
	}
	if !ok {
		return "", nil, false
	}
	rel, _ := filepath.Rel(root, p)
	if rel == "." {
		return root, nil, true
	}
	return root, strings.Split(filepath.ToSlash(rel), "/"), true
}

// refusal is why a path is not read.
type refusal struct {
	rule string // a secretRule's id, or hiddenRule
	what string
	at   string // the store or hidden folder the path is in, or leads to
	path string // the path refused
}

// subject words where the refused path stands to what it is in.
func (r *refusal) subject() string {
	switch {
	case r.at == r.path:
		return ""
	case within(r.path, r.at):
		return "in " + r.at + ", "
	}
	return "a link to " + r.at + ", "
}

// skipReason is the reason of a skip in a folder.
func (r *refusal) skipReason(agent bool) string {
	s := fmt.Sprintf("%s%s (rule %s)", r.subject(), r.what, r.rule)
	if agent {
		return s + `: an agent may not import it; a person can run "cortex import" from a shell, or allow it for agents with import.agent_allow`
	}
	return s + ": a folder import never reads it; name a file of it on its own to import it (its content is still scanned)"
}

// agentError is the error of an agent's import of a path refused.
func (r *refusal) agentError() error {
	return &memories.ArgError{Arg: "path", Rule: fmt.Sprintf(
		"%s is refused for an agent: it is %s%s (rule %s). An agent may not import hidden files, credential stores, shell histories or key files; "+
			"a person can run \"cortex import %s\" from a shell, or allow the path for agents with import.agent_allow in the config file",
		r.path, r.subject(), r.what, r.rule, r.path)}
}

// refuse says why path (real: symlinks resolved) must not be read, or nil.
// named is true when a person named the path: then a file in a secret store
// is read (a folder still is not walked).
func (g *guard) refuse(p, real string, isDir, named bool) *refusal {
	if g.agent && g.agentAllowed(p, real) {
		return nil
	}
	for i, q := range []string{p, real} {
		if i == 1 && real == p {
			break
		}
		root, names, ok := g.below(q)
		if !ok {
			continue
		}
		if rule, n := secretIn(names); rule != nil && (g.agent || isDir || !named) {
			return &refusal{rule: rule.id, what: rule.what, at: filepath.Join(root, filepath.FromSlash(strings.Join(names[:n], "/"))), path: p}
		}
		if !g.agent {
			continue
		}
		if h := hiddenIn(names, isDir); h >= 0 {
			what := "a hidden folder"
			if h == len(names)-1 && !isDir {
				what = "a hidden file"
			}
			return &refusal{rule: hiddenRule, what: what, at: filepath.Join(root, filepath.FromSlash(strings.Join(names[:h+1], "/"))), path: p}
		}
	}
	return nil
}

// nested returns the refusals of the secret stores a hidden folder the walk
// does not enter holds (.config/gh in .config), so that a walk of the home
// folder names every store it leaves out. p is the folder, real where it is.
func (g *guard) nested(p, real string) []*refusal {
	name := strings.ToLower(filepath.Base(p))
	var out []*refusal
	for _, rule := range secretRules {
		for _, pat := range rule.patterns {
			parts := strings.Split(pat, "/")
			if len(parts) < 2 || strings.ToLower(parts[0]) != name || hasMeta(pat) {
				continue
			}
			rest := filepath.FromSlash(strings.Join(parts[1:], "/"))
			if _, err := os.Lstat(filepath.Join(real, rest)); err != nil {
				continue
			}
			at := filepath.Join(p, rest)
			if g.agent && g.agentAllowed(at, filepath.Join(real, rest)) {
				continue
			}
			out = append(out, &refusal{rule: rule.id, what: rule.what, at: at, path: at})
		}
	}
	return out
}

// secretIn returns the rule of the first secret store in names (the
// outermost), and the end of its match; nil when there is none.
func secretIn(names []string) (*secretRule, int) {
	idx := secretIndex()
	lower := make([]string, len(names))
	for i, n := range names {
		lower[i] = strings.ToLower(n)
	}
	for at, n := range lower {
		var best *secretPattern
		for _, sp := range idx.byName[n] {
			if (best == nil || sp.rule < best.rule) && matchRun(sp.parts, lower[at:]) {
				best = sp
			}
		}
		for _, sp := range idx.globs {
			if (best == nil || sp.rule < best.rule) && sp.first(n) && matchRun(sp.parts[1:], lower[at+1:]) {
				best = sp
			}
		}
		if best != nil {
			return &secretRules[best.rule], at + len(best.parts)
		}
	}
	return nil, 0
}

// secretPattern is one pattern of secretRules, folded and split into names.
type secretPattern struct {
	rule  int // index in secretRules
	parts []string
	// pre and suf are the two sides of a first name with one "*" and no
	// other wildcard (*.pem, *_history, .env.*), matched without path.Match:
	// a walk asks for each name of each file.
	pre, suf string
	oneStar  bool
}

// first reports whether name matches the pattern's first name (folded).
func (sp *secretPattern) first(name string) bool {
	if sp.oneStar {
		return len(name) >= len(sp.pre)+len(sp.suf) && strings.HasPrefix(name, sp.pre) && strings.HasSuffix(name, sp.suf)
	}
	ok, _ := path.Match(sp.parts[0], name)
	return ok
}

// secretIndex sorts the patterns for a walk of thousands of files: those
// whose first name is literal by that name, the others (*.pem, *_history)
// apart.
var secretIndex = sync.OnceValue(func() (idx struct {
	byName map[string][]*secretPattern
	globs  []*secretPattern
}) {
	idx.byName = map[string][]*secretPattern{}
	for i, rule := range secretRules {
		for _, pat := range rule.patterns {
			sp := &secretPattern{rule: i, parts: strings.Split(strings.ToLower(pat), "/")}
			if f := sp.parts[0]; strings.Count(f, "*") == 1 && !strings.ContainsAny(f, "?[") {
				sp.pre, sp.suf, _ = strings.Cut(f, "*")
				sp.oneStar = true
			}
			if hasMeta(sp.parts[0]) {
				idx.globs = append(idx.globs, sp)
			} else {
				idx.byName[sp.parts[0]] = append(idx.byName[sp.parts[0]], sp)
			}
		}
	}
	return idx
})

// matchRun reports whether names starts with names matching pats, one for
// one; both are folded.
func matchRun(pats, names []string) bool {
	if len(names) < len(pats) {
		return false
	}
	for i, p := range pats {
		if !hasMeta(p) {
			if p != names[i] {
				return false
			}
			continue
		}
		if ok, _ := path.Match(p, names[i]); !ok {
			return false
		}
	}
	return true
}

// hiddenIn returns the index of the first hidden name of names that no
// agentDotPaths entry allows, or -1.
func hiddenIn(names []string, isDir bool) int {
	i := -1
	for k, n := range names {
		if strings.HasPrefix(n, ".") {
			i = k
			break
		}
	}
	if i < 0 {
		return -1
	}
	tail := names[i:]
	for _, d := range agentDotPaths {
		if (isDir && d.dir || !isDir && d.file) && matchNames(strings.Split(d.pattern, "/"), tail) {
			return -1
		}
	}
	return i
}

// matchNames matches names against a pattern of names, where "**" stands for
// any number of them; a wildcard never matches a hidden name.
func matchNames(pats, names []string) bool {
	if len(pats) == 0 {
		return len(names) == 0
	}
	if pats[0] == "**" {
		for k := 0; k <= len(names); k++ {
			if matchNames(pats[1:], names[k:]) {
				return true
			}
			if k < len(names) && strings.HasPrefix(names[k], ".") {
				return false
			}
		}
		return false
	}
	if len(names) == 0 || strings.HasPrefix(names[0], ".") && !strings.HasPrefix(pats[0], ".") {
		return false
	}
	if ok, _ := path.Match(strings.ToLower(pats[0]), strings.ToLower(names[0])); !ok {
		return false
	}
	return matchNames(pats[1:], names[1:])
}

// agentAllowed reports whether import.agent_allow lists one of paths, or a
// folder holding it: an entry is a path or a glob (filepath.Match, "*" within
// one name).
func (g *guard) agentAllowed(paths ...string) bool {
	for _, a := range g.allow {
		for _, p := range paths {
			if !hasMeta(a) {
				if within(p, a) {
					return true
				}
				continue
			}
			for q := p; ; q = filepath.Dir(q) {
				if ok, _ := filepath.Match(a, q); ok {
					return true
				}
				if q == filepath.Dir(q) {
					break
				}
			}
		}
	}
	return false
}

func hasMeta(p string) bool { return strings.ContainsAny(p, "*?[") }
