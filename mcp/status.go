package mcp

import (
	"context"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cortexmem/cortex/memories"
)

// StatusInput is status's arguments.
type StatusInput struct {
	Days      int `json:"days,omitempty" jsonschema:"recent activity covers the last this many days (default 7)"`
	StaleDays int `json:"stale_days,omitempty" jsonschema:"an open action item not updated for this many days is stale (default 30)"`
	Limit     int `json:"limit,omitempty" jsonschema:"how many entries each list holds, 1 to 50 (default 10)"`
}

// StatusOutput is the overview.
type StatusOutput struct {
	*memories.StatusResult
}

const statusDescription = `Overview of cortex's memory: totals (memories, open and done action items, superseded), the most lately changed projects with their open and overdue items, recent activity, overdue action items (open, past their due date), stale ones (open, not updated for a while), the capture inbox's backlog, the index's health and what the lifecycle hooks did in the last day.

Use it to see what is going on across the user's work, or what needs attention ("what is overdue?"), before planning. Use recall for what a project knows about a question.

Behaviour: read-only; records no access. Every list is bounded by limit, with the full count beside it. Local.`

func statusTool(srv *mcp.Server, s *server) {
	addTool(srv, s, &mcp.Tool{
		Name: "status", Description: statusDescription,
		InputSchema: inputSchema[StatusInput](intRange{"days", 1, 3650}, intRange{"stale_days", 1, 3650}, intRange{"limit", 1, memories.MaxStatusLimit}),
		Annotations: readOnly("Memory status"),
	}, s.status)
}

func (s *server) status(ctx context.Context, in StatusInput) (StatusOutput, string, error) {
	res, err := s.svc.Status(ctx, memories.StatusRequest{Days: in.Days, StaleDays: in.StaleDays, Limit: in.Limit})
	if err != nil {
		return StatusOutput{}, "", err
	}
	for _, items := range [][]memories.StatusItem{res.Recent.Items, res.Overdue, res.Stale} {
		for i := range items {
			items[i].Path = s.abs(items[i].Path)
		}
	}
	return StatusOutput{res}, statusText(res), nil
}

// statusText renders the overview for a model: short sections, ids to cite.
func statusText(r *memories.StatusResult) string {
	var b strings.Builder
	t := r.Totals
	fmt.Fprintf(&b, "### Status\n\n%d memories: %d active, %d open, %d done, %d superseded.\n", t.Memories, t.Active, t.Open, t.Done, t.Superseded)
	if len(r.Projects) > 0 {
		fmt.Fprintf(&b, "\n#### Projects (%d; most lately changed first)\n", r.ProjectCount)
		for _, p := range r.Projects {
			fmt.Fprintf(&b, "- %s: %d memories, %d open, %d overdue, updated %s\n", p.Name, p.Memories, p.Open, p.Overdue, p.LastUpdated.UTC().Format("2006-01-02"))
		}
	}
	fmt.Fprintf(&b, "\n#### Last %d days: %d created, %d updated\n", r.Recent.Days, r.Recent.Created, r.Recent.Updated)
	for _, it := range r.Recent.Items {
		fmt.Fprintf(&b, "- [%s] %s (%s, %s)\n", it.ShortID, it.Title, it.Project, it.Type)
	}
	fmt.Fprintf(&b, "\n#### Overdue action items: %d\n", r.OverdueCount)
	for _, it := range r.Overdue {
		fmt.Fprintf(&b, "- [%s] %s (%s, due %s)\n", it.ShortID, it.Title, it.Project, it.Due)
	}
	fmt.Fprintf(&b, "\n#### Stale action items (not updated for %d days): %d\n", r.StaleDays, r.StaleCount)
	for _, it := range r.Stale {
		fmt.Fprintf(&b, "- [%s] %s (%s, updated %s)\n", it.ShortID, it.Title, it.Project, it.Updated.UTC().Format("2006-01-02"))
	}
	if in := r.Inbox; in != nil {
		fmt.Fprintf(&b, "\n#### Inbox: %d pending, %d failed\n", in.Pending, in.Failed)
		if in.Error != "" {
			fmt.Fprintf(&b, "cannot be read: %s\n", in.Error)
		}
	}
	if r.Index.Error != "" {
		fmt.Fprintf(&b, "\n#### Index: cannot be read: %s\n", r.Index.Error)
	} else {
		fmt.Fprintf(&b, "\n#### Index: %d notes, %d unreadable\n", r.Index.Notes, max(r.Index.Unreadable, 0))
	}
	if h := r.Hooks; h != nil {
		fmt.Fprintf(&b, "\n#### Hooks (last 24 h): %d runs, %d errors\n", h.Runs, h.Errors)
	}
	return b.String()
}
