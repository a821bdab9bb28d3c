package droid

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/cortexmem/cortex/transcript"
	"github.com/cortexmem/cortex/transcript/rawjson"
)

// state is what the adapter remembers between records of one stream; it
// round-trips through JSON with the stream's Context.
type state struct {
	// Calls are the tool calls waiting for their result, by call id.
	Calls map[string]call `json:"calls,omitempty"`
}

type call struct {
	Name  string          `json:"name"`
	Input json.RawMessage `json:"input,omitempty"` // edit tools only
}

// Parse turns one line of a Droid session file into events.
func (a *Adapter) Parse(rec transcript.Record, ctx *transcript.Context) []transcript.Event {
	m, malformed := transcript.RecordObject(ctx, rec)
	if malformed != nil {
		return malformed
	}
	// Most records give one or two events: room for two saves growing the
	// slice on every record.
	p := &parser{ctx: ctx, st: transcript.StateOf[state](ctx), rec: rec, m: m, main: -1, out: make([]transcript.Event, 0, 2)}
	p.id = rawjson.AsString(m.Get("id"))
	p.parent = rawjson.AsString(m.Get("parentId"))
	p.ts = rawjson.AsString(m.Get("timestamp"))
	typ := rawjson.AsString(m.Get("type"))
	var used []string
	switch typ {
	case "session_start":
		used = p.sessionStart()
	case "message":
		msg := rawjson.AsObject(m.Get("message"))
		switch rawjson.AsString(msg.Get("role")) {
		case "user":
			p.user(msg)
		case "assistant":
			p.assistant(msg)
		default:
			return p.unknown(typ+"/"+rawjson.AsString(msg.Get("role")), transcript.ReasonUnrecognized)
		}
		used = usedMessage
	case "compaction_state":
		s := rawjson.AsObject(m.Get("summary"))
		e := p.event(transcript.KindCompaction, "")
		e.Compaction = &transcript.Compaction{Summary: rawjson.AsString(s.Get("body")), Details: rawjson.Value(m.Get("summary"))}
		used = usedCompaction
	case "todo_state":
		return p.unknown(typ, transcript.ReasonUnmapped)
	default:
		return p.unknown(typ, transcript.ReasonUnrecognized)
	}
	p.extra(used)
	return p.out
}

// The members of each kind of record that its events have a slot for (the
// others are kept as the main event's Extra).
var (
	usedMessage     = []string{"type", "id", "parentId", "timestamp", "message"}
	usedCompaction  = []string{"type", "id", "parentId", "timestamp", "summary"}
	usedStart       = []string{"type", "id", "parentId", "timestamp", "cwd", "workspace_root"}
	usedNestedStart = []string{"type", "id", "parentId", "timestamp", "cwd", "workspace_root", "session"}
)

// parser holds one record being parsed.
type parser struct {
	ctx            *transcript.Context
	st             *state
	rec            transcript.Record
	m              rawjson.Object
	id, parent, ts string
	out            []transcript.Event
	main           int // index in out of the record's main event, -1 before it
}

// event starts an event of the record: the record's id for its first (main)
// event, the id with "#"+suffix for the others (whose parent is the main
// event).
func (p *parser) event(kind transcript.Kind, suffix string) *transcript.Event {
	id, parent := p.id, p.parent
	if p.main >= 0 {
		if suffix == "" {
			suffix = string(kind)
		}
		base := p.id
		if base == "" {
			base = transcript.HashID(p.rec.Data)
		}
		id = base + "#" + suffix
		parent = p.out[p.main].EventID
	}
	e := p.ctx.NewEvent(p.rec, kind, id)
	e.ParentID = parent
	e.Timestamp = p.ts
	p.out = append(p.out, e)
	if p.main < 0 {
		p.main = len(p.out) - 1
	}
	return &p.out[len(p.out)-1]
}

// unknown preserves the whole record.
func (p *parser) unknown(rawType, reason string) []transcript.Event {
	e := p.ctx.NewEvent(p.rec, transcript.KindUnknown, p.id)
	e.Unknown = transcript.NewUnknown(rawType, reason, p.rec.Data, true)
	e.ParentID = p.parent
	e.Timestamp = p.ts
	return []transcript.Event{e}
}

// extra keeps the record's members the events have no slot for on its main
// event.
func (p *parser) extra(used []string) {
	if p.main < 0 {
		return
	}
	for _, mem := range p.m {
		k := mem.KeyString()
		if contains(used, k) {
			continue
		}
		e := &p.out[p.main]
		if e.Extra == nil {
			e.Extra = map[string]json.RawMessage{}
		}
		e.Extra[k] = mem.Value
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// sessionStart reads a session_start record, flat or with its fields in
// "session", and returns the members it used.
func (p *parser) sessionStart() []string {
	s := p.m
	used := usedStart
	if nested := rawjson.AsObject(p.m.Get("session")); nested != nil && p.id == "" {
		s = nested
		p.id = rawjson.AsString(s.Get("id"))
		used = usedNestedStart
	}
	if p.ts == "" {
		p.ts = rawjson.AsString(s.Get("created_at"))
	}
	p.ctx.SetSession(p.id)
	cwd := rawjson.AsString(s.Get("cwd"))
	if cwd == "" {
		cwd = rawjson.AsString(s.Get("workspace_root"))
	}
	p.ctx.SetProject(transcript.Project{Cwd: cwd})
	e := p.event(transcript.KindSessionStart, "")
	e.SessionID = p.ctx.Session()
	e.Project = p.ctx.Project()
	e.SessionStart = &transcript.SessionStart{}
	return used
}

// injected says why a text block of a user message was added by Droid
// rather than typed ("" when typed).
func injected(text string) string {
	t := strings.TrimLeft(text, " \t\r\n")
	switch {
	case strings.HasPrefix(t, "<system-reminder>"):
		return transcript.MetaSystemReminder
	case strings.HasPrefix(t, "Contents of "), strings.HasPrefix(t, "<context"):
		return transcript.MetaInjected
	}
	return ""
}

func (p *parser) user(msg rawjson.Object) {
	var typed, added []string
	addedMeta := ""
	var parts []transcript.Part
	var results []rawjson.Object
	content := msg.Get("content")
	if s, ok := rawjson.String(content); ok {
		typed = append(typed, s)
	}
	for _, raw := range rawjson.AsArray(content) {
		b := rawjson.AsObject(raw)
		switch typ := rawjson.AsString(b.Get("type")); typ {
		case "tool_result":
			results = append(results, b)
		case "text":
			t := rawjson.AsString(b.Get("text"))
			if meta := injected(t); meta != "" && len(typed) > 0 || meta == transcript.MetaSystemReminder {
				added = append(added, t)
				if addedMeta == "" {
					addedMeta = meta
				}
			} else {
				typed = append(typed, t)
			}
		default:
			parts = append(parts, transcript.Part{Type: typ, Raw: raw})
		}
	}
	if len(typed) > 0 || len(parts) > 0 || len(results) == 0 && len(added) == 0 {
		e := p.event(transcript.KindUserTurn, "")
		e.UserTurn = &transcript.UserTurn{Text: strings.Join(typed, "\n\n"), Parts: parts}
	}
	if len(added) > 0 {
		e := p.event(transcript.KindUserTurn, "context")
		e.UserTurn = &transcript.UserTurn{Text: strings.Join(added, "\n\n"), Meta: addedMeta}
	}
	for i, b := range results {
		p.toolResult(i, b)
	}
}

func (p *parser) toolResult(i int, b rawjson.Object) {
	callID := rawjson.AsString(b.Get("tool_use_id"))
	key := callID
	if key == "" {
		key = strconv.Itoa(i)
	}
	c := p.st.Calls[callID]
	delete(p.st.Calls, callID)
	text := flatten(b.Get("content"))
	ok := !rawjson.Bool(b.Get("is_error")) && !isErrorText(text)
	e := p.event(transcript.KindToolResult, "tool_result:"+key)
	e.ToolResult = &transcript.ToolResult{CallID: callID, Name: c.Name, OK: ok, Text: text, Output: rawjson.Value(b.Get("content"))}
	for j, fe := range fileEdits(c, text, ok) {
		fe.CallID = callID
		suffix := "edit:" + key
		if j > 0 {
			suffix += ":" + strconv.Itoa(j+1)
		}
		ev := p.event(transcript.KindFileEdit, suffix)
		ev.FileEdit = fe
	}
}

// isErrorText reports whether a tool's output says the call failed: Droid
// returns {"success": false, …} or an "Error: …" text.
func isErrorText(text string) bool {
	t := strings.TrimSpace(text)
	if strings.HasPrefix(t, "Error") || strings.HasPrefix(t, "error:") {
		return true
	}
	if !strings.HasPrefix(t, "{") {
		return false
	}
	// Find the member first: validating every JSON result only to find no
	// "success" in most was a tenth of the parse.
	b := []byte(t)
	return string(rawjson.AsObject(b).Get("success")) == "false" && rawjson.Valid(b)
}

func (p *parser) assistant(msg rawjson.Object) {
	var texts, thinking []string
	var parts []transcript.Part
	var calls []rawjson.Object
	content := msg.Get("content")
	if s, ok := rawjson.String(content); ok {
		texts = append(texts, s)
	}
	for _, raw := range rawjson.AsArray(content) {
		b := rawjson.AsObject(raw)
		switch typ := rawjson.AsString(b.Get("type")); typ {
		case "text":
			texts = append(texts, rawjson.AsString(b.Get("text")))
		case "thinking", "reasoning":
			t := rawjson.AsString(b.Get("thinking"))
			if t == "" {
				t = rawjson.AsString(b.Get("text"))
			}
			thinking = append(thinking, t)
			parts = append(parts, transcript.Part{Type: typ, Raw: raw})
		case "tool_use":
			calls = append(calls, b)
		default:
			parts = append(parts, transcript.Part{Type: typ, Raw: raw})
		}
	}
	if len(texts) > 0 || len(thinking) > 0 || len(parts) > 0 || len(calls) == 0 {
		e := p.event(transcript.KindAssistantTurn, "")
		e.AssistantTurn = &transcript.AssistantTurn{
			Text: strings.Join(texts, "\n\n"), Thinking: strings.Join(thinking, "\n\n"),
			Model: rawjson.AsString(msg.Get("model")), MessageID: p.id, Parts: parts,
		}
	}
	for i, b := range calls {
		id := rawjson.AsString(b.Get("id"))
		key := id
		if key == "" {
			key = strconv.Itoa(i)
		}
		name := rawjson.AsString(b.Get("name"))
		e := p.event(transcript.KindToolCall, "tool_call:"+key)
		e.ToolCall = &transcript.ToolCall{CallID: id, Name: name, Input: rawjson.Value(b.Get("input"))}
		if id != "" {
			if p.st.Calls == nil {
				p.st.Calls = map[string]call{}
			}
			c := call{Name: name}
			if editTools[name] {
				c.Input = json.RawMessage(b.Get("input"))
			}
			p.st.Calls[id] = c
		}
	}
}

// flatten turns a tool result's content (a string, or text and other
// blocks) into text.
func flatten(raw []byte) string {
	if s, ok := rawjson.String(raw); ok {
		return s
	}
	var parts []string
	for _, b := range rawjson.AsArray(raw) {
		o := rawjson.AsObject(b)
		switch t := rawjson.AsString(o.Get("type")); t {
		case "text":
			parts = append(parts, rawjson.AsString(o.Get("text")))
		case "":
		default:
			parts = append(parts, "["+t+"]")
		}
	}
	return strings.Join(parts, "\n")
}
