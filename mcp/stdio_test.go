package mcp

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// wire is a raw JSON-RPC client of ServeStdio over a pair of pipes: it writes
// lines and reads the server's lines as they come.
type wire struct {
	t     *testing.T
	in    *io.PipeWriter
	lines chan string
	done  chan error
}

func serveWire(t *testing.T, ctx context.Context, srv *mcp.Server, o StdioOptions) *wire {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	w := &wire{t: t, in: inW, lines: make(chan string, 1000), done: make(chan error, 1)}
	go func() {
		err := ServeStdio(ctx, srv, inR, outW, o)
		outW.Close()
		w.done <- err
	}()
	go func() {
		sc := bufio.NewScanner(outR)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			w.lines <- sc.Text()
		}
		close(w.lines)
	}()
	t.Cleanup(func() { inW.Close() })
	return w
}

func (w *wire) send(line string) {
	w.t.Helper()
	if _, err := io.WriteString(w.in, line+"\n"); err != nil {
		w.t.Fatalf("send: %v", err)
	}
}

// recv is the server's next line.
func (w *wire) recv() string {
	w.t.Helper()
	select {
	case l, ok := <-w.lines:
		if !ok {
			w.t.Fatal("the server closed its output")
		}
		return l
	case <-time.After(20 * time.Second):
		w.t.Fatal("no answer from the server")
	}
	return ""
}

// until reads lines up to the answer to the request with id (a JSON value),
// and returns the lines before it and the answer.
func (w *wire) until(id string) (before []reply, answer reply) {
	w.t.Helper()
	for {
		r := parseReply(w.t, w.recv())
		if string(r.ID) == id {
			return before, r
		}
		before = append(before, r)
	}
}

// finish closes the input and waits for ServeStdio to return.
func (w *wire) finish() error {
	w.t.Helper()
	w.in.Close()
	select {
	case err := <-w.done:
		return err
	case <-time.After(20 * time.Second):
		w.t.Fatal("the server did not exit after its input closed")
	}
	return nil
}

type reply struct {
	raw    string
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int64  `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func parseReply(t *testing.T, line string) reply {
	t.Helper()
	r := reply{raw: line}
	if err := json.Unmarshal([]byte(line), &r); err != nil {
		t.Fatalf("the server wrote a line that is not JSON: %q: %v", line, err)
	}
	if strings.Contains(line, "reflect") {
		t.Errorf("a reply speaks of Go reflection: %s", line)
	}
	return r
}

func (w *wire) initialize() {
	w.t.Helper()
	w.send(`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	if _, r := w.until(`"init"`); r.Error != nil {
		w.t.Fatalf("initialize: %s", r.raw)
	}
	w.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
}

// TestServeStdioMalformed sends each kind of malformed message, each followed
// by a valid request, to the real server: each malformed one gets the JSON-RPC
// error it should (or no answer, for a blank line and what needs none), the
// valid one is answered, and the server keeps serving.
func TestServeStdioMalformed(t *testing.T) {
	const limit = 4096
	w := serveWire(t, context.Background(), newServer(t, t.TempDir(), Options{Version: "test"}), StdioOptions{MaxMessage: limit})
	w.initialize()
	ping := func(id string) string { return `{"jsonrpc":"2.0","id":` + id + `,"method":"ping"}` }
	pad := strings.Repeat("x", limit)
	for i, c := range []struct {
		name, line string
		code       int64  // 0: no answer
		id         string // the id of the answer, as JSON
		msg        string // in the error's message
	}{
		{"garbage", "garbage", codeParseError, "null", "invalid character 'g'"},
		{"garbage bytes", "\x00\x01\xfe\xff", codeParseError, "null", "not valid UTF-8"},
		{"invalid UTF-8 in a string", `{"jsonrpc":"2.0","id":5,"method":"ping","params":{"x":"` + "\xff" + `"}}`, codeParseError, "5", "not valid UTF-8"},
		{"truncated", `{"jsonrpc":"2.0","id":6,"method":"ping"`, codeParseError, "null", "unexpected end"},
		{"trailing data", `{"jsonrpc":"2.0","id":7,"method":"ping"} {"id":8}`, codeParseError, "null", "after top-level value"},
		{"no jsonrpc", `{"id":9,"method":"ping"}`, codeInvalidRequest, "9", `jsonrpc: is required and must be "2.0"`},
		{"jsonrpc 1.0", `{"jsonrpc":"1.0","id":10,"method":"ping"}`, codeInvalidRequest, "10", `jsonrpc: must be "2.0"; got "1.0"`},
		{"jsonrpc a number", `{"jsonrpc":2.0,"id":"eleven","method":"ping"}`, codeInvalidRequest, `"eleven"`, `got 2.0`},
		{"object as id", `{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`, codeInvalidRequest, "null", "id: must be a string or a number; got an object"},
		{"list as id", `{"jsonrpc":"2.0","id":[1],"method":"ping"}`, codeInvalidRequest, "null", "got a list"},
		{"boolean id", `{"jsonrpc":"2.0","id":true,"method":"ping"}`, codeInvalidRequest, "null", "got a boolean"},
		{"null id", `{"jsonrpc":"2.0","id":null,"method":"ping"}`, codeInvalidRequest, "null", "MCP does not allow null"},
		{"id twice", `{"jsonrpc":"2.0","id":12,"id":13,"method":"ping"}`, codeInvalidRequest, "null", `"id" is given twice`},
		{"method twice", `{"jsonrpc":"2.0","id":14,"method":"ping","method":"tools/list"}`, codeInvalidRequest, "14", `"method" is given twice`},
		{"batch", "[" + ping("15") + "]", codeInvalidRequest, "null", "batches"},
		{"empty batch", "[]", codeInvalidRequest, "null", "batches"},
		{"a string", `"ping"`, codeInvalidRequest, "null", "must be a JSON object; got a string"},
		{"a number", `42`, codeInvalidRequest, "null", "got the number 42"},
		{"null", `null`, codeInvalidRequest, "null", "got null"},
		{"over-deep", `{"jsonrpc":"2.0","id":16,"method":"ping","params":{"a":` + strings.Repeat("[", 100) + strings.Repeat("]", 100) + `}}`, codeInvalidRequest, "16", "more than 64 levels"},
		{"over-deep garbage", strings.Repeat("[", limit-1), codeInvalidRequest, "null", "more than 64 levels"},
		{"method not a string", `{"jsonrpc":"2.0","id":17,"method":7}`, codeInvalidRequest, "17", "method: must be a string; got the number 7"},
		{"params not an object", `{"jsonrpc":"2.0","id":18,"method":"ping","params":"x"}`, codeInvalidRequest, "18", "params: must be an object; got a string"},
		{"neither method nor result", `{"jsonrpc":"2.0","id":19}`, codeInvalidRequest, "19", "needs a result or an error"},
		{"result and error", `{"jsonrpc":"2.0","id":20,"result":{},"error":{"code":1,"message":"x"}}`, codeInvalidRequest, "20", "not both"},
		{"bad error object", `{"jsonrpc":"2.0","id":21,"error":{"code":"x"}}`, codeInvalidRequest, "21", "whole-number code"},
		{"not a message", `{"foo":"boo"}`, codeInvalidRequest, "null", "jsonrpc: is required"},
		{"a message without method or id", `{"jsonrpc":"2.0","params":{}}`, codeInvalidRequest, "null", "needs a method"},
		{"malformed notification", `{"jsonrpc":"1.0","method":"notifications/initialized"}`, codeInvalidRequest, "null", `got "1.0"`},
		{"over the limit, id first", `{"jsonrpc":"2.0","id":22,"method":"ping","params":{"pad":"` + pad + `"}}`, codeInvalidRequest, "22", "longer than 4096 bytes"},
		{"over the limit, id last", `{"jsonrpc":"2.0","method":"ping","params":{"pad":"` + pad + `","n":[1,{"id":0}]},"id":"twenty-three"}`, codeInvalidRequest, `"twenty-three"`, "longer than 4096 bytes"},
		{"over the limit, garbage", strings.Repeat("z", 3*limit), codeInvalidRequest, "null", "it was skipped"},
		{"over the limit, a string id with escapes", `{"id":"a\"b\\","pad":"` + pad + `"}`, codeInvalidRequest, `"a\"b\\"`, "longer than"},
		{"blank line", "", 0, "", ""},
		{"spaces and a carriage return", "  \t \r", 0, "", ""},
		{"an unknown notification", `{"jsonrpc":"2.0","method":"notifications/whatever","params":{}}`, 0, "", ""},
		{"a cancellation of nothing", `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":12345678901234567890}}`, 0, "", ""},
		{"a cancellation with an object id", `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":{}}}`, 0, "", ""},
		{"an answer to nothing", `{"jsonrpc":"2.0","id":99,"result":{}}`, 0, "", ""},
		{"an error answer to nothing", `{"jsonrpc":"2.0","id":"x","error":{"code":-1,"message":"no"}}`, 0, "", ""},
		{"an answer with an odd id", `{"jsonrpc":"2.0","id":1.5,"result":{}}`, 0, "", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			w.t = t
			w.send(c.line)
			after := fmt.Sprintf(`"after-%d"`, i)
			w.send(ping(after))
			before, answer := w.until(after)
			if answer.Error != nil || string(answer.Result) != "{}" {
				t.Errorf("the ping after it: %s", answer.raw)
			}
			if c.code == 0 {
				if len(before) != 0 {
					t.Errorf("answered %s, want no answer", before[0].raw)
				}
				return
			}
			if len(before) != 1 {
				t.Fatalf("%d answers, want 1: %v", len(before), before)
			}
			got := before[0]
			if got.Error == nil || got.Error.Code != c.code || string(got.ID) != c.id || !strings.Contains(got.Error.Message, c.msg) {
				t.Errorf("got %s\nwant code %d, id %s, a message with %q", got.raw, c.code, c.id, c.msg)
			}
		})
	}
	w.t = t
	if err := w.finish(); err != nil {
		t.Errorf("ServeStdio: %v", err)
	}
}

// TestServeStdioIDs: an id comes back exactly as the client wrote it, those
// the SDK cannot hold exactly (twenty digits, a fraction) included, also on
// a real tool call.
func TestServeStdioIDs(t *testing.T) {
	w := serveWire(t, context.Background(), newServer(t, t.TempDir(), Options{Version: "test"}), StdioOptions{})
	w.initialize()
	for _, id := range []string{
		"1", "0", "-7", "9007199254740991", "9007199254740993", "12345678901234567890", "-12345678901234567890",
		"123456789012345678901234567890", "1.5", "1e3", "-0", `"x"`, `""`, `"cortex/id/1"`, `"\u00e9t\u00e9"`, `"é"`,
	} {
		w.send(`{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"memory_list","arguments":{}}}`)
		before, answer := w.until(id)
		if len(before) != 0 || answer.Error != nil || !strings.Contains(string(answer.Result), "No memories") {
			t.Errorf("id %s: %s (before it: %v)", id, answer.raw, before)
		}
	}
	if err := w.finish(); err != nil {
		t.Errorf("ServeStdio: %v", err)
	}
}

// blockServer is a server with a tool that waits for its release or its
// cancellation, one that waits for its release only, and one that takes a
// while.
type blockServer struct {
	srv      *mcp.Server
	started  chan string   // the call's "n" argument, when it starts
	release  chan struct{} // closing it ends every waiting call
	canceled chan string   // the "n" of a call whose context was cancelled
}

func newBlockServer() *blockServer {
	b := &blockServer{started: make(chan string, 10), release: make(chan struct{}), canceled: make(chan string, 10)}
	b.srv = mcp.NewServer(&mcp.Implementation{Name: "block", Version: "1"}, nil)
	b.srv.AddTool(&mcp.Tool{Name: "block", InputSchema: &jsonschema.Schema{Type: "object"}}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var args struct{ N string }
		_ = json.Unmarshal(req.Params.Arguments, &args)
		b.started <- args.N
		select {
		case <-b.release:
		case <-ctx.Done():
			b.canceled <- args.N
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done " + args.N}}}, nil
	})
	b.srv.AddTool(&mcp.Tool{Name: "stuck", InputSchema: &jsonschema.Schema{Type: "object"}}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		b.started <- "stuck"
		<-b.release // deaf to cancellation
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "unstuck"}}}, nil
	})
	b.srv.AddTool(&mcp.Tool{Name: "slow", InputSchema: &jsonschema.Schema{Type: "object"}}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		time.Sleep(300 * time.Millisecond)
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "slow done"}}}, nil
	})
	return b
}

func (b *blockServer) wait(t *testing.T, ch chan string, want string) {
	t.Helper()
	select {
	case got := <-ch:
		if got != want {
			t.Errorf("call %q, want %q", got, want)
		}
	case <-time.After(20 * time.Second):
		t.Fatalf("call %q never came", want)
	}
}

func call(id, tool, n string) string {
	return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"` + tool + `","arguments":{"n":"` + n + `"}}}`
}

// TestServeStdioBusyID: a request reusing the id of one in progress is
// refused, and the first is answered once.
func TestServeStdioBusyID(t *testing.T) {
	for _, id := range []string{"1", `"one"`, "12345678901234567890"} {
		t.Run(id, func(t *testing.T) {
			b := newBlockServer()
			w := serveWire(t, context.Background(), b.srv, StdioOptions{})
			w.initialize()
			w.send(call(id, "block", "first"))
			b.wait(t, b.started, "first")
			w.send(call(id, "block", "second"))
			r := parseReply(t, w.recv())
			if r.Error == nil || r.Error.Code != codeInvalidRequest || string(r.ID) != "null" || !strings.Contains(r.Error.Message, "already in use") {
				t.Errorf("the second call: %s", r.raw)
			}
			close(b.release)
			before, answer := w.until(id)
			if len(before) != 0 || !strings.Contains(answer.raw, "done first") {
				t.Errorf("the first call: %s (before it: %v)", answer.raw, before)
			}
			// The id is free again once answered.
			w.send(call(id, "block", "third"))
			if _, answer := w.until(id); !strings.Contains(answer.raw, "done third") {
				t.Errorf("the third call: %s", answer.raw)
			}
			if err := w.finish(); err != nil {
				t.Error(err)
			}
		})
	}
}

// TestServeStdioCancel: a cancellation reaches the call it names, whatever
// the form of its id.
func TestServeStdioCancel(t *testing.T) {
	for _, id := range []string{"3", `"three"`, "12345678901234567890", "2.5"} {
		t.Run(id, func(t *testing.T) {
			b := newBlockServer()
			w := serveWire(t, context.Background(), b.srv, StdioOptions{})
			w.initialize()
			w.send(call(id, "block", "c"))
			b.wait(t, b.started, "c")
			w.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":` + id + `,"reason":"changed my mind"}}`)
			b.wait(t, b.canceled, "c")
			close(b.release)
			if err := w.finish(); err != nil {
				t.Error(err)
			}
		})
	}
}

// TestServeStdioClosedInput: a client that closes its input right after
// sending gets every answer before the server exits.
func TestServeStdioClosedInput(t *testing.T) {
	b := newBlockServer()
	var out safeBuffer
	in := strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
` + call("2", "slow", "") + "\n" + `{"jsonrpc":"2.0","id":3,"method":"tools/list"}` + "\ngarbage\n" + call("4", "slow", ""))
	if err := ServeStdio(context.Background(), b.srv, in, &out, StdioOptions{}); err != nil {
		t.Fatal(err)
	}
	ids := map[string]int{}
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		r := parseReply(t, line)
		ids[string(r.ID)]++
	}
	if diff := cmp.Diff(map[string]int{"1": 1, "2": 1, "3": 1, "4": 1, "null": 1}, ids); diff != "" {
		t.Errorf("answers by id (-want +got):\n%s\n%s", diff, out.String())
	}
}

// TestServeStdioDrainBounded: a call that never ends does not hold the server
// past the drain time once the input is closed; the person is told.
func TestServeStdioDrainBounded(t *testing.T) {
	b := newBlockServer()
	defer close(b.release)
	var mu sync.Mutex
	var warned []string
	w := serveWire(t, context.Background(), b.srv, StdioOptions{Drain: 200 * time.Millisecond, Warn: func(s string) {
		mu.Lock()
		warned = append(warned, s)
		mu.Unlock()
	}})
	w.initialize()
	w.send(call("1", "stuck", ""))
	b.wait(t, b.started, "stuck")
	start := time.Now()
	if err := w.finish(); err != nil {
		t.Error(err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("exit took %s", d)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(warned) != 1 || !strings.Contains(warned[0], "1 call(s) still running 200ms after the client closed its input") {
		t.Errorf("warnings: %q", warned)
	}
}

// TestServeStdioContext: cancelling the context (a signal) stops the server
// after the calls it has read are answered.
func TestServeStdioContext(t *testing.T) {
	b := newBlockServer()
	ctx, cancel := context.WithCancel(context.Background())
	w := serveWire(t, ctx, b.srv, StdioOptions{})
	w.initialize()
	w.send(call("1", "block", "a"))
	b.wait(t, b.started, "a")
	cancel()
	time.Sleep(50 * time.Millisecond)
	close(b.release)
	if _, answer := w.until("1"); !strings.Contains(answer.raw, "done a") {
		t.Errorf("the call in progress: %s", answer.raw)
	}
	select {
	case err := <-w.done:
		if err != nil {
			t.Error(err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the server did not stop")
	}
}

// TestServeStdioBrokenOutput: when the client stops reading, the server
// ends with the write error rather than hanging.
func TestServeStdioBrokenOutput(t *testing.T) {
	b := newBlockServer()
	inR, inW := io.Pipe()
	defer inW.Close()
	done := make(chan error, 1)
	go func() { done <- ServeStdio(context.Background(), b.srv, inR, failWriter{}, StdioOptions{}) }()
	_, _ = io.WriteString(inW, `{"jsonrpc":"2.0","id":1,"method":"ping"}`+"\n")
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "no reader") {
			t.Errorf("ServeStdio: %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the server did not stop")
	}
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("no reader") }

type safeBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *safeBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *safeBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestPanickingTool: a tool that panics answers with an error result, the
// person is told, and the server goes on.
func TestPanickingTool(t *testing.T) {
	var warned []string
	srv := mcp.NewServer(&mcp.Implementation{Name: "p", Version: "1"}, nil)
	s := &server{warn: func(m string) { warned = append(warned, m) }}
	type in struct{}
	addTool(srv, s, &mcp.Tool{Name: "boom", InputSchema: &jsonschema.Schema{Type: "object", AdditionalProperties: &jsonschema.Schema{Not: &jsonschema.Schema{}}}},
		func(context.Context, in) (struct{}, string, error) { panic("index out of range") })
	ct, st := mcp.NewInMemoryTransports()
	if _, err := srv.Connect(context.Background(), st, nil); err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, nil).Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	for i := 0; i < 2; i++ {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "boom", Arguments: map[string]any{}})
		if err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
		if text := res.Content[0].(*mcp.TextContent).Text; !res.IsError || text != "boom: internal error: index out of range" {
			t.Errorf("call %d: isError %v, %q", i, res.IsError, text)
		}
	}
	if len(warned) != 2 || !strings.Contains(warned[0], "boom crashed: index out of range") || !strings.Contains(warned[0], "goroutine") {
		t.Errorf("warnings: %q", warned)
	}
}

// TestProtocolErrorsReadable: the errors the SDK gives for malformed call
// parameters, and the results of calls with odd arguments, never read like
// Go's reflection ("<invalid reflect.Value>").
func TestProtocolErrorsReadable(t *testing.T) {
	w := serveWire(t, context.Background(), newServer(t, t.TempDir(), Options{Version: "test"}), StdioOptions{})
	w.initialize()
	params := []string{`{"name":5}`, `{"name":"memory_save","arguments":5}`, `{"name":"memory_save","arguments":[1]}`,
		`{"name":"memory_save","arguments":null}`, `{}`, `[]`, `{"name":"nope"}`, `{"name":"memory_list","_meta":5}`,
		`{"name":"memory_list","_meta":{"progressToken":null}}`}
	for _, tool := range []string{"memory_recall", "recall", "memory_save", "memory_list", "memory_import", "supersede"} {
		for _, arg := range []string{"query", "content", "project", "scope", "limit", "tags", "id", "source_path", "importance", "type", "since"} {
			for _, v := range []string{"null", "[null]", "{}", "true", "1.5", `""`, "1e400"} {
				params = append(params, `{"name":"`+tool+`","arguments":{"`+arg+`":`+v+`}}`)
			}
		}
	}
	for i, p := range params {
		id := fmt.Sprint(i + 1)
		w.send(`{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":` + p + `}`)
		before, answer := w.until(id) // parseReply fails on "reflect"
		if len(before) != 0 {
			t.Errorf("%s: stray lines %v", p, before)
		}
		if answer.Error == nil && answer.Result == nil {
			t.Errorf("%s: %s", p, answer.raw)
		}
	}
	if err := w.finish(); err != nil {
		t.Error(err)
	}
}
