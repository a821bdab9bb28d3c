package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/cortexmem/cortex/memories"
)

type recallOptions struct {
	project, typ string
	limit        int
	all          bool
	full         bool
}

func newRecallCmd(a *app) *cobra.Command {
	var o recallOptions
	cmd := &cobra.Command{
		Use:   "recall [QUERY...]",
		Short: "Find the memories that best answer a query",
		Long: `Recall searches titles, bodies and tags and ranks what it finds by a blend of
relevance, recency, activation and importance. The query is taken literally:
quotes, colons, dashes, paths and code identifiers are just text.

Without a query it lists a project's memories by recency and importance.`,
		Example: `  cortex recall jwt signing algorithm
  cortex recall --project my-webapp "connection pool size"
  cortex recall --project my-webapp --limit 5 --json`,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runRecall(cmd.Context(), a, o, strings.Join(args, " "))
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.project, "project", "", "recall from this project only")
	f.StringVar(&o.typ, "type", "", "recall memories of this type only")
	f.IntVar(&o.limit, "limit", memories.DefaultRecallLimit, fmt.Sprintf("how many memories, 1 to %d", memories.MaxRecallLimit))
	f.BoolVar(&o.all, "all", false, "include superseded memories")
	f.BoolVar(&o.full, "full", false, "print whole memories, not excerpts")
	return cmd
}

type recallJSON struct {
	Query   string       `json:"query"`
	Project string       `json:"project,omitempty"`
	Count   int          `json:"count"`
	Results []memoryJSON `json:"results"`
}

func runRecall(ctx context.Context, a *app, o recallOptions, query string) error {
	svc, err := a.open()
	if err != nil {
		return err
	}
	res, err := svc.Recall(ctx, memories.RecallRequest{
		Query: query, Project: o.project, Type: o.typ, Limit: o.limit, IncludeSuperseded: o.all,
	})
	if err != nil {
		return err
	}
	if a.asJSON {
		out := recallJSON{Query: res.Query, Project: res.Project, Count: len(res.Results), Results: []memoryJSON{}}
		for _, r := range res.Results {
			j := a.memoryJSON(r.Memory, r.ShortID)
			score, sig := r.Score, r.Signals
			j.Score, j.Signals = &score, &sig
			out.Results = append(out.Results, j)
		}
		return a.printJSON(out)
	}
	if len(res.Results) == 0 {
		fmt.Fprintln(a.stdout, res.EmptyMessage())
		return nil
	}
	w := a.stdout
	for i, r := range res.Results {
		m := r.Memory
		if i > 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprintf(w, "[%s] %s\n", r.ShortID, m.Title)
		meta := []string{"project:" + m.Project, string(m.Type)}
		if m.Status != memories.StatusActive {
			meta = append(meta, string(m.Status))
		}
		if t := tagList(m.Tags); t != "" {
			meta = append(meta, t)
		}
		meta = append(meta, "updated "+day(m.Updated), fmt.Sprintf("score %.2f", r.Score))
		fmt.Fprintf(w, "  %s\n", strings.Join(meta, " · "))
		body := m.Content()
		if !o.full {
			body = excerpt(body, 400)
		}
		indent(w, "  ", body)
		fmt.Fprintf(w, "  → %s\n", a.store.Vault().VaultPath(m.Path))
	}
	return nil
}
