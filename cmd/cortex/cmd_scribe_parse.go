package main

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/cortexmem/cortex/scribe"
)

type scribeParseOptions struct {
	path string
	as   string
}

func newScribeParseCmd(a *app) *cobra.Command {
	var o scribeParseOptions
	cmd := &cobra.Command{
		Use:   "parse FILE",
		Short: "Print a transcript's events as NDJSON",
		Long: `parse reads one transcript and prints its events, one JSON object per line.
The tool that wrote it is recognised from its first records unless --as
names it (claude, claude-code, codex, gemini, …). A line that is not what the
tool writes becomes an "unknown" event holding it: nothing is dropped.`,
		Example: `  cortex scribe parse ~/.claude/projects/-home-me-app/0a1b2c3d-….jsonl
  cortex scribe parse --as claude session.jsonl | jq -c 'select(.kind=="file_edit")'`,
		Args: args(1, 1, "takes exactly one transcript file"),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.path = args[0]
			return runScribeParse(cmd.Context(), a, o)
		},
	}
	cmd.Flags().StringVar(&o.as, "as", "", "the tool that wrote the file (default: recognised from its content)")
	return cmd
}

func runScribeParse(ctx context.Context, a *app, o scribeParseOptions) error {
	t, err := scribe.Open(o.path, o.as)
	if err != nil {
		return err
	}
	defer t.Close()
	return writeEvents(ctx, a.stdout, t, scribe.Redaction{})
}
