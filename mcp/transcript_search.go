package mcp

import (
	"context"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cortexmem/cortex/transcripts"
)

// TranscriptSearcher is what transcript_search calls: the transcript index
// (transcripts.Service).
type TranscriptSearcher interface {
	Search(ctx context.Context, r transcripts.Request) (*transcripts.Result, error)
}

var _ TranscriptSearcher = (*transcripts.Service)(nil)

// TranscriptSearchInput is transcript_search's arguments (and cortex
// transcripts search's).
type TranscriptSearchInput struct {
	Query        string `json:"query" jsonschema:"what you are looking for in past conversations, in plain words: what was asked or answered, an error message, a file path, a command or an identifier (taken literally). At most 500 characters"`
	Limit        int    `json:"limit,omitempty" jsonschema:"how many results, 1 to 20 (default 5)"`
	Tool         string `json:"tool,omitempty" jsonschema:"only this agent tool's sessions: claude-code, codex, gemini-cli, cursor, opencode or zed"`
	Project      string `json:"project,omitempty" jsonschema:"only sessions of this project: its name (the folder's or the repository's, e.g. my-webapp) or a folder path (sessions started in it or below it)"`
	Since        string `json:"since,omitempty" jsonschema:"only exchanges within this long (7d, 12h, 2w, 90m) or since a date (2026-11-01)"`
	Session      string `json:"session,omitempty" jsonschema:"only this session: its id or the start of one"`
	AllExchanges bool   `json:"all_exchanges,omitempty" jsonschema:"true to get every matching exchange; by default only the best one of each session"`
}

const transcriptSearchDescription = `Search the raw conversations of past agent sessions on this machine — every session of Claude Code, Codex, Gemini CLI, Cursor, OpenCode and Zed, not only this one and not cortex's saved memories — for what was asked, answered, run or edited.

Use it to find when something was discussed or done before ("when did we move the cache to Redis?", "what was the error when the migration failed?", "which session edited src/auth/jwt.go?"), to recover a command, an error message or a decision that was said in a session but never saved, or to pick up where an earlier session left off.

Do not use it for durable knowledge (memory_recall holds decisions and conventions someone chose to keep, and ranks them better), nor for the current session (you already have it).

Behaviour: read-only (it brings its own index of the transcripts up to date first, in cortex's state folder). Local: nothing leaves the machine. Credentials in the transcripts are redacted. Returns, best first and one per session unless all_exchanges is true, the tool, session, date, project, the exchange trimmed with the matched words marked, and the transcript file and line; or "No matching sessions".`

func transcriptSearchTool(srv *mcp.Server, s *server) {
	if s.transcripts == nil {
		return
	}
	addTool(srv, s, &mcp.Tool{
		Name: "transcript_search", Description: transcriptSearchDescription,
		InputSchema: inputSchema[TranscriptSearchInput](intRange{"limit", 1, transcripts.MaxLimit}),
		Annotations: readOnly("Search past agent sessions"),
	}, s.transcriptSearch)
}

// transcriptSearch answers with the service's result as it is, the
// structured content cortex transcripts search --json prints too, and a
// text rendering of it for the model.
func (s *server) transcriptSearch(ctx context.Context, in TranscriptSearchInput) (transcripts.Result, string, error) {
	res, err := s.transcripts.Search(ctx, transcripts.Request{
		Query: in.Query, Limit: in.Limit, Tool: in.Tool, Project: in.Project, Since: in.Since, Session: in.Session,
		AllExchanges: in.AllExchanges,
	})
	if err != nil {
		return transcripts.Result{}, "", err
	}
	if res.Count == 0 {
		return *res, res.Message, nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "### Past sessions (%d)\n", res.Count)
	for i := range res.Hits {
		writeTranscriptSeen(&b, &res.Hits[i])
	}
	return *res, b.String(), nil
}

// writeTranscriptSeen renders an exchange for a model to read: where and
// when, what was said, where to read more.
func writeTranscriptSeen(b *strings.Builder, h *transcripts.Hit) {
	meta := []string{h.Tool}
	if !h.Time.IsZero() {
		meta = append(meta, h.Time.UTC().Format("2006-01-02 15:04 UTC"))
	}
	if h.Project != "" {
		p := "project: " + h.Project
		if h.Branch != "" {
			p += " (" + h.Branch + ")"
		}
		meta = append(meta, p)
	}
	meta = append(meta, "session: "+h.Session)
	if h.Agent != "" {
		meta = append(meta, "subagent: "+h.Agent)
	}
	switch {
	case h.Kind == "compaction":
		meta = append(meta, "compaction summary")
	case h.Rewound:
		meta = append(meta, "rewound: the person went back from this")
	}
	fmt.Fprintf(b, "\n#### %s\n", strings.Join(meta, " · "))
	if h.Kind != "compaction" {
		fmt.Fprintf(b, "**user:** %s\n", h.User)
	}
	reply := h.Snippet
	if reply == "" {
		reply = h.Reply
	}
	if reply != "" {
		fmt.Fprintf(b, "**agent:** %s\n", reply)
	}
	if len(h.Tools) > 0 || len(h.Paths) > 0 {
		var parts []string
		if len(h.Tools) > 0 {
			parts = append(parts, "tools: "+strings.Join(h.Tools, ", "))
		}
		if len(h.Paths) > 0 {
			parts = append(parts, "files: "+strings.Join(h.Paths, ", "))
		}
		fmt.Fprintf(b, "%s\n", strings.Join(parts, " · "))
	}
	switch {
	case h.Line > 0:
		fmt.Fprintf(b, "source: %s:%d\n", h.File, h.Line)
	case h.Pointer != "":
		fmt.Fprintf(b, "source: %s#%s\n", h.File, h.Pointer)
	default:
		fmt.Fprintf(b, "source: %s\n", h.File)
	}
}
