package main

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/cortexmem/cortex/pipeline"
	"github.com/cortexmem/cortex/scribe"
)

type scribeReplayOptions struct {
	path                   string
	noRedaction, noContent bool
}

func newScribeReplayCmd(a *app) *cobra.Command {
	var o scribeReplayOptions
	cmd := &cobra.Command{
		Use:   "replay EVENTS.ndjson",
		Short: "Run the pipeline over events (from scribe parse) and print its nodes as NDJSON",
		Long: `replay reads events as 'cortex scribe parse' prints them ("-" for standard
input) and runs the deterministic pipeline over them: the gate, the
segmenter, the binder and node preparation. It prints the nodes —
conversation spans, decisions, episodes (code edits) and the bindings of
decisions to the edits they produced — one JSON object per line, the same
bytes for the same events. Credentials are redacted unless --no-redaction.`,
		Example: `  cortex scribe parse session.jsonl > events.ndjson
  cortex scribe replay events.ndjson | jq -c 'select(.kind=="decision") | .decision.epitome'`,
		Args: args(1, 1, "takes exactly one events file (or - for standard input)"),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.path = args[0]
			return runScribeReplay(cmd.Context(), a, o)
		},
	}
	f := cmd.Flags()
	f.BoolVar(&o.noRedaction, "no-redaction", false, "leave credentials in (for golden files; never for sharing)")
	f.BoolVar(&o.noContent, "no-content", false, "keep the structure, drop every text")
	return cmd
}

func runScribeReplay(ctx context.Context, a *app, o scribeReplayOptions) error {
	evs, err := scribe.ReadEvents(ctx, o.path, a.stdin)
	if err != nil {
		return err
	}
	var opts []pipeline.Option
	if o.noRedaction {
		opts = append(opts, pipeline.WithoutRedaction())
	}
	if o.noContent {
		opts = append(opts, pipeline.WithoutContent())
	}
	p, err := a.scribePipeline(opts...)
	if err != nil {
		return err
	}
	return writeNodes(a.stdout, p.Prepare(evs))
}
