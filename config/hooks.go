package config

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/cortexmem/cortex/memories"
)

// HooksFile is the hooks section of the config file. Every key is optional.
//
//	hooks:
//	  budget_tokens: 1500      # the session-start briefing's hard budget (tokens ≈ characters/4)
//	  max_chars: 6000          # and in characters; the smaller of the two holds
//	  max_items: 12            # at most this many memories in a briefing
//	  prompt_recall: false     # recall for each prompt (user-prompt-submit, Gemini BeforeAgent)
//	  prompt_min_score: 0.5    # share of the prompt's key words a memory must hold to be injected
//	  prompt_budget_tokens: 400
//	  dedup_window: 10m        # a repeated pre-compact/stop of one session within this is skipped
type HooksFile struct {
	BudgetTokens       *int     `yaml:"budget_tokens"`
	MaxChars           *int     `yaml:"max_chars"`
	MaxItems           *int     `yaml:"max_items"`
	PromptRecall       bool     `yaml:"prompt_recall"`
	PromptMinScore     *float64 `yaml:"prompt_min_score"`
	PromptBudgetTokens *int     `yaml:"prompt_budget_tokens"`
	DedupWindow        string   `yaml:"dedup_window"`
}

// Hooks are the resolved hook settings.
type Hooks struct {
	// BudgetTokens and MaxChars bound the session-start briefing (a token
	// is estimated as four characters; the smaller bound holds), MaxItems
	// the memories in it.
	BudgetTokens, MaxChars, MaxItems int
	// PromptRecall turns on recall for each prompt; a memory is injected
	// when it holds at least PromptMinScore of the prompt's key words, within
	// PromptBudgetTokens.
	PromptRecall       bool
	PromptMinScore     float64
	PromptBudgetTokens int
	// DedupWindow: a pre-compact or stop event of a session is not captured
	// again while one of the same session, type and transcript, captured
	// less than this before, waits in the inbox. 0 captures every one.
	DedupWindow time.Duration
}

// DefaultHooks are the hook settings without a config file.
func DefaultHooks() Hooks {
	return Hooks{BudgetTokens: 1500, MaxChars: 6000, MaxItems: 12, PromptMinScore: 0.5, PromptBudgetTokens: 400,
		DedupWindow: 10 * time.Minute}
}

// hooks reads the hooks section.
func hooks(configFile string, f HooksFile) (Hooks, error) {
	h := DefaultHooks()
	bad := func(key, rule string) error {
		return &memories.ArgError{Arg: configFile + ": hooks." + key, Rule: rule}
	}
	for _, v := range []struct {
		key    string
		from   *int
		to     *int
		lo, hi int
	}{
		{"budget_tokens", f.BudgetTokens, &h.BudgetTokens, 50, 20000},
		{"max_chars", f.MaxChars, &h.MaxChars, 200, 80000},
		{"max_items", f.MaxItems, &h.MaxItems, 1, 50},
		{"prompt_budget_tokens", f.PromptBudgetTokens, &h.PromptBudgetTokens, 50, 5000},
	} {
		if v.from == nil {
			continue
		}
		if *v.from < v.lo || *v.from > v.hi {
			return h, bad(v.key, fmt.Sprintf("%d is not a number from %d to %d", *v.from, v.lo, v.hi))
		}
		*v.to = *v.from
	}
	h.PromptRecall = f.PromptRecall
	if v := f.PromptMinScore; v != nil {
		if !(*v >= 0 && *v <= 1) {
			return h, bad("prompt_min_score", fmt.Sprintf("%g is not a number from 0 to 1", *v))
		}
		h.PromptMinScore = *v
	}
	if f.DedupWindow != "" {
		d, err := time.ParseDuration(f.DedupWindow)
		if err != nil || d < 0 || d > 24*time.Hour {
			return h, bad("dedup_window", fmt.Sprintf("%q is not a duration from 0s to 24h such as 10m", f.DedupWindow))
		}
		h.DedupWindow = d
	}
	return h, nil
}

// ProjectFolder maps a folder (and everything below it) to a project.
type ProjectFolder struct {
	Dir     string // absolute, clean
	Project string // a valid project name
}

// projectFolders reads the projects section: folders (absolute, or with ~,
// or relative to the config file's folder) to project names. They are
// sorted longest first, so that the first folder that holds a path is the
// most specific one.
func projectFolders(configFile string, m map[string]string, userHome string) ([]ProjectFolder, error) {
	var out []ProjectFolder
	for dir, name := range m {
		arg := configFile + ": projects." + dir
		if strings.TrimSpace(dir) == "" {
			return nil, &memories.ArgError{Arg: configFile + ": projects", Rule: "a folder is empty"}
		}
		abs, err := pick(arg, "", "", dir, "", userHome, filepath.Dir(configFile))
		if err != nil {
			return nil, err
		}
		p, err := memories.NormalizeScope(arg, name)
		if err != nil {
			return nil, err
		}
		if p == "" {
			return nil, &memories.ArgError{Arg: arg, Rule: "the project name is empty"}
		}
		out = append(out, ProjectFolder{Dir: filepath.Clean(abs), Project: p})
	}
	sort.Slice(out, func(i, j int) bool {
		if len(out[i].Dir) != len(out[j].Dir) {
			return len(out[i].Dir) > len(out[j].Dir)
		}
		return out[i].Dir < out[j].Dir
	})
	for i := 1; i < len(out); i++ {
		if out[i].Dir == out[i-1].Dir {
			return nil, &memories.ArgError{Arg: configFile + ": projects", Rule: fmt.Sprintf("%s is named twice", out[i].Dir)}
		}
	}
	return out, nil
}

// ProjectOf is the project a folder is mapped to (the most specific folder
// that holds it), and false when none does.
func ProjectOf(folders []ProjectFolder, dir string) (string, bool) {
	dir = filepath.Clean(dir)
	for _, f := range folders {
		if dir == f.Dir || strings.HasPrefix(dir, f.Dir+string(filepath.Separator)) || f.Dir == string(filepath.Separator) {
			return f.Project, true
		}
	}
	return "", false
}
