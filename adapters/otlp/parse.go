package otlp

import (
	"encoding/json"
	"path"
	"strconv"
	"strings"

	"github.com/cortexmem/cortex/transcript"
	"github.com/cortexmem/cortex/transcript/rawjson"
)

// state is what the adapter remembers between records of one stream; it is
// saved with the stream's Context, so it round-trips through JSON.
type state struct {
	// Started are the sessions whose session_start was emitted.
	Started map[string]bool `json:"started,omitempty"`
}

// Parse turns one kept log record into events.
func (a *Adapter) Parse(rec transcript.Record, ctx *transcript.Context) []transcript.Event {
	st := transcript.StateOf[state](ctx)
	m, malformed := transcript.RecordObject(ctx, rec)
	if malformed != nil {
		return malformed
	}
	p := &parser{ctx: ctx, st: st, rec: rec, m: m, id: transcript.HashID(rec.Data)}
	if !isRecord(m) {
		p.unknown("", transcript.ReasonUnrecognized)
		return p.out
	}
	p.attrs = rawjson.AsObject(m.Get("attributes"))
	p.ts = rawjson.AsString(m.Get("time"))
	if p.ts == "" {
		p.ts = rawjson.AsString(m.Get("observed_time"))
	}
	p.record()
	return p.out
}

// parser holds one record being parsed.
type parser struct {
	ctx   *transcript.Context
	st    *state
	rec   transcript.Record
	m     rawjson.Object
	attrs rawjson.Object
	id    string // the record's content hash: log records have no id
	ts    string
	out   []transcript.Event
}

// event appends an event of the record and returns it (valid until the
// next append); the record's later events follow its first.
func (p *parser) event(kind transcript.Kind, id string) *transcript.Event {
	e := p.ctx.NewEvent(p.rec, kind, id)
	e.Timestamp = p.ts
	for i := len(p.out) - 1; i >= 0; i-- {
		if p.out[i].Kind != transcript.KindSessionStart {
			e.ParentID = p.out[i].EventID
			break
		}
	}
	p.out = append(p.out, e)
	return &p.out[len(p.out)-1]
}

func (p *parser) unknown(rawType, reason string) {
	e := p.ctx.NewEvent(p.rec, transcript.KindUnknown, p.id)
	e.Timestamp = p.ts
	e.Unknown = transcript.NewUnknown(rawType, reason, p.rec.Data, true)
	p.out = append(p.out, e)
}

// attr is a string attribute, or a number's text.
func (p *parser) attr(keys ...string) string {
	for _, k := range keys {
		v := p.attrs.Get(k)
		if s, ok := rawjson.String(v); ok && s != "" {
			return s
		}
		if rawjson.IsNumber(v) {
			return string(v)
		}
	}
	return ""
}

// number is a count attribute sent as a number or as its text.
func (p *parser) number(keys ...string) int64 {
	n, _ := strconv.ParseInt(p.attr(keys...), 10, 64)
	return n
}

// flag is a boolean attribute sent as a boolean or as its text.
func (p *parser) flag(key string) (value, ok bool) {
	v := p.attrs.Get(key)
	switch {
	case string(v) == "true" || string(v) == "false":
		return string(v) == "true", true
	case rawjson.IsString(v):
		b, err := strconv.ParseBool(rawjson.AsString(v))
		return b, err == nil
	}
	return false, false
}

// record maps the record by its event's name (the part after the tool's
// prefix: claude_code.user_prompt → user_prompt).
func (p *parser) record() {
	event := rawjson.AsString(p.m.Get("event"))
	name := event
	if i := strings.LastIndexByte(name, '.'); i >= 0 {
		name = name[i+1:]
	}
	session := rawjson.AsString(p.m.Get("session"))
	if session == "" {
		session = fileSession(p.ctx.File())
	}
	if session != p.ctx.Session() {
		p.ctx.SetSession(session)
	}
	// GitHub Copilot's records are named by the GenAI conventions or in
	// its own dotted namespace, whose last part says little (…tool.call,
	// …session.start): they are told by their whole name.
	switch event {
	case "copilot_chat.session.start":
		name = "config"
	case "copilot_chat.tool.call":
		name = "tool_call"
	case "gen_ai.client.inference.operation.details":
		name = "inference"
	}
	switch name {
	case "conversation_starts", "config":
		if p.started(session) {
			p.unknown(event, transcript.ReasonUnmapped)
			return
		}
		e := p.event(transcript.KindSessionStart, p.id)
		e.SessionStart = &transcript.SessionStart{Model: p.requestModel(), ToolVersion: p.version()}
		return
	}
	p.start(session)
	switch name {
	case "inference":
		p.inference(event)
	case "user_prompt":
		e := p.event(transcript.KindUserTurn, p.id)
		e.UserTurn = &transcript.UserTurn{Text: p.attr("prompt")}
		e.Extra = p.extra()
	case "tool_result", "tool_call":
		p.tool()
	case "api_response":
		p.assistant()
	case "api_request":
		// Claude Code's is the request done, with its tokens; Codex's and
		// Gemini CLI's only say one was made (their token counts come
		// with the response): those are not an answer.
		if p.usage() == nil {
			p.unknown(event, transcript.ReasonUnmapped)
			return
		}
		p.assistant()
	case "sse_event":
		// Codex's stream events: the completed response carries the
		// request's token counts; the others say only that a part came.
		if p.attr("event.kind") != "response.completed" {
			p.unknown(event, transcript.ReasonUnmapped)
			return
		}
		p.assistant()
	default:
		p.unknown(event, transcript.ReasonUnmapped)
	}
}

// assistant emits a model request's turn: the model, the token counts and
// the response's text when the agent logs it.
func (p *parser) assistant() {
	e := p.event(transcript.KindAssistantTurn, p.id)
	e.AssistantTurn = &transcript.AssistantTurn{Text: p.attr("response_text"), Model: p.attr("model", "gen_ai.response.model", "gen_ai.request.model"), Usage: p.usage()}
	e.Extra = p.extra()
}

// requestModel is the model the agent asked for.
func (p *parser) requestModel() string { return p.attr("model", "gen_ai.request.model") }

// inference reads VS Code Copilot Chat's record of a model request
// (gen_ai.client.inference.operation.details). When content capture is on
// it holds the request's messages: one whose last message is the person's
// is the request that turn opened with, so that message is their prompt
// (the agent's later requests of the turn end with a tool's result). An
// answered request is an assistant turn; a failed one (error.type, no
// tokens) gives nothing more, and a record giving no event is kept as
// unknown.
func (p *parser) inference(event string) {
	if text, ok := lastUserText(p.attrs.Get("gen_ai.input.messages")); ok {
		e := p.event(transcript.KindUserTurn, p.id+"#prompt")
		e.UserTurn = &transcript.UserTurn{Text: text}
		e.Extra = p.extra()
	}
	if p.usage() == nil && p.attr("error.type") != "" {
		if len(p.out) == 0 || p.out[len(p.out)-1].Kind == transcript.KindSessionStart {
			p.unknown(event, transcript.ReasonUnmapped)
		}
		return
	}
	p.assistant()
}

// lastUserText reads GenAI input messages (a JSON array, sent as a string,
// of {role, parts: [{type, content}]}) and returns the text of the last
// message when it is the user's.
func lastUserText(raw []byte) (string, bool) {
	s, ok := rawjson.String(raw)
	if !ok || !rawjson.Valid([]byte(s)) {
		return "", false
	}
	msgs := rawjson.AsArray([]byte(s))
	if len(msgs) == 0 {
		return "", false
	}
	last := rawjson.AsObject(msgs[len(msgs)-1])
	if rawjson.AsString(last.Get("role")) != "user" {
		return "", false
	}
	var texts []string
	for _, part := range rawjson.AsArray(last.Get("parts")) {
		o := rawjson.AsObject(part)
		if rawjson.AsString(o.Get("type")) == "text" {
			texts = append(texts, rawjson.AsString(o.Get("content")))
		}
	}
	return strings.Join(texts, "\n\n"), len(texts) > 0
}

// started reports whether the session's start was emitted, and marks it so.
func (p *parser) started(session string) bool {
	if p.st.Started[session] {
		return true
	}
	if p.st.Started == nil {
		p.st.Started = map[string]bool{}
	}
	p.st.Started[session] = true
	return false
}

// start emits the session's start before its first record when the agent
// sent none.
func (p *parser) start(session string) {
	if p.started(session) {
		return
	}
	e := p.ctx.NewEvent(p.rec, transcript.KindSessionStart, session+"#start")
	e.Timestamp = p.ts
	e.SessionStart = &transcript.SessionStart{Model: p.requestModel(), ToolVersion: p.version(), Synthesized: true}
	p.out = append(p.out, e)
}

// version is the agent's version: the resource's service.version, else
// Codex's app.version attribute.
func (p *parser) version() string {
	if v := rawjson.AsString(p.m.Get("service_version")); v != "" {
		return v
	}
	return p.attr("app.version")
}

// tool emits a tool run's call and result: Claude Code's and Codex's
// tool_result, Gemini CLI's tool_call (sent once the tool ran).
func (p *parser) tool() {
	callID := p.attr("call_id", "tool_use_id", "tool_call_id", "gen_ai.tool.call.id")
	if callID == "" {
		callID = p.id
	}
	name := p.attr("tool_name", "function_name", "gen_ai.tool.name")
	call := p.event(transcript.KindToolCall, p.id)
	call.ToolCall = &transcript.ToolCall{CallID: callID, Name: name, Input: p.raw("tool_parameters", "arguments", "function_args", "tool_input", "gen_ai.tool.call.arguments")}
	call.Extra = p.extra()
	failure := p.attr("error", "error.type")
	ok, known := p.flag("success")
	if !known {
		ok = failure == ""
	}
	text := p.attr("output", "tool_result", "result", "gen_ai.tool.call.result")
	if !ok && failure != "" {
		text = failure
	}
	res := p.event(transcript.KindToolResult, p.id+"#result")
	res.ToolResult = &transcript.ToolResult{CallID: callID, Name: name, OK: ok, Text: text}
}

// raw is an attribute as JSON: a string holding a JSON object or array
// (how the agents send arguments) as that JSON, anything else as sent.
func (p *parser) raw(keys ...string) json.RawMessage {
	for _, k := range keys {
		v := p.attrs.Get(k)
		if v == nil {
			continue
		}
		if s, ok := rawjson.String(v); ok {
			t := strings.TrimSpace(s)
			if (rawjson.IsObject([]byte(t)) || rawjson.IsArray([]byte(t))) && rawjson.Valid([]byte(t)) {
				return json.RawMessage(t)
			}
		}
		return rawjson.Value(v)
	}
	return nil
}

// usage is a model request's token counts, by the names each agent uses;
// nil when it sent none.
func (p *parser) usage() *transcript.Usage {
	u := &transcript.Usage{
		InputTokens:      p.number("input_tokens", "input_token_count", "gen_ai.usage.input_tokens"),
		OutputTokens:     p.number("output_tokens", "output_token_count", "gen_ai.usage.output_tokens"),
		CacheReadTokens:  p.number("cache_read_tokens", "cached_content_token_count", "cached_token_count", "gen_ai.usage.cache_read.input_tokens"),
		CacheWriteTokens: p.number("cache_creation_tokens", "gen_ai.usage.cache_creation.input_tokens"),
		ReasoningTokens:  p.number("reasoning_tokens", "reasoning_token_count", "thoughts_token_count", "gen_ai.usage.reasoning.output_tokens", "gen_ai.usage.reasoning_tokens"),
	}
	if u.InputTokens|u.OutputTokens|u.CacheReadTokens|u.CacheWriteTokens|u.ReasoningTokens == 0 {
		return nil
	}
	return u
}

// extra keeps the record's attributes beside a mapped event: telemetry
// says more (durations, costs, decisions) than the event model holds.
func (p *parser) extra() map[string]json.RawMessage {
	if v := rawjson.Value(p.m.Get("attributes")); v != nil {
		return map[string]json.RawMessage{"attributes": v}
	}
	return nil
}

// fileSession is the session a file's name names: <session>.jsonl.
func fileSession(file string) string {
	name := path.Base(strings.ReplaceAll(file, `\`, "/"))
	return strings.TrimSuffix(name, ".jsonl")
}
