package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/cortexmem/cortex/reflection"
	"github.com/cortexmem/cortex/view"
)

type reflectOptions struct {
	session, project, since, style string
	save                           bool
}

func newReflectCmd(a *app) *cobra.Command {
	var o reflectOptions
	cmd := &cobra.Command{
		Use:   "reflect",
		Short: "Roll up a session, or a project's sessions over a window",
		Long: `reflect rolls up, with no model call, what happened in one agent session
(--session, its id or the id's first 8 characters) or in a project's sessions
since a time (--project, --since: 1d by default): the opening intent, the
questions asked, the decisions made (linked to their notes), the files
changed, the friction (failed tool calls, errors, interruptions, rewinds,
compactions), recurring patterns (commands and files three times or more) and
open threads (the project's open action items, questions left unanswered).

The events come from the transcripts transcript discovery finds (cortex scribe
sources lists them), redacted; the decisions and action items from the vault.
--style brief keeps five lines a section, full fifty. --save stores the roll-up
as a reflection note (memories/<project>/), its provenance naming the session
and transcript; saving the same roll-up again writes nothing.`,
		Example: `  cortex reflect --session 4f6c2a1e
  cortex reflect --project my-webapp --since 7d --style full
  cortex reflect --session 4f6c2a1e --save`,
		Args: args(0, 0, "takes no arguments; give --session, or --project and --since"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runReflect(cmd.Context(), a, o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.session, "session", "", "the session to reflect on (its id, or at least its first 8 characters)")
	f.StringVar(&o.project, "project", "", "instead: the project whose sessions to reflect on")
	f.StringVar(&o.since, "since", "", "with --project: the window (1d, 12h, 2w, or a date); default 1d")
	f.StringVar(&o.style, "style", reflection.StyleBrief, "brief or full")
	f.BoolVar(&o.save, "save", false, "store the roll-up as a reflection note")
	return cmd
}

func runReflect(ctx context.Context, a *app, o reflectOptions) error {
	svc, err := a.open()
	if err != nil {
		return err
	}
	res, err := a.cortex.Reflection(svc, a.scribeEnv()).Reflect(ctx, reflection.Request{
		Session: o.session, Project: o.project, Since: o.since, Style: o.style, Save: o.save,
	})
	if err != nil {
		return err
	}
	if a.asJSON {
		return a.printJSON(view.ReflectOf(res, a.store.Vault().Abs))
	}
	fmt.Fprint(a.stdout, res.Markdown)
	if res.Saved != nil {
		fmt.Fprintf(a.stdout, "\n%s\n  %s\n", res.Saved.Message(), a.store.Vault().VaultPath(res.Saved.Path))
	}
	return nil
}
