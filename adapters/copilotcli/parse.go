package copilotcli

import (
	"encoding/json"
	"path"
	"slices"
	"strings"
	"sync"

	"github.com/cortexmem/cortex/transcript"
	"github.com/cortexmem/cortex/transcript/rawjson"
)

// state is what the adapter remembers between records of one stream. It is
// saved with the stream's Context, so every field round-trips through JSON.
type state struct {
	// Sessions are the session ids whose session.start was read: a second
	// start of one is a resume.
	Sessions map[string]bool `json:"sessions,omitempty"`
	// Model is the model the session last selected (session.start,
	// session.resume, session.model_change), for messages that name none.
	Model string `json:"model,omitempty"`
	// Calls holds every tool call seen, by call id.
	Calls map[string]*call `json:"calls,omitempty"`
	// Prompts are the current session's main-agent user messages, in
	// order, with the event each follows: what a rewind to one of them
	// drops.
	Prompts []prompt `json:"prompts,omitempty"`
}

// call is what was read of one tool call.
type call struct {
	Name string `json:"name,omitempty"`
	// Args are the call's arguments, kept for the tools that change files
	// (their edit is built when the result arrives).
	Args json.RawMessage `json:"args,omitempty"`
	// Emitted is set once the call's tool_call event was emitted (from the
	// assistant's request or from the execution's start, whichever came
	// first); Done once its result was.
	Emitted bool `json:"emitted,omitempty"`
	Done    bool `json:"done,omitempty"`
}

// prompt is one user message of the main agent.
type prompt struct {
	ID     string `json:"id"`
	Parent string `json:"parent,omitempty"`
}

// Parse turns one line of a Copilot CLI event log into events.
func (a *Adapter) Parse(rec transcript.Record, ctx *transcript.Context) []transcript.Event {
	st := transcript.StateOf[state](ctx)
	m, malformed := transcript.RecordObject(ctx, rec)
	if malformed != nil {
		return malformed
	}
	p := &parser{ctx: ctx, st: st, rec: rec, env: m}
	p.parse()
	return p.out
}

// parser holds one record being parsed.
type parser struct {
	ctx *transcript.Context
	st  *state
	rec transcript.Record

	env  rawjson.Object // the record
	data rawjson.Object // its data
	typ  string
	id   string // the record's own id
	ts   string
	par  string // the event it follows
	// agent is the subagent whose event this is (the envelope's agentId,
	// or the deprecated data.parentToolCallId).
	agent string

	used []string // data keys an event field holds
	out  []transcript.Event
}

// unmapped are the event types the log holds that have no event kind:
// kept as unknown (unmapped). The list is the Copilot SDK's session event
// types (github/copilot-sdk, nodejs/src/generated/session-events.ts); the
// ones mapped to events are handled before it is looked at. The table is
// made on first use, not as every command starts.
var unmapped = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		"session.remote_steerable_changed": true, "session.error": true, "session.idle": true,
		"session.title_changed": true, "session.schedule_created": true, "session.schedule_cancelled": true,
		"session.schedule_rearmed": true, "session.autopilot_objective_changed": true, "session.info": true,
		"session.warning": true, "session.model_change": true, "session.mode_changed": true,
		"session.session_limits_changed": true, "session.permissions_changed": true, "session.plan_changed": true,
		"session.todos_changed": true, "session.workspace_file_changed": true, "session.handoff": true,
		"session.usage_checkpoint": true, "session.context_changed": true, "session.usage_info": true,
		"session.context_cleared": true, "session.compaction_start": true, "session.task_complete": true,
		"pending_messages.modified": true, "assistant.turn_start": true, "assistant.intent": true,
		"assistant.server_tool_progress": true, "assistant.reasoning_delta": true, "assistant.tool_call_delta": true,
		"assistant.streaming_delta": true, "assistant.message_start": true, "assistant.message_delta": true,
		"assistant.turn_end": true, "assistant.idle": true, "assistant.usage": true, "model.call_failure": true,
		"tool.execution_partial_result": true, "tool.execution_progress": true, "tool_search.activated": true,
		"skill.invoked": true, "subagent.started": true, "subagent.completed": true, "subagent.failed": true,
		"subagent.selected": true, "subagent.deselected": true, "hook.start": true, "hook.end": true,
		"hook.progress": true, "session.binary_asset": true, "system.message": true, "system.notification": true,
		"permission.requested": true, "permission.completed": true, "user_input.requested": true,
		"user_input.completed": true, "elicitation.requested": true, "elicitation.completed": true,
		"sampling.requested": true, "sampling.completed": true, "mcp.oauth_required": true,
		"mcp.oauth_completed": true, "mcp.headers_refresh_required": true, "mcp.headers_refresh_completed": true,
		"session.custom_notification": true, "ui.ephemeral_query": true, "external_tool.requested": true,
		"external_tool.completed": true, "command.queued": true, "command.execute": true, "command.completed": true,
		"auto_mode_switch.requested": true, "auto_mode_switch.completed": true,
		"session_limits_exhausted.requested": true, "session_limits_exhausted.completed": true,
		"session.auto_mode_resolved": true, "session.managed_settings_resolved": true,
		"session.managed_settings_enforced": true, "commands.changed": true, "capabilities.changed": true,
		"exit_plan_mode.requested": true, "exit_plan_mode.completed": true, "session.tools_updated": true,
		"session.background_tasks_changed": true, "factory.run_updated": true, "factory.run_started": true,
		"factory.run_settled": true, "session.skills_loaded": true, "session.custom_agents_updated": true,
		"session.mcp_servers_loaded": true, "session.mcp_server_status_changed": true, "mcp.tools.list_changed": true,
		"mcp.resources.list_changed": true, "mcp.prompts.list_changed": true, "session.extensions_loaded": true,
		"session.canvas.opened": true, "session.canvas.registry_changed": true, "session.canvas.closed": true,
		"session.canvas.unavailable": true, "session.canvas.recorded": true, "session.canvas.removed": true,
		"session.extensions.attachments_pushed": true, "session.compaction_failed": true,
	}
})

func (p *parser) parse() {
	typ, hasType := rawjson.String(p.env.Get("type"))
	data := p.env.Get("data")
	switch {
	case !hasType || !isEventType(typ):
		p.unknown(typ, transcript.ReasonUnrecognized)
		return
	case !rawjson.IsObject(data):
		p.unknown(typ, transcript.ReasonMalformed)
		return
	}
	p.typ, p.data = typ, rawjson.AsObject(data)
	p.id = rawjson.AsString(p.env.Get("id"))
	p.ts = rawjson.AsString(p.env.Get("timestamp"))
	p.par = rawjson.AsString(p.env.Get("parentId"))
	p.agent = rawjson.AsString(p.env.Get("agentId"))
	if p.agent == "" {
		p.agent = rawjson.AsString(p.data.Get("parentToolCallId"))
	}
	if p.ctx.Session() == "" {
		p.ctx.SetSession(fileSession(p.ctx.File()))
	}
	switch typ {
	case "session.start":
		p.sessionStart(false)
	case "session.resume":
		p.sessionStart(true)
	case "session.shutdown":
		e := p.event(transcript.KindSessionEnd, p.id)
		e.SessionEnd = &transcript.SessionEnd{Reason: p.str("shutdownType")}
	case "abort":
		// A turn cut short (Ctrl+C, a remote command): the person
		// interrupting, as Claude Code's "[Request interrupted by user]".
		e := p.event(transcript.KindUserTurn, p.id)
		e.UserTurn = &transcript.UserTurn{Text: p.str("reason"), Meta: transcript.MetaInterrupt}
	case "user.message":
		p.userMessage()
	case "assistant.message":
		p.assistantMessage()
	case "assistant.reasoning":
		e := p.event(transcript.KindAssistantTurn, p.id)
		e.AssistantTurn = &transcript.AssistantTurn{Thinking: p.str("content"), MessageID: p.str("reasoningId"), Model: p.st.Model}
	case "tool.execution_start", "tool.user_requested":
		p.use("toolCallId", "toolName", "arguments")
		p.toolCall(rawjson.AsString(p.data.Get("toolCallId")), rawjson.AsString(p.data.Get("toolName")), p.data.Get("arguments"), true)
	case "tool.execution_complete":
		p.toolComplete()
	case "session.truncation":
		// Messages dropped to fit the context window: the model no longer
		// sees what came before.
		e := p.event(transcript.KindCompaction, p.id)
		e.Compaction = &transcript.Compaction{Trigger: "auto",
			PreTokens: rawjson.Int(p.data.Get("preTruncationTokensInMessages")), PostTokens: rawjson.Int(p.data.Get("postTruncationTokensInMessages")),
			Details: rawjson.Value(p.env.Get("data"))}
		p.used = nil
	case "session.compaction_complete":
		p.compaction()
	case "session.snapshot_rewind":
		p.rewind()
	default:
		p.meta()
	}
	if len(p.out) == 0 {
		// A record of a known type that brings nothing new (an assistant
		// message of calls already named by their executions' starts).
		p.unknown(typ, transcript.ReasonUnmapped)
	}
	p.extra()
}

// meta records what a record without an event kind says of the session
// (its model, its folder) and keeps it as unknown (unmapped), or
// (unrecognized) for a type the SDK does not list.
func (p *parser) meta() {
	switch p.typ {
	case "session.model_change":
		if m := p.str("newModel"); m != "" {
			p.st.Model = m
		}
	case "session.context_changed":
		p.ctx.SetProject(project(p.data))
	}
	reason := transcript.ReasonUnmapped
	if !unmapped()[p.typ] {
		reason = transcript.ReasonUnrecognized
	}
	p.unknown(p.typ, reason)
}

// fileSession is the session a log's path names: the folder of
// session-state/<session>/events.jsonl, the name of the older
// session-state/<session>.jsonl; "" when the name is not a session id
// (Copilot's are UUIDs). A function of the name the stream was given, like
// the rest.
func fileSession(file string) string {
	file = strings.ReplaceAll(file, `\`, "/")
	dir, name := path.Split(file)
	id := strings.TrimSuffix(name, ".jsonl")
	if name == "events.jsonl" {
		id = path.Base(strings.TrimSuffix(dir, "/"))
	}
	if !isUUID(id) {
		return ""
	}
	return id
}

func isUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case i == 8 || i == 13 || i == 18 || i == 23:
			if c != '-' {
				return false
			}
		case '0' <= c && c <= '9', 'a' <= c && c <= 'f', 'A' <= c && c <= 'F':
		default:
			return false
		}
	}
	return true
}

// event appends an event of the record and returns it (valid until the
// next append). The record's first event follows the record's parent; the
// others follow the first.
func (p *parser) event(kind transcript.Kind, id string) *transcript.Event {
	e := p.ctx.NewEvent(p.rec, kind, id)
	e.Timestamp = p.ts
	e.ParentID = p.par
	if len(p.out) > 0 {
		e.ParentID = p.out[0].EventID
	}
	if p.agent != "" {
		e.AgentID, e.Sidechain = p.agent, true
	}
	p.out = append(p.out, e)
	return &p.out[len(p.out)-1]
}

// sub is the id of the record's n-th other event: the record's id with a
// suffix, or "" (a content hash) when the record has none.
func (p *parser) sub(suffix string) string {
	if p.id == "" {
		return ""
	}
	return p.id + "#" + suffix
}

// unknown preserves the whole record.
func (p *parser) unknown(rawType, reason string) {
	e := p.ctx.NewEvent(p.rec, transcript.KindUnknown, p.id)
	e.Timestamp, e.ParentID = p.ts, p.par
	if p.agent != "" {
		e.AgentID, e.Sidechain = p.agent, true
	}
	e.Unknown = transcript.NewUnknown(rawType, reason, p.rec.Data, true)
	p.out = append(p.out, e)
}

// str returns a data member as a string, and marks it used.
func (p *parser) str(key string) string {
	p.use(key)
	return rawjson.AsString(p.data.Get(key))
}

func (p *parser) use(keys ...string) { p.used = append(p.used, keys...) }

// extra keeps the record's fields the first event has no slot for — the
// data's, and the envelope's own besides type, data, id, timestamp,
// parentId and agentId — on that event, unless it is unknown (which holds
// the whole record).
func (p *parser) extra() {
	if len(p.out) == 0 || p.out[0].Kind == transcript.KindUnknown {
		return
	}
	var extra map[string]json.RawMessage
	add := func(k string, v []byte) {
		if extra == nil {
			extra = map[string]json.RawMessage{}
		}
		extra[k] = v
	}
	for _, mem := range p.env {
		switch k := mem.KeyString(); k {
		case "type", "data", "id", "timestamp", "parentId", "agentId":
		default:
			add(k, mem.Value)
		}
	}
	if p.used != nil {
		for _, mem := range p.data {
			if k := mem.KeyString(); !slices.Contains(p.used, k) && k != "parentToolCallId" {
				add("data."+k, mem.Value)
			}
		}
	}
	p.out[0].Extra = extra
}

// project reads a working-directory context: {cwd, gitRoot, repository,
// branch, headCommit, …}.
func project(c rawjson.Object) transcript.Project {
	return transcript.Project{
		Cwd: rawjson.AsString(c.Get("cwd")), RepoRoot: rawjson.AsString(c.Get("gitRoot")),
		Repository: rawjson.AsString(c.Get("repository")), GitBranch: rawjson.AsString(c.Get("branch")),
		GitSHA: rawjson.AsString(c.Get("headCommit")),
	}
}

// sessionStart reads session.start (and session.resume, a session
// reopened: its start again, with the trigger "resume").
func (p *parser) sessionStart(resume bool) {
	session := p.str("sessionId")
	p.ctx.SetSession(session)
	if c := rawjson.AsObject(p.data.Get("context")); c != nil {
		p.ctx.SetProject(project(c))
		p.use("context")
	}
	model := p.str("selectedModel")
	if model != "" {
		p.st.Model = model
	}
	id := p.ctx.Session()
	trigger := ""
	switch {
	case resume, p.st.Sessions[id]:
		trigger = "resume"
	case id != "":
		if p.st.Sessions == nil {
			p.st.Sessions = map[string]bool{}
		}
		p.st.Sessions[id] = true
		p.st.Prompts = nil // a new session: nothing before it can be rewound to
	}
	e := p.event(transcript.KindSessionStart, p.id)
	e.SessionStart = &transcript.SessionStart{Trigger: trigger, Model: model, ToolVersion: p.str("copilotVersion")}
}

// userMessage reads user.message: what the person typed (content; the
// model got transformedContent, kept in Extra), or what the CLI or another
// agent sent in their name (a skill's injection, autopilot's continuation,
// a subagent's prompt).
func (p *parser) userMessage() {
	meta := ""
	source := p.str("source")
	switch {
	case strings.HasPrefix(source, "skill-"), strings.HasPrefix(source, "agent-"),
		rawjson.Bool(p.data.Get("isAutopilotContinuation")):
		meta = transcript.MetaInjected
	}
	p.use("isAutopilotContinuation")
	var parts []transcript.Part
	for _, a := range rawjson.AsArray(p.data.Get("attachments")) {
		parts = append(parts, transcript.Part{Type: "attachment", Raw: a})
	}
	p.use("attachments")
	e := p.event(transcript.KindUserTurn, p.id)
	e.UserTurn = &transcript.UserTurn{Text: p.str("content"), Meta: meta, Parts: parts}
	if p.agent == "" && meta == "" && e.EventID != "" {
		p.st.Prompts = append(p.st.Prompts, prompt{ID: e.EventID, Parent: p.par})
	}
}

// assistantMessage reads assistant.message: the reply (its text and
// reasoning) and each tool it asks for.
func (p *parser) assistantMessage() {
	text, thinking := p.str("content"), p.str("reasoningText")
	reqs := rawjson.AsArray(p.data.Get("toolRequests"))
	p.use("toolRequests")
	if text != "" || thinking != "" || len(reqs) == 0 {
		model := p.str("model")
		if model == "" {
			model = p.st.Model
		}
		at := &transcript.AssistantTurn{Text: text, Thinking: thinking, Model: model,
			MessageID: p.str("messageId"), Continued: rawjson.Int(p.data.Get("chunkIndex")) > 0}
		p.use("chunkIndex")
		if n := rawjson.Int(p.data.Get("outputTokens")); n > 0 && !at.Continued {
			at.Usage = &transcript.Usage{OutputTokens: n}
			p.use("outputTokens")
		}
		e := p.event(transcript.KindAssistantTurn, p.id)
		e.AssistantTurn = at
	}
	for _, raw := range reqs {
		r := rawjson.AsObject(raw)
		p.toolCall(rawjson.AsString(r.Get("toolCallId")), rawjson.AsString(r.Get("name")), r.Get("arguments"), false)
	}
}

// toolCall emits a call's tool_call the first time the log names it: in
// the assistant's request (toolRequests) or in its execution's start
// (which comes first when the model streams its calls). A call named
// again gives nothing new; a start whose call was requested already is
// unknown (unmapped), as the record has nothing else.
func (p *parser) toolCall(id, name string, args []byte, alone bool) {
	st := p.st
	c := st.Calls[id]
	if c == nil {
		c = &call{}
		if st.Calls == nil {
			st.Calls = map[string]*call{}
		}
		if id != "" {
			st.Calls[id] = c
		}
	}
	if name != "" {
		c.Name = name
	}
	if editTools[c.Name] && rawjson.Value(args) != nil && (c.Args == nil || rawjson.IsObject(args)) {
		c.Args = json.RawMessage(args)
	}
	if c.Emitted {
		if alone {
			p.unknown(p.typ, transcript.ReasonUnmapped)
		}
		return
	}
	c.Emitted = true
	sub := p.id
	if !alone {
		sub = p.sub("tool_call:" + id)
	}
	e := p.event(transcript.KindToolCall, sub)
	e.ToolCall = &transcript.ToolCall{CallID: id, Name: c.Name, Input: rawjson.Value(args)}
}

// toolComplete reads tool.execution_complete: the call's result (success
// is explicit) and, for the tools that change files, the edits.
func (p *parser) toolComplete() {
	id := p.str("toolCallId")
	c := p.st.Calls[id]
	if c == nil {
		c = &call{}
	}
	result := rawjson.AsObject(p.data.Get("result"))
	p.use("result", "success", "error")
	ok := resultOK(p.data, result)
	text := rawjson.AsString(result.Get("content"))
	if text == "" {
		text = rawjson.AsString(result.Get("text_result_for_llm"))
	}
	if msg := rawjson.AsString(rawjson.AsObject(p.data.Get("error")).Get("message")); text == "" && msg != "" {
		text = msg
	}
	out := rawjson.Value(p.data.Get("result"))
	if out == nil {
		out = rawjson.Value(p.data.Get("error"))
	}
	e := p.event(transcript.KindToolResult, p.id)
	e.ToolResult = &transcript.ToolResult{CallID: id, Name: c.Name, OK: ok, Text: text, Output: out}
	if c.Done {
		return // a second result of one call: its edits were made once
	}
	c.Done = true
	if !editTools[c.Name] {
		return
	}
	for i, fe := range fileEdits(c.Name, c.Args, ok, rawjson.AsString(result.Get("detailedContent"))) {
		fe.CallID = id
		suffix := "edit:" + id
		if i > 0 {
			suffix += ":" + itoa(i+1)
		}
		ev := p.event(transcript.KindFileEdit, p.sub(suffix))
		ev.FileEdit = fe
	}
	c.Args = nil // the edits are made; the arguments are not needed again
}

// resultOK says whether a tool execution succeeded: its explicit success,
// else (records that do not carry it) the result's own result_type, else
// the absence of an error.
func resultOK(data, result rawjson.Object) bool {
	if s := data.Get("success"); s != nil {
		return rawjson.Bool(s)
	}
	switch rawjson.AsString(result.Get("result_type")) {
	case "", "success":
	default:
		return false
	}
	return !data.Has("error")
}

// compaction reads session.compaction_complete: the summary the model
// continues from (a failed compaction changed nothing: unknown).
func (p *parser) compaction() {
	if !rawjson.Bool(p.data.Get("success")) {
		p.unknown(p.typ+"/failed", transcript.ReasonUnmapped)
		return
	}
	trigger := "auto"
	if p.str("trigger") == "manual" {
		trigger = "manual"
	}
	e := p.event(transcript.KindCompaction, p.id)
	e.Compaction = &transcript.Compaction{Trigger: trigger, PreTokens: rawjson.Int(p.data.Get("preCompactionTokens")),
		PostTokens: rawjson.Int(p.data.Get("postCompactionTokens")), Summary: p.str("summaryContent"),
		Details: rawjson.Value(p.env.Get("data"))}
	p.used = nil
}

// rewind reads session.snapshot_rewind: the event rewound to and every
// event after it were removed. The SDK marks it transient (the CLI removes
// the events from the log instead of writing it), but a log that holds it
// says where the conversation went back to.
func (p *parser) rewind() {
	target := p.str("upToEventId")
	rw := &transcript.Rewind{Dropped: target}
	if i := slices.IndexFunc(p.st.Prompts, func(q prompt) bool { return q.ID == target }); i >= 0 {
		rw.To = p.st.Prompts[i].Parent
		rw.Turns = len(p.st.Prompts) - i
		p.st.Prompts = p.st.Prompts[:i]
	}
	p.use("eventsRemoved")
	e := p.event(transcript.KindRewind, p.id)
	e.Rewind = rw
	if rw.To != "" {
		e.ParentID = rw.To
	}
}
