package claudecode

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"

	"github.com/cortexmem/cortex/transcript"
	"github.com/cortexmem/cortex/transcript/rawjson"
)

// state is what the adapter remembers between records of one stream. It is
// saved with the stream's Context, so every field round-trips through JSON.
type state struct {
	// Started holds the sessions (session id, NUL, agent id) whose
	// session_start was emitted.
	Started map[string]bool `json:"started,omitempty"`
	// LastStart is the trigger of the last session_start when no turn came
	// after it: a second hook of the same start is not a new start.
	LastStart string `json:"last_start,omitempty"`
	// Seen maps each uuid read to a hash of its record: a byte-identical
	// record with the same uuid is a replay.
	Seen map[string]string `json:"seen,omitempty"`
	// Children maps a uuid to its first user or assistant child (the latest
	// after a fork), for telling forks.
	Children map[string]child `json:"children,omitempty"`
	// Messages counts the records of each API message id.
	Messages map[string]int `json:"messages,omitempty"`
	// Calls holds the tool calls waiting for their result.
	Calls map[string]call `json:"calls,omitempty"`
}

type child struct {
	ID string `json:"id"`
	TS string `json:"ts"`
}

type call struct {
	Name  string          `json:"name"`
	Input json.RawMessage `json:"input,omitempty"` // edit tools only
}

// Parse turns one line of a Claude Code transcript into events.
func (a *Adapter) Parse(rec transcript.Record, ctx *transcript.Context) []transcript.Event {
	st := transcript.StateOf[state](ctx)
	m, malformed := transcript.RecordObject(ctx, rec)
	if malformed != nil {
		return malformed
	}
	p := &parser{ctx: ctx, st: st, rec: rec, m: m}
	p.used = p.usedBuf[:0]
	return p.parse()
}

// parser holds one record being parsed.
type parser struct {
	ctx *transcript.Context
	st  *state
	rec transcript.Record
	m   rawjson.Object
	// used are the keys of m mapped to event fields: a dozen at most, so
	// a list (in the parser's own array) rather than a map, which was a
	// few allocations for every record.
	used    []string
	usedBuf [16]string

	msg                                   rawjson.Object // a user or assistant record's message
	typ, uuid, parent, ts, session, agent string
	sidechain                             bool
	out                                   []transcript.Event
	main                                  int // index in out of the record's main event, -1 before it
}

// envelope keys every message-like record has, mapped to the event's
// envelope.
var envelopeKeys = []string{"type", "uuid", "parentUuid", "sessionId", "timestamp", "cwd", "gitBranch", "version", "isSidechain", "agentId"}

// metaTypes are the record types without a uuid that Claude Code writes
// besides messages: kept as unknown (unmapped).
var metaTypes = map[string]bool{
	"summary": true, "file-history-snapshot": true, "queue-operation": true, "custom-title": true,
	"ai-title": true, "agent-name": true, "last-prompt": true, "permission-mode": true, "mode": true,
	"pr-link": true, "frame-link": true, "worktree-state": true, "relocated": true, "bridge-session": true,
	"progress": true, "tag": true, "atis-latch": true,
}

// systemSubtypes are the system records that have no event kind.
var systemSubtypes = map[string]bool{
	"turn_duration": true, "stop_hook_summary": true, "api_error": true, "api_refusal": true,
	"informational": true, "local_command": true, "error": true, "model_refusal_fallback": true,
	"away_summary": true, "memory_saved": true, "bridge_status": true, "scheduled_task_fire": true,
}

func (p *parser) parse() []transcript.Event {
	p.main = -1
	p.typ = rawjson.AsString(p.m.Get("type"))
	p.uuid = rawjson.AsString(p.m.Get("uuid"))
	p.parent = rawjson.AsString(p.m.Get("parentUuid"))
	p.ts = rawjson.AsString(p.m.Get("timestamp"))
	p.session = rawjson.AsString(p.m.Get("sessionId"))
	p.agent = rawjson.AsString(p.m.Get("agentId"))
	p.sidechain = rawjson.Bool(p.m.Get("isSidechain"))
	p.use(envelopeKeys...)
	p.ctx.SetSession(p.session)
	p.ctx.SetProject(transcript.Project{Cwd: rawjson.AsString(p.m.Get("cwd")), GitBranch: rawjson.AsString(p.m.Get("gitBranch"))})

	if p.uuid != "" {
		h := transcript.HashID(p.rec.Data)
		if p.st.Seen == nil {
			p.st.Seen = map[string]string{}
		}
		if prev, ok := p.st.Seen[p.uuid]; ok && prev == h {
			return p.unknown(transcript.ReasonDuplicate)
		}
		p.st.Seen[p.uuid] = h
		if p.typ == "user" || p.typ == "assistant" {
			p.register()
		}
	}
	if p.typ == "user" || p.typ == "assistant" {
		p.msg = rawjson.AsObject(p.m.Get("message"))
	}
	p.ensureStarted(p.isStart(), rawjson.AsString(p.msg.Get("model")))

	switch p.typ {
	case "user":
		p.user()
	case "assistant":
		p.assistant()
	case "system":
		p.system()
	case "attachment":
		p.attachment()
	default:
		if metaTypes[p.typ] {
			return p.unknown(transcript.ReasonUnmapped)
		}
		return p.unknown(transcript.ReasonUnrecognized)
	}
	if p.main >= 0 && p.out[p.main].Kind != transcript.KindUnknown {
		var extra map[string]json.RawMessage
		for _, mem := range p.m {
			if k := mem.KeyString(); !slices.Contains(p.used, k) {
				if extra == nil {
					extra = map[string]json.RawMessage{}
				}
				extra[k] = mem.Value
			}
		}
		if len(extra) > 0 {
			p.out[p.main].Extra = extra
		}
	}
	return p.out
}

// use marks keys of the record as mapped to event fields.
func (p *parser) use(keys ...string) {
	for _, k := range keys {
		if !slices.Contains(p.used, k) {
			p.used = append(p.used, k)
		}
	}
}

// isStart reports whether the record is a session start of its own.
func (p *parser) isStart() bool {
	switch p.typ {
	case "system":
		return rawjson.AsString(p.m.Get("subtype")) == "session_start"
	case "attachment":
		att := rawjson.AsObject(p.m.Get("attachment"))
		return rawjson.AsString(att.Get("hookEvent")) == "SessionStart" && strings.HasPrefix(rawjson.AsString(att.Get("hookName")), "SessionStart:")
	}
	return false
}

// unknown preserves the whole record. A record of the graph keeps its uuid as
// the event id, so its children's parent ids point at an event.
func (p *parser) unknown(reason string) []transcript.Event {
	rt := p.typ
	if sub := rawjson.AsString(p.m.Get("subtype")); sub != "" && p.typ == "system" {
		rt += "/" + sub
	}
	if p.typ == "attachment" {
		if a := rawjson.AsObject(p.m.Get("attachment")); a != nil {
			rt += "/" + rawjson.AsString(a.Get("type"))
		}
	}
	id := p.uuid
	if id != "" && reason == transcript.ReasonDuplicate {
		id += "#duplicate"
	}
	e := p.ctx.NewEvent(p.rec, transcript.KindUnknown, id)
	e.Unknown = transcript.NewUnknown(rt, reason, p.rec.Data, true)
	e.ParentID = p.parent
	e.Timestamp = p.ts
	e.AgentID = p.agent
	e.Sidechain = p.sidechain
	return append(p.out, e)
}

// register notes the record as its parent's first conversation child (a user
// or assistant record: attachments and system records hang off the graph
// beside the conversation and do not make forks).
func (p *parser) register() {
	if p.parent == "" {
		return
	}
	if p.st.Children == nil {
		p.st.Children = map[string]child{}
	}
	if _, ok := p.st.Children[p.parent]; !ok {
		p.st.Children[p.parent] = child{ID: p.uuid, TS: p.ts}
	}
}

// event starts an event of the record. The record's main event has the
// record's uuid and parent; the others get the uuid with suffix and the main
// event as parent.
func (p *parser) event(kind transcript.Kind, suffix string) *transcript.Event {
	id, parent := p.uuid, p.parent
	isMain := p.main < 0 && suffix == ""
	if !isMain {
		if suffix == "" {
			suffix = string(kind)
		}
		if p.uuid != "" {
			id = p.uuid + "#" + suffix
		} else {
			id = transcript.HashID(p.rec.Data) + "#" + suffix
		}
		if p.main >= 0 {
			parent = p.out[p.main].EventID
		}
	}
	if p.uuid == "" && isMain {
		id = ""
	}
	e := p.ctx.NewEvent(p.rec, kind, id)
	e.ParentID = parent
	e.Timestamp = p.ts
	e.AgentID = p.agent
	e.Sidechain = p.sidechain
	p.out = append(p.out, e)
	if isMain {
		p.main = len(p.out) - 1
	}
	if kind != transcript.KindSessionStart && kind != transcript.KindUnknown {
		p.st.LastStart = ""
	}
	return &p.out[len(p.out)-1]
}

// ensureStarted emits a synthesised session_start before the first record of
// a session, unless isStart says the record is a start itself.
func (p *parser) ensureStarted(isStart bool, model string) {
	if p.session == "" || p.uuid == "" {
		return
	}
	key := p.session + "\x00" + p.agent
	if p.st.Started[key] {
		return
	}
	if p.st.Started == nil {
		p.st.Started = map[string]bool{}
	}
	p.st.Started[key] = true
	if isStart {
		return
	}
	e := p.event(transcript.KindSessionStart, "start")
	e.ParentID = ""
	e.SessionStart = &transcript.SessionStart{Synthesized: true, Model: model, ToolVersion: rawjson.AsString(p.m.Get("version"))}
	p.st.LastStart = "synthesized"
}

func (p *parser) user() {
	msg := p.msg
	if msg == nil {
		p.out = p.unknown(transcript.ReasonMalformed)
		return
	}
	p.use("message")
	isMeta := rawjson.Bool(p.m.Get("isMeta"))
	p.use("isMeta")

	var texts []string
	var parts []transcript.Part
	var results []rawjson.Object
	content := msg.Get("content")
	if s, ok := rawjson.String(content); ok {
		texts = append(texts, s)
	} else {
		for _, raw := range rawjson.AsArray(content) {
			b := rawjson.AsObject(raw)
			switch rawjson.AsString(b.Get("type")) {
			case "tool_result":
				results = append(results, b)
			case "text":
				texts = append(texts, rawjson.AsString(b.Get("text")))
				if len(b) > 2 {
					parts = append(parts, transcript.Part{Type: "text", Raw: raw})
				}
			default:
				parts = append(parts, transcript.Part{Type: rawjson.AsString(b.Get("type")), Raw: raw})
			}
		}
	}
	text := strings.Join(texts, "\n\n")

	if rawjson.Bool(p.m.Get("isCompactSummary")) {
		p.use("isCompactSummary")
		e := p.event(transcript.KindCompaction, "")
		e.Compaction = &transcript.Compaction{Summary: text}
		p.extraMessage(msg, "role", "content")
		return
	}

	structured := p.m.Get("toolUseResult")
	for i, b := range results {
		p.use("toolUseResult")
		var sr []byte
		if len(results) == 1 {
			sr = structured
		}
		p.toolResult(i, b, sr)
	}
	if len(results) == 0 || len(texts) > 0 || len(parts) > 0 {
		meta := classify(text, isMeta, rawjson.AsObject(p.m.Get("origin")))
		if meta == "" && len(results) == 0 {
			p.checkFork()
		}
		e := p.event(transcript.KindUserTurn, suffixIf(len(results) > 0, "text"))
		e.UserTurn = &transcript.UserTurn{Text: text, Meta: meta, Parts: parts}
	}
	p.extraMessage(msg, "role", "content")
}

// checkFork emits a rewind when the record's parent already has a child
// written at another time: the person went back and prompted again.
func (p *parser) checkFork() {
	if p.parent == "" || p.uuid == "" {
		return
	}
	c, ok := p.st.Children[p.parent]
	if !ok || c.ID == p.uuid || c.TS == p.ts {
		return
	}
	e := p.event(transcript.KindRewind, "rewind")
	e.ParentID = p.parent
	e.Rewind = &transcript.Rewind{To: p.parent, Dropped: c.ID}
	p.st.Children[p.parent] = child{ID: p.uuid, TS: p.ts}
}

// classify says why a user message was not typed by the person ("" when it
// was).
func classify(text string, isMeta bool, origin rawjson.Object) string {
	t := strings.TrimLeft(text, " \t\r\n")
	switch {
	case hasAnyPrefix(t, "<command-name>", "<command-message>", "<command-args>"):
		return transcript.MetaCommand
	case hasAnyPrefix(t, "<local-command-stdout>", "<local-command-stderr>"):
		return transcript.MetaCommandOutput
	case strings.HasPrefix(t, "<local-command-caveat>"):
		return transcript.MetaCaveat
	case strings.HasPrefix(t, "<system-reminder>"):
		return transcript.MetaSystemReminder
	case strings.HasPrefix(t, "<task-notification>"), rawjson.AsString(origin.Get("kind")) == "task-notification":
		return transcript.MetaTaskNotification
	case hasAnyPrefix(t, "<bash-input>", "<bash-stdout>", "<bash-stderr>"):
		return transcript.MetaShell
	case strings.HasPrefix(t, "[Request interrupted by user"):
		return transcript.MetaInterrupt
	case isMeta, strings.HasPrefix(t, "<user-prompt-submit-hook>"):
		return transcript.MetaInjected
	}
	return ""
}

func hasAnyPrefix(s string, prefixes ...string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

func (p *parser) toolResult(i int, b rawjson.Object, structured []byte) {
	callID := rawjson.AsString(b.Get("tool_use_id"))
	key := callID
	if key == "" {
		key = strconv.Itoa(i)
	}
	c := p.st.Calls[callID]
	if callID != "" {
		delete(p.st.Calls, callID)
	}
	ok := !rawjson.Bool(b.Get("is_error"))
	if s, isStr := rawjson.String(structured); isStr && strings.HasPrefix(s, "Error") {
		ok = false
	}
	e := p.event(transcript.KindToolResult, suffixIf(i > 0, "tool_result:"+key))
	e.ToolResult = &transcript.ToolResult{
		CallID: callID, Name: c.Name, OK: ok, Text: flatten(b.Get("content")),
		Output: rawjson.Value(b.Get("content")), Structured: rawjson.Value(structured),
	}
	if fe := fileEdit(c, structured, ok); fe != nil {
		fe.CallID = callID
		ev := p.event(transcript.KindFileEdit, "edit:"+key)
		ev.FileEdit = fe
	}
}

func (p *parser) assistant() {
	msg := p.msg
	if msg == nil {
		p.out = p.unknown(transcript.ReasonMalformed)
		return
	}
	p.use("message")
	model := rawjson.AsString(msg.Get("model"))

	var texts, thinking []string
	var parts []transcript.Part
	var calls []rawjson.Object
	content := msg.Get("content")
	if s, ok := rawjson.String(content); ok {
		texts = append(texts, s)
	} else {
		for _, raw := range rawjson.AsArray(content) {
			b := rawjson.AsObject(raw)
			switch rawjson.AsString(b.Get("type")) {
			case "text":
				texts = append(texts, rawjson.AsString(b.Get("text")))
				if len(b) > 2 {
					parts = append(parts, transcript.Part{Type: "text", Raw: raw})
				}
			case "thinking":
				thinking = append(thinking, rawjson.AsString(b.Get("thinking")))
				parts = append(parts, transcript.Part{Type: "thinking", Raw: raw})
			case "tool_use":
				calls = append(calls, b)
			default:
				parts = append(parts, transcript.Part{Type: rawjson.AsString(b.Get("type")), Raw: raw})
			}
		}
	}
	msgID := rawjson.AsString(msg.Get("id"))
	continued := false
	if msgID != "" {
		if p.st.Messages == nil {
			p.st.Messages = map[string]int{}
		}
		continued = p.st.Messages[msgID] > 0
		p.st.Messages[msgID]++
	}
	if len(texts) > 0 || len(thinking) > 0 || len(parts) > 0 || len(calls) == 0 {
		e := p.event(transcript.KindAssistantTurn, "")
		t := &transcript.AssistantTurn{
			Text: strings.Join(texts, "\n\n"), Thinking: strings.Join(thinking, "\n\n"), Model: model,
			MessageID: msgID, Continued: continued, StopReason: rawjson.AsString(msg.Get("stop_reason")), Parts: parts,
		}
		if !continued {
			t.Usage = usage(msg.Get("usage"))
		}
		e.AssistantTurn = t
	}
	for i, b := range calls {
		id := rawjson.AsString(b.Get("id"))
		key := id
		if key == "" {
			key = strconv.Itoa(i)
		}
		name := rawjson.AsString(b.Get("name"))
		e := p.event(transcript.KindToolCall, suffixIf(p.main >= 0, "tool_use:"+key))
		e.ToolCall = &transcript.ToolCall{CallID: id, Name: name, Input: rawjson.Value(b.Get("input"))}
		if id != "" {
			if p.st.Calls == nil {
				p.st.Calls = map[string]call{}
			}
			c := call{Name: name}
			if editTools[name] {
				c.Input = b.Get("input")
			}
			p.st.Calls[id] = c
		}
	}
	p.extraMessage(msg, "id", "type", "role", "model", "content", "stop_reason", "stop_sequence", "usage")
}

// extraMessage puts the message's keys the event has no slot for in the
// record's Extra, as "message.<key>".
func (p *parser) extraMessage(msg rawjson.Object, used ...string) {
	if p.main < 0 {
		return
	}
	for _, mem := range msg {
		k, v := mem.KeyString(), mem.Value
		if slices.Contains(used, k) || k == "type" && string(v) == `"message"` {
			continue
		}
		e := &p.out[p.main]
		if e.Extra == nil {
			e.Extra = map[string]json.RawMessage{}
		}
		e.Extra["message."+k] = v
	}
}

func usage(raw json.RawMessage) *transcript.Usage {
	u := rawjson.AsObject(raw)
	if u == nil {
		return nil
	}
	return &transcript.Usage{
		InputTokens: rawjson.Int(u.Get("input_tokens")), OutputTokens: rawjson.Int(u.Get("output_tokens")),
		CacheReadTokens: rawjson.Int(u.Get("cache_read_input_tokens")), CacheWriteTokens: rawjson.Int(u.Get("cache_creation_input_tokens")),
		Raw: rawjson.Value(raw),
	}
}

func (p *parser) system() {
	sub := rawjson.AsString(p.m.Get("subtype"))
	switch sub {
	case "compact_boundary":
		p.use("subtype")
		meta := rawjson.AsObject(p.m.Get("compactMetadata"))
		e := p.event(transcript.KindCompaction, "")
		trigger := rawjson.AsString(meta.Get("trigger"))
		if trigger == "" {
			trigger = rawjson.AsString(p.m.Get("trigger"))
			p.use("trigger")
		}
		e.Compaction = &transcript.Compaction{
			Trigger: trigger, PreTokens: rawjson.Int(meta.Get("preTokens")), PostTokens: rawjson.Int(meta.Get("postTokens")),
			Continues: rawjson.AsString(p.m.Get("logicalParentUuid")), Details: rawjson.Value(p.m.Get("compactMetadata")),
		}
		p.use("logicalParentUuid", "compactMetadata")
	case "session_start":
		p.use("subtype")
		e := p.event(transcript.KindSessionStart, "")
		e.SessionStart = &transcript.SessionStart{Trigger: rawjson.AsString(p.m.Get("source")), ToolVersion: rawjson.AsString(p.m.Get("version"))}
		p.st.LastStart = "native"
	default:
		reason := transcript.ReasonUnrecognized
		if systemSubtypes[sub] {
			reason = transcript.ReasonUnmapped
		}
		p.out = p.unknown(reason)
	}
}

func (p *parser) attachment() {
	att := rawjson.AsObject(p.m.Get("attachment"))
	hook := rawjson.AsString(att.Get("hookName"))
	trigger, isStart := strings.CutPrefix(hook, "SessionStart:")
	isStart = isStart && rawjson.AsString(att.Get("hookEvent")) == "SessionStart"
	if isStart && p.st.LastStart != trigger {
		e := p.event(transcript.KindSessionStart, "")
		e.SessionStart = &transcript.SessionStart{Trigger: trigger, ToolVersion: rawjson.AsString(p.m.Get("version"))}
		p.st.LastStart = trigger
		p.use("attachment")
		return
	}
	p.out = p.unknown(transcript.ReasonUnmapped)
}

func suffixIf(cond bool, s string) string {
	if cond {
		return s
	}
	return ""
}
