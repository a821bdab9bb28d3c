package main

import (
	"context"
	"fmt"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"

	"github.com/cortexmem/cortex/index"
	"github.com/cortexmem/cortex/memories"
	"github.com/cortexmem/cortex/view"
)

type recallOptions struct {
	project, scope, since, typ string
	tags                       []string
	limit                      int
	all, full, explain         bool
}

func newRecallCmd(a *app) *cobra.Command {
	var o recallOptions
	cmd := &cobra.Command{
		Use:   "recall [QUERY...]",
		Short: "Find the memories that best answer a query",
		Long: `Recall searches titles, bodies and tags and ranks what it finds by a blend of
relevance, recency, activation (how often and how lately a memory was used) and
importance, then adds the memories the results link to as related. The query is
taken literally: quotes, colons, dashes, paths and code identifiers are just text.

A project keeps that project's memories and general's. A scope is a project
name, an area name, recent (updated in the last 7 days, or --since), open (open
action items), meetings, meeting:<id> (a meeting and what came of it) or all.
Without a query, recall ranks a scope's memories by recency, activation and
importance; --tags, --type or --since alone recall from every project.`,
		Example: `  cortex recall jwt signing algorithm
  cortex recall --project my-webapp "connection pool size"
  cortex recall --scope recent --since 3d
  cortex recall --project my-webapp --tags redis --explain timeout`,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runRecall(cmd.Context(), a, o, strings.Join(args, " "))
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.project, "project", "", "recall from this project (and general)")
	f.StringVar(&o.scope, "scope", "", "a project or area name, recent, open, meetings, meeting:<id> or all")
	f.StringVar(&o.since, "since", "", "only memories updated within this long (7d, 12h, 2w) or since a date")
	f.StringVar(&o.typ, "type", "", "recall memories of this type only")
	f.StringSliceVar(&o.tags, "tags", nil, "only memories with every one of these tags, comma-separated")
	f.IntVar(&o.limit, "limit", memories.DefaultRecallLimit, fmt.Sprintf("how many memories, 1 to %d (related ones come on top, up to twice as many)", memories.MaxRecallLimit))
	f.BoolVar(&o.all, "all", false, "include superseded memories")
	f.BoolVar(&o.full, "full", false, "print whole memories, not excerpts")
	f.BoolVar(&o.explain, "explain", false, "show each result's four signals, their weights and the score")
	return cmd
}

// mapCatalogs is index.MapCatalogs (a variable for the test that checks
// recall and context ask for it).
var mapCatalogs = index.MapCatalogs

func runRecall(ctx context.Context, a *app, o recallOptions, query string) (err error) {
	// The flag defaults to 10, so a 0 here was typed: refused, not taken as
	// the default the service gives 0.
	if err := memories.CheckRange("limit", o.limit, 1, memories.MaxRecallLimit); err != nil {
		return err
	}
	// A recall lives for milliseconds: collecting (once or twice at 10,000
	// notes) frees only what exit frees anyway.
	defer shortLivedGC(a.getenv)()
	// A recall looks up its candidates in the index catalog and then exits:
	// the catalog is mapped rather than copied into memory (at 10,000 notes
	// a megabyte read page by page into fresh memory, about a tenth of the
	// recall after start-up), as list and save do. A fault reading the
	// mapping (the file truncated by hand meanwhile) is an error, not a
	// crash.
	mapCatalogs()
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer catalogFault(&err)
	svc, err := a.open()
	if err != nil {
		return err
	}
	res, err := svc.Recall(ctx, memories.RecallRequest{
		Query: query, Project: o.project, Scope: o.scope, Since: o.since, Type: o.typ, Tags: o.tags,
		Limit: o.limit, IncludeSuperseded: o.all,
	})
	if err != nil {
		return err
	}
	if a.asJSON {
		return a.printJSON(view.RecallOf(res, o.explain, a.store.Vault().Abs))
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
		if r.Related {
			fmt.Fprintf(w, "[%s] %s (related to [%s])\n", r.ShortID, m.Title, a.shortOf(res, r.Via))
		} else {
			fmt.Fprintf(w, "[%s] %s\n", r.ShortID, m.Title)
		}
		meta := []string{"project:" + m.Project, string(m.Type)}
		if m.Status != memories.StatusActive {
			meta = append(meta, string(m.Status))
		}
		if t := tagList(m.Tags); t != "" {
			meta = append(meta, t)
		}
		meta = append(meta, "updated "+day(m.Updated), fmt.Sprintf("score %.2f", r.Score))
		fmt.Fprintf(w, "  %s\n", strings.Join(meta, " · "))
		if o.explain {
			fmt.Fprintf(w, "  explain: %s\n", view.ExplainOf(r))
		}
		body := m.Content()
		if !o.full {
			body = excerpt(body, 400)
		}
		indent(w, "  ", body)
		fmt.Fprintf(w, "  → %s\n", a.store.Vault().VaultPath(m.Path))
	}
	return nil
}

// shortOf is the short id of a result of res, or the id itself.
func (a *app) shortOf(res *memories.RecallResult, id string) string {
	for _, r := range res.Results {
		if r.Memory.ID == id {
			return r.ShortID
		}
	}
	return id
}
