package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/cortexmem/cortex/memories"
	"github.com/cortexmem/cortex/pipeline"
	"github.com/cortexmem/cortex/transcript"
)

func TestResolvePrecedence(t *testing.T) {
	home := t.TempDir()
	state := filepath.Join(home, ".cortex")
	if err := os.MkdirAll(state, 0o700); err != nil {
		t.Fatal(err)
	}
	writeConfig := func(t *testing.T, path, content string) {
		t.Helper()
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	fileInState := filepath.Join(state, "config.yaml")
	writeConfig(t, fileInState, "vault: notes-from-file\nlock_timeout: 3s\nfreshness: 250ms\n")
	other := filepath.Join(home, "other.yaml")
	writeConfig(t, other, "vault: ~/other-vault\n")

	tests := []struct {
		name  string
		flags Flags
		env   map[string]string
		want  Settings
	}{
		{
			name: "config file in the default state folder, relative to the file",
			want: Settings{Vault: filepath.Join(state, "notes-from-file"), VaultFrom: "vault: in " + fileInState, Home: state, ConfigFile: fileInState,
				LockTimeout: 3 * time.Second, Freshness: 250 * time.Millisecond},
		},
		{
			name: "environment beats the file",
			env:  map[string]string{EnvVault: "/env/vault"},
			want: Settings{Vault: "/env/vault", VaultFrom: EnvVault, Home: state, ConfigFile: fileInState,
				LockTimeout: 3 * time.Second, Freshness: 250 * time.Millisecond},
		},
		{
			name:  "flag beats the environment",
			flags: Flags{Vault: "/flag/vault"},
			env:   map[string]string{EnvVault: "/env/vault"},
			want: Settings{Vault: "/flag/vault", VaultFrom: "--vault", Home: state, ConfigFile: fileInState,
				LockTimeout: 3 * time.Second, Freshness: 250 * time.Millisecond},
		},
		{
			name: "config file from the environment, ~ expanded",
			env:  map[string]string{EnvConfig: other},
			want: Settings{Vault: filepath.Join(home, "other-vault"), VaultFrom: "vault: in " + other, Home: state, ConfigFile: other,
				LockTimeout: DefaultLockTimeout, Freshness: DefaultFreshness},
		},
		{
			name:  "a state folder from the flag moves the default config file",
			flags: Flags{Home: filepath.Join(home, "elsewhere")},
			want: Settings{Vault: filepath.Join(home, "obsidian-brain"), VaultFrom: "default", Home: filepath.Join(home, "elsewhere"),
				ConfigFile: filepath.Join(home, "elsewhere", "config.yaml"), LockTimeout: DefaultLockTimeout, Freshness: DefaultFreshness},
		},
		{
			name: "a state folder from the environment",
			env:  map[string]string{EnvHome: "~/st"},
			want: Settings{Vault: filepath.Join(home, "obsidian-brain"), VaultFrom: "default", Home: filepath.Join(home, "st"),
				ConfigFile: filepath.Join(home, "st", "config.yaml"), LockTimeout: DefaultLockTimeout, Freshness: DefaultFreshness},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Resolve(tt.flags, func(k string) string { return tt.env[k] }, home)
			if err != nil {
				t.Fatal(err)
			}
			tt.want.VaultFolder = DefaultVaultFolder
			tt.want.Ranking = memories.DefaultRanking()
			tt.want.Checks = memories.DefaultChecks()
			tt.want.ImportMaxFile = DefaultImportMaxFile
			tt.want.Hooks = DefaultHooks()
			tt.want.KeepProcessed = DefaultKeepProcessed
			tt.want.Context = Context{SynthesizeTimeout: DefaultSynthesizeTimeout}
			tt.want.Watch = Watch{Debounce: DefaultWatchDebounce, Poll: DefaultWatchPoll, Transcripts: true}
			if diff := cmp.Diff(*got, tt.want); diff != "" {
				t.Errorf("settings (-got +want):\n%s", diff)
			}
		})
	}
}

func TestCheckVault(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(dir, link); err != nil {
		t.Skipf("no symbolic links: %v", err)
	}
	missing := filepath.Join(dir, "nonexistent", "xyz")
	for _, tc := range []struct {
		name, vault, from string
		want              []string // parts of the error; none for no error
	}{
		{"a folder", dir, "--vault", nil},
		{"a link to a folder", link, "--vault", nil},
		{"missing, from the flag", missing, "--vault", []string{missing + " (set by --vault) does not exist", "--vault or CORTEX_VAULT", "mkdir -p " + missing}},
		{"missing, from the environment", missing, EnvVault, []string{"(set by CORTEX_VAULT) does not exist"}},
		{"missing, the default", missing, "default", []string{"(the default vault) does not exist"}},
		{"a file", file, "--vault", []string{file + " is a file; the vault must be a folder"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := CheckVault(&Settings{Vault: tc.vault, VaultFrom: tc.from})
			if tc.want == nil {
				if err != nil {
					t.Errorf("CheckVault: %v", err)
				}
				return
			}
			var ae *memories.ArgError
			if !errors.As(err, &ae) || ae.Arg != "vault" || !errors.Is(err, memories.ErrInvalid) {
				t.Fatalf("CheckVault: %v (%T), want an ArgError about vault", err, err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("CheckVault: %q lacks %q", err, w)
				}
			}
		})
	}
}

func TestResolveRelativeFlagIsFromWorkingDir(t *testing.T) {
	got, err := Resolve(Flags{Vault: "rel/vault", Home: t.TempDir()}, func(string) string { return "" }, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	wd, _ := os.Getwd()
	if want := filepath.Join(wd, "rel", "vault"); got.Vault != want {
		t.Errorf("vault = %s, want %s", got.Vault, want)
	}
}

func TestConfigFileErrors(t *testing.T) {
	tests := []struct {
		name, content, want string
	}{
		{"unknown key", "vault: x\nvaultt: y\n", "line 2: unknown key vaultt"},
		{"not yaml", "vault: [\n", "did not find expected"},
		{"bad lock timeout", "lock_timeout: soon\n", `lock_timeout: "soon" is not a positive duration`},
		{"zero lock timeout", "lock_timeout: 0s\n", "is not a positive duration"},
		{"freshness too long", "freshness: 2h\n", `freshness: "2h" is not a duration from 0s to 1m`},
		{"negative weight", "recall:\n  weights:\n    relevance: -1\n", "recall.weights.relevance: must be a number ≥ 0"},
		{"all weights zero", "recall:\n  weights: {relevance: 0, recency: 0, activation: 0, importance: 0}\n", "recall.weights: must not all be 0"},
		{"recency base", "recall:\n  recency_base: 2\n", "recall.recency_base: must be in (0, 1]"},
		{"tie band", "recall:\n  tie_band: -1\n", "recall.tie_band: must be in [0, 1]"},
		{"negative activation weight", "recall:\n  activation:\n    weight: -1\n", "recall.activation.weight: must be a number ≥ 0"},
		{"negative source weight", "recall:\n  activation:\n    sources: {recall: -2}\n", "recall.activation.sources.recall: must be a number ≥ 0"},
		{"import size", "import:\n  max_file_mb: big\n", "line 2"},
		{"import size under 1", "import:\n  max_file_mb: 0.5\n", "import.max_file_mb: 0.5 is not a size from 1 to 4096"},
		{"import size too big", "import:\n  max_file_mb: 9000\n", "import.max_file_mb: 9000 is not a size from 1 to 4096"},
		{"dedup threshold above 1", "dedup:\n  duplicate: 1.5\n", "dedup.duplicate: must be from 0 to 1"},
		{"dedup threshold negative", "dedup:\n  mined_skip: -0.1\n", "dedup.mined_skip: must be from 0 to 1"},
		{"related above duplicate", "dedup:\n  duplicate: 0.5\n  related: 0.6\n", "dedup.related: must not be above dedup.duplicate"},
		{"dedup threshold not a number", "dedup:\n  related: high\n", "line 2"},
		{"gate rule bad pattern", "scribe:\n  gate_rules:\n    - {id: mine, category: decision, pattern: '(unclosed'}\n", "scribe.gate_rules"},
		{"gate rule bad category", "scribe:\n  gate_rules:\n    - {id: mine, category: wish, pattern: 'we want'}\n", "scribe.gate_rules"},
		{"empty gate", "scribe:\n  replace_gate: true\n", "scribe.gate_rules"},
		{"redaction bad pattern", "scribe:\n  redact:\n    - {name: ticket, pattern: '[a-'}\n", "scribe.redact"},
		{"window", "scribe:\n  window: forever\n", `scribe.window: "forever" is not a duration`},
		{"hook budget too small", "hooks:\n  budget_tokens: 10\n", "hooks.budget_tokens: 10 is not a number from 50 to 20000"},
		{"hook items", "hooks:\n  max_items: 0\n", "hooks.max_items: 0 is not a number from 1 to 50"},
		{"hook chars", "hooks:\n  max_chars: 100000\n", "hooks.max_chars: 100000 is not a number from 200 to 80000"},
		{"prompt score", "hooks:\n  prompt_min_score: 1.5\n", "hooks.prompt_min_score: 1.5 is not a number from 0 to 1"},
		{"prompt budget", "hooks:\n  prompt_budget_tokens: 9999\n", "hooks.prompt_budget_tokens: 9999 is not a number from 50 to 5000"},
		{"dedup window", "hooks:\n  dedup_window: often\n", `hooks.dedup_window: "often" is not a duration`},
		{"unknown hook key", "hooks:\n  budget: 3\n", "line 2: unknown key budget"},
		{"project name", "projects:\n  /src/a: 'web app!'\n", `projects./src/a: "web-app!" may hold only letters`},
		{"project name empty", "projects:\n  /src/a: ''\n", "projects./src/a: the project name is empty"},
		{"project folder twice", "projects:\n  /src/a: one\n  /src/a/: two\n", "/src/a is named twice"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			file := filepath.Join(dir, "config.yaml")
			if err := os.WriteFile(file, []byte(tt.content), 0o600); err != nil {
				t.Fatal(err)
			}
			_, err := Resolve(Flags{Config: file, Home: dir}, func(string) string { return "" }, dir)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want one containing %q", err, tt.want)
			}
			if !errors.Is(err, memories.ErrInvalid) {
				t.Errorf("err %v is not ErrInvalid (a usage error)", err)
			}
			if !strings.Contains(err.Error(), file) {
				t.Errorf("err %v does not name the file", err)
			}
		})
	}
}

func TestConfigWeightsAndEmptyFile(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "config.yaml")
	if err := os.WriteFile(file, []byte("# nothing but a comment\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := Resolve(Flags{Config: file, Home: dir}, func(string) string { return "" }, dir)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(got.Ranking, memories.DefaultRanking()); diff != "" {
		t.Errorf("ranking of an empty file (-got +want):\n%s", diff)
	}
	if err := os.WriteFile(file, []byte("recall:\n  weights: {relevance: 1, recency: 0, activation: 0, importance: 0}\n  recency_base: 0.99\n  tie_band: 0.3\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	got, err = Resolve(Flags{Config: file, Home: dir}, func(string) string { return "" }, dir)
	if err != nil {
		t.Fatal(err)
	}
	want := memories.Ranking{Weights: memories.Weights{Relevance: 1}, RecencyBase: 0.99, Activation: memories.DefaultActivation(), TieBand: 0.3}
	if diff := cmp.Diff(got.Ranking, want); diff != "" {
		t.Errorf("ranking (-got +want):\n%s", diff)
	}
}

func TestConfigActivation(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "config.yaml")
	if err := os.WriteFile(file, []byte("recall:\n  activation:\n    decay: 0.1\n    sources:\n      session_start: 0.02\n      hook: 0.3\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := Resolve(Flags{Config: file, Home: dir}, func(string) string { return "" }, dir)
	if err != nil {
		t.Fatal(err)
	}
	want := memories.DefaultActivation()
	want.Decay = 0.1
	want.Sources["session_start"], want.Sources["hook"] = 0.02, 0.3
	if diff := cmp.Diff(got.Ranking.Activation, want); diff != "" {
		t.Errorf("activation (-got +want):\n%s", diff)
	}
}

func TestConfigImport(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "config.yaml")
	if err := os.WriteFile(file, []byte("import:\n  allowed_roots: [/srv/notes, ~/elsewhere, shared]\n  max_file_mb: 8\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := Resolve(Flags{Config: file, Home: dir}, func(string) string { return "" }, "/home/ada")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"/srv/notes", "/home/ada/elsewhere", filepath.Join(dir, "shared")}
	if diff := cmp.Diff(got.ImportRoots, want); diff != "" || got.ImportMaxFile != 8<<20 {
		t.Errorf("roots (-got +want):\n%s\nmax file %d", diff, got.ImportMaxFile)
	}
}

func TestConfigAgentAllow(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "config.yaml")
	if err := os.WriteFile(file, []byte("import:\n  agent_allow: [~/.notes, \"~/.config/*/notes\", /srv/shared/.wiki, here]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := Resolve(Flags{Config: file, Home: dir}, func(string) string { return "" }, "/home/ada")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"/home/ada/.notes", "/home/ada/.config/*/notes", "/srv/shared/.wiki", filepath.Join(dir, "here")}
	if diff := cmp.Diff(got.ImportAgentAllow, want); diff != "" {
		t.Errorf("agent_allow (-got +want):\n%s", diff)
	}

	for _, tt := range []struct{ name, yaml, want string }{
		{"empty", "import:\n  agent_allow: [\"\"]\n", "import.agent_allow[0]: is empty"},
		{"bad glob", "import:\n  agent_allow: [\"~/[notes\"]\n", `import.agent_allow[0]: "~/[notes" is not a valid glob`},
		{"home", "import:\n  agent_allow: [~/.notes, \"~\"]\n", `import.agent_allow[1]: "~" would let an agent read every file`},
		{"root", "import:\n  agent_allow: [/]\n", `import.agent_allow[0]: "/" would let an agent read every file`},
		{"not a list", "import:\n  agent_allow: ~/.notes\n", "line 2"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if err := os.WriteFile(file, []byte(tt.yaml), 0o600); err != nil {
				t.Fatal(err)
			}
			_, err := Resolve(Flags{Config: file, Home: dir}, func(string) string { return "" }, "/home/ada")
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Resolve = %v, want an error saying %q", err, tt.want)
			}
		})
	}
}

func TestConfigDedupThresholds(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "config.yaml")
	if err := os.WriteFile(file, []byte("dedup:\n  duplicate: 0.8\n  related: 0.25\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := Resolve(Flags{Config: file, Home: dir}, func(string) string { return "" }, dir)
	if err != nil {
		t.Fatal(err)
	}
	want := memories.DefaultChecks()
	want.Thresholds.Duplicate, want.Thresholds.Related = 0.8, 0.25 // the others keep their defaults
	if diff := cmp.Diff(got.Checks, want); diff != "" {
		t.Errorf("checks (-got +want):\n%s", diff)
	}
}

// TestConfigScribe: gate rules added to the default table, a redaction
// pattern and the binding window reach the pipeline.
func TestConfigScribe(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "config.yaml")
	conf := "scribe:\n  gate_rules:\n    - {id: betting, category: decision, pattern: '(?i)\\bbetting on\\b', hints: [betting on]}\n" +
		"  redact:\n    - {name: ticket, pattern: 'TICKET-[0-9]+'}\n  window: 10m\n"
	if err := os.WriteFile(file, []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := Resolve(Flags{Config: file, Home: dir}, func(string) string { return "" }, dir)
	if err != nil {
		t.Fatal(err)
	}
	p := pipeline.New(got.Pipeline...)
	if red := p.RedactText("see TICKET-42"); red != "see [REDACTED:ticket]" {
		t.Errorf("redaction: %q", red)
	}
	turn := []transcript.Event{{Source: transcript.ClaudeCode, SessionID: "s", EventID: "1", Kind: transcript.KindUserTurn,
		UserTurn: &transcript.UserTurn{Text: "We are betting on postgres here."}}}
	if nodes := p.Prepare(turn); len(nodes) != 2 {
		t.Errorf("the configured rule admits nothing: %d nodes", len(nodes))
	}
	if nodes := pipeline.New().Prepare(turn); len(nodes) != 0 {
		t.Errorf("the default gate admits the turn already (%d nodes): the test shows nothing", len(nodes))
	}
}

func TestTildeWithoutHome(t *testing.T) {
	_, err := Resolve(Flags{Vault: "~/v", Home: "/tmp/x", Config: "/nonexistent/c.yaml"}, func(string) string { return "" }, "")
	if err == nil || !strings.Contains(err.Error(), "vault") {
		t.Errorf("err = %v, want a vault error about ~", err)
	}
}

func TestConfigHooksAndProjects(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "config.yaml")
	content := "hooks:\n  budget_tokens: 800\n  max_chars: 2000\n  max_items: 5\n  prompt_recall: true\n  prompt_min_score: 0.7\n" +
		"  prompt_budget_tokens: 200\n  dedup_window: 0s\n" +
		"projects:\n  ~/work/acme: Acme-Web\n  ~/work/acme/tools: acme-tools\n  rel/dir: rel\n"
	if err := os.WriteFile(file, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := Resolve(Flags{Config: file, Home: dir}, func(string) string { return "" }, dir)
	if err != nil {
		t.Fatal(err)
	}
	want := Hooks{BudgetTokens: 800, MaxChars: 2000, MaxItems: 5, PromptRecall: true, PromptMinScore: 0.7, PromptBudgetTokens: 200}
	if diff := cmp.Diff(s.Hooks, want); diff != "" {
		t.Errorf("hooks (-got +want):\n%s", diff)
	}
	wantProjects := []ProjectFolder{
		{Dir: filepath.Join(dir, "work/acme/tools"), Project: "acme-tools"},
		{Dir: filepath.Join(dir, "work/acme"), Project: "acme-web"},
		{Dir: filepath.Join(dir, "rel/dir"), Project: "rel"},
	}
	if diff := cmp.Diff(s.Projects, wantProjects); diff != "" {
		t.Errorf("projects (-got +want):\n%s", diff)
	}
	for _, tt := range []struct {
		dir, want string
		ok        bool
	}{
		{filepath.Join(dir, "work/acme"), "acme-web", true},
		{filepath.Join(dir, "work/acme/src/api"), "acme-web", true},
		{filepath.Join(dir, "work/acme/tools/x"), "acme-tools", true},
		{filepath.Join(dir, "work/acme-other"), "", false},
		{filepath.Join(dir, "work"), "", false},
	} {
		got, ok := ProjectOf(s.Projects, tt.dir)
		if got != tt.want || ok != tt.ok {
			t.Errorf("ProjectOf(%s) = %q, %v; want %q, %v", tt.dir, got, ok, tt.want, tt.ok)
		}
	}
}
