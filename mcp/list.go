package mcp

import (
	"context"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cortexmem/cortex/memories"
	"github.com/cortexmem/cortex/view"
)

// ListInput is memory_list's arguments.
type ListInput struct {
	Project string `json:"project,omitempty" jsonschema:"list this project only (leave out for every project)"`
	ScopeID string `json:"scope_id,omitempty" jsonschema:"another name for project"`
	Filter  string `json:"filter,omitempty" jsonschema:"keep titles that fuzzy-match this text, best match first"`
	Type    string `json:"type,omitempty" jsonschema:"only memories of this type"`
	Status  string `json:"status,omitempty" jsonschema:"active, open, done, superseded or all (default: all but superseded)"`
	Limit   *int   `json:"limit,omitempty" jsonschema:"the most memories to show, newest (or best match) first (default 100; 0 shows them all)"`
}

const listDescription = `List the memories of a scope, newest first: how many there are, where they came from (user, import, mined…) and one line per memory with its id, title and project, the first 100 unless limit says otherwise.

Use it to see what cortex holds about a project, to find a memory whose title you half remember (filter fuzzy-matches titles), or before cleaning up with supersede.

Do not use it to answer a question (memory_recall ranks by relevance and is faster to read).

Behaviour: read-only; it records nothing, not even use. Local.`

func listTool(srv *mcp.Server, s *server) {
	addTool(srv, s, &mcp.Tool{
		Name: "memory_list", Description: listDescription, InputSchema: inputSchema[ListInput](),
		Annotations: readOnly("List memories"),
	}, s.list)
}

func (s *server) list(ctx context.Context, in ListInput) (view.List, string, error) {
	p, err := project(in.Project, in.ScopeID)
	if err != nil {
		return view.List{}, "", err
	}
	limit := memories.DefaultListLimit
	if in.Limit != nil {
		limit = *in.Limit
	}
	res, err := s.svc.List(ctx, memories.ListRequest{Project: p, Filter: in.Filter, Type: in.Type, Status: in.Status, Limit: limit})
	if err != nil {
		return view.List{}, "", err
	}
	out := view.ListOf(res, s.abs)
	if res.Total == 0 {
		return out, res.EmptyMessage(), nil
	}
	var b strings.Builder
	noun := "memories"
	if res.Total == 1 {
		noun = "memory"
	}
	fmt.Fprintf(&b, "%d %s\nSources: %s\n", res.Total, noun, res.SourceSummary())
	for _, it := range res.Items {
		status := ""
		if it.Status != memories.StatusActive {
			status = " | " + string(it.Status)
		}
		fmt.Fprintf(&b, "- [%s] %s | project:%s%s\n", it.ShortID, it.Title, it.Project, status)
	}
	if m := res.MoreMessage(""); m != "" {
		b.WriteString(m + "\n")
	}
	return out, b.String(), nil
}
