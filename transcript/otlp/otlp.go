// Package otlp decodes OpenTelemetry log exports (OTLP/HTTP, the body of a
// POST to /v1/logs: an ExportLogsServiceRequest in binary protobuf or in
// OTLP/JSON) into flat records, one JSON object a log record, that cortex
// keeps as JSON lines and the otlp adapter reads as a transcript.
//
// Coding agents that export telemetry (Claude Code, Codex, Gemini CLI,
// GitHub Copilot) send their events — a prompt, a tool's result, a model
// request — as log records: an event name, a time, attributes. A record
// here keeps all of that, the resource's and the scope's identity beside
// it, so the transcript read later needs nothing of the request it came in.
//
// The decoding follows the official OTLP protobuf definitions
// (go.opentelemetry.io/proto/otlp) and the protobuf JSON mapping, with
// decoders of its own (message.go): the tests hold them to the official
// bindings. OTLP/JSON differs from the protobuf JSON mapping in one place:
// trace and span ids are hex, not base64; they are read as hex here.
package otlp

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"mime"
	"strings"
	"time"
)

// The content types OTLP/HTTP uses.
const (
	ContentProtobuf = "application/x-protobuf"
	ContentJSON     = "application/json"
)

// Kind is the value of a record's "otlp" member: what says a line is one
// of these records.
const Kind = "log"

// ErrUnsupportedType is returned for a body whose content type is neither
// of OTLP/HTTP's.
var ErrUnsupportedType = errors.New("unsupported content type")

// ErrMalformed is returned for a body that is not an export request of
// the content type it claims.
var ErrMalformed = errors.New("malformed export request")

// maxDepth bounds how deeply an attribute's value nests (arrays and maps
// inside each other); a value deeper is kept as the text "(nested too
// deeply)" rather than recursed into.
const maxDepth = 64

// Record is one log record, flattened: the line cortex stores.
type Record struct {
	// OTLP is always Kind.
	OTLP string `json:"otlp"`
	// Service and ServiceVersion are the resource's service.name and
	// service.version.
	Service        string `json:"service,omitempty"`
	ServiceVersion string `json:"service_version,omitempty"`
	// Session is the session the record belongs to, as its attributes (or
	// else its resource's) name it: session.id, conversation.id, thread.id
	// or gen_ai.conversation.id.
	Session string `json:"session,omitempty"`
	// Event is the record's event name: its event_name field, else its
	// body when the body is a dotted name (claude_code.user_prompt), else
	// its event.name attribute.
	Event string `json:"event,omitempty"`
	// Time and ObservedTime are RFC 3339 UTC with nine digits of
	// nanoseconds (they sort as text); empty when
	// the record has none.
	Time         string `json:"time,omitempty"`
	ObservedTime string `json:"observed_time,omitempty"`
	Severity     string `json:"severity,omitempty"`
	// SeverityNumber is OTLP's 1-24 scale, 0 when unset.
	SeverityNumber int32           `json:"severity_number,omitempty"`
	Body           json.RawMessage `json:"body,omitempty"`
	// Attributes, Resource and ScopeAttributes map each key to its value
	// as JSON (strings, numbers, booleans, arrays, objects; bytes as
	// base64).
	Attributes      map[string]json.RawMessage `json:"attributes,omitempty"`
	Resource        map[string]json.RawMessage `json:"resource,omitempty"`
	Scope           string                     `json:"scope,omitempty"`
	ScopeVersion    string                     `json:"scope_version,omitempty"`
	ScopeAttributes map[string]json.RawMessage `json:"scope_attributes,omitempty"`
	TraceID         string                     `json:"trace_id,omitempty"`
	SpanID          string                     `json:"span_id,omitempty"`
	Flags           uint32                     `json:"flags,omitempty"`
	Dropped         uint32                     `json:"dropped_attributes,omitempty"`
}

// sessionKeys are the attributes that name a session, in the order they
// are looked at: Claude Code's and Gemini CLI's session.id, Codex's
// conversation.id, and the generic names.
var sessionKeys = []string{"session.id", "conversation.id", "thread.id", "gen_ai.conversation.id"}

// MediaType returns the media type of a Content-Type header (without its
// parameters, lower case), and ErrUnsupportedType naming it when it is
// not one of OTLP/HTTP's.
func MediaType(contentType string) (string, error) {
	mt, _, err := mime.ParseMediaType(contentType)
	if err != nil {
		mt = strings.ToLower(strings.TrimSpace(contentType))
	}
	switch mt {
	case ContentProtobuf, ContentJSON:
		return mt, nil
	}
	if mt == "" {
		return "", fmt.Errorf("%w: no Content-Type; OTLP/HTTP sends %s or %s", ErrUnsupportedType, ContentProtobuf, ContentJSON)
	}
	return "", fmt.Errorf("%w %q; OTLP/HTTP sends %s or %s", ErrUnsupportedType, mt, ContentProtobuf, ContentJSON)
}

// DecodeLogs decodes the body of an OTLP/HTTP logs export of the given
// media type (ContentProtobuf or ContentJSON) into its records, in the
// order of the request. An empty request gives no records and no error.
// It never panics; a body it cannot decode gives an error wrapping
// ErrMalformed.
func DecodeLogs(body []byte, mediaType string) ([]Record, error) {
	var req *logsData // the wire form of ExportLogsServiceRequest
	var err error
	switch mediaType {
	case ContentProtobuf:
		if req, err = decodeProtobuf(body); err != nil {
			return nil, fmt.Errorf("%w: protobuf: %v", ErrMalformed, err)
		}
	case ContentJSON:
		if req, err = decodeJSON(body); err != nil {
			return nil, fmt.Errorf("%w: JSON: %v", ErrMalformed, err)
		}
	default:
		_, err := MediaType(mediaType)
		return nil, err
	}
	var out []Record
	for _, rl := range req.resourceLogs {
		res := attributes(rl.resource.attributes)
		for _, sl := range rl.scopeLogs {
			scope := sl.scope
			scopeAttrs := attributes(scope.attributes)
			for i := range sl.logRecords {
				lr := &sl.logRecords[i]
				r := Record{
					OTLP:            Kind,
					Service:         stringAttr(res, "service.name"),
					ServiceVersion:  stringAttr(res, "service.version"),
					Time:            stamp(lr.timeUnixNano),
					ObservedTime:    stamp(lr.observedTimeUnixNano),
					Severity:        lr.severityText,
					SeverityNumber:  lr.severityNumber,
					Attributes:      attributes(lr.attributes),
					Resource:        res,
					Scope:           scope.name,
					ScopeVersion:    scope.version,
					ScopeAttributes: scopeAttrs,
					TraceID:         id(lr.traceID, mediaType),
					SpanID:          id(lr.spanID, mediaType),
					Flags:           lr.flags,
					Dropped:         lr.droppedCount,
				}
				if lr.body != nil {
					r.Body = value(lr.body, 0)
				}
				r.Event = eventName(lr, r.Attributes)
				r.Session = session(r.Attributes, res)
				out = append(out, r)
			}
		}
	}
	return out, nil
}

// eventName is a record's event name: the event_name field (OTLP 1.5),
// else the body when it is a dotted name with no spaces (Claude Code puts
// "claude_code.user_prompt" there), else the event.name attribute.
func eventName(lr *logRecord, attrs map[string]json.RawMessage) string {
	if n := lr.eventName; n != "" {
		return n
	}
	if lr.body != nil && lr.body.kind == kindString {
		if n := lr.body.str; len(n) <= 128 && strings.Contains(n, ".") && !strings.ContainsAny(n, " \t\r\n") {
			return n
		}
	}
	return stringAttr(attrs, "event.name")
}

// session is the session the attributes, else the resource's, name.
func session(attrs, res map[string]json.RawMessage) string {
	for _, m := range []map[string]json.RawMessage{attrs, res} {
		for _, k := range sessionKeys {
			if s := stringAttr(m, k); s != "" {
				return s
			}
		}
	}
	return ""
}

// stringAttr is the attribute k's value when it is a string or a number
// (an id may be sent as either); "" otherwise.
func stringAttr(m map[string]json.RawMessage, k string) string {
	v, ok := m[k]
	if !ok || len(v) == 0 {
		return ""
	}
	var s string
	if json.Unmarshal(v, &s) == nil {
		return s
	}
	if v[0] == '-' || (v[0] >= '0' && v[0] <= '9') {
		return string(v)
	}
	return ""
}

// stampLayout is RFC 3339 with all nine digits of the nanoseconds, so that
// times sort as text.
const stampLayout = "2006-01-02T15:04:05.000000000Z07:00"

// stamp formats nanoseconds since the epoch; "" for 0 (unset).
func stamp(ns uint64) string {
	if ns == 0 {
		return ""
	}
	if ns > math.MaxInt64 {
		ns = math.MaxInt64
	}
	return time.Unix(0, int64(ns)).UTC().Format(stampLayout)
}

// id formats a trace or span id as hex. OTLP/JSON sends them as hex where
// the protobuf JSON mapping reads base64: the bytes read from JSON are
// turned back into the text sent, which is the hex.
func id(b []byte, mediaType string) string {
	if len(b) == 0 {
		return ""
	}
	if mediaType == ContentJSON {
		s := base64.StdEncoding.EncodeToString(b)
		if _, err := hex.DecodeString(s); err == nil {
			return strings.ToLower(s)
		}
	}
	return hex.EncodeToString(b)
}

// attributes maps each key to its value as JSON; a key sent twice keeps
// its last value.
func attributes(kvs []keyValue) map[string]json.RawMessage {
	if len(kvs) == 0 {
		return nil
	}
	m := make(map[string]json.RawMessage, len(kvs))
	for _, kv := range kvs {
		m[kv.key] = value(kv.value, 0)
	}
	return m
}

// value is an AnyValue as JSON: null when empty or nil.
func value(v *anyValue, depth int) json.RawMessage {
	if depth >= maxDepth {
		return json.RawMessage(`"(nested too deeply)"`)
	}
	if v == nil {
		return json.RawMessage("null")
	}
	switch v.kind {
	case kindString:
		return marshal(v.str)
	case kindBool:
		return marshal(v.boolean)
	case kindInt:
		return marshal(v.integer)
	case kindDouble:
		if math.IsNaN(v.double) || math.IsInf(v.double, 0) {
			return marshal(fmt.Sprint(v.double)) // JSON has no NaN nor infinities
		}
		return marshal(v.double)
	case kindBytes:
		return marshal(v.bytes)
	case kindArray:
		var b bytes.Buffer
		b.WriteByte('[')
		for i, e := range v.array {
			if i > 0 {
				b.WriteByte(',')
			}
			b.Write(value(e, depth+1))
		}
		b.WriteByte(']')
		return b.Bytes()
	case kindKvlist:
		m := map[string]json.RawMessage{}
		for _, kv := range v.kvlist {
			m[kv.key] = value(kv.value, depth+1)
		}
		return marshal(m)
	}
	return json.RawMessage("null")
}

// marshal encodes what cannot fail to encode (strings, numbers, booleans,
// byte slices, maps of encoded values); invalid UTF-8 in a string becomes
// U+FFFD, as encoding/json does.
func marshal(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		return json.RawMessage("null")
	}
	return b
}
