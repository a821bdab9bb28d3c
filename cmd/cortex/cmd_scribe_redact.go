package main

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/cortexmem/cortex/scribe"
)

type scribeRedactOptions struct {
	path      string
	as        string
	noContent bool
}

func newScribeRedactCmd(a *app) *cobra.Command {
	var o scribeRedactOptions
	cmd := &cobra.Command{
		Use:   "redact FILE",
		Short: "Print a transcript's events with credentials redacted (or with no text at all)",
		Long: `redact reads one transcript and prints its events as 'cortex scribe parse'
does, with every credential the safety rules (and the config's
scribe.redact patterns) find replaced by [REDACTED:<rule>] — in texts, tool
inputs and outputs, diffs and records of unknown types. With --no-content
every text is dropped and only the structure is kept: ids, kinds, times,
tools, counts. Use it before you share a transcript.`,
		Example: `  cortex scribe redact session.jsonl > shareable.ndjson
  cortex scribe redact --no-content session.jsonl`,
		Args: args(1, 1, "takes exactly one transcript file"),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.path = args[0]
			return runScribeRedact(cmd.Context(), a, o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.as, "as", "", "the tool that wrote the file (default: recognised from its content)")
	f.BoolVar(&o.noContent, "no-content", false, "drop every text, keep the structure")
	return cmd
}

func runScribeRedact(ctx context.Context, a *app, o scribeRedactOptions) error {
	t, err := scribe.Open(o.path, o.as)
	if err != nil {
		return err
	}
	defer t.Close()
	p, err := a.scribePipeline()
	if err != nil {
		return err
	}
	return writeEvents(ctx, a.stdout, t, scribe.Redaction{Pipeline: p, NoContent: o.noContent})
}
