package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/cortexmem/cortex/config"
	"github.com/cortexmem/cortex/memories"
	"github.com/cortexmem/cortex/vault"
)

func newVaultCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "vault",
		Short: "Set the vault up to be shared across machines",
	}
	cmd.AddCommand(newVaultGitInitCmd(a))
	return cmd
}

func newVaultGitInitCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "git-init",
		Short: "Write the .gitignore and .gitattributes a vault versioned with git needs",
		Long: `git-init makes the vault a good citizen of a git repository shared by several
machines or people. It writes, in cortex's folder of the vault, a .gitignore
that keeps out what cortex derives from the notes (the map of contents
_index.md, which every machine makes for itself; a sync tool's copies of it;
temporary files of a write cut short) and a .gitattributes that merges the map
without a conflict should it have been committed before. Lines a person wrote
in those files are kept; run again, it changes nothing. It does not run git:
git init, add and commit the vault as usual. It refuses a state folder inside
the vault: indexes and logs must not be versioned.`,
		Example: `  cortex vault git-init
  cd ~/obsidian-brain && git init && git add -A && git commit -m "vault"`,
		Args: args(0, 0, "takes no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runVaultGitInit(a)
		},
	}
}

type gitInitJSON struct {
	Files []vault.GitFile `json:"files"`
	// Untrack is the command that stops git tracking the map of contents,
	// given when the map exists: a commit may hold it from before.
	Untrack string `json:"untrack,omitempty"`
}

func runVaultGitInit(a *app) error {
	if err := a.resolve(); err != nil {
		return err
	}
	s := a.settings
	if err := config.CheckVault(s); err != nil {
		return err
	}
	if inside(s.Vault, s.Home) {
		return &memories.ArgError{Arg: "home", Rule: fmt.Sprintf(
			"the state folder %s is inside the vault %s: its indexes and logs would be versioned; move it out (--home or %s)", s.Home, s.Vault, config.EnvHome)}
	}
	v, err := vault.New(s.Vault, s.VaultFolder)
	if err != nil {
		return err
	}
	files, err := v.GitInit()
	if err != nil {
		return err
	}
	out := gitInitJSON{Files: files}
	if _, err := os.Stat(v.IndexPath()); err == nil {
		out.Untrack = "git rm --cached --ignore-unmatch " + filepath.ToSlash(v.VaultPath(vault.IndexFile))
		if _, err := os.Stat(v.Abs(vault.IndexDir)); err == nil {
			out.Untrack = "git rm -r --cached --ignore-unmatch " + filepath.ToSlash(v.VaultPath(vault.IndexFile)) + " " + filepath.ToSlash(v.VaultPath(vault.IndexDir))
		}
	}
	if a.asJSON {
		return a.printJSON(out)
	}
	for _, f := range files {
		if f.Added == 0 {
			fmt.Fprintf(a.stdout, "%s already holds cortex's rules\n", f.Path)
		} else {
			fmt.Fprintf(a.stdout, "%s: %d %s added\n", f.Path, f.Added, map[bool]string{true: "rule", false: "rules"}[f.Added == 1])
		}
	}
	if out.Untrack != "" {
		fmt.Fprintf(a.stdout, "If a commit already holds the map of contents, stop tracking it once (in %s): %s\n", s.Vault, out.Untrack)
	}
	return nil
}

// inside reports whether p is dir or below it, symbolic links resolved where
// they can be.
func inside(dir, p string) bool {
	if d, err := filepath.EvalSymlinks(dir); err == nil {
		dir = d
	}
	if q, err := filepath.EvalSymlinks(p); err == nil {
		p = q
	}
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}
