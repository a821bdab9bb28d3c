package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"

	"github.com/cortexmem/cortex/mcp"
	"github.com/cortexmem/cortex/memories"
	"github.com/cortexmem/cortex/wiring"
)

type mcpOptions struct {
	http string
}

func newMCPCmd(a *app) *cobra.Command {
	var o mcpOptions
	cmd := &cobra.Command{
		Use:   "mcp",
		Short: "Serve cortex to AI agents over the Model Context Protocol",
		Long: `mcp runs cortex's MCP server: the tools memory_recall, recall, memory_save,
memory_list, memory_import, supersede, capture, status, transcript_search,
context_assemble and reflect, over the same services as the CLI. By default it
speaks MCP over standard input and output, as Claude Code, Codex,
Cursor and Gemini CLI start it; standard output carries protocol only, and
warnings go to standard error. A malformed message is answered with a JSON-RPC
error and the server goes on; when the client closes its input, the calls it
has sent are answered before the server exits.

With --http it serves streamable HTTP instead, on a loopback address only
(127.0.0.1, ::1 or localhost); any other address is refused. Every request
must carry "Authorization: Bearer <token>": the token is created on the first
--http start, kept in <home>/mcp-token (private to you) and printed then on
standard error; 'cortex mcp token' prints it again.

The server holds no lock while idle: a cortex command run beside it works as
usual, and the server sees its changes on its next call.

The server follows the vault's notes with the system's file notifications, as
'cortex watch' does (it re-indexes them once changes have been quiet for
watch.debounce): while it does, a call does not stat every note to find edits
made in place — a note edited in Obsidian is recalled as edited from the
debounce window after the edit on, a note the server saves at once. When the
system cannot follow the folders (its file watches ran out), the server says
so on standard error and each call checks the notes as a command does. The server only re-indexes notes: transcripts and
the inbox are 'cortex watch''s, which runs beside it.`,
		Example: `  cortex mcp
  cortex mcp --http 127.0.0.1:7411
  cortex mcp token`,
		Args: args(0, 0, "takes no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runMCP(cmd.Context(), a, o)
		},
	}
	cmd.Flags().StringVar(&o.http, "http", "", "serve streamable HTTP on this loopback address (host:port) instead of stdio")
	cmd.AddCommand(newMCPTokenCmd(a))
	return cmd
}

func runMCP(ctx context.Context, a *app, o mcpOptions) error {
	var ln net.Listener
	if o.http != "" {
		addr, err := loopback(o.http)
		if err != nil {
			return err
		}
		if err := a.resolve(); err != nil {
			return err
		}
		token, created, err := mcp.LoadToken(a.settings.State().MCPToken())
		if err != nil {
			return err
		}
		if created { // the one time the token is printed
			fmt.Fprintf(a.stderr, "cortex: created the MCP token %s in %s; clients send it as \"Authorization: Bearer <token>\" ('cortex mcp token' prints it again)\n",
				token, a.settings.State().MCPToken())
		}
		if ln, err = net.Listen("tcp", addr); err != nil {
			return fmt.Errorf("mcp: %w", err)
		}
		defer ln.Close()
	}
	a.resident = true
	// A server lives for hours with a small live heap: collecting less
	// often keeps the collector off the calls (see wiring.ServerGC).
	defer wiring.ServerGC(a.getenv)()
	svc, err := a.open()
	if err != nil {
		return err
	}
	warn := func(msg string) { fmt.Fprintf(a.stderr, "cortex: warning: %s\n", msg) }
	ctx, stop := context.WithCancel(ctx)
	followed := a.cortex.FollowVault(ctx, warn)
	// Saves leave the full-text index behind; the server catches it up
	// between calls rather than in the next recall.
	caught := a.store.CatchUpInBackground(ctx, warn)
	// The first save after a rebuild would make the duplicate check's word
	// indexes before it answers (seconds at 10,000 notes): made now,
	// beside the first calls.
	prepared := make(chan struct{})
	go func() {
		defer close(prepared)
		if err := svc.PrepareChecks(ctx); err != nil && ctx.Err() == nil {
			warn(fmt.Sprintf("the duplicate check's word indexes are left to the first save: %v", err))
		}
	}()
	defer func() {
		stop()
		<-followed
		<-caught
		<-prepared
	}()
	ts, err := a.transcripts()
	if err != nil {
		return err
	}
	srv := mcp.New(svc, mcp.Options{Version: buildVersion(), Abs: a.store.Vault().Abs, Warn: warn, Inbox: a.inbox, Transcripts: ts,
		Briefing: a.cortex.Briefing(svc, wiring.TranscriptExcerpts{Search: ts}, warn), Reflection: a.cortex.Reflection(svc, a.scribeEnv()),
		OnCall: wiring.NewTrimmer(a.store.DropResident).Begin})
	if ln == nil {
		return mcp.ServeStdio(ctx, srv, a.stdin, a.stdout, mcp.StdioOptions{Warn: warn})
	}
	fmt.Fprintf(a.stderr, "cortex: MCP over streamable HTTP at http://%s/\n", ln.Addr())
	h := mcp.RequireToken(a.settings.State().MCPToken(), sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, nil), warn)
	hs := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = hs.Shutdown(sctx)
	}()
	if err := hs.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("mcp: %w", err)
	}
	return nil
}

type mcpTokenOptions struct {
	rotate bool
}

func newMCPTokenCmd(a *app) *cobra.Command {
	var o mcpTokenOptions
	cmd := &cobra.Command{
		Use:   "token",
		Short: "Print (or replace) the bearer token of the MCP server's HTTP transport",
		Long: `token prints the token that 'cortex mcp --http' requires on every request as
"Authorization: Bearer <token>", creating it if there is none yet. It lives in
<home>/mcp-token, readable by you only; cortex refuses a token file that other
users can read.

--rotate replaces it with a new one: a server already running refuses the old
token from its next request on, so update your clients' configuration.`,
		Example: `  cortex mcp token
  cortex mcp token --rotate
  claude mcp add --transport http --header "Authorization: Bearer $(cortex mcp token)" cortex http://127.0.0.1:7411/`,
		Args: args(0, 0, "takes no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runMCPToken(a, o)
		},
	}
	cmd.Flags().BoolVar(&o.rotate, "rotate", false, "replace the token with a new one, and print it")
	return cmd
}

func runMCPToken(a *app, o mcpTokenOptions) error {
	if err := a.resolve(); err != nil {
		return err
	}
	path := a.settings.State().MCPToken()
	var (
		token   string
		created bool
		err     error
	)
	if o.rotate {
		token, err = mcp.RotateToken(path)
	} else {
		token, created, err = mcp.LoadToken(path)
	}
	if err != nil {
		return err
	}
	if a.asJSON {
		return a.printJSON(map[string]any{"token": token, "path": path, "created": created, "rotated": o.rotate})
	}
	if created {
		fmt.Fprintf(a.stderr, "cortex: created the MCP token in %s\n", path)
	}
	fmt.Fprintln(a.stdout, token)
	return nil
}

// loopback checks that addr (host:port) is on a loopback interface.
func loopback(addr string) (string, error) {
	bad := &memories.ArgError{Arg: "http", Rule: fmt.Sprintf("%q must be a loopback address and a port, such as 127.0.0.1:7411 (cortex never listens beyond this machine)", addr)}
	host, port, err := net.SplitHostPort(addr)
	if err != nil || port == "" {
		return "", bad
	}
	if host == "localhost" {
		return net.JoinHostPort("127.0.0.1", port), nil
	}
	ip := net.ParseIP(host)
	if ip == nil || !ip.IsLoopback() {
		return "", bad
	}
	return addr, nil
}
