package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/cortexmem/cortex/config"
	"github.com/cortexmem/cortex/pipeline"
	"github.com/cortexmem/cortex/scribe"
	"github.com/cortexmem/cortex/transcript"
)

func newScribeCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "scribe",
		Short: "Turn coding agents' transcripts into events, and into session, decision and edit notes",
		Long: `scribe reads the transcripts coding agents write to disk and turns each into
the same stream of events — session starts, user and assistant turns, tool
calls and results, file edits as unified diffs, compactions, rewinds —
without any model call. The events are NDJSON, one per line, the same bytes
for the same input.

A deterministic pipeline then finds the decisions people stated (a gate of
marker phrases: use, instead of, never, from now on, …), the code edits that
followed, and which decision produced which edit; 'scribe run --to-vault'
writes them into the vault as linked notes.

Tools read today: ` + strings.Join(scribe.Tools(), ", ") + `.`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return &usageError{msg: fmt.Sprintf("scribe: unknown command %q", args[0]), hint: cmd.CommandPath()}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error { return cmd.Help() },
	}
	cmd.AddCommand(newScribeParseCmd(a), newScribeReplayCmd(a), newScribeRunCmd(a), newScribeRedactCmd(a),
		newScribeVerifyCmd(a), newScribeSourcesCmd(a), newScribeOTLPCmd(a))
	return cmd
}

// scribeEnv is what transcript discovery reads of the environment; the
// state folder (where the OTLP receiver keeps what it receives) is the one
// the settings resolve to, --home included.
func (a *app) scribeEnv() transcript.Env {
	getenv := a.getenv
	if a.resolve() == nil {
		home := a.settings.Home
		getenv = func(k string) string {
			if k == config.EnvHome {
				return home
			}
			return a.getenv(k)
		}
	}
	return transcript.Env{Home: a.home(), Getenv: getenv}
}

// scribePipeline is the pipeline the config file sets, changed by opts.
func (a *app) scribePipeline(opts ...pipeline.Option) (*pipeline.Pipeline, error) {
	if err := a.resolve(); err != nil {
		return nil, err
	}
	return pipeline.New(append(append([]pipeline.Option{}, a.settings.Pipeline...), opts...)...), nil
}

// writeEvents prints a transcript's events as NDJSON, redacted as red says.
func writeEvents(ctx context.Context, w io.Writer, t *scribe.Transcript, red scribe.Redaction) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	enc := transcript.NewEncoder(bw)
	err := t.Events(ctx, red, func(e transcript.Event) error { return enc.Encode(&e) })
	if ferr := bw.Flush(); err == nil {
		err = ferr
	}
	return err
}

// writeNodes prints nodes as NDJSON.
func writeNodes(w io.Writer, nodes []pipeline.Node) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	enc := pipeline.NewEncoder(bw)
	for i := range nodes {
		if err := enc.Encode(&nodes[i]); err != nil {
			return err
		}
	}
	return bw.Flush()
}

func scribePlural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
