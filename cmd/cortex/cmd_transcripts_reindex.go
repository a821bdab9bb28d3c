package main

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/cortexmem/cortex/transcripts"
)

type transcriptsReindexOptions struct {
	full bool
}

func newTranscriptsReindexCmd(a *app) *cobra.Command {
	var o transcriptsReindexOptions
	cmd := &cobra.Command{
		Use:   "reindex [--full]",
		Short: "Bring the transcript index up to date, or rebuild it",
		Long: `Every search already brings the transcript index up to date first; reindex does
only that and says what it read. With --full it builds the index anew from
every transcript, in a new folder it swaps in when done: searches meanwhile
answer from the old one.`,
		Args: args(0, 0, "takes no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runTranscriptsReindex(cmd.Context(), a, o)
		},
	}
	cmd.Flags().BoolVar(&o.full, "full", false, "rebuild the index from scratch")
	return cmd
}

func runTranscriptsReindex(ctx context.Context, a *app, o transcriptsReindexOptions) error {
	svc, err := a.transcripts()
	if err != nil {
		return err
	}
	var rep *transcripts.SyncReport
	if o.full {
		rep, err = svc.Rebuild(ctx)
	} else {
		rep, err = svc.SyncAll(ctx)
	}
	if err != nil {
		return err
	}
	if a.asJSON {
		return a.printJSON(rep)
	}
	w := a.stdout
	took := rep.Took.Round(time.Millisecond)
	switch {
	case rep.Busy:
		fmt.Fprintf(w, "Another cortex process is updating the transcript index; it holds %d exchanges from %d transcripts.\n", rep.Exchanges, rep.Files)
	case rep.Rebuilt != "":
		fmt.Fprintf(w, "Transcript index built (%s): %d exchanges from %d transcripts, %d messages read, in %s.\n",
			rep.Rebuilt, rep.Exchanges, rep.Files, rep.Messages, took)
	default:
		fmt.Fprintf(w, "Transcript index up to date: %d exchanges from %d transcripts (read %d: %d new, %d grown, %d again whole; %d removed) in %s.\n",
			rep.Exchanges, rep.Files, rep.Read, rep.New, rep.Appended, rep.Reread, rep.Removed, took)
	}
	if n := len(rep.Unreadable); n > 0 {
		fmt.Fprintf(w, "Could not read %d %s:\n", n, scribePlural(n, "transcript", "transcripts"))
		for _, s := range rep.Unreadable {
			fmt.Fprintf(w, "  %s: %s\n", s.Path, s.Reason)
		}
	}
	return nil
}
