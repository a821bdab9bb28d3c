package mcp

import (
	"context"
	"errors"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cortexmem/cortex/reflection"
	"github.com/cortexmem/cortex/view"
)

// ReflectInput is reflect's arguments (and cortex reflect's).
type ReflectInput struct {
	Session string `json:"session,omitempty" jsonschema:"the session to reflect on: its id, or the id's first 8 or more characters"`
	Project string `json:"project,omitempty" jsonschema:"instead of a session: the project whose sessions to reflect on (by its repository or folder name)"`
	ScopeID string `json:"scope_id,omitempty" jsonschema:"another name for project"`
	Since   string `json:"since,omitempty" jsonschema:"with project: the window, as a duration back from now (1d, 12h, 2w) or a date (2026-11-01); default 1d"`
	Style   string `json:"style,omitempty" jsonschema:"brief (default: 5 lines a section) or full"`
	Save    bool   `json:"save,omitempty" jsonschema:"true to store the roll-up as a reflection note in the vault, with provenance"`
}

const reflectDescription = `Roll up what happened in an agent session, or in a project's sessions over a window, from the agents' transcripts and the vault: the opening intent (the first thing the person typed), the questions asked, the decisions made (with links to their notes), the files changed, the friction (failed tool calls, errors, interruptions, rewinds, compactions), recurring patterns (commands run and files touched again and again) and open threads (open action items, questions left unanswered).

Use it at the end of a session or before a handover ("what did we do today in my-webapp?"), or to pick up a session where it stopped. Use transcript search to find a particular exchange, recall for durable knowledge.

Behaviour: deterministic, no model call; read-only unless save is true, which writes one reflection note (saving the same roll-up again writes nothing). Local. Returns the roll-up as markdown.`

func reflectTool(srv *mcp.Server, s *server) {
	addTool(srv, s, &mcp.Tool{
		Name: "reflect", Description: reflectDescription, InputSchema: inputSchema[ReflectInput](),
		Annotations: mutation("Reflect on a session", false, true),
	}, s.reflect)
}

func (s *server) reflect(ctx context.Context, in ReflectInput) (view.Reflect, string, error) {
	if s.reflection == nil {
		return view.Reflect{}, "", errors.New("reflect: this server has no reflection service")
	}
	p, err := project(in.Project, in.ScopeID)
	if err != nil {
		return view.Reflect{}, "", err
	}
	res, err := s.reflection.Reflect(ctx, reflection.Request{Session: in.Session, Project: p, Since: in.Since, Style: in.Style, Save: in.Save})
	if err != nil {
		return view.Reflect{}, "", err
	}
	out := view.ReflectOf(res, s.abs)
	text := res.Markdown
	if out.Saved != nil {
		text += "\n" + out.Saved.Message + "\n"
	}
	return out, text, nil
}
