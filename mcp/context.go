package mcp

import (
	"context"
	"errors"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cortexmem/cortex/briefing"
	"github.com/cortexmem/cortex/view"
)

// ContextInput is context_assemble's arguments (and cortex context's).
type ContextInput struct {
	Query      string `json:"query" jsonschema:"the task or question the briefing is for, in plain words (at most 500 characters)"`
	Project    string `json:"project,omitempty" jsonschema:"the project you are working in (as saved, e.g. my-webapp); required"`
	ScopeID    string `json:"scope_id,omitempty" jsonschema:"another name for project"`
	Budget     int    `json:"budget,omitempty" jsonschema:"the most tokens (characters/4) the briefing may take, 100 to 20000 (default 1500)"`
	Synthesize bool   `json:"synthesize,omitempty" jsonschema:"true to have the configured synthesis command (a small model) write the briefing from the material; the deterministic briefing comes back, saying why, when it is missing, fails or answers something unsafe"`
}

const contextDescription = `Assemble one briefing for a task from everything cortex knows: the project's playbook (its conventions and standing decisions, bans first), the memories that best answer the query, the decisions related to them with the code edits they produced (lineage mined from agents' transcripts), and the best excerpts of past agent conversations — deduplicated, each item with its short id and note path (or transcript file:line) so you can open it, all within a token budget (default 1,500 tokens).

Use it when you start work on a task or join a project mid-session ("what do I need to know to fix the auth flow?"), or before deciding something in an area where earlier decisions exist. Use memory_recall for a quick keyword lookup, memory_list for an inventory.

Behaviour: read-only for the notes; records that the memories shown were used (which makes them rank higher later). Deterministic unless synthesize is true, which runs the configured local command (by default claude -p --model haiku, which sends the material to its model); its answer is scanned like a save and must fit the budget, else the deterministic briefing is returned with a line saying why. Returns the briefing as markdown.`

func contextTool(srv *mcp.Server, s *server) {
	addTool(srv, s, &mcp.Tool{
		Name: "context_assemble", Description: contextDescription,
		InputSchema: inputSchema[ContextInput](intRange{"budget", briefing.MinBudget, briefing.MaxBudget}),
		Annotations: readOnly("Assemble a briefing"),
	}, s.context)
}

func (s *server) context(ctx context.Context, in ContextInput) (view.Context, string, error) {
	if s.briefing == nil {
		return view.Context{}, "", errors.New("context_assemble: this server has no briefing service")
	}
	p, err := project(in.Project, in.ScopeID)
	if err != nil {
		return view.Context{}, "", err
	}
	b, err := s.briefing.Assemble(ctx, briefing.Request{Query: in.Query, Project: p, Budget: in.Budget, Synthesize: in.Synthesize})
	if err != nil {
		return view.Context{}, "", err
	}
	return view.ContextOf(b), b.Markdown, nil
}
