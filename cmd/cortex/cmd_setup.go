package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/cortexmem/cortex/memories"
	"github.com/cortexmem/cortex/setup"
)

type setupOptions struct {
	client                             string
	yes, dryRun, uninstall, promptHook bool
	binary                             string
	// ask puts a yes/no question to the person; nil when standard input is
	// not a terminal, so nobody can answer.
	ask func(question string) (bool, error)
	now func() time.Time
}

func newSetupCmd(a *app) *cobra.Command {
	var o setupOptions
	cmd := &cobra.Command{
		Use:   "setup CLIENT [--yes] [--dry-run] [--uninstall] [--prompt-hook]",
		Short: "Connect cortex to a coding agent: its hooks and its MCP server entry",
		Long: `Setup writes cortex into a coding agent's own configuration: lifecycle hooks
that run 'cortex hook CLIENT EVENT' (a briefing at session start, a capture when
the session compacts, stops or ends) and the MCP server entry that runs
'cortex mcp'. CLIENT is claude-code (or claude), codex, gemini-cli (or gemini)
or cursor.

Setup shows the change as a diff and asks before writing (on a terminal; with
no terminal it writes only with --yes). It keeps every byte of the files
outside cortex's own entries, comments included, copies each file it changes
to FILE.cortex-backup-TIME first, and changes nothing on a second run. A file
it cannot read is refused with its line and nothing is written. --uninstall
removes exactly what setup added. Each client's own variable
(CLAUDE_CONFIG_DIR, CODEX_HOME, GEMINI_CLI_HOME) moves the files as it moves
the client's.`,
		Example: `  cortex setup claude-code --dry-run
  cortex setup codex --yes
  cortex setup gemini --prompt-hook
  cortex setup cursor --uninstall`,
		Args: args(1, 1, "takes one client: "+strings.Join(setup.Names(), ", ")),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.client = args[0]
			if interactive(a.stdin) && !a.asJSON {
				o.ask = a.askYesNo
			}
			return runSetup(cmd.Context(), a, o)
		},
	}
	f := cmd.Flags()
	f.BoolVarP(&o.yes, "yes", "y", false, "write the changes without asking")
	f.BoolVar(&o.dryRun, "dry-run", false, "show the changes as a diff and write nothing")
	f.BoolVar(&o.uninstall, "uninstall", false, "remove cortex's hooks and MCP server entry")
	f.BoolVar(&o.promptHook, "prompt-hook", false, "also recall memories for each prompt as it is sent (Claude Code, Codex, Gemini CLI)")
	f.StringVar(&o.binary, "binary", "", "the cortex binary the entries run (default: this one, links resolved)")
	return cmd
}

// interactive reports whether r is a terminal a person types into (not
// merely a character device such as /dev/null).
func interactive(r any) bool {
	f, ok := r.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// askYesNo asks on standard error and reads the answer from standard input.
func (a *app) askYesNo(question string) (bool, error) {
	fmt.Fprint(a.stderr, question)
	line, err := bufio.NewReader(a.stdin).ReadString('\n')
	if err != nil && line == "" {
		return false, nil // end of input: no answer is a no
	}
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "y", "yes":
		return true, nil
	}
	return false, nil
}

// rejected is a refusal that leaves the files as they were: it reads as the
// error it wraps and exits with the code of a refused request.
type rejected struct{ err error }

func (r *rejected) Error() string   { return r.err.Error() }
func (r *rejected) Unwrap() []error { return []error{r.err, memories.ErrRejected} }

// thisBinary is the running binary's path with links resolved: the file the
// hooks and the MCP server entry run.
func thisBinary() (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("find the cortex binary: %w", err)
	}
	if real, err := filepath.EvalSymlinks(exe); err == nil {
		exe = real
	}
	return exe, nil
}

type setupFileJSON struct {
	Path    string   `json:"path"`
	Action  string   `json:"action"`
	Changes []string `json:"changes"`
	Diff    string   `json:"diff,omitempty"`
	Backup  string   `json:"backup,omitempty"`
}

type setupJSON struct {
	Client    string          `json:"client"`
	Binary    string          `json:"binary"`
	Uninstall bool            `json:"uninstall"`
	DryRun    bool            `json:"dry_run"`
	Changed   bool            `json:"changed"`
	Written   bool            `json:"written"`
	Files     []setupFileJSON `json:"files"`
	Notes     []string        `json:"notes"`
}

func runSetup(ctx context.Context, a *app, o setupOptions) error {
	c, err := setup.Lookup(o.client)
	if err != nil {
		return &usageError{msg: err.Error(), hint: "cortex setup"}
	}
	if o.promptHook && !c.PromptHook {
		return &memories.ArgError{Arg: "--prompt-hook", Rule: c.Name + "'s hooks cannot add memories to a prompt; it is for claude-code, codex and gemini-cli"}
	}
	if o.promptHook && o.uninstall {
		return &memories.ArgError{Arg: "--prompt-hook", Rule: "goes with a setup, not with --uninstall (which removes every hook of cortex's)"}
	}
	bin := o.binary
	if bin == "" {
		if bin, err = thisBinary(); err != nil {
			return err
		}
	} else {
		if !filepath.IsAbs(bin) {
			return &memories.ArgError{Arg: "--binary", Rule: "must be an absolute path"}
		}
		if fi, err := os.Stat(bin); err != nil || fi.IsDir() {
			return &memories.ArgError{Arg: "--binary", Rule: fmt.Sprintf("%s is not a file", bin)}
		}
	}
	env := setup.Env{Home: a.home(), Getenv: a.getenv}
	opts := setup.Options{Binary: bin, PromptHook: o.promptHook, Uninstall: o.uninstall}
	plan, err := setup.Prepare(env, c, opts)
	if err != nil {
		return setupError(err)
	}
	out := setupJSON{Client: c.ID, Binary: bin, Uninstall: o.uninstall, DryRun: o.dryRun, Changed: plan.Changed(), Notes: plan.Notes}
	for _, ch := range plan.Changes {
		f := setupFileJSON{Path: ch.Path, Action: "unchanged", Changes: ch.Actions, Diff: ch.Diff()}
		if f.Changes == nil {
			f.Changes = []string{}
		}
		switch {
		case !ch.Changed():
		case ch.Remove:
			f.Action = "remove"
		case !ch.Existed:
			f.Action = "create"
		default:
			f.Action = "update"
		}
		out.Files = append(out.Files, f)
	}
	if out.Notes == nil {
		out.Notes = []string{}
	}

	if !plan.Changed() {
		if a.asJSON {
			return a.printJSON(out)
		}
		w := a.stdout
		if o.uninstall {
			fmt.Fprintf(w, "cortex is not set up for %s: nothing to remove.\n", c.Name)
		} else {
			fmt.Fprintf(w, "cortex is already set up for %s: nothing to change.\n", c.Name)
		}
		printNotes(a, plan.Notes)
		return nil
	}
	if !a.asJSON {
		for _, ch := range plan.Changes {
			if d := ch.Diff(); d != "" {
				fmt.Fprint(a.stdout, d)
			}
		}
	}
	switch {
	case o.dryRun:
		if a.asJSON {
			return a.printJSON(out)
		}
		fmt.Fprintln(a.stdout, "Dry run: nothing written.")
		return nil
	case !o.yes && o.ask == nil:
		return &usageError{msg: "nothing written: pass --yes to write these changes (standard input is not a terminal, so setup cannot ask), or --dry-run to only see them", hint: "cortex setup"}
	case !o.yes:
		verb := "Write"
		if o.uninstall {
			verb = "Remove cortex with"
		}
		ok, err := o.ask(verb + " these changes? [y/N] ")
		if err != nil {
			return err
		}
		if !ok {
			return &rejected{errors.New("not confirmed: nothing written")}
		}
	}
	now := time.Now
	if o.now != nil {
		now = o.now
	}
	results, err := setup.Apply(plan, now())
	if err != nil {
		return setupError(err)
	}
	out.Written = true
	for _, r := range results {
		for i := range out.Files {
			if out.Files[i].Path == r.Path {
				out.Files[i].Action, out.Files[i].Backup = r.Action, r.Backup
			}
		}
	}
	if a.asJSON {
		return a.printJSON(out)
	}
	for _, r := range results {
		if r.Backup != "" {
			fmt.Fprintf(a.stdout, "✓ %s %s (backup: %s)\n", r.Action, r.Path, r.Backup)
		} else {
			fmt.Fprintf(a.stdout, "✓ %s %s\n", r.Action, r.Path)
		}
	}
	printNotes(a, plan.Notes)
	if !o.uninstall {
		// The hooks only capture: nothing becomes a note until normalize runs.
		fmt.Fprintln(a.stdout, "The hooks leave each session's end in cortex's inbox: run `cortex normalize` to turn them into notes (after a session, or from cron).")
	}
	return nil
}

func printNotes(a *app, notes []string) {
	for _, n := range notes {
		fmt.Fprintln(a.stdout, n)
	}
}

// setupError words a refusal: a file setup cannot read, or an entry in the
// way. Nothing has been written in either case.
func setupError(err error) error {
	var se *setup.SyntaxError
	switch {
	case errors.Is(err, setup.ErrConflict):
		return &rejected{fmt.Errorf("%w; nothing written", err)}
	case errors.As(err, &se):
		return fmt.Errorf("cannot read %w; nothing written (fix the file, or move it aside, and run setup again)", err)
	}
	return err
}
