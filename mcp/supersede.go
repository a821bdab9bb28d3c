package mcp

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cortexmem/cortex/memories"
	"github.com/cortexmem/cortex/view"
)

// SupersedeInput is supersede's arguments.
type SupersedeInput struct {
	ID          string `json:"id" jsonschema:"the memory to replace or retire: its id or a unique prefix of at least 8 characters (the short id recall and list show)"`
	Replacement string `json:"replacement,omitempty" jsonschema:"what is true now, as the new memory's content; leave out to retire the memory without a successor"`
	Title       string `json:"title,omitempty" jsonschema:"the replacement's title (default: its first line)"`
	Reason      string `json:"reason,omitempty" jsonschema:"why, in one line (e.g. raised after the load test)"`
}

const supersedeDescription = `Replace a memory that is no longer true with what is true now, or retire it. The old note stays in the vault, marked superseded and linked to its replacement (history stays visible); recall leaves it out.

Use it when a fact changed ("the pool is 40 now, not 20"), a decision was reversed, or a memory is wrong. Prefer it to saving a second, contradicting memory — and to deleting anything.

Do not use it for a memory you merely want to add detail to without anything becoming untrue (save a related memory instead).

Behaviour: marks the old note superseded (its other properties untouched) and, with a replacement, writes the new note through the checks of memory_save (a replacement may repeat its predecessor; it may not duplicate another memory). A memory can be superseded once. Local.`

func supersedeTool(srv *mcp.Server, s *server) {
	addTool(srv, s, &mcp.Tool{
		Name: "supersede", Description: supersedeDescription, InputSchema: inputSchema[SupersedeInput](),
		Annotations: mutation("Supersede a memory", true, false),
	}, s.supersede)
}

func (s *server) supersede(ctx context.Context, in SupersedeInput) (view.Supersede, string, error) {
	res, err := s.svc.Supersede(ctx, memories.SupersedeRequest{
		ID: in.ID, Replacement: in.Replacement, Title: in.Title, Reason: in.Reason,
		Source: memories.SourceMCP, Client: clientFrom(ctx),
	})
	if err != nil {
		return view.Supersede{}, "", err
	}
	out := view.SupersedeOf(res, s.abs)
	return out, out.Message, nil
}
