package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/cortexmem/cortex/memories"
)

type statusOptions struct {
	days, staleDays, limit int
}

func newStatusCmd(a *app) *cobra.Command {
	var o statusOptions
	cmd := &cobra.Command{
		Use:   "status",
		Short: "What the memory holds and what needs attention: projects, recent activity, overdue items, the inbox",
		Long: `Status gives an overview: totals (memories, open and done action items,
superseded ones), the most lately changed projects with their open and overdue
items, recent activity, overdue action items (open, past their due date), stale
ones (open and not updated for --stale-days), the capture inbox's backlog
(events pending and failed), the index's health, and what the hooks did in the
last day with the latest session-start briefing and its receipt. Every list is
bounded by --limit. It changes nothing and records no access.`,
		Example: `  cortex status
  cortex status --days 30 --limit 20
  cortex status --json`,
		Args: args(0, 0, "takes no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runStatus(cmd.Context(), a, o)
		},
	}
	f := cmd.Flags()
	f.IntVar(&o.days, "days", memories.DefaultStatusDays, "recent activity: the last this many days")
	f.IntVar(&o.staleDays, "stale-days", memories.DefaultStaleDays, "an open action item not updated for this many days is stale")
	f.IntVar(&o.limit, "limit", memories.DefaultStatusLimit, fmt.Sprintf("how many lines each list shows, 1 to %d", memories.MaxStatusLimit))
	return cmd
}

func runStatus(ctx context.Context, a *app, o statusOptions) error {
	// The flags default to non-zero values, so a 0 here was typed: refused.
	for _, v := range []struct {
		arg string
		n   int
		hi  int
	}{{"days", o.days, 3650}, {"stale-days", o.staleDays, 3650}, {"limit", o.limit, memories.MaxStatusLimit}} {
		if err := memories.CheckRange(v.arg, v.n, 1, v.hi); err != nil {
			return err
		}
	}
	svc, err := a.open()
	if err != nil {
		return err
	}
	res, err := svc.Status(ctx, memories.StatusRequest{Days: o.days, StaleDays: o.staleDays, Limit: o.limit})
	if err != nil {
		return err
	}
	abs := a.store.Vault().VaultPath
	for _, items := range [][]memories.StatusItem{res.Recent.Items, res.Overdue, res.Stale} {
		for i := range items {
			items[i].Path = abs(items[i].Path)
		}
	}
	if a.asJSON {
		return a.printJSON(res)
	}
	writeStatus(a.stdout, res)
	return nil
}

// writeStatus renders the overview for a person.
func writeStatus(w io.Writer, r *memories.StatusResult) {
	t := r.Totals
	fmt.Fprintf(w, "Memories  %s (%d active, %d open, %d done, %d superseded)\n",
		quantity(t.Memories, "memory", "memories"), t.Active, t.Open, t.Done, t.Superseded)
	if r.ProjectCount > 0 {
		more := ""
		if r.ProjectCount > len(r.Projects) {
			more = fmt.Sprintf("; the %d most lately changed", len(r.Projects))
		}
		fmt.Fprintf(w, "\nProjects  %s%s\n", quantity(r.ProjectCount, "project", "projects"), more)
		for _, p := range r.Projects {
			open := ""
			if p.Open > 0 {
				open = fmt.Sprintf(" · %d open", p.Open)
				if p.Overdue > 0 {
					open += fmt.Sprintf(" (%d overdue)", p.Overdue)
				}
			}
			fmt.Fprintf(w, "  %-24s %s%s · updated %s\n", p.Name, quantity(p.Memories, "memory", "memories"), open, day(p.LastUpdated))
		}
	}
	rc := r.Recent
	fmt.Fprintf(w, "\nRecent    last %s: %d created, %d updated\n", quantity(rc.Days, "day", "days"), rc.Created, rc.Updated)
	for _, it := range rc.Items {
		fmt.Fprintf(w, "  [%s] %s · %s · %s · %s\n", it.ShortID, it.Title, it.Project, it.Type, day(it.Updated))
	}
	fmt.Fprintf(w, "\nOverdue   %s past due\n", quantity(r.OverdueCount, "open action item", "open action items"))
	for _, it := range r.Overdue {
		fmt.Fprintf(w, "  [%s] %s · %s · due %s\n", it.ShortID, it.Title, it.Project, it.Due)
	}
	fmt.Fprintf(w, "\nStale     %s not updated for %s\n", quantity(r.StaleCount, "open action item", "open action items"), quantity(r.StaleDays, "day", "days"))
	for _, it := range r.Stale {
		fmt.Fprintf(w, "  [%s] %s · %s · updated %s\n", it.ShortID, it.Title, it.Project, day(it.Updated))
	}
	if in := r.Inbox; in != nil {
		switch {
		case in.Error != "":
			fmt.Fprintf(w, "\nInbox     cannot be read: %s\n", in.Error)
		default:
			line := fmt.Sprintf("%d pending, %d failed", in.Pending, in.Failed)
			if in.Pending > 0 {
				line += fmt.Sprintf(" (oldest captured %s)", in.OldestPending.Local().Format("2006-01-02 15:04"))
			}
			fmt.Fprintf(w, "\nInbox     %s — %s\n", line, in.Dir)
			if in.LastFailure != "" {
				why := in.LastFailureError
				if why == "" {
					why = "no reason written"
				}
				fmt.Fprintf(w, "  last failure %s: %s\n", in.LastFailure, why)
			}
		}
	}
	ix := r.Index
	switch {
	case ix.Error != "":
		fmt.Fprintf(w, "\nIndex     cannot be read: %s (cortex doctor checks it, cortex reindex rebuilds it)\n", ix.Error)
	case ix.Unreadable > 0:
		fmt.Fprintf(w, "\nIndex     %s indexed; %d cannot be read (cortex doctor lists them)\n", quantity(ix.Notes, "note", "notes"), ix.Unreadable)
	default:
		fmt.Fprintf(w, "\nIndex     %s indexed\n", quantity(ix.Notes, "note", "notes"))
	}
	if h := r.Hooks; h != nil {
		fmt.Fprintf(w, "\nHooks     last 24 h: %s, %s — log %s\n", quantity(h.Runs, "run", "runs"), quantity(h.Errors, "error", "errors"), h.Log)
		if h.LastError != "" {
			fmt.Fprintf(w, "  last error %s: %s\n", h.LastErrorTime.Local().Format("2006-01-02 15:04"), firstLine(h.LastError))
		}
		if b := h.LastBriefing; b != nil {
			fmt.Fprintf(w, "  last briefing %s, %s, project %s: %s, %d of %d tokens\n  receipt %s\n",
				b.Time.Local().Format("2006-01-02 15:04"), b.Client, b.Project, quantity(b.Items, "memory", "memories"), b.Tokens, b.Budget, b.Path)
		}
	}
}

func quantity(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
