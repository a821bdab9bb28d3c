package main

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"
)

type transcriptsSourcesOptions struct {
	list bool
}

func newTranscriptsSourcesCmd(a *app) *cobra.Command {
	var o transcriptsSourcesOptions
	cmd := &cobra.Command{
		Use:   "sources",
		Short: "Show where transcripts were looked for, what is indexed, and what was skipped and why",
		Long: `sources brings the transcript index up to date, then lists for every tool the
folders it looked in (the tool's default, or the folder its override variable
names: CLAUDE_CONFIG_DIR, CODEX_HOME, GEMINI_CLI_HOME), the transcripts found
there, what was passed over and why, and what the index holds: transcripts and
exchanges per tool, and the transcripts it could not read.`,
		Example: `  cortex transcripts sources
  CODEX_HOME=~/work/.codex cortex transcripts sources --list`,
		Args: args(0, 0, "takes no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runTranscriptsSources(cmd.Context(), a, o)
		},
	}
	cmd.Flags().BoolVar(&o.list, "list", false, "list every transcript found")
	return cmd
}

func runTranscriptsSources(ctx context.Context, a *app, o transcriptsSourcesOptions) error {
	svc, err := a.transcripts()
	if err != nil {
		return err
	}
	rep, err := svc.Sources(ctx)
	if err != nil {
		return err
	}
	if a.asJSON {
		return a.printJSON(rep)
	}
	w := a.stdout
	for _, d := range rep.Sources {
		printDiscovery(w, &d, o.list)
	}
	if len(rep.NoAdapter) > 0 {
		var names []string
		for _, k := range rep.NoAdapter {
			names = append(names, string(k))
		}
		fmt.Fprintf(w, "No adapter yet: %s\n", strings.Join(names, ", "))
	}
	ix := rep.Index
	fmt.Fprintf(w, "\nIndex %s: %d %s from %d %s", ix.Dir, ix.Exchanges, scribePlural(ix.Exchanges, "exchange", "exchanges"),
		ix.Files, scribePlural(ix.Files, "transcript", "transcripts"))
	if !ix.Synced.IsZero() {
		fmt.Fprintf(w, ", up to date at %s", ix.Synced.Local().Format("2006-01-02 15:04:05"))
	}
	fmt.Fprintln(w)
	tools := make([]string, 0, len(ix.PerTool))
	for t := range ix.PerTool {
		tools = append(tools, t)
	}
	slices.Sort(tools)
	for _, t := range tools {
		c := ix.PerTool[t]
		fmt.Fprintf(w, "  %s: %d %s, %d %s\n", t, c.Files, scribePlural(c.Files, "transcript", "transcripts"),
			c.Exchanges, scribePlural(c.Exchanges, "exchange", "exchanges"))
	}
	if ix.Busy {
		fmt.Fprintln(w, "  (another cortex process is updating it)")
	}
	if len(ix.Unreadable) > 0 {
		fmt.Fprintf(w, "Could not read %d %s:\n", len(ix.Unreadable), scribePlural(len(ix.Unreadable), "transcript", "transcripts"))
		for _, s := range ix.Unreadable {
			fmt.Fprintf(w, "  %s: %s\n", s.Path, s.Reason)
		}
	}
	return nil
}
