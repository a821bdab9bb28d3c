package mcp

import (
	"context"
	"fmt"
	"strings"
	"time"

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
	Tool         string `json:"tool,omitempty" jsonschema:"only this agent tool's sessions: claude-code, codex or gemini-cli"`
	Project      string `json:"project,omitempty" jsonschema:"only sessions of this project: its name (the folder's or the repository's, e.g. my-webapp) or a folder path (sessions started in it or below it)"`
	Since        string `json:"since,omitempty" jsonschema:"only exchanges within this long (7d, 12h, 2w, 90m) or since a date (2026-11-01)"`
	Session      string `json:"session,omitempty" jsonschema:"only this session: its id or the start of one"`
	AllExchanges bool   `json:"all_exchanges,omitempty" jsonschema:"true to get every matching exchange; by default only the best one of each session"`
}

// TranscriptSearchOutput is what transcript_search found.
type TranscriptSearchOutput struct {
	Query   string           `json:"query"`
	Count   int              `json:"count"`
	Results []TranscriptSeen `json:"results"`
	// Message is set when nothing was found.
	Message string `json:"message,omitempty"`
}

// TranscriptSeen is one exchange found in a past session.
type TranscriptSeen struct {
	Tool    string    `json:"tool" jsonschema:"the agent tool that wrote the session: claude-code, codex or gemini-cli"`
	Session string    `json:"session" jsonschema:"the session's id"`
	Agent   string    `json:"agent,omitempty" jsonschema:"the subagent whose conversation it is, when it is one"`
	Date    time.Time `json:"date,omitzero" jsonschema:"when the exchange began"`
	Project string    `json:"project,omitempty" jsonschema:"the project's name (repository or folder)"`
	Cwd     string    `json:"cwd,omitempty" jsonschema:"the folder the session worked in"`
	Branch  string    `json:"branch,omitempty"`
	Kind    string    `json:"kind" jsonschema:"exchange (a turn the person typed and the agent's reply up to the next one) or compaction (a summary the tool wrote when its context filled up)"`
	Rewound bool      `json:"rewound,omitempty" jsonschema:"true when the person went back from this exchange (rewind, undo): it is not part of the conversation as it stands"`
	User    string    `json:"user" jsonschema:"what the person typed, trimmed"`
	Reply   string    `json:"reply" jsonschema:"what the agent answered (and what failed tools said), trimmed"`
	Snippet string    `json:"snippet,omitempty" jsonschema:"the part of the reply that matched, the query's words marked **like this**"`
	Tools   []string  `json:"tools,omitempty" jsonschema:"the tools the agent called"`
	Paths   []string  `json:"paths,omitempty" jsonschema:"the files it read or edited"`
	File    string    `json:"file" jsonschema:"the transcript file"`
	Line    int       `json:"line,omitempty" jsonschema:"the line of the transcript where the exchange starts (0 for a tool that rewrites one JSON document)"`
	Score   float64   `json:"score" jsonschema:"relevance blended with recency, 0 to 1"`
}

const transcriptSearchDescription = `Search the raw conversations of past agent sessions on this machine — every Claude Code, Codex and Gemini CLI session, not only this one and not cortex's saved memories — for what was asked, answered, run or edited.

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

func (s *server) transcriptSearch(ctx context.Context, in TranscriptSearchInput) (TranscriptSearchOutput, string, error) {
	res, err := s.transcripts.Search(ctx, transcripts.Request{
		Query: in.Query, Limit: in.Limit, Tool: in.Tool, Project: in.Project, Since: in.Since, Session: in.Session,
		AllExchanges: in.AllExchanges,
	})
	if err != nil {
		return TranscriptSearchOutput{}, "", err
	}
	out := TranscriptSearchOutput{Query: res.Query, Count: res.Count, Results: []TranscriptSeen{}}
	if res.Count == 0 {
		out.Message = transcripts.EmptyMessage + " for: " + res.Query
		return out, out.Message, nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "### Past sessions (%d)\n", res.Count)
	for _, h := range res.Hits {
		seen := TranscriptSeen{
			Tool: h.Tool, Session: h.Session, Agent: h.Agent, Date: h.Time, Project: h.Project, Cwd: h.Cwd, Branch: h.Branch,
			Kind: h.Kind, Rewound: h.Rewound, User: h.User, Reply: h.Reply, Snippet: h.Snippet, Tools: h.Tools, Paths: h.Paths,
			File: h.File, Line: h.Line, Score: h.Score,
		}
		out.Results = append(out.Results, seen)
		writeTranscriptSeen(&b, &seen)
	}
	return out, b.String(), nil
}

// writeTranscriptSeen renders an exchange for a model to read: where and
// when, what was said, where to read more.
func writeTranscriptSeen(b *strings.Builder, h *TranscriptSeen) {
	meta := []string{h.Tool}
	if !h.Date.IsZero() {
		meta = append(meta, h.Date.UTC().Format("2006-01-02 15:04 UTC"))
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
	if h.Line > 0 {
		fmt.Fprintf(b, "source: %s:%d\n", h.File, h.Line)
	} else {
		fmt.Fprintf(b, "source: %s\n", h.File)
	}
}
