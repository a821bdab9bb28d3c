package main

import (
	"context"
	"fmt"
	"io"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"

	"github.com/cortexmem/cortex/memories"
	"github.com/cortexmem/cortex/scribe"
	"github.com/cortexmem/cortex/transcripts"
)

type transcriptsSearchOptions struct {
	tool, project, since, session string
	limit                         int
	allExchanges                  bool
}

func newTranscriptsSearchCmd(a *app) *cobra.Command {
	var o transcriptsSearchOptions
	cmd := &cobra.Command{
		Use:   "search QUERY...",
		Short: "Find the exchanges of agents' sessions that match a query",
		Long: `search finds the exchanges — a turn you typed and the agent's reply up to your
next one — that best match the query, one per session (the best one) unless
--all-exchanges is given. It ranks by BM25 over the exchange, weighing your own
words, file paths and tool names more; identifiers, paths and error codes
(pkg.Func, src/auth/jwt.go, E0502) count most when found whole; newer sessions
come first on a tie. The query is taken literally.

Each result names the tool, the session, when and where (project and branch),
shows the exchange trimmed with the matched words marked **like this**, and
points back at the transcript: file and line (cortex transcripts show SESSION
--around LINE prints it in context). Exchanges on a branch you rewound away
from, and compaction summaries, are marked as such.

--project takes a project's name (its folder's or repository's) or a path: a
session started in that folder or below it.`,
		Example: `  cortex transcripts search flaky login test
  cortex transcripts search --tool codex --since 7d "ECONNREFUSED"
  cortex transcripts search --project my-webapp src/auth/jwt.go
  cortex transcripts search --session 5c1e0a4e --all-exchanges migration`,
		Args: args(1, -1, "give the words to search for"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runTranscriptsSearch(cmd.Context(), a, o, strings.Join(args, " "))
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.tool, "tool", "", "only this tool's sessions: "+strings.Join(scribe.Tools(), ", "))
	f.StringVar(&o.project, "project", "", "only sessions of this project: a name, or a folder (the session's or one above it)")
	f.StringVar(&o.since, "since", "", "only exchanges since then: 7d, 12h, 2w, 90m or a date")
	f.StringVar(&o.session, "session", "", "only this session (its id, or the start of it)")
	f.IntVar(&o.limit, "limit", transcripts.DefaultLimit, fmt.Sprintf("how many results, 1 to %d", transcripts.MaxLimit))
	f.BoolVar(&o.allExchanges, "all-exchanges", false, "every matching exchange, not only the best one of each session")
	return cmd
}

func runTranscriptsSearch(ctx context.Context, a *app, o transcriptsSearchOptions, query string) error {
	if err := a.resolve(); err != nil {
		return err
	}
	req := transcripts.Request{Query: query, Tool: o.tool, Project: o.project, Since: o.since, Session: o.session,
		Limit: o.limit, AllExchanges: o.allExchanges}
	if o.limit == 0 {
		return &memories.ArgError{Arg: "limit", Rule: fmt.Sprintf("is 0; it must be from 1 to %d", transcripts.MaxLimit)}
	}
	// The process exits after this one search, which allocates a few MB:
	// collecting them would cost it more (a collection of about a tenth of
	// its CPU) than keeping them until it exits.
	debug.SetGCPercent(400)
	svc, err := a.transcripts()
	if err != nil {
		return err
	}
	res, err := svc.Search(ctx, req)
	if err != nil {
		return err
	}
	a.warnBusy(res.Sync)
	if a.asJSON {
		return a.printJSON(res)
	}
	if res.Count == 0 {
		fmt.Fprintln(a.stdout, res.Message)
		return nil
	}
	for i, h := range res.Hits {
		if i > 0 {
			fmt.Fprintln(a.stdout)
		}
		printTranscriptHit(a.stdout, &h)
	}
	return nil
}

// printTranscriptHit prints one exchange found: where and when, what was
// said, and where to read it.
func printTranscriptHit(w io.Writer, h *transcripts.Hit) {
	fmt.Fprintln(w, transcriptHeading(h))
	if h.Kind == "compaction" {
		indent(w, "  summary: ", oneLine(firstNonEmpty(h.Snippet, h.Reply), 400))
	} else {
		indent(w, "  you:     ", oneLine(h.User, 300))
		if reply := firstNonEmpty(h.Snippet, oneLine(h.Reply, 300)); reply != "" {
			indent(w, "  agent:   ", oneLine(reply, 400))
		}
	}
	var tail []string
	if len(h.Tools) > 0 {
		tail = append(tail, "tools: "+strings.Join(limitList(h.Tools, 6), ", "))
	}
	if len(h.Paths) > 0 {
		tail = append(tail, "files: "+strings.Join(limitList(h.Paths, 4), ", "))
	}
	if len(tail) > 0 {
		fmt.Fprintf(w, "  %s\n", strings.Join(tail, " · "))
	}
	fmt.Fprintf(w, "  %s\n", transcriptPointer(h))
}

// transcriptHeading is a result's first line: tool, time, project, session
// and what kind of exchange it is.
func transcriptHeading(h *transcripts.Hit) string {
	parts := []string{h.Tool}
	if !h.Time.IsZero() {
		parts = append(parts, h.Time.Local().Format("2006-01-02 15:04"))
	}
	if h.Project != "" {
		p := h.Project
		if h.Branch != "" {
			p += " (" + h.Branch + ")"
		}
		parts = append(parts, p)
	}
	parts = append(parts, "session "+shortSession(h.Session))
	if h.Agent != "" {
		parts = append(parts, "subagent "+h.Agent)
	}
	switch {
	case h.Kind == "compaction":
		parts = append(parts, "compaction summary")
	case h.Rewound:
		parts = append(parts, "rewound (a branch the conversation went back from)")
	}
	return strings.Join(parts, " · ")
}

// transcriptPointer is file:line (or the position in a document a tool
// rewrites whole).
func transcriptPointer(h *transcripts.Hit) string {
	switch {
	case h.Line > 0:
		return fmt.Sprintf("%s:%d", h.File, h.Line)
	case h.Pointer != "":
		return fmt.Sprintf("%s#%s", h.File, h.Pointer)
	}
	return fmt.Sprintf("%s@%d", h.File, h.Offset)
}

func shortSession(s string) string {
	if len(s) > 13 {
		return s[:13] + "…"
	}
	return s
}

// oneLine folds text onto one line and cuts it to about n bytes.
func oneLine(s string, n int) string {
	return excerpt(strings.Join(strings.Fields(s), " "), n)
}

func firstNonEmpty(s ...string) string {
	for _, x := range s {
		if x != "" {
			return x
		}
	}
	return ""
}

func limitList(list []string, n int) []string {
	if len(list) <= n {
		return list
	}
	return append(list[:n:n], fmt.Sprintf("… %d more", len(list)-n))
}
