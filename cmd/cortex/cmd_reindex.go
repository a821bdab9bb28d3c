package main

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/cortexmem/cortex/store"
)

func newReindexCmd(a *app) *cobra.Command {
	var full bool
	cmd := &cobra.Command{
		Use:   "reindex [--full]",
		Short: "Bring the index up to date with the vault, or rebuild it",
		Long: `Every command already brings the index up to date before it answers; reindex
does only that and reports what changed. With --full it rebuilds the index from
the vault into a new folder and swaps it in; readers are never blocked.`,
		Args: args(0, 0, "takes no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runReindex(cmd.Context(), a, full)
		},
	}
	cmd.Flags().BoolVar(&full, "full", false, "rebuild the index from scratch")
	return cmd
}

func runReindex(ctx context.Context, a *app, full bool) error {
	if _, err := a.open(); err != nil {
		return err
	}
	start := time.Now()
	var rep *store.SyncReport
	var err error
	if full {
		rep, err = a.store.Rebuild(ctx)
	} else {
		rep, err = a.store.Sync(ctx)
	}
	if err != nil {
		return err
	}
	if a.asJSON {
		return a.printJSON(rep)
	}
	took := time.Since(start).Round(time.Millisecond)
	if rep.Full {
		fmt.Fprintf(a.stdout, "Index rebuilt: %d notes in %s\n", rep.Notes, took)
	} else {
		fmt.Fprintf(a.stdout, "Index up to date: %d notes (%d added, %d updated, %d removed)\n",
			rep.Notes, rep.Added, rep.Updated, rep.Removed)
	}
	if n := len(rep.Broken); n > 0 {
		fmt.Fprintf(a.stdout, "%d notes cannot be read and are skipped (see the warnings above, or run cortex doctor)\n", n)
	}
	return nil
}
