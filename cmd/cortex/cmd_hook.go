package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/cortexmem/cortex/config"
	"github.com/cortexmem/cortex/hooks"
	"github.com/cortexmem/cortex/inbox"
	"github.com/cortexmem/cortex/index"
	"github.com/cortexmem/cortex/memories"
	"github.com/cortexmem/cortex/vault"
)

// Time limits of a hook. Clients wait for a hook (Claude Code and Codex for
// up to their configured timeout, Gemini CLI a minute); cortex answers within
// a second whatever happens: it gives up at hookDeadline, and no lock wait
// takes more than hookLockTimeout.
const (
	hookDeadline    = 800 * time.Millisecond
	hookLockTimeout = 250 * time.Millisecond
)

func newHookCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "hook CLIENT EVENT",
		Short: "Run an agent's lifecycle hook (the agent calls it; cortex setup installs it)",
		Long: `Hook is what an agent's lifecycle hooks run. It reads the hook's JSON payload
on standard input and:

  session-start       briefs the agent: the project's open action items and
                      memories, its latest decisions, its areas' and general
                      memories, ranked by use, recency and importance, within
                      hooks.budget_tokens (1,500 by default), fenced as
                      recalled data; a receipt of what was injected and why is
                      kept in the state folder (cortex status shows the last)
  user-prompt-submit  with hooks.prompt_recall on, injects the memories that
                      hold enough of the prompt's key words
  pre-compact, stop,  write an event into the inbox naming the session and its
  session-end         transcript, and return at once (a repeat of an event
                      still pending is skipped)

Clients: claude-code, codex, gemini-cli, cursor. Events may also be given by
the client's own names (SessionStart, BeforeAgent, PreCompress, AfterAgent,
SessionEnd, …). The project is the config's mapping of folders (projects:),
else the git repository's folder name.

A hook never breaks the agent: whatever goes wrong — a missing vault, a
damaged index, a held lock, a full disk — it prints nothing, exits with 0
within a second, and writes what happened to <home>/hooks.log.`,
		Example: `  echo '{"session_id":"s1","cwd":"'$PWD'"}' | cortex hook claude-code session-start
  cortex hook gemini-cli PreCompress < payload.json`,
		Args:               cobra.ArbitraryArgs,
		FParseErrWhitelist: cobra.FParseErrWhitelist{UnknownFlags: true},
		RunE: func(cmd *cobra.Command, args []string) error {
			runHook(cmd.Context(), a, args)
			return nil
		},
	}
}

// hookOutcome is what the hook's work came to.
type hookOutcome struct {
	res   *hooks.Result
	vault string
	err   error
}

// runHook runs a hook under its guard: a deadline, a recovered panic, a
// log line for every run, and standard output written only when all went
// well. It never fails.
func runHook(ctx context.Context, a *app, args []string) {
	start := time.Now()
	defer shortLivedGC(os.Getenv)()
	ctx, cancel := context.WithTimeout(ctx, hookDeadline)
	defer cancel()
	// Warnings (the store's, say) are kept for the log, not printed.
	warnings := &syncBuffer{orig: a.stderr}
	a.stderr = warnings
	done := make(chan hookOutcome, 1)
	// A hook lives milliseconds: the index catalog is mapped rather than
	// copied into memory (index.MapCatalogs), and a fault reading a mapping
	// (a state file truncated by hand meanwhile) is a panic recovered below.
	index.MapCatalogs()
	go func() {
		debug.SetPanicOnFault(true)
		defer func() {
			if r := recover(); r != nil {
				done <- hookOutcome{err: fmt.Errorf("internal error: %v\n%s", r, debug.Stack())}
			}
		}()
		done <- hookWork(ctx, a, args)
	}()
	var o hookOutcome
	select {
	case o = <-done:
	case <-ctx.Done():
		o.err = fmt.Errorf("gave up after %s: %w", hookDeadline, ctx.Err())
	}
	entry := hooks.LogEntry{Time: start.UTC(), Vault: o.vault, Ms: float64(time.Since(start).Microseconds()) / 1000}
	if len(args) > 0 {
		entry.Client = args[0]
	}
	if len(args) > 1 {
		entry.Event = args[1]
	}
	if o.res != nil {
		entry.Session, entry.Project, entry.Outcome, entry.Detail, entry.Warnings =
			o.res.Session, o.res.Project, o.res.Outcome, o.res.Detail, o.res.Warnings
	}
	if w := strings.TrimSpace(warnings.String()); w != "" {
		entry.Warnings = append(entry.Warnings, strings.Split(w, "\n")...)
	}
	if o.err != nil {
		entry.Outcome, entry.Error = hooks.OutcomeError, o.err.Error()
	}
	_ = hooks.AppendLog(hookLogPath(a), entry, a.errOut())
	if o.err == nil && o.res != nil && len(o.res.Output) > 0 {
		_, _ = a.stdout.Write(o.res.Output)
	}
}

// hookWork does what the hook is for.
func hookWork(ctx context.Context, a *app, args []string) hookOutcome {
	fail := func(err error) hookOutcome { return hookOutcome{err: err} }
	if len(args) != 2 {
		return fail(&usageError{msg: fmt.Sprintf("hook: give a client and an event (cortex hook <client> <event>), got %d arguments", len(args))})
	}
	client, err := hooks.ParseClient(args[0])
	if err != nil {
		return fail(err)
	}
	event, err := hooks.ParseEvent(args[1])
	if err != nil {
		return fail(err)
	}
	if err := a.resolve(); err != nil {
		return fail(err)
	}
	s := a.settings
	s.LockTimeout = min(s.LockTimeout, hookLockTimeout)
	vaultRoot := s.Vault
	if err := config.CheckVault(s); err != nil {
		return hookOutcome{vault: vaultRoot, err: err}
	}
	input, err := readPayload(a.stdin)
	if err != nil {
		return hookOutcome{vault: vaultRoot, err: err}
	}
	v, err := vault.New(s.Vault, s.VaultFolder)
	if err != nil {
		return hookOutcome{vault: vaultRoot, err: err}
	}
	layout, err := s.State().Vault(v.Dir)
	if err != nil {
		return hookOutcome{vault: vaultRoot, err: err}
	}
	cwd, _ := os.Getwd()
	r := &hooks.Runner{
		Client: client, Event: event, Settings: s.Hooks, Projects: s.Projects, UserHome: a.home(), Cwd: cwd,
		Service: func() (*memories.Service, error) {
			a.noRebuild = true
			return a.open()
		},
		Inbox: inbox.New(layout.Inbox().Dir), Receipts: layout.Receipts(), IDs: memories.NewULIDGen(nil),
	}
	res, err := r.Run(ctx, input)
	return hookOutcome{res: res, vault: vaultRoot, err: err}
}

// readPayload reads a hook's input, at most hooks.MaxPayload bytes. No input
// at all (a terminal) is an empty payload.
func readPayload(in io.Reader) ([]byte, error) {
	if in == nil || isTerminal(in) {
		return nil, nil
	}
	data, err := io.ReadAll(io.LimitReader(in, hooks.MaxPayload+1))
	if err != nil {
		return nil, fmt.Errorf("read the hook's input: %w", err)
	}
	if len(data) > hooks.MaxPayload {
		return nil, fmt.Errorf("the hook's input is larger than %d bytes", hooks.MaxPayload)
	}
	return data, nil
}

// hookLogPath is the hook log, in the state folder. It is worked out from
// the flag, the environment and the default alone (the config file cannot
// move the state folder), so that a hook whose config is broken, or that
// gave up while its work still runs, logs to the same place.
func hookLogPath(a *app) string {
	home := a.flags.Home
	if home == "" {
		home = a.getenv(config.EnvHome)
	}
	if home == "" {
		home = config.DefaultHome
	}
	if home == "~" || strings.HasPrefix(home, "~/") {
		home = filepath.Join(a.home(), home[1:])
	}
	if abs, err := filepath.Abs(home); err == nil {
		home = abs
	}
	return config.State{Home: home}.HookLog()
}

// errOut is where a hook writes what it cannot log: the process's real
// standard error, which clients keep out of the model's context.
func (a *app) errOut() io.Writer {
	if sb, ok := a.stderr.(*syncBuffer); ok {
		return sb.orig
	}
	return a.stderr
}

// syncBuffer collects what is written to it from several goroutines.
type syncBuffer struct {
	mu   sync.Mutex
	b    bytes.Buffer
	orig io.Writer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.b.Len() > 64<<10 {
		return len(p), nil // enough to say what went wrong
	}
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
