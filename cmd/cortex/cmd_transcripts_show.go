package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/cortexmem/cortex/transcript"
	"github.com/cortexmem/cortex/transcripts"
)

type transcriptsShowOptions struct {
	around int
}

func newTranscriptsShowCmd(a *app) *cobra.Command {
	var o transcriptsShowOptions
	cmd := &cobra.Command{
		Use:   "show SESSION",
		Short: "Print a session's exchanges, or one exchange in context",
		Long: `show prints the exchanges of a session — its id, or the start of it, as
cortex transcripts search shows it — in order: what you typed, what the agent
answered, the tools it ran and the files it touched, as the index holds them
(trimmed, credentials redacted). Subagents' exchanges follow the main
conversation's.

With --around LINE it prints the exchange holding that line of the session's
transcript (the line a search result points at) with the one before and the
one after.`,
		Example: `  cortex transcripts show 5c1e0a4e
  cortex transcripts show 5c1e0a4e-7d2b --around 142`,
		Args: args(1, 1, "give one session id (or the start of one)"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runTranscriptsShow(cmd.Context(), a, o, args[0])
		},
	}
	cmd.Flags().IntVar(&o.around, "around", 0, "print the exchange holding this line of the transcript, with its neighbours")
	return cmd
}

func runTranscriptsShow(ctx context.Context, a *app, o transcriptsShowOptions, session string) error {
	svc, err := a.transcripts()
	if err != nil {
		return err
	}
	v, err := svc.Show(ctx, transcripts.ShowRequest{Session: session, Around: o.around})
	if err != nil {
		return err
	}
	if a.asJSON {
		return a.printJSON(v)
	}
	w := a.stdout
	name := transcript.SourceKind(v.Tool).Name()
	fmt.Fprintf(w, "Session %s (%s), %d %s\n", v.Session, name, v.Total, scribePlural(v.Total, "exchange", "exchanges"))
	for _, f := range v.Files {
		fmt.Fprintf(w, "  %s\n", f)
	}
	for i, h := range v.Exchanges {
		fmt.Fprintln(w)
		lead := "──"
		if i == v.Focus {
			lead = "▶▶"
		}
		var where []string
		if !h.Time.IsZero() {
			where = append(where, h.Time.Local().Format("2006-01-02 15:04:05"))
		}
		where = append(where, transcriptPointer(&h))
		if h.Project != "" {
			p := h.Project
			if h.Branch != "" {
				p += " (" + h.Branch + ")"
			}
			where = append(where, p)
		}
		if h.Agent != "" {
			where = append(where, "subagent "+h.Agent)
		}
		switch {
		case h.Kind == "compaction":
			where = append(where, "compaction summary")
		case h.Rewound:
			where = append(where, "rewound")
		}
		fmt.Fprintf(w, "%s %s\n", lead, strings.Join(where, " · "))
		if h.Kind != "compaction" {
			fmt.Fprintln(w, "you:")
			indent(w, "  ", h.User)
		}
		if h.Reply != "" {
			fmt.Fprintln(w, "agent:")
			indent(w, "  ", h.Reply)
		}
		if len(h.Tools) > 0 {
			fmt.Fprintf(w, "tools: %s\n", strings.Join(h.Tools, ", "))
		}
		if len(h.Paths) > 0 {
			fmt.Fprintf(w, "files: %s\n", strings.Join(h.Paths, ", "))
		}
	}
	return nil
}
