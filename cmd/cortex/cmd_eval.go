package main

import (
	"context"
	"fmt"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/cortexmem/cortex/eval"
	"github.com/cortexmem/cortex/memories"
)

type evalOptions struct {
	perQuery bool
	without  string
}

func newEvalCmd(a *app) *cobra.Command {
	var o evalOptions
	cmd := &cobra.Command{
		Use:   "eval DATASET.json",
		Short: "Measure recall on a dataset of memories and queries, against plain BM25",
		Long: `Eval loads the dataset's documents into a fresh temporary vault through the
normal save path (with the scan and dedup off), runs every query through recall
and through a plain BM25 search of the same index, and prints Recall@1/5/10,
MRR and nDCG@10 for both. Your own vault is not touched.

The dataset is JSON: {"documents": [{"id", "title", "content", "project",
"tags", "created"}], "queries": [{"id", "query", "project", "relevant": [ids]}]}.
Other keys are ignored. A query's project keeps that project's memories and
general's, as recall does.

A document the save path refuses (content under 10 letters or digits, a title
over 120 characters…) is skipped, and so is a query with no relevant document,
one whose relevant documents were all skipped, or one recall refuses; each is
counted and listed with its reason. --per-query adds each query's ranks and
top 10 (in JSON: id, query, relevant ids, cortex_rank, baseline_rank,
cortex_top, baseline_top; a rank of 0 is "not in the top 10").`,
		Example: `  cortex eval fixtures/eval/coding-memory.json
  cortex eval --json --per-query fixtures/eval/coding-memory.json`,
		Args: args(1, 1, "takes exactly one dataset file"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runEval(cmd.Context(), a, o, args[0])
		},
	}
	cmd.Flags().BoolVar(&o.perQuery, "per-query", false, "also list, per query, the rank of its first relevant memory in each system's top 10 (with --json, the top 10 too)")
	cmd.Flags().StringVar(&o.without, "without", "", "turn recall features off, to measure what each adds: a comma-separated list of phrases, synonyms, neighbours, compounds, anyterm, tieband, lengthnorm, passages, rarest")
	return cmd
}

func runEval(ctx context.Context, a *app, o evalOptions, path string) error {
	d, err := eval.Load(path)
	if err != nil {
		return err
	}
	if err := a.resolve(); err != nil {
		return err
	}
	ranking := a.settings.Ranking
	if ranking.Off, err = memories.ParseFeatures(o.without); err != nil {
		return err
	}
	rep, err := eval.Run(ctx, d, eval.Options{Ranking: &ranking})
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
	fmt.Fprintf(w, "%d documents loaded (%d skipped)\n", rep.Documents, rep.DocumentsSkipped)
	fmt.Fprintf(w, "%d queries evaluated (%d skipped)\n\n", rep.Queries, rep.Skipped)
	fmt.Fprintln(w, "\tRecall@1\tRecall@5\tRecall@10\tMRR\tnDCG@10")
	for _, row := range []struct {
		name string
		m    eval.Metrics
	}{{"cortex", rep.Cortex}, {"BM25 baseline", rep.Baseline}} {
		fmt.Fprintf(w, "%s\t%.4f\t%.4f\t%.4f\t%.4f\t%.4f\n", row.name, row.m.RecallAt1, row.m.RecallAt5, row.m.RecallAt10, row.m.MRR, row.m.NDCGAt10)
	}
	if o.perQuery {
		fmt.Fprintln(w, "\nquery\tcortex\tbaseline")
		rank := func(r int) string {
			if r == 0 {
				return "-"
			}
			return fmt.Sprint(r)
		}
		for _, q := range rep.PerQuery {
			fmt.Fprintf(w, "%s\t%s\t%s\n", q.ID, rank(q.CortexRank), rank(q.BaselineRank))
		}
	}
	if len(rep.Skips) > 0 {
		fmt.Fprintln(w, "\nSkipped:")
		for _, sk := range rep.Skips[:min(len(rep.Skips), shownSkips)] {
			fmt.Fprintf(w, "- %s %s: %s\n", sk.Kind, sk.ID, sk.Reason)
		}
		if n := len(rep.Skips) - shownSkips; n > 0 {
			fmt.Fprintf(w, "- … and %d more (--json lists every one)\n", n)
		}
	}
	return w.Flush()
}

// shownSkips is how many skipped documents and queries the text lists.
const shownSkips = 20
