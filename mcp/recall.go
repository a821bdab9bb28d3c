package mcp

import (
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cortexmem/cortex/memories"
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

// RecallOutput is what recall found.
type RecallOutput struct {
	Query   string     `json:"query"`
	Project string     `json:"project,omitempty"`
	Scope   string     `json:"scope,omitempty"`
	Count   int        `json:"count"`
	Results []Recalled `json:"results"`
	// Message is set when nothing was found.
	Message string `json:"message,omitempty"`
}

// Recalled is one recalled memory.
type Recalled struct {
	Memory
	Content string   `json:"content" jsonschema:"the memory's text, markdown"`
	Score   float64  `json:"score" jsonschema:"the blended score, 0 to 1"`
	Related bool     `json:"related,omitempty" jsonschema:"true when the memory was not found by the query but is linked from a result"`
	Via     string   `json:"via,omitempty" jsonschema:"for a related memory, the short id of the result that links to it"`
	Explain *Explain `json:"explain,omitempty"`
}

// Explain breaks a score into its signals.
type Explain struct {
	Relevance  Term    `json:"relevance"`
	Recency    Term    `json:"recency"`
	Activation Term    `json:"activation"`
	Importance Term    `json:"importance"`
	Score      float64 `json:"score"`
}

// Term is one signal of the blend: the signal, its effective weight, and their
// product.
type Term struct {
	Signal       float64 `json:"signal"`
	Weight       float64 `json:"weight"`
	Contribution float64 `json:"contribution"`
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

func (s *server) recall(ctx context.Context, in RecallInput) (RecallOutput, string, error) {
	p, err := project(in.Project, in.ScopeID)
	if err != nil {
		return RecallOutput{}, "", err
	}
	res, err := s.svc.Recall(ctx, memories.RecallRequest{
		Query: in.Query, Project: p, Scope: in.Scope, Since: in.Since, Type: in.Type, Tags: in.Tags,
		Limit: in.Limit, IncludeSuperseded: in.IncludeSuperseded,
	})
	if err != nil {
		return RecallOutput{}, "", err
	}
	out := RecallOutput{Query: res.Query, Project: res.Project, Scope: res.Scope, Count: len(res.Results), Results: []Recalled{}}
	short := map[string]string{}
	for _, r := range res.Results {
		short[r.Memory.ID] = r.ShortID
	}
	var b strings.Builder
	for i, r := range res.Results {
		rec := Recalled{Memory: s.memory(r.Memory, r.ShortID), Content: r.Memory.Content(), Score: round(r.Score), Related: r.Related}
		if r.Related {
			rec.Via = short[r.Via]
		}
		if in.Explain {
			rec.Explain = explain(r)
		}
		out.Results = append(out.Results, rec)
		if i == 0 {
			b.WriteString("### Memories\n")
		}
		writeRecalled(&b, rec)
	}
	if len(res.Results) == 0 {
		out.Message = res.EmptyMessage()
		return out, out.Message, nil
	}
	return out, b.String(), nil
}

// writeRecalled renders a memory for a model to read: the id to cite, what it
// is, then its text.
func writeRecalled(b *strings.Builder, r Recalled) {
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
	if e := r.Explain; e != nil {
		fmt.Fprintf(b, "explain: relevance %.2f×%.2f + recency %.2f×%.2f + activation %.2f×%.2f + importance %.2f×%.2f = %.3f\n",
			e.Relevance.Signal, e.Relevance.Weight, e.Recency.Signal, e.Recency.Weight,
			e.Activation.Signal, e.Activation.Weight, e.Importance.Signal, e.Importance.Weight, e.Score)
	}
	fmt.Fprintf(b, "\n%s\n", r.Content)
}

func explain(r memories.Recalled) *Explain {
	t := func(sig, w float64) Term {
		return Term{Signal: round(sig), Weight: round(w), Contribution: round(sig * w)}
	}
	return &Explain{
		Relevance: t(r.Signals.Relevance, r.Weights.Relevance), Recency: t(r.Signals.Recency, r.Weights.Recency),
		Activation: t(r.Signals.Activation, r.Weights.Activation), Importance: t(r.Signals.Importance, r.Weights.Importance),
		Score: round(r.Score),
	}
}

func round(f float64) float64 { return math.Round(f*1e6) / 1e6 }
