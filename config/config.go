// Package config owns cortex's paths and settings, resolved with one precedence
// everywhere: command-line flag, then environment variable, then the config file,
// then the default.
//
//	vault root     --vault   CORTEX_VAULT    vault:          ~/obsidian-brain
//	state folder   --home    CORTEX_HOME     (not in file)   ~/.cortex
//	config file    --config  CORTEX_CONFIG   (n/a)           <state folder>/config.yaml
//
// The vault must exist: a command never creates one (CheckVault), so a typo
// in --vault is an error, not a new empty vault. The state folder is a cache
// and is created when missing; its layout — each vault's own index, the
// logs, the locks — is State's to say.
//
// config knows none of the packages that use its paths and settings: they
// take them in their options. Besides the standard library and YAML it
// imports only memories and pipeline, whose settings it resolves
// (arch_test.go checks).
package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/cortexmem/cortex/memories"
	"github.com/cortexmem/cortex/pipeline"
)

// Environment variables.
const (
	EnvVault  = "CORTEX_VAULT"
	EnvHome   = "CORTEX_HOME"
	EnvConfig = "CORTEX_CONFIG"
)

// Defaults.
const (
	DefaultVault       = "~/obsidian-brain"
	DefaultHome        = "~/.cortex"
	DefaultVaultFolder = "cortex"
	DefaultLockTimeout = 10 * time.Second
	DefaultFreshness   = time.Second
	// DefaultImportMaxFile is the largest file import reads.
	DefaultImportMaxFile = 64 << 20
	configName           = "config.yaml"
	vaultDefault         = "default"
)

// Flags are the global command-line flags; empty means not given.
type Flags struct {
	Vault  string
	Home   string
	Config string
}

// File is the config file's content. Every key is optional.
type File struct {
	// Vault is the Obsidian vault's folder.
	Vault string `yaml:"vault"`
	// VaultFolder is cortex's folder inside the vault.
	VaultFolder string `yaml:"vault_folder"`
	// LockTimeout bounds every wait for a lock, e.g. "10s".
	LockTimeout string `yaml:"lock_timeout"`
	// Freshness is how long after a full check of the vault commands may skip
	// stat'ing every note, e.g. "1s"; "0s" checks every note every time.
	Freshness string `yaml:"freshness"`
	Recall    struct {
		Weights     *memories.Weights `yaml:"weights"`
		RecencyBase float64           `yaml:"recency_base"`
		// TieBand: with a query, how far the other signals may reorder
		// memories against relevance (1: the plain blend of the weights).
		TieBand *float64 `yaml:"tie_band"`
		// Activation: what an access adds (weight, per source in sources)
		// and how fast it fades (decay, per day).
		Activation struct {
			Weight  *float64           `yaml:"weight"`
			Decay   *float64           `yaml:"decay"`
			Sources map[string]float64 `yaml:"sources"`
		} `yaml:"activation"`
	} `yaml:"recall"`
	// Import: the folders outside the home folder imports may read, the
	// largest file they read, and the hidden paths and secret stores an
	// agent's import (MCP) may read all the same (paths or globs).
	Import struct {
		AllowedRoots []string `yaml:"allowed_roots"`
		MaxFileMB    float64  `yaml:"max_file_mb"`
		AgentAllow   []string `yaml:"agent_allow"`
	} `yaml:"import"`
	// Dedup sets the similarity thresholds of SPEC §5, each from 0 to 1.
	Dedup struct {
		Duplicate    *float64 `yaml:"duplicate"`
		Related      *float64 `yaml:"related"`
		MinedSkip    *float64 `yaml:"mined_skip"`
		MinedRelated *float64 `yaml:"mined_related"`
	} `yaml:"dedup"`
	// Scribe sets the transcript pipeline: gate rules added to the default
	// table (or replacing it, with replace_gate), redaction patterns added
	// to the credential rules, and the window within which an edit binds to
	// a decision, e.g. "30m".
	Scribe struct {
		GateRules   []pipeline.Rule    `yaml:"gate_rules"`
		ReplaceGate bool               `yaml:"replace_gate"`
		Redact      []pipeline.Pattern `yaml:"redact"`
		Window      string             `yaml:"window"`
	} `yaml:"scribe"`
	// Projects maps folders to project names for the hooks: a session
	// started in one of them, or below it, belongs to that project (the
	// longest folder wins). Elsewhere a session's project is the name of its
	// git repository's folder.
	Projects map[string]string `yaml:"projects"`
	// Hooks tunes `cortex hook`; see HooksFile.
	Hooks HooksFile `yaml:"hooks"`
	// Inbox tunes normalize's handling of the inbox; see InboxFile.
	Inbox InboxFile `yaml:"inbox"`
	// Context tunes `cortex context`; Watch tunes `cortex watch`; see
	// ContextFile and WatchFile.
	Context ContextFile `yaml:"context"`
	Watch   WatchFile   `yaml:"watch"`
}

// Settings are the resolved paths and settings.
type Settings struct {
	Vault string // absolute
	// VaultFrom says where Vault came from, for messages: "--vault",
	// "CORTEX_VAULT", "vault: in <config file>" or "default".
	VaultFrom   string
	VaultFolder string
	Home        string // absolute
	ConfigFile  string // absolute; may not exist
	LockTimeout time.Duration
	Freshness   time.Duration
	Ranking     memories.Ranking
	Checks      memories.Checks
	// ImportRoots are the folders besides the home folder that import may
	// read (absolute); ImportMaxFile the largest file it reads, in bytes.
	ImportRoots   []string
	ImportMaxFile int64
	// ImportAgentAllow are the paths and globs (absolute) an agent's import
	// may read although they are hidden or secret stores.
	ImportAgentAllow []string
	// Pipeline is the transcript pipeline's settings, as options of
	// pipeline.New.
	Pipeline []pipeline.Option
	// Projects maps folders to project names, longest folder first.
	Projects []ProjectFolder
	// Hooks are the hooks' settings.
	Hooks Hooks
	// KeepProcessed is how long normalize keeps consumed events.
	KeepProcessed time.Duration
	// Context and Watch are the settings of context assembly and the
	// watcher.
	Context Context
	Watch   Watch
}

// Resolve works out the settings from flags, the environment (getenv) and the
// config file. userHome is the user's home folder, for "~".
func Resolve(f Flags, getenv func(string) string, userHome string) (*Settings, error) {
	s := &Settings{VaultFolder: DefaultVaultFolder, LockTimeout: DefaultLockTimeout, Freshness: DefaultFreshness,
		Ranking: memories.DefaultRanking(), Checks: memories.DefaultChecks()}
	var err error
	if s.Home, err = pick("home", f.Home, getenv(EnvHome), "", DefaultHome, userHome, ""); err != nil {
		return nil, err
	}
	if s.ConfigFile, err = pick("config", f.Config, getenv(EnvConfig), "", State{Home: s.Home}.ConfigFile(), userHome, ""); err != nil {
		return nil, err
	}
	file, err := Load(s.ConfigFile)
	if err != nil {
		return nil, err
	}
	if s.Vault, err = pick("vault", f.Vault, getenv(EnvVault), file.Vault, DefaultVault, userHome, filepath.Dir(s.ConfigFile)); err != nil {
		return nil, err
	}
	switch {
	case f.Vault != "":
		s.VaultFrom = "--vault"
	case getenv(EnvVault) != "":
		s.VaultFrom = EnvVault
	case file.Vault != "":
		s.VaultFrom = "vault: in " + s.ConfigFile
	default:
		s.VaultFrom = vaultDefault
	}
	if file.VaultFolder != "" {
		s.VaultFolder = file.VaultFolder
	}
	if file.LockTimeout != "" {
		d, err := time.ParseDuration(file.LockTimeout)
		if err != nil || d <= 0 {
			return nil, &memories.ArgError{Arg: s.ConfigFile + ": lock_timeout", Rule: fmt.Sprintf("%q is not a positive duration such as 10s", file.LockTimeout)}
		}
		s.LockTimeout = d
	}
	if file.Freshness != "" {
		d, err := time.ParseDuration(file.Freshness)
		if err != nil || d < 0 || d > time.Minute {
			return nil, &memories.ArgError{Arg: s.ConfigFile + ": freshness", Rule: fmt.Sprintf("%q is not a duration from 0s to 1m", file.Freshness)}
		}
		s.Freshness = d
	}
	if w := file.Recall.Weights; w != nil {
		s.Ranking.Weights = *w
	}
	if file.Recall.RecencyBase != 0 {
		s.Ranking.RecencyBase = file.Recall.RecencyBase
	}
	if file.Recall.TieBand != nil {
		s.Ranking.TieBand = *file.Recall.TieBand
	}
	act := &s.Ranking.Activation
	if v := file.Recall.Activation.Weight; v != nil {
		act.Weight = *v
	}
	if v := file.Recall.Activation.Decay; v != nil {
		act.Decay = *v
	}
	for src, w := range file.Recall.Activation.Sources {
		act.Sources[src] = w
	}
	if err := s.Ranking.Check(); err != nil {
		return nil, fmt.Errorf("%s: %w", s.ConfigFile, err)
	}
	for i, r := range file.Import.AllowedRoots {
		root, err := pick(fmt.Sprintf("import.allowed_roots[%d]", i), "", "", r, "", userHome, filepath.Dir(s.ConfigFile))
		if err != nil {
			return nil, err
		}
		s.ImportRoots = append(s.ImportRoots, root)
	}
	for i, a := range file.Import.AgentAllow {
		arg := fmt.Sprintf("%s: import.agent_allow[%d]", s.ConfigFile, i)
		if strings.TrimSpace(a) == "" {
			return nil, &memories.ArgError{Arg: arg, Rule: "is empty; give a path or a glob such as ~/.notes or ~/.config/*/notes"}
		}
		p, err := pick(arg, "", "", a, "", userHome, filepath.Dir(s.ConfigFile))
		if err != nil {
			return nil, err
		}
		if _, err := filepath.Match(p, ""); err != nil {
			return nil, &memories.ArgError{Arg: arg, Rule: fmt.Sprintf("%q is not a valid glob: %v", a, err)}
		}
		if p == filepath.Dir(p) || p == userHome {
			return nil, &memories.ArgError{Arg: arg, Rule: fmt.Sprintf("%q would let an agent read every file; name the folders or files it may read", a)}
		}
		s.ImportAgentAllow = append(s.ImportAgentAllow, p)
	}
	s.ImportMaxFile = DefaultImportMaxFile
	if mb := file.Import.MaxFileMB; mb != 0 {
		if !(mb >= 1 && mb <= 4096) {
			return nil, &memories.ArgError{Arg: s.ConfigFile + ": import.max_file_mb", Rule: fmt.Sprintf("%g is not a size from 1 to 4096 (MB)", mb)}
		}
		s.ImportMaxFile = int64(mb * (1 << 20))
	}
	th := &s.Checks.Thresholds
	for _, v := range []struct {
		from *float64
		to   *float64
	}{{file.Dedup.Duplicate, &th.Duplicate}, {file.Dedup.Related, &th.Related},
		{file.Dedup.MinedSkip, &th.MinedSkip}, {file.Dedup.MinedRelated, &th.MinedRelated}} {
		if v.from != nil {
			*v.to = *v.from
		}
	}
	if err := th.Check(); err != nil {
		return nil, &memories.ArgError{Arg: s.ConfigFile, Rule: err.Error()}
	}
	if s.Pipeline, err = pipelineOptions(s.ConfigFile, file); err != nil {
		return nil, err
	}
	if s.Projects, err = projectFolders(s.ConfigFile, file.Projects, userHome); err != nil {
		return nil, err
	}
	if s.Hooks, err = hooks(s.ConfigFile, file.Hooks); err != nil {
		return nil, err
	}
	if s.KeepProcessed, err = keepProcessed(s.ConfigFile, file.Inbox); err != nil {
		return nil, err
	}
	if s.Context, err = contextSettings(s.ConfigFile, file.Context); err != nil {
		return nil, err
	}
	if s.Watch, err = watchSettings(s.ConfigFile, file.Watch); err != nil {
		return nil, err
	}
	return s, nil
}

// CheckVault verifies that the vault's folder exists. Commands call it before
// anything else touches the vault: one that only reads must never create a
// vault, and one that writes creates cortex's folder inside an existing vault
// but never the vault itself, so that a mistyped path is an error naming the
// path and where it came from rather than a new, empty vault.
func CheckVault(s *Settings) error {
	fi, err := os.Stat(s.Vault)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		from := "set by " + s.VaultFrom
		if s.VaultFrom == "" || s.VaultFrom == vaultDefault {
			from = "the default vault"
		}
		return &memories.ArgError{Arg: "vault", Rule: fmt.Sprintf(
			"%s (%s) does not exist: give the folder of your Obsidian vault with --vault or %s, or create it first (mkdir -p %s)",
			s.Vault, from, EnvVault, s.Vault)}
	case err != nil:
		return fmt.Errorf("vault %s: %w", s.Vault, err)
	case !fi.IsDir():
		return &memories.ArgError{Arg: "vault", Rule: fmt.Sprintf("%s is a file; the vault must be a folder", s.Vault)}
	}
	return nil
}

// pipelineOptions reads the scribe section.
func pipelineOptions(configFile string, file *File) ([]pipeline.Option, error) {
	var opts []pipeline.Option
	sc := file.Scribe
	if len(sc.GateRules) > 0 || sc.ReplaceGate {
		rules := sc.GateRules
		if !sc.ReplaceGate {
			rules = append(pipeline.DefaultRules(), rules...)
		}
		g, err := pipeline.NewGate(rules)
		if err != nil {
			return nil, &memories.ArgError{Arg: configFile + ": scribe.gate_rules", Rule: err.Error()}
		}
		opts = append(opts, pipeline.WithGate(g))
	}
	if len(sc.Redact) > 0 {
		r, err := pipeline.NewCredentialRedactor(sc.Redact)
		if err != nil {
			return nil, &memories.ArgError{Arg: configFile + ": scribe.redact", Rule: err.Error()}
		}
		opts = append(opts, pipeline.WithRedactor(r))
	}
	if sc.Window != "" {
		d, err := time.ParseDuration(sc.Window)
		if err != nil || d <= 0 || d > 24*time.Hour {
			return nil, &memories.ArgError{Arg: configFile + ": scribe.window", Rule: fmt.Sprintf("%q is not a duration from 1s to 24h such as 30m", sc.Window)}
		}
		opts = append(opts, pipeline.WithWindow(d))
	}
	return opts, nil
}

// pick takes the first non-empty of flag, env, file and default, expands "~" and
// makes it absolute (a path from the config file relative to fileDir).
func pick(arg, flag, env, file, def, userHome, fileDir string) (string, error) {
	v, base := flag, ""
	switch {
	case flag != "":
	case env != "":
		v = env
	case file != "":
		v, base = file, fileDir
	default:
		v = def
	}
	if v == "~" || strings.HasPrefix(v, "~/") || strings.HasPrefix(v, `~\`) {
		if userHome == "" {
			return "", &memories.ArgError{Arg: arg, Rule: fmt.Sprintf("%q starts with ~ but the home folder is unknown", v)}
		}
		v = filepath.Join(userHome, v[1:])
	}
	if !filepath.IsAbs(v) && base != "" {
		v = filepath.Join(base, v)
	}
	abs, err := filepath.Abs(v)
	if err != nil {
		return "", &memories.ArgError{Arg: arg, Rule: err.Error()}
	}
	return abs, nil
}

// Load reads a config file; a missing file is an empty config. Unknown keys are
// errors, so a typo never silently does nothing.
func Load(path string) (*File, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return &File{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	var f File
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&f); err != nil && !errors.Is(err, io.EOF) {
		return nil, &memories.ArgError{Arg: "config", Rule: fmt.Sprintf("%s: %s", path, yamlMessage(err))}
	}
	return &f, nil
}

var unknownField = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`field (\S+) not found in type \S+`) })

// yamlMessage words a YAML decoding error for a person: one line per problem,
// each with its line number.
func yamlMessage(err error) string {
	var te *yaml.TypeError
	if errors.As(err, &te) {
		msgs := make([]string, len(te.Errors))
		for i, m := range te.Errors {
			msgs[i] = unknownField().ReplaceAllString(m, "unknown key $1")
		}
		return strings.Join(msgs, "; ")
	}
	return strings.TrimPrefix(err.Error(), "yaml: ")
}
