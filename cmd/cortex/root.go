package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/cortexmem/cortex/config"
	"github.com/cortexmem/cortex/hooks"
	"github.com/cortexmem/cortex/inbox"
	"github.com/cortexmem/cortex/memories"
	"github.com/cortexmem/cortex/store"
	"github.com/cortexmem/cortex/wiring"
)

// app is what the commands share: the global options, the settings they
// resolve to and, opened through package wiring once a command first needs
// them, the store and the services. Commands receive it and write only to its
// streams.
type app struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	getenv         func(string) string

	flags  config.Flags
	asJSON bool
	// resident keeps the store's catalog, index and parsed notes between
	// calls: for the long-running MCP server.
	resident bool
	// noRebuild makes a damaged index an error rather than a rebuild: for
	// the hooks, which must answer within a second.
	noRebuild bool

	settings *config.Settings
	// cortex is what wiring opened, for the services built over it.
	cortex *wiring.Cortex
	store  *store.Store
	svc    *memories.Service
	// inbox is the vault's capture inbox.
	inbox *inbox.Inbox
	// newFolder is cortex's folder in the vault when it did not exist as
	// the store was opened: a command that creates it says so.
	newFolder string
}

// run is the whole program: it parses args, runs one command and returns the exit
// code. Tests call it directly.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) int {
	return runTree(ctx, args, stdin, stdout, stderr, getenv, args...)
}

// runTree is run with the command tree newRootCmd builds for lone.
func runTree(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string, lone ...string) int {
	a := &app{stdin: stdin, stdout: stdout, stderr: stderr, getenv: getenv}
	root := newRootCmd(a, lone...)
	root.SetArgs(args)
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	err := root.ExecuteContext(ctx)
	a.announceFolder()
	if err != nil {
		return report(err, a.asJSON, stdout, stderr)
	}
	return exitOK
}

// announceFolder tells the person when a command created cortex's folder in
// their vault, which happens once per vault, with the first memory written.
func (a *app) announceFolder() {
	if a.newFolder == "" {
		return
	}
	if fi, err := os.Stat(a.newFolder); err == nil && fi.IsDir() {
		fmt.Fprintf(a.stderr, "cortex: created %s for cortex's notes in the vault %s\n", a.newFolder, a.settings.Vault)
	}
}

// loneCommands are built alone when the command line starts with their
// name: agents run them at every turn (the hooks, capture, and save, recall,
// list, context and status through the shell), and building every other
// command (their flags, their help) cost a quarter of a millisecond of each
// run. Their help and errors are the same either way
// (TestLoneCommandsAsInFull). Commands with subcommands of their own are
// always built in the whole tree.
var loneCommands = map[string]func(*app) *cobra.Command{
	"hook":    newHookCmd,
	"capture": newCaptureCmd,
	"save":    newSaveCmd,
	"recall":  newRecallCmd,
	"list":    newListCmd,
	"context": newContextCmd,
	"status":  newStatusCmd,
}

// newRootCmd builds the command tree: every command, or only the lone
// command args start with.
func newRootCmd(a *app, args ...string) *cobra.Command {
	root := &cobra.Command{
		Use:   "cortex",
		Short: "Local-first long-term memory for AI coding agents, kept in an Obsidian vault",
		Long: `cortex keeps what your coding agents learn — decisions, conventions, gotchas —
as markdown notes in an Obsidian vault, and finds them again fast.

The notes are the truth: edit, rename or delete them in Obsidian and the next
command sees it. Indexes live in the state folder and are rebuilt at will.`,
		SilenceUsage:  true,
		SilenceErrors: true,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return &usageError{msg: fmt.Sprintf("unknown command %q", args[0]), hint: "cortex"}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error { return cmd.Help() },
	}
	pf := root.PersistentFlags()
	pf.StringVar(&a.flags.Vault, "vault", "", "Obsidian vault folder (env "+config.EnvVault+"; default "+config.DefaultVault+")")
	pf.StringVar(&a.flags.Home, "home", "", "state folder for indexes, locks and logs (env "+config.EnvHome+"; default "+config.DefaultHome+")")
	pf.StringVar(&a.flags.Config, "config", "", "config file (env "+config.EnvConfig+"; default <home>/config.yaml)")
	pf.BoolVar(&a.asJSON, "json", false, "print JSON instead of text")
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return &usageError{msg: err.Error(), hint: c.CommandPath()}
	})
	if len(args) > 0 && loneCommands[args[0]] != nil {
		root.AddCommand(loneCommands[args[0]](a))
		addVersionFlag(root, a)
		return root
	}
	root.AddCommand(
		newSaveCmd(a), newRecallCmd(a), newListCmd(a), newSupersedeCmd(a),
		newImportCmd(a), newMCPCmd(a), newScribeCmd(a), newTranscriptsCmd(a), newReindexCmd(a), newDoctorCmd(a), newEvalCmd(a), newDemoCmd(a), newVersionCmd(a),
		newSetupCmd(a),
		newCaptureCmd(a), newHookCmd(a), newStatusCmd(a), newNormalizeCmd(a), newVaultCmd(a), newContextCmd(a), newReflectCmd(a), newWatchCmd(a),
	)
	addVersionFlag(root, a)
	return root
}

// args returns a cobra argument check that reports a usage error.
func args(min, max int, what string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) < min || max >= 0 && len(args) > max {
			return &usageError{msg: fmt.Sprintf("%s: %s", cmd.Name(), what), hint: cmd.CommandPath()}
		}
		return nil
	}
}

// home is the user's home folder: $HOME, else what the system says.
func (a *app) home() string {
	if h := a.getenv("HOME"); h != "" {
		return h
	}
	h, _ := os.UserHomeDir()
	return h
}

// resolve works out the settings, once.
func (a *app) resolve() error {
	if a.settings != nil {
		return nil
	}
	s, err := config.Resolve(a.flags, a.getenv, a.home())
	if err != nil {
		return err
	}
	a.settings = s
	return nil
}

// open resolves the settings and opens the store and the services.
func (a *app) open() (*memories.Service, error) {
	if a.svc != nil {
		return a.svc, nil
	}
	if err := a.resolve(); err != nil {
		return nil, err
	}
	if err := config.CheckVault(a.settings); err != nil {
		return nil, err
	}
	c, err := wiring.Open(a.settings, wiring.Options{
		Resident: a.resident, NoRebuild: a.noRebuild, UserHome: a.home(),
		Warn: func(msg string) { fmt.Fprintf(a.stderr, "cortex: warning: %s\n", msg) },
	})
	if err != nil {
		return nil, err
	}
	if _, err := os.Stat(c.Vault.Dir); errors.Is(err, fs.ErrNotExist) {
		a.newFolder = c.Vault.Dir
	}
	layout := c.Store.Layout()
	a.inbox = inbox.New(layout.Inbox().Dir)
	hookActivity := hooks.Reporter{Log: a.settings.State().HookLog(), Receipts: layout.Receipts(), Vault: a.settings.Vault}
	a.store = c.Store
	a.cortex = c
	a.svc = c.NewService(memories.WithInbox(a.inbox), memories.WithHooks(hookActivity))
	return a.svc, nil
}

// readContent reads the content argument: the words given, or standard input for
// "-" or when no words are given and input is not a terminal. Reading standard
// input gives up when ctx ends: a person who pressed Ctrl-C while a pipe is
// still open gets "interrupted" at once, and nothing is saved.
func (a *app) readContent(ctx context.Context, arg string, words []string) (string, error) {
	if len(words) == 1 && words[0] == "-" || len(words) == 0 && !isTerminal(a.stdin) {
		limit := int64(memories.MaxContentChars*4 + 1)
		data, err := readAllContext(ctx, io.LimitReader(a.stdin, limit))
		if err != nil {
			return "", fmt.Errorf("read %s from standard input: %w", arg, err)
		}
		if int64(len(data)) >= limit {
			return "", &memories.ArgError{Arg: arg, Rule: fmt.Sprintf("is more than %d characters; the maximum is %d", memories.MaxContentChars, memories.MaxContentChars)}
		}
		return string(data), nil
	}
	if len(words) == 0 {
		return "", &memories.ArgError{Arg: arg, Rule: "give it as an argument, or on standard input with -"}
	}
	return strings.Join(words, " "), nil
}

// readAllContext reads r to its end, or returns ctx's error as soon as ctx
// ends. A read blocked on a pipe cannot be cancelled, so it goes on in its own
// goroutine, which the exiting process abandons.
func readAllContext(ctx context.Context, r io.Reader) ([]byte, error) {
	type result struct {
		data []byte
		err  error
	}
	done := make(chan result, 1)
	go func() {
		data, err := io.ReadAll(r)
		done <- result{data, err}
	}()
	select {
	case res := <-done:
		return res.data, res.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func isTerminal(r any) bool {
	f, ok := r.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
