package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// DrainTimeout is how long, once the client has closed its input, the server
// waits for the calls it has already read to be answered before it exits.
const DrainTimeout = 30 * time.Second

// StdioOptions configure ServeStdio.
type StdioOptions struct {
	// MaxMessage bounds one message in bytes; 0 means MaxMessageBytes.
	MaxMessage int
	// Drain bounds the wait for calls in progress when the input ends; 0
	// means DrainTimeout.
	Drain time.Duration
	// Warn tells the person running the server what they should know (a call
	// cut short at exit); nil drops it.
	Warn func(string)
}

// ServeStdio speaks MCP over in and out, one JSON-RPC message per line, until
// the client closes in or ctx ends.
//
// The SDK's own stdio transport ends the session at the first message it
// cannot decode; this one answers such a message itself, as JSON-RPC 2.0 says
// (a parse error, or an invalid request, with the message's id when it has a
// usable one, else null), and goes on serving. A line over MaxMessage is
// answered and read through without being held. When the input ends, the calls
// already read are answered before ServeStdio returns, for at most Drain.
func ServeStdio(ctx context.Context, srv *sdk.Server, in io.Reader, out io.Writer, o StdioOptions) error {
	if o.MaxMessage <= 0 {
		o.MaxMessage = MaxMessageBytes
	}
	if o.Drain <= 0 {
		o.Drain = DrainTimeout
	}
	if o.Warn == nil {
		o.Warn = func(string) {}
	}
	c := newStdioConn(in, out, o.MaxMessage, o.Drain)
	ss, err := srv.Connect(ctx, connTransport{c}, nil)
	if err != nil {
		return fmt.Errorf("mcp: %w", err)
	}
	done := make(chan error, 1)
	go func() { done <- ss.Wait() }()
	why := "the client closed its input"
	select {
	case err := <-done:
		return sessionEnd(err)
	case <-ctx.Done():
		why = "the server was asked to stop"
		c.shutdown()
	case <-c.ended:
	}
	select {
	case err := <-done:
		return sessionEnd(err)
	case <-c.ended:
	}
	// The input is over and so is the drain: the session closes once its
	// handlers return, which the SDK has asked of those still running.
	select {
	case err := <-done:
		return sessionEnd(err)
	case <-time.After(time.Second):
	}
	if n := c.unanswered(); n > 0 {
		o.Warn(fmt.Sprintf("%d call(s) still running %s after %s; exiting without their answers", n, o.Drain, why))
	}
	return nil
}

func sessionEnd(err error) error {
	if err == nil || errors.Is(err, io.EOF) || errors.Is(err, context.Canceled) || errors.Is(err, sdk.ErrConnectionClosed) {
		return nil
	}
	return fmt.Errorf("mcp: %w", err)
}

// connTransport hands the SDK one connection.
type connTransport struct{ c *stdioConn }

func (t connTransport) Connect(context.Context) (sdk.Connection, error) { return t.c, nil }

// surrogatePrefix starts the ids cortex gives the SDK in place of the
// client's ids the SDK cannot hold exactly: numbers that are not whole or
// beyond 2^53 (the SDK turns ids into int64 through float64), and strings
// that themselves start with the prefix. The answer carries the client's id
// back as the client wrote it.
const surrogatePrefix = "cortex/id/"

// stdioConn is an sdk.Connection over a line-based stream that checks each
// message before the SDK sees it.
type stdioConn struct {
	max   int
	drain time.Duration

	frames  chan frame // from the goroutine reading the input
	readErr error      // why the input ended; set before frames is closed

	stop      chan struct{} // closed by shutdown: read no more
	stopOnce  sync.Once
	closed    chan struct{} // closed by Close
	closeOnce sync.Once
	ended     chan struct{} // closed once Read has given its last answer
	endOnce   sync.Once

	wmu  sync.Mutex // one writer: no two lines interleave
	out  io.Writer
	werr error

	mu         sync.Mutex
	pending    map[jsonrpc.ID]json.RawMessage // calls passed on, not yet answered: the id to answer with, nil for the SDK's own
	surrogates map[string]jsonrpc.ID          // by the client's id as written
	writing    int                            // answers being written
	seq        uint64
	idle       chan struct{} // closed when nothing is pending or being written, while draining
}

func newStdioConn(in io.Reader, out io.Writer, max int, drain time.Duration) *stdioConn {
	c := &stdioConn{
		max: max, drain: drain,
		frames: make(chan frame),
		stop:   make(chan struct{}), closed: make(chan struct{}), ended: make(chan struct{}),
		out:     out,
		pending: make(map[jsonrpc.ID]json.RawMessage), surrogates: make(map[string]jsonrpc.ID),
	}
	go c.readLoop(in)
	return c
}

// readLoop reads the input line by line. It may stay blocked in a read of
// standard input after Close: there is no portable way to interrupt it, and
// the process is about to exit.
func (c *stdioConn) readLoop(in io.Reader) {
	fr := newFrameReader(in, c.max)
	for {
		f, err := fr.next()
		if err != nil {
			c.readErr = err
			close(c.frames)
			return
		}
		select {
		case c.frames <- f:
		case <-c.closed:
			return
		}
	}
}

// SessionID implements sdk.Connection: stdio has no session id.
func (c *stdioConn) SessionID() string { return "" }

// Read implements sdk.Connection: the next well-formed message. A malformed
// one is answered here and skipped. When the input ends, Read waits for the
// calls already passed on to be answered (for at most the drain time) and
// then reports io.EOF, so that the SDK does not give up on them.
func (c *stdioConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	for {
		select {
		case <-c.stop:
			return nil, c.finish(io.EOF)
		default:
		}
		select {
		case f, ok := <-c.frames:
			if !ok {
				return nil, c.finish(c.readErr)
			}
			if msg := c.accept(f); msg != nil {
				return msg, nil
			}
		case <-c.stop:
			return nil, c.finish(io.EOF)
		case <-c.closed:
			return nil, io.EOF
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// finish waits for the calls in progress to be answered, for at most the
// drain time, and returns err.
func (c *stdioConn) finish(err error) error {
	c.mu.Lock()
	idle := make(chan struct{})
	if len(c.pending) == 0 && c.writing == 0 {
		close(idle)
	} else {
		c.idle = idle
	}
	c.mu.Unlock()
	t := time.NewTimer(c.drain)
	defer t.Stop()
	select {
	case <-idle:
	case <-t.C:
	case <-c.closed:
	}
	c.endOnce.Do(func() { close(c.ended) })
	return err
}

// unanswered is how many calls passed on have not been answered.
func (c *stdioConn) unanswered() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.pending) + c.writing
}

// shutdown stops reading: the calls already read are still answered.
func (c *stdioConn) shutdown() { c.stopOnce.Do(func() { close(c.stop) }) }

// accept checks a line: the message to pass on, or nil when the line was
// answered here or needs no answer.
func (c *stdioConn) accept(f frame) jsonrpc.Message {
	if f.over {
		c.reply(&rpcError{id: f.id, code: codeInvalidRequest,
			message: fmt.Sprintf("invalid request: the message is longer than %d bytes, the most one message may be; it was skipped", c.max)})
		return nil
	}
	m, rerr := checkMessage(f.data)
	if rerr != nil {
		c.reply(rerr)
		return nil
	}
	if m == nil {
		return nil
	}
	if !m.request {
		// An answer to a call the server made: the SDK's calls have whole
		// number ids, so any other id answers nothing and is dropped.
		id, ok := plainID(m.id)
		if !ok {
			return nil
		}
		resp := &jsonrpc.Response{ID: id, Result: m.result}
		if m.err != nil {
			resp.Error = &jsonrpc.Error{Code: m.err.Code, Message: m.err.Message, Data: m.err.Data}
		}
		return resp
	}
	if m.id == nil {
		params := m.params
		if m.method == "notifications/cancelled" {
			params = c.cancelled(params)
		}
		return &jsonrpc.Request{Method: m.method, Params: params}
	}
	id, rerr := c.admit(m.id)
	if rerr != nil {
		c.reply(rerr)
		return nil
	}
	return &jsonrpc.Request{ID: id, Method: m.method, Params: m.params}
}

// admit records a call passed on to the SDK, under the id the SDK gets.
func (c *stdioConn) admit(raw json.RawMessage) (jsonrpc.ID, *rpcError) {
	c.mu.Lock()
	defer c.mu.Unlock()
	busy := &rpcError{code: codeInvalidRequest, message: fmt.Sprintf("invalid request: id %s is already in use by a request in progress", brief(raw))}
	if id, ok := plainID(raw); ok {
		if _, dup := c.pending[id]; dup {
			return jsonrpc.ID{}, busy
		}
		c.pending[id] = nil
		return id, nil
	}
	key := string(raw)
	if _, dup := c.surrogates[key]; dup {
		return jsonrpc.ID{}, busy
	}
	c.seq++
	id := stringID(surrogatePrefix + strconv.FormatUint(c.seq, 10))
	c.surrogates[key] = id
	c.pending[id] = append(json.RawMessage(nil), raw...)
	return id, nil
}

// plainID is the SDK's form of an id it holds and writes back exactly: a
// string written as the SDK writes it and not starting with surrogatePrefix,
// or a whole number written plainly within ±(2^53-1).
func plainID(raw json.RawMessage) (jsonrpc.ID, bool) {
	if raw[0] == '"' {
		var s string
		if json.Unmarshal(raw, &s) != nil || strings.HasPrefix(s, surrogatePrefix) || !bytes.Equal(encodeString(s), raw) {
			return jsonrpc.ID{}, false
		}
		return stringID(s), true
	}
	n, err := strconv.ParseInt(string(raw), 10, 64)
	if err != nil || n > 1<<53-1 || n < -(1<<53-1) || strconv.FormatInt(n, 10) != string(raw) {
		return jsonrpc.ID{}, false
	}
	// Exact: |n| < 2^53 is a float64 without loss.
	id, _ := jsonrpc.MakeID(float64(n))
	return id, true
}

// encodeString is s as the SDK writes it: JSON without HTML escapes.
func encodeString(s string) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

func stringID(s string) jsonrpc.ID {
	id, _ := jsonrpc.MakeID(s)
	return id
}

// cancelled points a cancellation at the SDK's id for the request when the
// request was given a surrogate.
func (c *stdioConn) cancelled(params json.RawMessage) json.RawMessage {
	var p map[string]json.RawMessage
	if json.Unmarshal(params, &p) != nil {
		return params
	}
	raw, ok := p["requestId"]
	if !ok || len(raw) == 0 {
		return params
	}
	if _, plain := plainID(raw); plain {
		return params
	}
	c.mu.Lock()
	id, ok := c.surrogates[string(raw)]
	c.mu.Unlock()
	if !ok {
		return params
	}
	p["requestId"], _ = json.Marshal(id.Raw())
	out, err := json.Marshal(p)
	if err != nil {
		return params
	}
	return out
}

// Write implements sdk.Connection: one message, one line. An answer to a call
// with a surrogate id carries the client's id back.
func (c *stdioConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return fmt.Errorf("encode a message: %w", err)
	}
	resp, isResp := msg.(*jsonrpc.Response)
	if !isResp {
		return c.writeLine(data)
	}
	echo, tracked := c.answering(resp.ID)
	if tracked {
		defer c.answered()
	}
	if echo != nil {
		if data, err = withID(data, resp.ID, echo); err != nil {
			return err
		}
	}
	return c.writeLine(data)
}

// answering forgets a call as its answer is about to be written (the client
// may reuse its id as soon as it reads the answer), but counts the answer
// as in progress until answered, for the drain. It returns the client's id
// for a surrogate, and whether the call was one passed on.
func (c *stdioConn) answering(id jsonrpc.ID) (json.RawMessage, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	echo, ok := c.pending[id]
	if !ok {
		return nil, false
	}
	delete(c.pending, id)
	if echo != nil {
		delete(c.surrogates, string(echo))
	}
	c.writing++
	return echo, true
}

// answered counts an answer written.
func (c *stdioConn) answered() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.writing--
	if len(c.pending) == 0 && c.writing == 0 && c.idle != nil {
		close(c.idle)
		c.idle = nil
	}
}

// withID puts the client's id into an encoded response in place of id.
func withID(data []byte, id jsonrpc.ID, client json.RawMessage) ([]byte, error) {
	enc, err := json.Marshal(id.Raw())
	if err != nil {
		return nil, fmt.Errorf("encode an id: %w", err)
	}
	head := []byte(`{"jsonrpc":"2.0","id":`)
	prefix := append(append([]byte(nil), head...), enc...)
	if !bytes.HasPrefix(data, prefix) {
		return nil, fmt.Errorf("encode a response: unexpected form %.40q", data)
	}
	out := append(head, client...)
	return append(out, data[len(prefix):]...), nil
}

// reply writes cortex's own answer to a message it did not pass on.
func (c *stdioConn) reply(e *rpcError) {
	id := e.id
	if id == nil {
		id = json.RawMessage("null")
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   errorObject     `json:"error"`
	}{"2.0", id, errorObject{Code: e.code, Message: e.message}})
	_ = c.writeLine(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
}

// writeLine writes data and a line end in one write, after any line being
// written; after a failed write every write fails the same way.
func (c *stdioConn) writeLine(data []byte) error {
	line := make([]byte, 0, len(data)+1)
	line = append(append(line, data...), '\n')
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if c.werr != nil {
		return c.werr
	}
	if _, err := c.out.Write(line); err != nil {
		c.werr = fmt.Errorf("write: %w", err)
	}
	return c.werr
}

// Close implements sdk.Connection. Standard input and output stay open: they
// are the process's.
func (c *stdioConn) Close() error {
	c.closeOnce.Do(func() { close(c.closed) })
	return nil
}
