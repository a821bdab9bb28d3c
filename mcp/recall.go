package mcp

import (
	"context"
	"fmt"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cortexmem/cortex/memories"
	"github.com/cortexmem/cortex/view"
)

// RecallInput is memory_recall's arguments (and recall's).
type RecallInput struct {
	Query   string     `json:"query,omitempty" jsonschema:"what you want to know, in plain words: a question, keywords, an error message, a path or an identifier (taken literally; quotes, colons and dashes are just text). At most 500 characters. May be left out when project, scope, tags, type or since is given, to get the most useful memories they keep"`
	Project string     `json:"project,omitempty" jsonschema:"the project you are working in (as saved, e.g. my-webapp): its memories and general's are searched. Leave out to search every project"`
	ScopeID string     `json:"scope_id,omitempty" jsonschema:"another name for project"`
	Scope   string     `json:"scope,omitempty" jsonschema:"a project name, an area name, recent (updated in the last 7 days, or since), open (open action items), meetings, meeting:<id> (a meeting and what came of it) or all"`
	Limit   int        `json:"limit,omitempty" jsonschema:"how many memories to return, 1 to 50 (default 10); memories the results link to come on top, up to twice as many"`
	Since   string     `json:"since,omitempty" jsonschema:"only memories updated within this long (7d, 12h, 2w, 90m) or since a date (2026-11-01)"`
	Type    string     `json:"type,omitempty" jsonschema:"only memories of this type: decision, preference, convention, gotcha, fact, lesson, note, meeting, action, …"`
	Tags    StringList `json:"tags,omitempty" jsonschema:"only memories with every one of these tags: a list, or one comma-separated string"`
	Explain bool       `json:"explain,omitempty" jsonschema:"true to get each result's four ranking signals, their weights and the score"`
	// IncludeSuperseded asks for replaced memories too.
	IncludeSuperseded bool `json:"include_superseded,omitempty" jsonschema:"true to include memories that were superseded (replaced or retired); they are left out by default"`
}

const recallDescription = `Search cortex's long-term memory for durable knowledge: decisions and their rationale, conventions, gotchas, bug fixes, environment quirks, preferences and facts saved in earlier sessions (by you, other agents or the user in Obsidian).

Use it before you decide something that may have been decided before ("what did we pick for auth?"), when you hit an error that may have been solved before, and at the start of work on a project you have not seen in this session. Pass the project you are working in.

Do not use it to list everything (memory_list), and do not expect it to find what was only said in a conversation and never saved.

Behaviour: read-only for the notes; records that the returned memories were used, which makes frequently useful memories rank higher later. Local: nothing leaves the machine. Ranking blends relevance (BM25), recency, activation (use) and importance; words with common abbreviations match both spellings (db/database, k8s/kubernetes). Returns the memories as markdown with their ids, or "No memories found for: <query>".`

func recallTool(srv *mcp.Server, s *server) {
	addTool(srv, s, &mcp.Tool{
		Name: "memory_recall", Description: recallDescription, InputSchema: recallSchema(),
		Annotations: readOnly("Recall memories"),
	}, s.recall)
}

func recallScopeTool(srv *mcp.Server, s *server) {
	addTool(srv, s, &mcp.Tool{
		Name: "recall",
		Description: "Browse a scope of cortex's long-term memory: the same search as memory_recall, under the name its scope arguments suggest. " +
			"recall(scope=\"recent\") gives what changed in the last 7 days (or since), recall(scope=\"open\") the open action items, " +
			"recall(scope=\"meetings\") the meetings, recall(project=\"my-webapp\") a project's most useful memories, ranked by recency, use and importance when no query is given.\n\n" +
			"Use it at the start of work to see what a project or area holds; use memory_recall for a question; use memory_list for a full inventory.\n\n" +
			"Behaviour: read-only for the notes; records that the returned memories were used. Local.",
		InputSchema: recallSchema(),
		Annotations: readOnly("Recall a scope"),
	}, s.recall)
}

func recallSchema() *jsonschema.Schema {
	return inputSchema[RecallInput](intRange{"limit", 1, memories.MaxRecallLimit})
}

func (s *server) recall(ctx context.Context, in RecallInput) (view.Recall, string, error) {
	p, err := project(in.Project, in.ScopeID)
	if err != nil {
		return view.Recall{}, "", err
	}
	res, err := s.svc.Recall(ctx, memories.RecallRequest{
		Query: in.Query, Project: p, Scope: in.Scope, Since: in.Since, Type: in.Type, Tags: in.Tags,
		Limit: in.Limit, IncludeSuperseded: in.IncludeSuperseded,
	})
	if err != nil {
		return view.Recall{}, "", err
	}
	out := view.RecallOf(res, in.Explain, s.abs)
	if len(out.Results) == 0 {
		return out, out.Message, nil
	}
	var b strings.Builder
	b.WriteString("### Memories\n")
	for _, r := range out.Results {
		writeRecalled(&b, r)
	}
	return out, b.String(), nil
}

// writeRecalled renders a memory for a model to read: the id to cite, what it
// is, then its text.
func writeRecalled(b *strings.Builder, r view.Recalled) {
	fmt.Fprintf(b, "\n#### [%s] %s\n", r.ShortID, r.Title)
	meta := []string{"project: " + r.Project, "type: " + r.Type}
	if r.Status != string(memories.StatusActive) {
		meta = append(meta, "status: "+r.Status)
	}
	if len(r.Tags) > 0 {
		meta = append(meta, "tags: "+strings.Join(r.Tags, ", "))
	}
	meta = append(meta, "updated: "+r.Updated.UTC().Format("2006-01-02"))
	if r.Related {
		meta = append(meta, "related to ["+r.Via+"]")
	} else {
		meta = append(meta, fmt.Sprintf("score: %.2f", r.Score))
	}
	fmt.Fprintf(b, "%s\n", strings.Join(meta, " · "))
	if r.Explain != nil {
		fmt.Fprintf(b, "explain: %s\n", r.Explain)
	}
	fmt.Fprintf(b, "\n%s\n", r.Content)
}
