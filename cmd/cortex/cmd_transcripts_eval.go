package main

import (
	"context"
	"fmt"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/cortexmem/cortex/transcripts"
)

type transcriptsEvalOptions struct {
	perQuery bool
}

func newTranscriptsEvalCmd(a *app) *cobra.Command {
	var o transcriptsEvalOptions
	cmd := &cobra.Command{
		Use:   "eval DATASET.json",
		Short: "Measure transcript search on a dataset of sessions and questions, against plain BM25 and ripgrep",
		Long: `eval indexes the dataset's transcripts in a fresh temporary index (your own
index and transcripts are not touched), asks every question three ways and
prints Recall@1/5/10 and MRR for each:

  cortex    cortex transcripts search: its ranking, one exchange per session
  BM25      plain BM25 over the same exchanges: any of the query's words, no
            boosts, no recency, no grouping
  ripgrep   rg over the same files, the query's words (common words left out)
            searched literally and case-insensitively, hits in file order,
            each hit's line counted as the exchange holding it; skipped when
            rg is not installed

The dataset is JSON: {"sources": [transcript files, relative to the dataset],
"queries": [{"id", "query", "relevant": ["source:line", …], "tool"?}]}, where
a relevant exchange is named by its source and the line it starts at.
--per-query adds each query's rank in each system (0: not in the top 10).`,
		Example: `  cortex transcripts eval fixtures/eval/transcript-search.json
  cortex --json transcripts eval --per-query fixtures/eval/transcript-search.json`,
		Args: args(1, 1, "takes exactly one dataset file"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runTranscriptsEval(cmd.Context(), a, o, args[0])
		},
	}
	cmd.Flags().BoolVar(&o.perQuery, "per-query", false, "also list each query's rank in each system")
	return cmd
}

func runTranscriptsEval(ctx context.Context, a *app, o transcriptsEvalOptions, path string) error {
	d, err := transcripts.LoadEval(path)
	if err != nil {
		return err
	}
	rep, err := transcripts.RunEval(ctx, d, transcripts.DefaultRanking(), transcripts.Ripgrep())
	if err != nil {
		return err
	}
	if !o.perQuery {
		rep.PerQuery = nil
	}
	if a.asJSON {
		return a.printJSON(rep)
	}
	w := tabwriter.NewWriter(a.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintf(w, "%d transcripts, %d exchanges, %d queries\n\n", rep.Sources, rep.Exchanges, rep.Queries)
	fmt.Fprintln(w, "\tRecall@1\tRecall@5\tRecall@10\tMRR")
	row := func(name string, m transcripts.EvalMetrics) {
		fmt.Fprintf(w, "%s\t%.4f\t%.4f\t%.4f\t%.4f\n", name, m.RecallAt1, m.RecallAt5, m.RecallAt10, m.MRR)
	}
	row("cortex", rep.Cortex)
	row("BM25 baseline", rep.Baseline)
	if rep.Ripgrep != nil {
		row("ripgrep, hits in file order", *rep.Ripgrep)
	} else {
		fmt.Fprintf(w, "ripgrep\tskipped: %s\n", rep.RipgrepMissing)
	}
	if o.perQuery {
		fmt.Fprintln(w, "\nquery\tcortex\tBM25\tripgrep\t")
		rank := func(r int) string {
			if r == 0 {
				return "-"
			}
			return fmt.Sprint(r)
		}
		for _, q := range rep.PerQuery {
			fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\n", q.ID, rank(q.Cortex), rank(q.Baseline), rank(q.Ripgrep), q.Query)
		}
	}
	return w.Flush()
}
