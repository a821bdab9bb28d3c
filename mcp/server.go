// Package mcp is cortex's MCP server: a thin transport over the same services
// the CLI calls (memories.Service), so that an agent and a person in a shell
// get the same answers and the same refusals.
//
// Each tool is one file: a typed input with jsonschema descriptions that tell a
// model when to use the tool and when not, a typed output (the structured
// result), a readable text rendering, and annotations. Adding a tool is adding
// its file and its line in the tools list below. Errors a person could make —
// invalid arguments, refusals (a duplicate, an unsafe text), an unknown id —
// come back as tool results with isError and the message the CLI prints, never
// as protocol errors.
package mcp

import (
	"context"
	_ "embed"
	"fmt"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cortexmem/cortex/memories"
)

//go:embed instructions.md
var instructions string

// Options configure the server.
type Options struct {
	// Version is cortex's version, reported to clients.
	Version string
	// Abs turns a note path relative to cortex's folder into an absolute one,
	// for results.
	Abs func(rel string) string
}

// server holds what the tools share.
type server struct {
	svc *memories.Service
	abs func(string) string
	// mu runs one tool at a time: the service is cheap per call, and one
	// store per process keeps its cached state simple.
	mu sync.Mutex
}

// tool registers one tool on a server.
type tool func(*mcp.Server, *server)

// tools are every tool the server offers, in the order tools/list gives them.
var tools = []tool{recallTool, recallScopeTool, saveTool, listTool, importTool, supersedeTool}

// New returns the MCP server for svc.
func New(svc *memories.Service, o Options) *mcp.Server {
	if o.Version == "" {
		o.Version = "dev"
	}
	if o.Abs == nil {
		o.Abs = func(rel string) string { return rel }
	}
	srv := mcp.NewServer(&mcp.Implementation{Name: "cortex", Title: "cortex memory", Version: o.Version},
		&mcp.ServerOptions{Instructions: instructions})
	s := &server{svc: svc, abs: o.Abs}
	for _, t := range tools {
		t(srv, s)
	}
	return srv
}

// handle wraps a service call as a tool handler: one call at a time, the text
// rendering beside the structured output. A failed call becomes a tool result
// with isError and the message the CLI prints (the SDK puts a handler's error
// there), never a protocol error.
func handle[In, Out any](s *server, call func(context.Context, In) (Out, string, error)) mcp.ToolHandlerFor[In, Out] {
	return func(ctx context.Context, _ *mcp.CallToolRequest, in In) (*mcp.CallToolResult, Out, error) {
		s.mu.Lock()
		defer s.mu.Unlock()
		out, text, err := call(ctx, in)
		if err != nil {
			var zero Out
			return nil, zero, plainError{err}
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, out, nil
	}
}

// plainError hides an error's type from the SDK, which passes some error types
// through as protocol errors: every service error is a tool result.
type plainError struct{ err error }

func (e plainError) Error() string { return e.err.Error() }
func (e plainError) Unwrap() error { return e.err }

// annotations of the tools.
func readOnly(title string) *mcp.ToolAnnotations {
	return &mcp.ToolAnnotations{Title: title, ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: ptr(false)}
}

func mutation(title string, destructive, idempotent bool) *mcp.ToolAnnotations {
	return &mcp.ToolAnnotations{Title: title, DestructiveHint: ptr(destructive), IdempotentHint: idempotent, OpenWorldHint: ptr(false)}
}

func ptr[T any](v T) *T { return &v }

// project picks the project argument or its alias scope_id; both given must
// agree.
func project(p, scopeID string) (string, error) {
	p, scopeID = strings.TrimSpace(p), strings.TrimSpace(scopeID)
	if p != "" && scopeID != "" && !strings.EqualFold(p, scopeID) {
		return "", &memories.ArgError{Arg: "project", Rule: fmt.Sprintf("%q and scope_id %q disagree; give one", p, scopeID)}
	}
	if p == "" {
		return scopeID, nil
	}
	return p, nil
}
