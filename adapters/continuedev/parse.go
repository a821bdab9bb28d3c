package continuedev

import (
	"encoding/json"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/cortexmem/cortex/transcript"
	"github.com/cortexmem/cortex/transcript/rawjson"
)

// Parse turns one record — a whole session document — into events.
func (a *Adapter) Parse(rec transcript.Record, ctx *transcript.Context) []transcript.Event {
	m, malformed := transcript.RecordObject(ctx, rec)
	if malformed != nil {
		return malformed
	}
	if !isSession(m) {
		return []transcript.Event{transcript.UnknownEvent(ctx, rec, "", transcript.ReasonUnrecognized)}
	}
	items := rawjson.AsArray(m.Get("history"))
	// Room for two events an item up front spares copying a long session's
	// events as they grow.
	p := &parser{ctx: ctx, rec: rec, session: rawjson.AsString(m.Get("sessionId")), calls: map[string]call{}, answered: map[string]bool{},
		out: make([]transcript.Event, 0, 2*len(items)+1)}
	p.start(m)
	for i, raw := range items {
		p.item(i, rawjson.AsObject(raw), raw)
	}
	return p.out
}

type call struct {
	name string
	args []byte // the parsed arguments, an object
}

// parser reads one session.
type parser struct {
	ctx      *transcript.Context
	rec      transcript.Record
	session  string
	calls    map[string]call
	answered map[string]bool // calls a result was given for
	out      []transcript.Event

	id, pointer, ts string // of the item being read
	main            int    // index in out of the item's first event, -1 before it
}

// event adds an event of the item being read: its first has the item's
// id, the others the id with "#"+suffix and the first as parent.
func (p *parser) event(kind transcript.Kind, suffix string) *transcript.Event {
	id, parent := p.id, ""
	if p.main >= 0 {
		id, parent = p.id+"#"+suffix, p.out[p.main].EventID
	}
	e := p.ctx.NewEvent(p.rec, kind, id)
	e.Provenance.Pointer = p.pointer
	e.Timestamp = p.ts
	e.ParentID = parent
	p.out = append(p.out, e)
	if p.main < 0 {
		p.main = len(p.out) - 1
	}
	return &p.out[len(p.out)-1]
}

// sessionKeys are the session's members the events carry.
var sessionKeys = map[string]bool{"sessionId": true, "workspaceDirectory": true, "history": true, "chatModelTitle": true}

func (p *parser) start(m rawjson.Object) {
	p.ctx.SetSession(p.session)
	p.ctx.SetProject(transcript.Project{Cwd: fileURIPath(rawjson.AsString(m.Get("workspaceDirectory")))})
	p.id, p.pointer, p.ts, p.main = p.session+"#start", "", "", -1
	e := p.event(transcript.KindSessionStart, "")
	e.SessionStart = &transcript.SessionStart{Model: rawjson.AsString(m.Get("chatModelTitle"))}
	extra := map[string]json.RawMessage{}
	for _, mem := range m {
		if k := mem.KeyString(); !sessionKeys[k] {
			extra[k] = mem.Value
		}
	}
	if len(extra) > 0 {
		e.Extra = extra
	}
}

// fileURIPath is the path of a file:// URI, the text itself otherwise.
func fileURIPath(s string) string {
	if !strings.HasPrefix(s, "file://") {
		return s
	}
	u, err := url.Parse(s)
	if err != nil {
		return s
	}
	return u.Path
}

// millis formats epoch milliseconds as RFC 3339 in UTC ("" for none).
func millis(raw []byte) string {
	if !rawjson.IsNumber(raw) || rawjson.Int(raw) <= 0 {
		return ""
	}
	return time.UnixMilli(rawjson.Int(raw)).UTC().Format("2006-01-02T15:04:05.000Z07:00")
}

// itemKeys are the members of a history item the events carry.
var itemKeys = map[string]bool{"message": true, "toolCallStates": true, "conversationSummary": true}

func (p *parser) item(i int, it rawjson.Object, raw []byte) {
	p.id = p.session + "/" + strconv.Itoa(i)
	p.pointer = "/history/" + strconv.Itoa(i)
	p.main = -1
	reasoning := rawjson.AsObject(it.Get("reasoning"))
	p.ts = millis(reasoning.Get("startAt"))
	msg := rawjson.AsObject(it.Get("message"))
	switch role := rawjson.AsString(msg.Get("role")); role {
	case "user":
		text, parts := content(msg.Get("content"))
		e := p.event(transcript.KindUserTurn, "")
		e.UserTurn = &transcript.UserTurn{Text: text, Parts: parts}
	case "assistant", "thinking":
		p.assistant(role, msg, reasoning)
	case "tool":
		callID := rawjson.AsString(msg.Get("toolCallId"))
		if p.answered[callID] {
			p.unknownItem("tool", transcript.ReasonDuplicate, raw)
			break
		}
		text, _ := content(msg.Get("content"))
		p.result(callID, "done", text, msg.Get("content"))
	case "system":
		p.unknownItem(role, transcript.ReasonUnmapped, raw)
		return
	default:
		p.unknownItem(role, transcript.ReasonUnrecognized, raw)
		return
	}
	for _, s := range rawjson.AsArray(it.Get("toolCallStates")) {
		st := rawjson.AsObject(s)
		status := rawjson.AsString(st.Get("status"))
		if status != "done" && status != "errored" && status != "canceled" {
			continue
		}
		callID := rawjson.AsString(st.Get("toolCallId"))
		if _, known := p.calls[callID]; !known {
			// A state whose call the message does not list: its call and
			// arguments are in the state.
			p.call(rawjson.AsObject(st.Get("toolCall")), st.Get("parsedArgs"), -1)
		}
		var texts []string
		for _, o := range rawjson.AsArray(st.Get("output")) {
			texts = append(texts, rawjson.AsString(rawjson.AsObject(o).Get("content")))
		}
		p.result(callID, status, strings.Join(texts, "\n"), st.Get("output"))
	}
	if s, ok := rawjson.String(it.Get("conversationSummary")); ok && s != "" {
		e := p.event(transcript.KindCompaction, "compaction")
		e.Compaction = &transcript.Compaction{Summary: s}
	}
	if p.main >= 0 {
		extra := map[string]json.RawMessage{}
		for _, mem := range it {
			if k := mem.KeyString(); !itemKeys[k] {
				extra[k] = mem.Value
			}
		}
		for _, mem := range msg {
			if k := mem.KeyString(); k != "role" && k != "content" && k != "toolCalls" && k != "usage" && k != "toolCallId" {
				extra["message."+k] = mem.Value
			}
		}
		if len(extra) > 0 {
			p.out[p.main].Extra = extra
		}
	}
}

// unknownItem keeps a history item the event model has no kind for.
func (p *parser) unknownItem(role, reason string, raw []byte) {
	e := p.event(transcript.KindUnknown, "")
	e.Unknown = &transcript.Unknown{RawType: "message/" + role, Reason: reason}
	transcript.SetRaw(e.Unknown, raw)
}

// content flattens a message's content — a string, or parts of type text
// (and others, kept as parts).
func content(raw []byte) (string, []transcript.Part) {
	if s, ok := rawjson.String(raw); ok {
		return s, nil
	}
	var texts []string
	var parts []transcript.Part
	for _, b := range rawjson.AsArray(raw) {
		o := rawjson.AsObject(b)
		if typ := rawjson.AsString(o.Get("type")); typ == "text" {
			texts = append(texts, rawjson.AsString(o.Get("text")))
		} else {
			parts = append(parts, transcript.Part{Type: typ, Raw: b})
		}
	}
	return strings.Join(texts, "\n\n"), parts
}

func (p *parser) assistant(role string, msg, reasoning rawjson.Object) {
	text, parts := content(msg.Get("content"))
	t := &transcript.AssistantTurn{Text: text, Parts: parts}
	if role == "thinking" {
		t.Text, t.Thinking = "", text
	}
	if r := rawjson.AsString(reasoning.Get("text")); r != "" {
		t.Thinking = r
	}
	if u := rawjson.AsObject(msg.Get("usage")); u != nil {
		t.Usage = &transcript.Usage{InputTokens: rawjson.Int(u.Get("promptTokens")), OutputTokens: rawjson.Int(u.Get("completionTokens")),
			CacheReadTokens: rawjson.Int(u.Path("promptTokensDetails", "cachedTokens")), CacheWriteTokens: rawjson.Int(u.Path("promptTokensDetails", "cacheWriteTokens")),
			ReasoningTokens: rawjson.Int(u.Path("completionTokensDetails", "reasoningTokens")), Raw: rawjson.Value(msg.Get("usage"))}
	}
	calls := rawjson.AsArray(msg.Get("toolCalls"))
	if t.Text != "" || t.Thinking != "" || len(t.Parts) > 0 || t.Usage != nil || len(calls) == 0 {
		e := p.event(transcript.KindAssistantTurn, "")
		e.AssistantTurn = t
	}
	for j, c := range calls {
		p.call(rawjson.AsObject(c), nil, j)
	}
}

// call emits the tool_call of a toolCalls entry {id, function: {name,
// arguments}} (args, when given, are the parsed arguments) and remembers
// it for its result.
func (p *parser) call(c rawjson.Object, args []byte, j int) {
	callID := rawjson.AsString(c.Get("id"))
	fn := rawjson.AsObject(c.Get("function"))
	name := rawjson.AsString(fn.Get("name"))
	argText, isText := rawjson.String(fn.Get("arguments"))
	input := rawjson.Value(fn.Get("arguments"))
	if isText && rawjson.Valid([]byte(argText)) {
		input = json.RawMessage(argText)
	}
	if args == nil && rawjson.IsObject(input) {
		args = input
	}
	key := callID
	if key == "" {
		key = strconv.Itoa(j)
	}
	e := p.event(transcript.KindToolCall, "tool_call:"+key)
	e.ToolCall = &transcript.ToolCall{CallID: callID, Name: name, Input: input}
	if callID != "" {
		p.calls[callID] = call{name: name, args: args}
	}
}

// result emits a call's tool_result (ok when status is done) and its file
// edit.
func (p *parser) result(callID, status, text string, output []byte) {
	c := p.calls[callID]
	p.answered[callID] = true
	ok := status == "done"
	e := p.event(transcript.KindToolResult, "tool_result:"+callID)
	e.ToolResult = &transcript.ToolResult{CallID: callID, Name: c.name, OK: ok, Text: text, Output: rawjson.Value(output)}
	for k, fe := range fileEdits(c, text, ok) {
		fe.CallID = callID
		suffix := "edit:" + callID
		if k > 0 {
			suffix += ":" + strconv.Itoa(k+1)
		}
		ev := p.event(transcript.KindFileEdit, suffix)
		ev.FileEdit = fe
	}
}
