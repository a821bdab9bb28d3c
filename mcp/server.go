// Package mcp is cortex's MCP server: a thin transport over the same services
// the CLI calls (memories.Service), so that an agent and a person in a shell
// get the same answers and the same refusals.
//
// Each tool is one file: a typed input with jsonschema descriptions that tell a
// model when to use the tool and when not, a typed output (the structured
// result: a type of package view, the JSON the CLI prints with --json), a
// readable text rendering, and annotations. Adding a tool is adding
// its file and its line in the tools list below. Errors a person could make —
// invalid arguments, refusals (a duplicate, an unsafe text), an unknown id —
// come back as tool results with isError and the message the CLI prints, never
// as protocol errors.
package mcp

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"runtime/debug"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cortexmem/cortex/briefing"
	"github.com/cortexmem/cortex/inbox"
	"github.com/cortexmem/cortex/memories"
	"github.com/cortexmem/cortex/reflection"
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
	// Warn tells the person running the server about a failure they should
	// see (a tool that crashed); nil drops it.
	Warn func(string)
	// Inbox is the vault's capture inbox, for the capture tool.
	Inbox *inbox.Inbox
	// Briefing assembles context (context_assemble); Reflection rolls up
	// sessions (reflect). A tool whose service is nil answers an error.
	Briefing   *briefing.Service
	Reflection *reflection.Service
	// Transcripts, when set, serves transcript_search.
	Transcripts TranscriptSearcher
	// OnCall, when set, runs as each tool call begins, and the func it
	// returns once the call is done, beside the reply (the server's memory
	// trimmer: wiring.Trimmer.Begin).
	OnCall func() (end func())
}

// server holds what the tools share.
type server struct {
	svc   *memories.Service
	abs   func(string) string
	warn  func(string)
	inbox *inbox.Inbox
	// briefing and reflection are the services of context_assemble and
	// reflect.
	briefing   *briefing.Service
	reflection *reflection.Service
	// transcripts searches agents' sessions; nil: no transcript_search.
	transcripts TranscriptSearcher
	// onCall runs as each call begins (Options.OnCall); nil: nothing.
	onCall func() (end func())
	// mu runs one tool at a time: the service is cheap per call, and one
	// store per process keeps its cached state simple.
	mu sync.Mutex
}

// tool registers one tool on a server.
type tool func(*mcp.Server, *server)

// tools are every tool the server offers, in the order tools/list gives them.
var tools = []tool{recallTool, recallScopeTool, saveTool, listTool, importTool, supersedeTool, captureTool, statusTool, transcriptSearchTool, contextTool, reflectTool}

// New returns the MCP server for svc.
func New(svc *memories.Service, o Options) *mcp.Server {
	if o.Version == "" {
		o.Version = "dev"
	}
	if o.Abs == nil {
		o.Abs = func(rel string) string { return rel }
	}
	if o.Warn == nil {
		o.Warn = func(string) {}
	}
	srv := mcp.NewServer(&mcp.Implementation{Name: "cortex", Title: "cortex memory", Version: o.Version},
		&mcp.ServerOptions{Instructions: instructions})
	s := &server{svc: svc, abs: o.Abs, warn: o.Warn, inbox: o.Inbox, transcripts: o.Transcripts, briefing: o.Briefing, reflection: o.Reflection, onCall: o.OnCall}
	for _, t := range tools {
		t(srv, s)
	}
	return srv
}

// addTool registers a tool whose arguments decode into In and whose
// structured result is Out. The arguments are checked by decodeArgs, not by
// the SDK, so that every mistake reads "<argument>: <rule>". The call runs
// one at a time, with the client's name in its context (clientFrom); its text
// rendering goes beside the structured output. A failed call becomes a tool
// result with isError and the message the CLI prints, never a protocol error;
// a call that panics becomes one too, so that one bad call does not end the
// server for the rest of the agent's session.
func addTool[In, Out any](srv *mcp.Server, s *server, t *mcp.Tool, call func(context.Context, In) (Out, string, error)) {
	in, ok := t.InputSchema.(*jsonschema.Schema)
	if !ok {
		panic(fmt.Sprintf("mcp: tool %s: the input schema must be a *jsonschema.Schema", t.Name))
	}
	tt := *t
	tt.OutputSchema = outputSchema[Out]()
	srv.AddTool(&tt, func(ctx context.Context, req *mcp.CallToolRequest) (res *mcp.CallToolResult, err error) {
		defer func() {
			if r := recover(); r != nil {
				s.warn(fmt.Sprintf("%s crashed: %v\n%s", t.Name, r, debug.Stack()))
				res, err = errorResult(fmt.Errorf("%s: internal error: %v", t.Name, r)), nil
			}
		}()
		var args In
		if err := decodeArgs(t.Name, in, req.Params.Arguments, &args); err != nil {
			return errorResult(err), nil
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.onCall != nil {
			end := s.onCall()
			defer func() { go end() }()
		}
		result, text, err := call(withClient(ctx, clientName(req.ClientInfo())), args)
		if err != nil {
			return errorResult(err), nil
		}
		data, err := json.Marshal(result)
		if err != nil {
			return nil, fmt.Errorf("%s: encode the result: %w", t.Name, err)
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}, StructuredContent: json.RawMessage(data)}, nil
	})
}

func errorResult(err error) *mcp.CallToolResult {
	var res mcp.CallToolResult
	res.SetError(err)
	return &res
}

// clientKey keys the client's name in a call's context.
type clientKey struct{}

func withClient(ctx context.Context, name string) context.Context {
	return context.WithValue(ctx, clientKey{}, name)
}

// clientFrom is the name of the client that made the call ("claude-code
// 2.1.3"), "" when it did not say.
func clientFrom(ctx context.Context) string {
	name, _ := ctx.Value(clientKey{}).(string)
	return name
}

// maxClientName bounds the client's name as a note records it.
const maxClientName = 100

// clientName is how a memory's provenance records the client: its name and
// version as it gave them when it connected, on one line, without control or
// invisible characters (it is the client's text, written into a note).
func clientName(c *mcp.Implementation) string {
	if c == nil {
		return ""
	}
	clean := func(s string) string {
		return strings.Map(func(r rune) rune {
			if unicode.IsGraphic(r) && !unicode.Is(unicode.Cf, r) {
				return r
			}
			return ' '
		}, s)
	}
	name := strings.Join(strings.Fields(clean(c.Name)), " ")
	if name == "" {
		return ""
	}
	if v := strings.Join(strings.Fields(clean(c.Version)), " "); v != "" {
		name += " " + v
	}
	if utf8.RuneCountInString(name) > maxClientName {
		name = string([]rune(name)[:maxClientName])
	}
	return name
}

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
