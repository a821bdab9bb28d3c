package mcp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"unicode/utf8"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// The limits of one message on standard input.
const (
	// MaxMessageBytes bounds one message (one line, without its line end): a
	// longer line is answered with an error and skipped, read through without
	// being held in memory. It is the SDK's own default, 16 MiB.
	MaxMessageBytes = sdk.DefaultMaxLineLength
	// maxDepth bounds how deeply a message's objects and arrays nest. MCP's
	// messages nest a handful of levels; the SDK refuses more than 1000 and
	// would end the session on it, so cortex refuses far sooner, per message.
	maxDepth = 64
	// maxIDBytes bounds the id read from a message too long to parse.
	maxIDBytes = 1024
)

// JSON-RPC 2.0's error codes for a message that cannot be passed on.
const (
	codeParseError     = -32700
	codeInvalidRequest = -32600
)

// frame is one line read from the client.
type frame struct {
	data []byte // the line without its end; nil when over the limit
	over bool   // longer than the limit: skipped, not kept
	// id is, for a line over the limit, the value of its top-level "id"
	// member when it could be read on the way through (nil otherwise).
	id json.RawMessage
}

// frameReader splits the client's input into lines, MCP's stdio framing.
type frameReader struct {
	r   *bufio.Reader
	max int
}

func newFrameReader(r io.Reader, max int) *frameReader {
	return &frameReader{r: bufio.NewReaderSize(r, 64<<10), max: max}
}

// next returns the next line. A last line without a line end counts; after
// it next returns io.EOF. A line longer than the limit is read through and
// returned with over set, so that it can be answered.
func (fr *frameReader) next() (frame, error) {
	var (
		f    frame
		buf  []byte
		sn   idSniffer
		read int
	)
	for {
		chunk, err := fr.r.ReadSlice('\n')
		read += len(chunk)
		switch {
		case f.over:
			sn.write(chunk)
		case len(buf)+len(chunk) > fr.max+2: // +2: room for a "\r\n" line end
			f.over = true
			sn.write(buf)
			sn.write(chunk)
			buf = nil
		default:
			buf = append(buf, chunk...)
		}
		switch {
		case err == nil:
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF):
			if read == 0 {
				return frame{}, io.EOF
			}
		default:
			return frame{}, err
		}
		if !f.over {
			buf = bytes.TrimSuffix(buf, []byte("\n"))
			buf = bytes.TrimSuffix(buf, []byte("\r"))
			if len(buf) <= fr.max {
				f.data = buf
				return f, nil
			}
			f.over = true
			sn.write(buf)
		}
		f.id = sn.result()
		return f, nil
	}
}

// idSniffer reads a message byte by byte, keeping nothing but the value of
// its top-level "id" member when that is a string or a number: what the answer
// to a message too long to parse can still give back, so that the client
// learns which of its requests failed instead of waiting for it.
type idSniffer struct {
	started, stopped  bool
	depth             int
	inString, escaped bool
	wantKey, inKey    bool
	key               []byte // the member name being read, up to 3 bytes
	isID              bool   // the value that comes is the id's
	capturing         bool   // reading the id's value
	val               []byte
	id                json.RawMessage
}

func (s *idSniffer) write(p []byte) {
	for _, b := range p {
		if s.stopped {
			return
		}
		s.byte(b)
	}
}

func (s *idSniffer) byte(b byte) {
	if s.inString {
		switch {
		case s.escaped:
			s.escaped = false
		case b == '\\':
			s.escaped = true
		case b == '"':
			s.inString = false
			if s.inKey {
				s.inKey = false
				s.isID = string(s.key) == "id"
				return
			}
			if s.capturing {
				s.val = append(s.val, b)
				s.finish()
			}
			return
		}
		if s.inKey && len(s.key) < 3 {
			s.key = append(s.key, b)
		}
		if s.capturing {
			s.capture(b)
		}
		return
	}
	if s.capturing { // a number
		if bytes.IndexByte([]byte("0123456789+-.eE"), b) >= 0 {
			s.capture(b)
			return
		}
		s.finish()
		if s.stopped {
			return
		}
	}
	switch b {
	case ' ', '\t', '\r', '\n':
		return
	}
	if !s.started {
		s.started = true
		if b != '{' {
			s.stopped = true // not an object: it has no id
			return
		}
	}
	switch b {
	case '{', '[':
		s.depth++
		if s.depth == 1 {
			s.wantKey = true
		} else if s.depth == 2 {
			s.isID = false // an object or a list is no id
		}
	case '}', ']':
		s.depth--
		if s.depth <= 0 {
			s.stopped = true
		}
	case ',':
		if s.depth == 1 {
			s.wantKey, s.isID = true, false
		}
	case ':':
	case '"':
		s.inString = true
		switch {
		case s.depth == 1 && s.wantKey:
			s.wantKey, s.inKey, s.key = false, true, s.key[:0]
		case s.depth == 1 && s.isID:
			s.capturing, s.val = true, append(s.val[:0], b)
		}
	default:
		if s.depth == 1 && s.isID {
			if b == '-' || b >= '0' && b <= '9' {
				s.capturing, s.val = true, append(s.val[:0], b)
			} else {
				s.isID = false // true, false or null: no id to give back
			}
		}
	}
}

func (s *idSniffer) capture(b byte) {
	if len(s.val) >= maxIDBytes {
		s.capturing, s.isID, s.stopped = false, false, true // too long to give back
		return
	}
	s.val = append(s.val, b)
}

// finish ends the id's value: the first well-formed one is the answer.
func (s *idSniffer) finish() {
	s.capturing, s.isID = false, false
	if json.Valid(s.val) && utf8.Valid(s.val) {
		s.id = append(json.RawMessage(nil), s.val...)
		s.stopped = true
	}
}

// result is the id read, nil when there was none to give back.
func (s *idSniffer) result() json.RawMessage {
	if s.capturing && !s.inString {
		s.finish()
	}
	return s.id
}

// rpcError is an answer cortex gives itself to a message it does not pass on.
type rpcError struct {
	id      json.RawMessage // nil: null
	code    int64
	message string
}

// message is a checked message, ready to pass on to the SDK.
type message struct {
	id      json.RawMessage // as the client wrote it; nil for a notification
	request bool            // a request or notification; else a response
	method  string
	params  json.RawMessage
	result  json.RawMessage
	err     *errorObject
}

// errorObject is the error member of a response.
type errorObject struct {
	Code    int64           `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

// checkMessage checks one line against JSON-RPC 2.0 and MCP's rules for a
// message. It returns nil, nil for a blank line (skipped without an answer),
// the message when it is well formed, and otherwise the error to answer with:
// a parse error when the line is not JSON text, an invalid request when it is
// but not a message, with the message's id when it has a usable one.
func checkMessage(line []byte) (*message, *rpcError) {
	line = bytes.Trim(line, " \t\r\n")
	if len(line) == 0 {
		return nil, nil
	}
	if !utf8.Valid(line) {
		var sn idSniffer
		sn.write(line)
		return nil, &rpcError{id: sn.result(), code: codeParseError, message: "parse error: the message is not valid UTF-8"}
	}
	if depth(line) > maxDepth {
		var sn idSniffer
		sn.write(line)
		return nil, &rpcError{id: sn.result(), code: codeInvalidRequest,
			message: fmt.Sprintf("invalid request: the message nests objects or lists more than %d levels deep", maxDepth)}
	}
	var raw json.RawMessage
	if err := json.Unmarshal(line, &raw); err != nil {
		return nil, &rpcError{code: codeParseError, message: "parse error: " + parseProblem(err)}
	}
	invalid := func(id json.RawMessage, format string, args ...any) (*message, *rpcError) {
		return nil, &rpcError{id: id, code: codeInvalidRequest, message: "invalid request: " + fmt.Sprintf(format, args...)}
	}
	switch line[0] {
	case '{':
	case '[':
		return invalid(nil, "batches (JSON arrays of messages) are not supported; send one message per line")
	default:
		return invalid(nil, "a message must be a JSON object; got %s", kind(line))
	}
	members, dup, err := objectMembers(line)
	if err != nil {
		return nil, &rpcError{code: codeParseError, message: "parse error: " + parseProblem(err)}
	}
	rawID, hasID := members["id"]
	var id json.RawMessage // the id to answer with, once known to be usable
	if hasID {
		switch rawID[0] {
		case '"', '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
			id = rawID
		case 'n':
			return invalid(nil, "id: must be a string or a number; MCP does not allow null")
		default:
			return invalid(nil, "id: must be a string or a number; got %s", kind(rawID))
		}
	}
	if dup != "" {
		if dup == "id" {
			id = nil
		}
		return invalid(id, "%q is given twice", dup)
	}
	switch v, ok := members["jsonrpc"]; {
	case !ok:
		return invalid(id, `jsonrpc: is required and must be "2.0"`)
	case string(v) != `"2.0"`:
		var s string
		if json.Unmarshal(v, &s) != nil || s != "2.0" {
			return invalid(id, `jsonrpc: must be "2.0"; got %s`, brief(v))
		}
	}
	if m, ok := members["method"]; ok {
		msg := &message{id: id, request: true}
		if json.Unmarshal(m, &msg.method) != nil {
			return invalid(id, "method: must be a string; got %s", kind(m))
		}
		if p, ok := members["params"]; ok && string(p) != "null" {
			if p[0] != '{' && p[0] != '[' {
				return invalid(id, "params: must be an object; got %s", kind(p))
			}
			msg.params = p
		}
		return msg, nil
	}
	if !hasID {
		return invalid(nil, "a message needs a method (a request or a notification) or an id with a result or an error (a response)")
	}
	res, hasResult := members["result"]
	e, hasError := members["error"]
	if hasResult == hasError {
		return invalid(id, "a response needs a result or an error, and not both")
	}
	msg := &message{id: id, result: res}
	if hasError {
		var eo struct {
			Code    *int64          `json:"code"`
			Message *string         `json:"message"`
			Data    json.RawMessage `json:"data"`
		}
		if e[0] != '{' || json.Unmarshal(e, &eo) != nil || eo.Code == nil || eo.Message == nil {
			return invalid(id, "error: must be an object with a whole-number code and a message")
		}
		msg.err = &errorObject{Code: *eo.Code, Message: *eo.Message, Data: eo.Data}
	}
	return msg, nil
}

// objectMembers reads the members of the JSON object text, which is valid.
// It reports the first name given twice; the first value given counts.
func objectMembers(text []byte) (map[string]json.RawMessage, string, error) {
	dec := json.NewDecoder(bytes.NewReader(text))
	if _, err := dec.Token(); err != nil { // {
		return nil, "", err
	}
	members := make(map[string]json.RawMessage)
	var dup string
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, "", err
		}
		name, _ := t.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, "", err
		}
		if _, seen := members[name]; seen {
			if dup == "" {
				dup = name
			}
			continue
		}
		members[name] = v
	}
	return members, dup, nil
}

// depth is how deeply the JSON text's objects and lists nest.
func depth(text []byte) int {
	var d, most int
	var inString, escaped bool
	for _, b := range text {
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case b == '\\':
				escaped = true
			case b == '"':
				inString = false
			}
		case b == '"':
			inString = true
		case b == '{' || b == '[':
			d++
			most = max(most, d)
		case b == '}' || b == ']':
			d--
		}
	}
	return most
}

// kind names a JSON value's kind for a message: "the number 5", "an object".
func kind(v json.RawMessage) string {
	switch v[0] {
	case '{':
		return "an object"
	case '[':
		return "a list"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	if len(v) > 24 {
		return "a number"
	}
	return "the number " + string(v)
}

// brief is a short JSON value as it was written, a longer one by its kind.
func brief(v json.RawMessage) string {
	if len(v) > 40 {
		return kind(v)
	}
	return string(v)
}

// parseProblem words a JSON syntax error, with where it is.
func parseProblem(err error) string {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return se.Error() + " (at byte " + strconv.FormatInt(se.Offset, 10) + ")"
	}
	return err.Error()
}
