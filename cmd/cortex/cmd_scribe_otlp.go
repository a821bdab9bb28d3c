package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/spf13/cobra"

	"github.com/cortexmem/cortex/memories"
	"github.com/cortexmem/cortex/otlpserver"
)

type scribeOTLPOptions struct {
	listen   string
	maxBody  int64
	queue    int64
	decoders int
}

// maxBodyLimit bounds --max-body and --queue: what cortex will hold of
// one export, or waiting to be written.
const maxBodyLimit = 1 << 30

func newScribeOTLPCmd(a *app) *cobra.Command {
	var o scribeOTLPOptions
	cmd := &cobra.Command{
		Use:   "otlp",
		Short: "Receive agents' OpenTelemetry logs (OTLP/HTTP) and keep them as transcripts",
		Long: `otlp receives the OpenTelemetry log exports of coding agents whose telemetry
is pointed at it — Claude Code, Codex, Gemini CLI — over OTLP/HTTP, binary
protobuf or JSON, gzipped or not, at http://<listen>/v1/logs. Each log record
is kept as one JSON line in <home>/otlp/<service>/<session>.jsonl, where
'scribe run', 'scribe parse' and 'scribe sources' read it as the otlp tool's
transcript: prompts become user turns, tool results tool calls and results,
model requests assistant turns with their token counts.

It listens on a loopback address only. A body larger than --max-body is
refused with 413; an export that does not fit the queue (--queue bytes
waiting to be written) or comes while --decoders others are being read is
refused at once with 503 and Retry-After, which exporters retry: the sender
never waits on the disk, and nothing accepted is lost. Traces and metrics
(/v1/traces, /v1/metrics) are answered and not kept. Interrupt it (Ctrl-C) to
stop: what was accepted is written, then it prints what it received.`,
		Example: `  cortex scribe otlp
  # Claude Code:
  CLAUDE_CODE_ENABLE_TELEMETRY=1 OTEL_LOGS_EXPORTER=otlp OTEL_LOG_USER_PROMPTS=1 \
    OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:4318 claude
  # Codex, in ~/.codex/config.toml:
  #   [otel]
  #   log_user_prompt = true
  #   exporter = { otlp-http = { endpoint = "http://127.0.0.1:4318/v1/logs", protocol = "binary" } }`,
		Args: args(0, 0, "takes no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runScribeOTLP(cmd.Context(), a, o)
		},
	}
	cmd.Flags().StringVar(&o.listen, "listen", "127.0.0.1:4318", "the loopback address (host:port) to receive on")
	cmd.Flags().Int64Var(&o.maxBody, "max-body", otlpserver.DefaultMaxBody, "the largest export accepted, in bytes (gzip undone)")
	cmd.Flags().Int64Var(&o.queue, "queue", otlpserver.DefaultQueueBytes, "bytes of records that may wait to be written")
	cmd.Flags().IntVar(&o.decoders, "decoders", otlpserver.DefaultDecoders, "exports read and decoded at once")
	return cmd
}

func runScribeOTLP(ctx context.Context, a *app, o scribeOTLPOptions) error {
	addr, err := loopback(o.listen)
	if err != nil {
		return &memories.ArgError{Arg: "listen", Rule: fmt.Sprintf("%q must be a loopback address and a port, such as 127.0.0.1:4318 (cortex never listens beyond this machine)", o.listen)}
	}
	for _, f := range []struct {
		name string
		v    int64
	}{{"max-body", o.maxBody}, {"queue", o.queue}} {
		if f.v <= 0 || f.v > maxBodyLimit {
			return &memories.ArgError{Arg: f.name, Rule: fmt.Sprintf("%d must be between 1 and %d bytes", f.v, maxBodyLimit)}
		}
	}
	if o.decoders < 1 || o.decoders > 64 {
		return &memories.ArgError{Arg: "decoders", Rule: fmt.Sprintf("%d must be between 1 and 64", o.decoders)}
	}
	if err := a.resolve(); err != nil {
		return err
	}
	dir := a.settings.State().OTLP()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("otlp: %w", err)
	}
	defer ln.Close()
	srv := otlpserver.New(otlpserver.Options{Dir: dir, MaxBody: o.maxBody, QueueBytes: o.queue, Decoders: o.decoders,
		Logf: func(format string, args ...any) { fmt.Fprintf(a.stderr, "cortex: "+format+"\n", args...) }})
	fmt.Fprintf(a.stderr, "cortex: receiving OTLP/HTTP logs at http://%s%s, keeping them in %s (interrupt to stop)\n", ln.Addr(), otlpserver.PathLogs, dir)
	hs := &http.Server{Handler: srv, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: time.Minute, IdleTimeout: 2 * time.Minute}
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = hs.Shutdown(sctx)
	}()
	serveErr := hs.Serve(ln)
	srv.Close()
	st := srv.Stats()
	if a.asJSON {
		if err := a.printJSON(st); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(a.stdout, "received %d records in %d exports: %d kept, %d not written; %d exports refused; %d of traces or metrics not kept\n",
			st.Records, st.Requests, st.Stored, st.Failed, st.Refused, st.Discarded)
	}
	if serveErr != nil && !errors.Is(serveErr, http.ErrServerClosed) {
		return fmt.Errorf("otlp: %w", serveErr)
	}
	if st.Failed > 0 {
		return fmt.Errorf("otlp: %d records could not be written to %s", st.Failed, dir)
	}
	return nil
}
