package mcp

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cortexmem/cortex/memories"
	"github.com/cortexmem/cortex/view"
)

// SaveInput is memory_save's arguments.
type SaveInput struct {
	Content    string     `json:"content" jsonschema:"the memory: one fact, decision, convention or gotcha, with its why (10 to 10,000 characters, markdown). Write it for a reader who has none of today's context"`
	Title      string     `json:"title,omitempty" jsonschema:"a one-line title, at most 120 characters (default: the content's first line)"`
	Tags       StringList `json:"tags,omitempty" jsonschema:"tags without #: a list, or one comma-separated string (auth,jwt)"`
	Project    string     `json:"project,omitempty" jsonschema:"the project it belongs to (e.g. my-webapp); general when it holds for every project"`
	ScopeID    string     `json:"scope_id,omitempty" jsonschema:"another name for project"`
	Area       string     `json:"area,omitempty" jsonschema:"a broader area it belongs to, across projects (e.g. payments)"`
	Type       string     `json:"type,omitempty" jsonschema:"decision, preference, convention, gotcha, fact, lesson or note (default note)"`
	Importance int        `json:"importance,omitempty" jsonschema:"1 to 5 (default 3): 5 for what must never be forgotten"`
}

const saveDescription = `Save a durable memory: a decision with its rationale, a convention, a gotcha, a non-obvious bug fix, an environment quirk, a user preference — anything that would otherwise have to be re-explained in a later session. It becomes a markdown note in the user's Obsidian vault.

Use it when a decision is made ("we use RS256 because…"), when you learn something surprising that cost time, or when the user says "remember that…". Write one fact per memory, with the why.

Do not use it for session logs ("today I worked on…"), for what is obvious from the code, for guesses, or to change a memory that exists: use supersede for that.

Behaviour: writes one note, atomically, and indexes it. Every memory is scanned first: text that would steer a model (prompt injection), exfiltration commands, secrets and invisible characters are refused ("Memory rejected: <rule> at line N"). A memory that repeats an existing one of the same project or general is refused ("Memory already exists: [<id>] <title>"); say something new or supersede the old one. Related memories are linked. Not idempotent: a second identical save is refused as a duplicate. Local: nothing leaves the machine.`

func saveTool(srv *mcp.Server, s *server) {
	addTool(srv, s, &mcp.Tool{
		Name: "memory_save", Description: saveDescription,
		InputSchema: inputSchema[SaveInput](intRange{"importance", memories.MinImportance, memories.MaxImportance}),
		Annotations: mutation("Save a memory", false, false),
	}, s.save)
}

func (s *server) save(ctx context.Context, in SaveInput) (view.Save, string, error) {
	p, err := project(in.Project, in.ScopeID)
	if err != nil {
		return view.Save{}, "", err
	}
	res, err := s.svc.Save(ctx, memories.SaveRequest{
		Content: in.Content, Title: in.Title, Tags: in.Tags, Project: p, Area: in.Area, Type: in.Type, Importance: in.Importance,
		Source: memories.SourceMCP, Provenance: memories.Provenance{Client: clientFrom(ctx)},
	})
	if err != nil {
		return view.Save{}, "", err
	}
	out := view.SaveOf(res, s.abs)
	return out, out.Message, nil
}
