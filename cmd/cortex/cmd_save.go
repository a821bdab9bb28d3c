package main

import (
	"context"
	"fmt"
	"runtime/debug"

	"github.com/spf13/cobra"

	"github.com/cortexmem/cortex/index"
	"github.com/cortexmem/cortex/memories"
	"github.com/cortexmem/cortex/view"
)

type saveOptions struct {
	title, project, area, typ string
	tags                      []string
	importance                int
	importanceSet             bool // --importance was given
}

func newSaveCmd(a *app) *cobra.Command {
	var o saveOptions
	cmd := &cobra.Command{
		Use:   "save [flags] [CONTENT... | -]",
		Short: "Remember something: a decision, convention, gotcha or fact",
		Long: `Save writes a new memory as a note in the vault.

The content is the words given, or standard input with "-" (or when input is
piped). The title defaults to the first line (60 characters).`,
		Example: `  cortex save --project my-webapp --type decision --tags auth,jwt \
    "Use RS256 (not HS256) for JWT in production: HS256 shares the signing secret."
  git log -1 --format=%B | cortex save --type lesson -`,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.importanceSet = cmd.Flags().Changed("importance")
			return runSave(cmd.Context(), a, o, args)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.title, "title", "", "one-line title (default: the first line of the content)")
	f.StringSliceVar(&o.tags, "tags", nil, "tags, comma-separated")
	f.StringVar(&o.project, "project", "", "project the memory belongs to (default "+memories.DefaultProject+")")
	f.StringVar(&o.area, "area", "", "broader area or domain, optional")
	f.StringVar(&o.typ, "type", "", "decision, preference, convention, gotcha, fact, lesson, note (default), …")
	f.IntVar(&o.importance, "importance", 0, "importance from 1 to 5 (default 3)")
	return cmd
}

func runSave(ctx context.Context, a *app, o saveOptions, words []string) (err error) {
	// A save lives for tens of milliseconds and allocates a few megabytes:
	// the collector would run three times to free what exit frees anyway,
	// slowing the search for similar memories with its write barriers.
	defer shortLivedGC(a.getenv)()
	// The duplicate check reads the catalog entries of the memory's project
	// and general, which means walking every entry's metadata: the catalog
	// is mapped rather than copied into memory, as list does.
	index.MapCatalogs()
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer catalogFault(&err)
	content, err := a.readContent(ctx, "content", words)
	if err != nil {
		return err
	}
	// 0 is the service's "not given": a 0 typed on the command line is refused.
	if o.importanceSet {
		if err := memories.CheckRange("importance", o.importance, memories.MinImportance, memories.MaxImportance); err != nil {
			return err
		}
	}
	svc, err := a.open()
	if err != nil {
		return err
	}
	res, err := svc.Save(ctx, memories.SaveRequest{
		Content: content, Title: o.title, Tags: o.tags, Project: o.project,
		Area: o.area, Type: o.typ, Importance: o.importance,
	})
	if err != nil {
		return err
	}
	if a.asJSON {
		return a.printJSON(view.SaveOf(res, a.store.Vault().Abs))
	}
	fmt.Fprintln(a.stdout, res.Message())
	fmt.Fprintf(a.stdout, "  %s\n", a.store.Vault().VaultPath(res.Path))
	return nil
}
