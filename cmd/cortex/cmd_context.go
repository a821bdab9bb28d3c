package main

import (
	"context"
	"fmt"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"

	"github.com/cortexmem/cortex/briefing"
	"github.com/cortexmem/cortex/memories"
	"github.com/cortexmem/cortex/view"
	"github.com/cortexmem/cortex/wiring"
)

type contextOptions struct {
	project    string
	budget     int
	synthesize bool
}

func newContextCmd(a *app) *cobra.Command {
	var o contextOptions
	cmd := &cobra.Command{
		Use:   "context QUERY...",
		Short: "Assemble one briefing for a task: playbook, memories, decisions and their edits, transcript excerpts",
		Long: `context gives an agent, in one markdown briefing within a token budget
(characters/4, default 1,500), what cortex knows that bears on a task:

  Playbook      the project's playbook (playbooks/<project>.md in cortex's
                folder) and its conventions and standing decisions, bans first
  Memories      the memories that best answer the query
  Decisions     the decisions found or linked, each with the code edits it
                produced (the lineage mined from transcripts)
  Transcripts   the best exchanges of the agents' transcripts

Every item carries its short id and the note's path (or the transcript's file
and line), and appears once. What the briefing shows counts as used
(access source "context"), as recall's results do.

--synthesize hands the material to a command (context.synthesize_command in the
config file; by default "claude -p --model haiku" when claude is on PATH) and
prints its answer instead, once it has passed the same safety scan as a save
and fits the budget. When the command is missing, fails, takes longer than
context.synthesize_timeout (30s), answers nothing, too much or something unsafe,
the deterministic briefing is printed with a line saying why.`,
		Example: `  cortex context --project my-webapp "fix the auth flow on staging"
  cortex context --project my-webapp --budget 600 redis pool
  cortex context --project my-webapp --synthesize "add rate limiting"`,
		Args: args(1, -1, "give the query: what the briefing is for"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runContext(cmd.Context(), a, o, strings.Join(args, " "))
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.project, "project", "", "the project the briefing is for (required)")
	f.IntVar(&o.budget, "budget", briefing.DefaultBudget, fmt.Sprintf("the most tokens (characters/4) the briefing may take, %d to %d", briefing.MinBudget, briefing.MaxBudget))
	f.BoolVar(&o.synthesize, "synthesize", false, "have the synthesis command write the briefing from the material")
	return cmd
}

func runContext(ctx context.Context, a *app, o contextOptions, query string) (err error) {
	// The flag defaults to 1,500, so a 0 here was typed: refused, not
	// taken as the default the service gives 0.
	if err := memories.CheckRange("budget", o.budget, briefing.MinBudget, briefing.MaxBudget); err != nil {
		return err
	}
	// Like a hook, a briefing lives tens of milliseconds: the collector
	// waits until the heap is large (shortLivedGC) rather than run three times
	// (about a tenth of the command's CPU at 10,000 notes).
	defer shortLivedGC(a.getenv)()
	// It reads the entries of a project and general from the index catalog
	// (the playbook's conventions and decisions): the catalog is mapped
	// rather than copied into memory, as recall does (on the generated
	// 10,000-memory vault, reading the entries fell from a fifth of a
	// briefing's CPU samples to a fourteenth). A fault reading the mapping
	// (the file truncated by hand meanwhile) is an error, not a crash.
	mapCatalogs()
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer catalogFault(&err)
	svc, err := a.open()
	if err != nil {
		return err
	}
	warn := func(msg string) { fmt.Fprintf(a.stderr, "cortex: warning: %s\n", msg) }
	ex, err := a.excerpts()
	if err != nil {
		return err
	}
	b, err := a.cortex.Briefing(svc, ex, warn).Assemble(ctx, briefing.Request{
		Query: query, Project: o.project, Budget: o.budget, Synthesize: o.synthesize,
	})
	if err != nil {
		return err
	}
	if a.asJSON {
		return a.printJSON(view.ContextOf(b))
	}
	if b.Fallback != "" {
		fmt.Fprintf(a.stderr, "cortex: synthesis not used: %s\n", b.Fallback)
	}
	fmt.Fprint(a.stdout, b.Markdown)
	return nil
}

// excerpts is where briefings take transcript excerpts from: transcript
// search.
func (a *app) excerpts() (briefing.Excerpts, error) {
	ts, err := a.transcripts()
	if err != nil {
		return nil, err
	}
	return wiring.TranscriptExcerpts{Search: ts}, nil
}
