package vscodecopilot

import (
	"bytes"
	"strings"

	"github.com/cortexmem/cortex/transcript"
	"github.com/cortexmem/cortex/transcript/rawjson"
)

// The schema labels Fingerprint gives: the mutation log of newer builds and
// the single document of older ones (ISerializableChatData version 3 both).
const (
	SchemaLog      = "vscode-copilot-chat/jsonl"
	SchemaDocument = "vscode-copilot-chat/json"
)

// Adapter reads VS Code Copilot Chat's session logs (chatSessions/<id>.jsonl,
// one mutation a line). The zero value is ready to use. The older
// single-document sessions (chatSessions/<id>.json) are not JSON lines:
// Document reads them, and ForFile picks the adapter for a path.
type Adapter struct{}

var _ transcript.Adapter = (*Adapter)(nil)

// New returns the VS Code Copilot Chat adapter.
func New() *Adapter { return &Adapter{} }

// Source is VS Code Copilot Chat.
func (a *Adapter) Source() transcript.SourceKind { return transcript.VSCodeCopilotChat }

// ForFile returns the adapter that reads the session at path: Document for
// a .json file (one document rewritten in place), a itself for the others
// (the mutation log). Discover lists both kinds.
func (a *Adapter) ForFile(path string) transcript.Adapter {
	if strings.HasSuffix(path, ".json") {
		return NewDocument()
	}
	return a
}

// Fingerprint names a record's schema: SchemaLog for an entry of the
// mutation log ({"kind": 0, "v": …} first, then {"kind": 1|2|3, "k":
// [path], "v": …}), SchemaDocument for a whole session document on one
// line; empty for records that are not VS Code's.
func (a *Adapter) Fingerprint(rec transcript.Record) transcript.Variant {
	return fingerprint(rec.Data)
}

func fingerprint(data []byte) transcript.Variant {
	v := transcript.Variant{Source: transcript.VSCodeCopilotChat}
	if !rawjson.IsObject(data) {
		return v
	}
	if !rawjson.Valid(data) {
		// The start of a record too long for what detection reads (a log's
		// first entry, a document: megabytes once a session grows).
		if isLogHead(data) {
			v.Schema = SchemaLog
		} else if isSessionHead(data) {
			v.Schema = SchemaDocument
		}
		return v
	}
	m := rawjson.AsObject(data)
	switch {
	case isEntry(m):
		v.Schema = SchemaLog
		if k := rawjson.Int(m.Get("kind")); k == kindInitial {
			v.ToolVersion = extensionVersion(rawjson.AsObject(m.Get("v")))
		}
	case isSession(m):
		v.Schema = SchemaDocument
		v.ToolVersion = extensionVersion(m)
	case isRequest(m):
		v.Schema = SchemaDocument
		v.ToolVersion = rawjson.AsString(rawjson.AsObject(m.Get("agent")).Get("extensionVersion"))
	}
	return v
}

// The kinds of a mutation log's entries (VS Code's objectMutationLog.ts).
const (
	kindInitial = 0 // the whole session
	kindSet     = 1 // a value set at a path
	kindPush    = 2 // values appended to the array at a path, after cutting it at i when given
	kindDelete  = 3 // the value at a path removed
)

// isEntry reports whether m is a mutation log entry: a kind of the four,
// the whole session for the first, a path for the others.
func isEntry(m rawjson.Object) bool {
	k := m.Get("kind")
	if !rawjson.IsNumber(k) {
		return false
	}
	switch rawjson.Int(k) {
	case kindInitial:
		return isSession(rawjson.AsObject(m.Get("v")))
	case kindSet, kindPush, kindDelete:
		return rawjson.IsArray(m.Get("k"))
	}
	return false
}

// isSession reports whether m is a serialized chat session: its requests,
// and the version or session id beside them.
func isSession(m rawjson.Object) bool {
	return rawjson.IsArray(m.Get("requests")) && (m.Has("version") || m.Has("sessionId") || m.Has("creationDate"))
}

// isRequest reports whether m is one request of a session: its id and
// message.
func isRequest(m rawjson.Object) bool {
	return rawjson.IsString(m.Get("requestId")) && rawjson.IsObject(m.Get("message"))
}

// extensionVersion is the Copilot Chat version of a session's first
// request that names one.
func extensionVersion(session rawjson.Object) string {
	for _, r := range rawjson.AsArray(session.Get("requests")) {
		if v := rawjson.AsString(rawjson.AsObject(rawjson.AsObject(r).Get("agent")).Get("extensionVersion")); v != "" {
			return v
		}
	}
	return ""
}

// isLogHead reports whether data starts a mutation log's first entry:
// {"kind":0,"v":{ then members of a session.
func isLogHead(data []byte) bool {
	rest, ok := bytes.CutPrefix(data, []byte(`{"kind":0,"v":`))
	return ok && isSessionHead(rest)
}

// isSessionHead reports whether data starts a session document: an object
// whose members, as far as data goes, include its requests array (begun)
// and one of the session's own fields before it.
func isSessionHead(data []byte) bool {
	i := rawjson.SkipSpace(data, 0)
	if i >= len(data) || data[i] != '{' {
		return false
	}
	own := false
	for i = rawjson.SkipSpace(data, i+1); i < len(data) && data[i] == '"'; {
		end := rawjson.SkipString(data, i)
		if end < 0 {
			return false
		}
		key := string(data[i+1 : end-1])
		j := rawjson.SkipSpace(data, end)
		if j >= len(data) || data[j] != ':' {
			return false
		}
		j = rawjson.SkipSpace(data, j+1)
		if key == "requests" {
			return own && j < len(data) && data[j] == '['
		}
		switch key {
		case "version", "sessionId", "creationDate", "requesterUsername", "responderUsername", "initialLocation":
			own = true
		}
		vend := rawjson.SkipValue(data, j)
		if vend < 0 {
			return false
		}
		i = rawjson.SkipSpace(data, vend)
		if i < len(data) && data[i] == ',' {
			i = rawjson.SkipSpace(data, i+1)
		}
	}
	return false
}
