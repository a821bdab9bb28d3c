package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"

	"github.com/cortexmem/cortex/mcp"
	"github.com/cortexmem/cortex/memories"
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
memory_list, memory_import and supersede, over the same services as the CLI. By
default it speaks MCP over standard input and output, as Claude Code, Codex,
Cursor and Gemini CLI start it; standard output carries protocol only, and
warnings go to standard error.

With --http it serves streamable HTTP instead, on a loopback address only
(127.0.0.1, ::1 or localhost); any other address is refused.

The server holds no lock while idle: a cortex command run beside it works as
usual, and the server sees its changes on its next call.`,
		Example: `  cortex mcp
  cortex mcp --http 127.0.0.1:7411`,
		Args: args(0, 0, "takes no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runMCP(cmd.Context(), a, o)
		},
	}
	cmd.Flags().StringVar(&o.http, "http", "", "serve streamable HTTP on this loopback address (host:port) instead of stdio")
	return cmd
}

func runMCP(ctx context.Context, a *app, o mcpOptions) error {
	var ln net.Listener
	if o.http != "" {
		addr, err := loopback(o.http)
		if err != nil {
			return err
		}
		if ln, err = net.Listen("tcp", addr); err != nil {
			return fmt.Errorf("mcp: %w", err)
		}
		defer ln.Close()
	}
	a.resident = true
	svc, err := a.open()
	if err != nil {
		return err
	}
	srv := mcp.New(svc, mcp.Options{Version: buildVersion(), Abs: a.store.Vault().Abs})
	if ln == nil {
		return serveStdio(ctx, srv, a.stdin, a.stdout)
	}
	fmt.Fprintf(a.stderr, "cortex: MCP over streamable HTTP at http://%s/\n", ln.Addr())
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, nil)
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

// serveStdio speaks MCP over in and out until the client closes its end.
func serveStdio(ctx context.Context, srv *sdk.Server, in io.Reader, out io.Writer) error {
	t := &sdk.IOTransport{Reader: io.NopCloser(in), Writer: nopWriteCloser{out}}
	err := srv.Run(ctx, t)
	if err == nil || errors.Is(err, io.EOF) || errors.Is(err, context.Canceled) {
		return nil
	}
	return fmt.Errorf("mcp: %w", err)
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

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
