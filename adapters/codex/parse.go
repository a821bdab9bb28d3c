package codex

import (
	"encoding/json"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/cortexmem/cortex/transcript"
	"github.com/cortexmem/cortex/transcript/rawjson"
)

// state is what the adapter remembers between records of one stream. It is
// saved with the stream's Context, so every field round-trips through JSON.
type state struct {
	// Started is set once the rollout's own session header (its first
	// session_meta) was read; later ones are copies.
	Started bool `json:"started,omitempty"`
	// Agent is the thread id of a subagent's rollout (the events' AgentID).
	Agent string `json:"agent,omitempty"`
	// ForkedAt is the fork's creation time (Unix ms) while a forked
	// rollout's replay of its parent's lines lasts; 0 otherwise.
	ForkedAt int64 `json:"forked_at,omitempty"`
	// Model is the model the last turn_context (or settings) named.
	Model string `json:"model,omitempty"`
	// Calls holds the tool calls waiting for their output.
	Calls map[string]call `json:"calls,omitempty"`
	// Status holds what an end event (exec_command_end, mcp_tool_call_end,
	// their item_completed forms) said of a waiting call: true when it
	// succeeded.
	Status map[string]bool `json:"status,omitempty"`
	// Edited holds the calls whose file edits were emitted.
	Edited map[string]bool `json:"edited,omitempty"`
	// Twins are the messages emitted in the current turn, waiting for their
	// copy in the other family of records (see twin).
	Twins []twin `json:"twins,omitempty"`
}

type call struct {
	Name string `json:"name"`
	// Patch is the V4A patch the call carries, Cwd the folder it runs in
	// (when the arguments say), for patch-bearing calls only.
	Patch string `json:"patch,omitempty"`
	Cwd   string `json:"cwd,omitempty"`
}

// Codex writes most of a conversation twice: a response_item (what the
// model saw) and an event_msg (what the interface showed: user_message,
// agent_message, agent_reasoning; item_completed in paginated rollouts), in
// either order. A twin is one emitted message waiting for its copy: the copy
// — same kind, the other family, the same item id or the same text — becomes
// an unknown (duplicate) event.
type twin struct {
	Family string `json:"f"` // familyItem or familyEvent
	Kind   string `json:"k"` // user, assistant, reasoning
	ID     string `json:"id,omitempty"`
	Hash   string `json:"h,omitempty"` // of the text ("" when it has none)
}

const (
	familyItem  = "item"
	familyEvent = "event"
	// maxTwins bounds the twins kept (they are also dropped at each turn's
	// end).
	maxTwins = 64
)

// Parse turns one line of a Codex rollout into events.
func (a *Adapter) Parse(rec transcript.Record, ctx *transcript.Context) []transcript.Event {
	st := transcript.StateOf[state](ctx)
	m, malformed := transcript.RecordObject(ctx, rec)
	if malformed != nil {
		return malformed
	}
	p := &parser{ctx: ctx, st: st, rec: rec, env: m, main: -1}
	return p.parse()
}

// parser holds one record being parsed.
type parser struct {
	ctx *transcript.Context
	st  *state
	rec transcript.Record

	env  rawjson.Object // the record
	pl   rawjson.Object // its payload (the record itself for the bare form)
	item rawjson.Object // an item_completed event's item
	bare bool
	typ  string // the envelope's type (session_meta for a bare header, response_item for a bare item)
	sub  string // the payload's type
	ts   string

	used     []string // payload keys mapped to event fields
	itemUsed []string // item keys mapped to event fields
	native   string   // the record's own id, for its main event
	out      []transcript.Event
	main     int // index in out of the record's main event, -1 before it
}

// The record types Codex writes that have no event kind: kept as unknown
// (unmapped). The larger tables are made on first use, not as every command
// starts.
var (
	metaRecords = map[string]bool{
		"turn_context": true, "world_state": true, "token_usage_record": true,
		"inter_agent_communication": true, "inter_agent_communication_metadata": true,
	}
	metaEvents = sync.OnceValue(func() map[string]bool {
		return map[string]bool{
			"task_started": true, "turn_started": true, "task_complete": true, "turn_complete": true,
			"turn_aborted": true, "token_count": true, "exec_command_begin": true, "exec_command_end": true,
			"exec_command_output_delta": true, "mcp_tool_call_begin": true, "mcp_tool_call_end": true,
			"web_search_begin": true, "web_search_end": true, "image_generation_begin": true,
			"image_generation_end": true, "patch_apply_begin": true, "view_image_tool_call": true,
			"thread_settings_applied": true, "entered_review_mode": true, "exited_review_mode": true,
			"thread_goal_updated": true, "thread_name_updated": true, "item_started": true,
			"guardian_assessment": true, "undo_started": true, "undo_completed": true, "error": true,
			"warning": true, "stream_error": true, "background_event": true, "dynamic_tool_call_request": true,
			"dynamic_tool_call_response": true, "sub_agent_activity": true, "plan_update": true,
			"turn_diff": true, "session_configured": true, "shutdown_complete": true,
			"deprecation_notice": true, "agent_reasoning_section_break": true, "agent_message_delta": true,
			"agent_reasoning_delta": true, "request_user_input": true, "elicitation_request": true,
		}
	})
	metaItems = map[string]bool{
		"ghost_snapshot": true, "agent_message": true, "other": true, "additional_tools": true,
		"compaction_trigger": true,
	}
	// turnItems are the item types of item_completed (paginated rollouts).
	turnItems = sync.OnceValue(func() map[string]bool {
		return map[string]bool{
			"UserMessage": true, "AgentMessage": true, "Reasoning": true, "FileChange": true,
			"CommandExecution": true, "McpToolCall": true, "WebSearch": true, "ImageGeneration": true,
			"ContextCompaction": true, "Plan": true, "Sleep": true, "Extension": true, "TodoList": true,
			"CollabAgentToolCall": true, "HookPrompt": true,
		}
	})
)

func (p *parser) parse() []transcript.Event {
	typ, hasType := rawjson.String(p.env.Get("type"))
	switch {
	case p.env.Get("payload") != nil:
		p.typ, p.ts = typ, rawjson.AsString(p.env.Get("timestamp"))
		p.pl = rawjson.AsObject(p.env.Get("payload"))
		if !hasType || p.pl == nil {
			return p.unknown(typ, transcript.ReasonMalformed)
		}
	case p.env.Get("record_type") != nil:
		return p.unknown("record_type/"+rawjson.AsString(p.env.Get("record_type")), transcript.ReasonUnmapped)
	case hasType && bareItems[typ] && p.env.Get("uuid") == nil:
		p.bare, p.pl, p.typ = true, p.env, "response_item"
		p.ts = rawjson.AsString(p.env.Get("timestamp"))
	case p.env.Get("type") == nil && isBareHeader(p.env):
		p.bare, p.pl, p.typ = true, p.env, "session_meta"
		p.ts = rawjson.AsString(p.env.Get("timestamp"))
	default:
		return p.unknown(typ, transcript.ReasonUnrecognized)
	}
	p.sub = rawjson.AsString(p.pl.Get("type"))
	p.use("type")
	if p.typ != "session_meta" && p.replayed() {
		return p.unknown(p.rawType(), transcript.ReasonDuplicate)
	}
	switch p.typ {
	case "session_meta":
		p.sessionMeta()
	case "response_item":
		p.responseItem()
	case "event_msg":
		p.eventMsg()
	case "compacted":
		e := p.event(transcript.KindCompaction, "")
		e.Compaction = &transcript.Compaction{Summary: rawjson.AsString(p.pl.Get("message"))}
		p.use("message")
	case "turn_context":
		p.settings(p.pl)
		p.out = p.unknown(p.typ, transcript.ReasonUnmapped)
	default:
		if metaRecords[p.typ] {
			return p.unknown(p.typ, transcript.ReasonUnmapped)
		}
		return p.unknown(p.typ, transcript.ReasonUnrecognized)
	}
	p.extra()
	return p.out
}

// extra puts the record's fields the main event has no slot for in its
// Extra: the envelope's own (ordinal), the payload's, the item's as
// "item.<key>".
func (p *parser) extra() {
	if p.main < 0 || p.out[p.main].Kind == transcript.KindUnknown {
		return
	}
	var extra map[string]json.RawMessage
	add := func(k string, v []byte) {
		if extra == nil {
			extra = map[string]json.RawMessage{}
		}
		extra[k] = v
	}
	if !p.bare {
		for _, mem := range p.env {
			if k := string(mem.Key); k != "timestamp" && k != "type" && k != "payload" {
				add(mem.KeyString(), mem.Value)
			}
		}
	}
	for _, mem := range p.pl {
		if !usedKey(p.used, mem.Key) && !(p.bare && string(mem.Key) == "timestamp") {
			add(mem.KeyString(), mem.Value)
		}
	}
	for _, mem := range p.item {
		if !usedKey(p.itemUsed, mem.Key) {
			add("item."+mem.KeyString(), mem.Value)
		}
	}
	p.out[p.main].Extra = extra
}

func usedKey(used []string, k []byte) bool {
	for _, u := range used {
		if u == string(k) {
			return true
		}
	}
	return false
}

// use marks payload keys as mapped to the event.
func (p *parser) use(keys ...string) { p.used = append(p.used, keys...) }

// rawType is the record's type name with its subtypes: "event_msg/
// user_message", "response_item/message/developer", "event_msg/
// item_completed/Plan".
func (p *parser) rawType() string {
	rt := p.typ
	if p.sub != "" && (p.typ == "response_item" || p.typ == "event_msg") {
		rt += "/" + p.sub
	}
	switch {
	case p.sub == "message" && p.typ == "response_item":
		if role := rawjson.AsString(p.pl.Get("role")); role != "" {
			rt += "/" + role
		}
	case p.sub == "item_completed":
		if t := rawjson.AsString(rawjson.AsObject(p.pl.Get("item")).Get("type")); t != "" {
			rt += "/" + t
		}
	}
	return rt
}

// unknown preserves the whole record.
func (p *parser) unknown(rawType, reason string) []transcript.Event {
	e := p.ctx.NewEvent(p.rec, transcript.KindUnknown, "")
	e.Unknown = transcript.NewUnknown(rawType, reason, p.rec.Data, true)
	e.Timestamp = p.ts
	p.agent(&e)
	return append(p.out, e)
}

func (p *parser) agent(e *transcript.Event) {
	if p.st.Agent != "" {
		e.AgentID, e.Sidechain = p.st.Agent, true
	}
}

// event starts an event of the record. The record's main event (the first,
// made with no suffix) has the record's own id (a response item's id) or its
// content hash; the others get that id with "#" and suffix.
func (p *parser) event(kind transcript.Kind, suffix string) *transcript.Event {
	isMain := p.main < 0 && suffix == ""
	id := p.native
	if !isMain {
		base := p.native
		if p.main >= 0 {
			base = p.out[p.main].EventID
		} else if base == "" {
			base = transcript.HashID(p.rec.Data)
		}
		if suffix == "" {
			suffix = string(kind)
		}
		id = base + "#" + suffix
	}
	e := p.ctx.NewEvent(p.rec, kind, id)
	e.Timestamp = p.ts
	p.agent(&e)
	p.out = append(p.out, e)
	if isMain {
		p.main = len(p.out) - 1
	}
	return &p.out[len(p.out)-1]
}

// replayed reports whether the record is part of a forked rollout's copy of
// its parent's lines. Codex starts a fork (and a forked subagent) by copying
// the parent's records, timestamps re-stamped; the copy ends at the first
// record of a turn minted at or after the fork (turn ids are UUIDv7, whose
// first 48 bits are the time of minting). Records without a turn id are
// copies while the replay lasts; a turn id that is not a UUIDv7 ends it (the
// gate fails open rather than drop live records).
func (p *parser) replayed() bool {
	if p.st.ForkedAt == 0 {
		return false
	}
	id := rawjson.AsString(p.pl.Get("turn_id"))
	if id == "" {
		id = rawjson.AsString(p.pl.Path("internal_chat_message_metadata_passthrough", "turn_id"))
	}
	if id == "" {
		id = rawjson.AsString(p.pl.Path("turn_attribution", "turn_id"))
	}
	if id == "" {
		return true
	}
	if ms := uuidV7Millis(id); ms != 0 && ms < p.st.ForkedAt {
		return true
	}
	p.st.ForkedAt = 0
	return false
}

// uuidV7Millis returns the Unix milliseconds a UUIDv7 was minted at, 0 for
// anything else.
func uuidV7Millis(id string) int64 {
	hex := strings.ReplaceAll(id, "-", "")
	if len(hex) != 32 || hex[12] != '7' {
		return 0
	}
	ms, err := strconv.ParseInt(hex[:12], 16, 64)
	if err != nil {
		return 0
	}
	return ms
}

func (p *parser) sessionMeta() {
	pl := p.pl
	if p.st.Started {
		// A second header: a fork's or a subagent's copy of its parent's.
		p.out = p.unknown(p.typ, transcript.ReasonDuplicate)
		return
	}
	p.st.Started = true
	id := rawjson.AsString(pl.Get("id"))
	session := id
	if sub := rawjson.AsObject(pl.Get("source")).Get("subagent"); sub != nil {
		parent := rawjson.AsString(pl.Get("parent_thread_id"))
		if parent == "" {
			parent = rawjson.AsString(rawjson.AsObject(sub).Path("thread_spawn", "parent_thread_id"))
		}
		p.st.Agent = id
		if p.st.Agent == "" {
			p.st.Agent = "subagent"
		}
		if parent != "" {
			session = parent
		}
	}
	p.ctx.SetSession(session)
	git := rawjson.AsObject(pl.Get("git"))
	p.ctx.SetProject(transcript.Project{
		Cwd: rawjson.AsString(pl.Get("cwd")), GitBranch: rawjson.AsString(git.Get("branch")), GitSHA: rawjson.AsString(git.Get("commit_hash")),
		Repository: rawjson.AsString(git.Get("repository_url")),
	})
	start := &transcript.SessionStart{ToolVersion: rawjson.AsString(pl.Get("cli_version")), Model: rawjson.AsString(pl.Get("model"))}
	if rawjson.AsString(pl.Get("forked_from_id")) != "" {
		start.Trigger = "fork"
		p.st.ForkedAt = createdAt(id, rawjson.AsString(pl.Get("timestamp")), p.ts)
	}
	if start.Model != "" {
		p.st.Model = start.Model
	}
	e := p.event(transcript.KindSessionStart, "")
	e.SessionStart = start
	p.use("id", "cwd", "git", "cli_version", "model")
	if p.bare {
		p.use("timestamp")
	}
}

// createdAt is when a fork was made: its id's time (a UUIDv7), else its
// header's timestamp, else the line's; 0 when none says.
func createdAt(id string, stamps ...string) int64 {
	if ms := uuidV7Millis(id); ms != 0 {
		return ms
	}
	for _, s := range stamps {
		if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
			return t.UnixMilli()
		}
	}
	return 0
}

// settings notes the model and folder a turn_context or thread settings
// record names.
func (p *parser) settings(o rawjson.Object) {
	if m := rawjson.AsString(o.Get("model")); m != "" {
		p.st.Model = m
	}
	p.ctx.SetProject(transcript.Project{Cwd: rawjson.AsString(o.Get("cwd"))})
}

func (p *parser) responseItem() {
	pl := p.pl
	p.native = rawjson.AsString(pl.Get("id"))
	p.use("id")
	switch p.sub {
	case "message":
		switch rawjson.AsString(pl.Get("role")) {
		case "user":
			p.userItem()
		case "assistant":
			p.assistantItem()
		default: // developer and system: instructions to the model
			p.native = ""
			p.out = p.unknown(p.rawType(), transcript.ReasonUnmapped)
		}
	case "reasoning":
		p.reasoningItem()
	case "function_call", "custom_tool_call", "local_shell_call", "tool_search_call", "web_search_call",
		"image_generation_call":
		p.toolCall()
	case "function_call_output", "custom_tool_call_output", "tool_search_output":
		p.toolOutput()
	case "compaction", "context_compaction", "compaction_summary":
		e := p.event(transcript.KindCompaction, "")
		e.Compaction = &transcript.Compaction{}
	default:
		p.native = ""
		reason := transcript.ReasonUnrecognized
		if metaItems[p.sub] {
			reason = transcript.ReasonUnmapped
		}
		p.out = p.unknown(p.rawType(), reason)
	}
}

func (p *parser) eventMsg() {
	pl := p.pl
	switch p.sub {
	case "user_message":
		text := rawjson.AsString(pl.Get("message"))
		meta := classify(text)
		if k := rawjson.AsString(pl.Get("kind")); meta == "" && k != "" && k != "plain" {
			meta = transcript.MetaInjected
		}
		p.use("message", "kind")
		p.userTurn(familyEvent, text, meta, nil, "")
	case "agent_message":
		p.use("message")
		p.assistantTurn(familyEvent, rawjson.AsString(pl.Get("message")), "")
	case "agent_reasoning", "agent_reasoning_raw_content":
		p.use("text")
		text := rawjson.AsString(pl.Get("text"))
		p.reasoning(familyEvent, []string{text}, "")
	case "item_completed":
		p.completed()
	case "patch_apply_end":
		ok := rawjson.AsString(pl.Get("status")) != "failed"
		if v := pl.Get("success"); v != nil {
			ok = rawjson.Bool(v)
		}
		p.use("call_id", "changes", "success")
		p.applied(rawjson.AsString(pl.Get("call_id")), pl.Get("changes"), ok)
	case "exec_command_end":
		code := pl.Get("exit_code")
		if rawjson.IsNumber(code) {
			p.status(rawjson.AsString(pl.Get("call_id")), rawjson.Int(code) == 0)
		}
		p.out = p.unknown(p.rawType(), transcript.ReasonUnmapped)
	case "mcp_tool_call_end":
		res := rawjson.AsObject(pl.Get("result"))
		p.status(rawjson.AsString(pl.Get("call_id")), res.Get("Ok") != nil && !rawjson.Bool(res.Path("Ok", "isError")))
		p.out = p.unknown(p.rawType(), transcript.ReasonUnmapped)
	case "context_compacted":
		e := p.event(transcript.KindCompaction, "")
		e.Compaction = &transcript.Compaction{}
	case "thread_rolled_back":
		e := p.event(transcript.KindRewind, "")
		e.Rewind = &transcript.Rewind{Turns: int(rawjson.Int(pl.Get("num_turns")))}
		p.use("num_turns")
	case "task_complete", "turn_complete", "turn_aborted":
		p.st.Twins = nil
		p.out = p.unknown(p.rawType(), transcript.ReasonUnmapped)
	case "thread_settings_applied":
		p.settings(rawjson.AsObject(pl.Get("thread_settings")))
		p.out = p.unknown(p.rawType(), transcript.ReasonUnmapped)
	default:
		reason := transcript.ReasonUnrecognized
		if metaEvents()[p.sub] || strings.HasPrefix(p.sub, "collab_") {
			reason = transcript.ReasonUnmapped
		}
		p.out = p.unknown(p.rawType(), reason)
	}
}

// completed maps an item_completed event: the form paginated rollouts give
// the conversation in.
func (p *parser) completed() {
	it := rawjson.AsObject(p.pl.Get("item"))
	t := rawjson.AsString(it.Get("type"))
	p.item = it
	p.use("item")
	p.itemUsed = append(p.itemUsed, "type", "id")
	id := rawjson.AsString(it.Get("id"))
	switch t {
	case "UserMessage":
		p.native = id
		p.itemUsed = append(p.itemUsed, "content")
		text := strings.Join(itemTexts(it.Get("content")), "\n\n")
		p.userTurn(familyEvent, text, classify(text), nil, id)
	case "AgentMessage":
		p.native = id
		p.itemUsed = append(p.itemUsed, "content")
		p.assistantTurn(familyEvent, strings.Join(itemTexts(it.Get("content")), "\n\n"), id)
	case "Reasoning":
		p.native = id
		p.itemUsed = append(p.itemUsed, "summary_text", "raw_content")
		parts := append(rawjson.Strings(it.Get("summary_text")), rawjson.Strings(it.Get("raw_content"))...)
		p.reasoning(familyEvent, parts, id)
	case "FileChange":
		p.itemUsed = append(p.itemUsed, "changes", "status")
		p.applied(id, it.Get("changes"), rawjson.AsString(it.Get("status")) != "failed" && rawjson.AsString(it.Get("status")) != "declined")
	case "ContextCompaction":
		p.native = id
		e := p.event(transcript.KindCompaction, "")
		e.Compaction = &transcript.Compaction{}
	case "CommandExecution":
		if code := it.Get("exit_code"); rawjson.IsNumber(code) {
			p.status(id, rawjson.Int(code) == 0)
		} else if s := rawjson.AsString(it.Get("status")); s != "" && s != "in_progress" {
			p.status(id, s == "completed")
		}
		p.out = p.unknown(p.rawType(), transcript.ReasonUnmapped)
	case "McpToolCall":
		s := rawjson.AsString(it.Get("status"))
		if s != "" && s != "in_progress" {
			p.status(id, s != "failed" && !rawjson.Bool(it.Path("result", "isError")))
		}
		p.out = p.unknown(p.rawType(), transcript.ReasonUnmapped)
	default:
		p.item = nil
		reason := transcript.ReasonUnrecognized
		if turnItems()[t] {
			reason = transcript.ReasonUnmapped
		}
		p.out = p.unknown(p.rawType(), reason)
	}
}

// itemTexts reads the text of an item_completed message's content.
func itemTexts(raw []byte) []string {
	out, _ := texts(raw)
	return out
}

// status notes what an end event says of a call waiting for its output.
func (p *parser) status(callID string, ok bool) {
	if _, waiting := p.st.Calls[callID]; !waiting || callID == "" {
		return
	}
	if p.st.Status == nil {
		p.st.Status = map[string]bool{}
	}
	p.st.Status[callID] = ok
}

func (p *parser) userItem() {
	pl := p.pl
	all, other := texts(pl.Get("content"), "input_text", "text")
	var parts []transcript.Part
	for _, raw := range other {
		parts = append(parts, transcript.Part{Type: rawjson.AsString(rawjson.AsObject(raw).Get("type")), Raw: raw})
	}
	text := strings.Join(all, "\n\n")
	meta := classify(text)
	if meta == "" && harnessOnly(pl) {
		meta = transcript.MetaInjected
	}
	if cwd := envCwd(text); cwd != "" {
		p.ctx.SetProject(transcript.Project{Cwd: cwd})
	}
	p.use("role", "content")
	p.userTurn(familyItem, text, meta, parts, p.native)
}

// userTurn emits a user message, unless it is the copy of one emitted
// already.
func (p *parser) userTurn(family, text, meta string, parts []transcript.Part, id string) {
	key := matchText(text)
	if p.isTwin(family, "user", "", []string{key}) {
		p.native = ""
		p.out = p.unknown(p.rawType(), transcript.ReasonDuplicate)
		return
	}
	p.remember(family, "user", id, []string{key})
	e := p.event(transcript.KindUserTurn, "")
	e.UserTurn = &transcript.UserTurn{Text: text, Meta: meta, Parts: parts}
}

func (p *parser) assistantItem() {
	all, other := texts(p.pl.Get("content"), "output_text", "text")
	p.use("role", "content")
	if !p.assistantTurn(familyItem, strings.Join(all, "\n\n"), p.native) {
		return
	}
	e := &p.out[p.main]
	for _, raw := range other {
		e.AssistantTurn.Parts = append(e.AssistantTurn.Parts, transcript.Part{Type: rawjson.AsString(rawjson.AsObject(raw).Get("type")), Raw: raw})
	}
}

// assistantTurn emits a model message, unless it is the copy of one emitted
// already; it reports whether it emitted it.
func (p *parser) assistantTurn(family, text, id string) bool {
	key := transcript.HashID([]byte(strings.TrimSpace(text)))
	if p.isTwin(family, "assistant", id, []string{key}) {
		p.native = ""
		p.out = p.unknown(p.rawType(), transcript.ReasonDuplicate)
		return false
	}
	p.remember(family, "assistant", id, []string{key})
	e := p.event(transcript.KindAssistantTurn, "")
	e.AssistantTurn = &transcript.AssistantTurn{Text: text, Model: p.st.Model, MessageID: id}
	return true
}

func (p *parser) reasoningItem() {
	pl := p.pl
	summary, _ := texts(pl.Get("summary"))
	content, _ := texts(pl.Get("content"))
	p.use("summary", "content")
	p.reasoning(familyItem, append(summary, content...), p.native)
}

// reasoning emits the model's reasoning (its summaries, and the raw text when
// the record holds it; encrypted content stays in Extra), unless each part
// is the copy of one emitted already.
func (p *parser) reasoning(family string, parts []string, id string) {
	var keys []string
	var kept []string
	for _, s := range parts {
		if strings.TrimSpace(s) != "" {
			keys = append(keys, transcript.HashID([]byte(strings.TrimSpace(s))))
			kept = append(kept, s)
		}
	}
	if p.isTwin(family, "reasoning", id, keys) {
		p.native = ""
		p.out = p.unknown(p.rawType(), transcript.ReasonDuplicate)
		return
	}
	p.remember(family, "reasoning", id, keys)
	e := p.event(transcript.KindAssistantTurn, "")
	e.AssistantTurn = &transcript.AssistantTurn{Thinking: strings.Join(kept, "\n\n"), Model: p.st.Model, MessageID: id}
}

// isTwin reports whether a message is the copy of one emitted earlier in the
// turn from the other family of records — the same item id, or (each part)
// the same text — and forgets the original.
func (p *parser) isTwin(family, kind, id string, keys []string) bool {
	tw := p.st.Twins
	if id != "" {
		for _, t := range tw {
			if t.Family != family && t.Kind == kind && t.ID == id {
				p.forget(func(u twin) bool { return u.Family != family && u.Kind == kind && u.ID == id })
				return true
			}
		}
	}
	if len(keys) == 0 {
		return false
	}
	var hit []int
	for _, k := range keys {
		found := -1
		for i, t := range tw {
			if t.Family != family && t.Kind == kind && t.Hash == k && !containsInt(hit, i) {
				found = i
				break
			}
		}
		if found < 0 {
			return false
		}
		hit = append(hit, found)
	}
	n := 0
	for i, t := range tw {
		if !containsInt(hit, i) {
			tw[n] = t
			n++
		}
	}
	p.st.Twins = tw[:n]
	return true
}

func (p *parser) forget(match func(twin) bool) {
	tw := p.st.Twins[:0]
	for _, t := range p.st.Twins {
		if !match(t) {
			tw = append(tw, t)
		}
	}
	p.st.Twins = tw
}

// remember keeps an emitted message as a twin waiting for its copy.
func (p *parser) remember(family, kind, id string, keys []string) {
	if len(keys) == 0 {
		keys = []string{""}
	}
	for _, k := range keys {
		p.st.Twins = append(p.st.Twins, twin{Family: family, Kind: kind, ID: id, Hash: k})
	}
	if n := len(p.st.Twins); n > maxTwins {
		p.st.Twins = append([]twin(nil), p.st.Twins[n-maxTwins:]...)
	}
}

func containsInt(list []int, n int) bool {
	for _, x := range list {
		if x == n {
			return true
		}
	}
	return false
}

// matchText is the key a user message's copy is recognised by: its text
// without white space around it, and after the "## My request for Codex:"
// heading the IDE extensions put before what the person typed.
func matchText(text string) string {
	if i := strings.LastIndex(text, requestHeading); i >= 0 {
		text = text[i+len(requestHeading):]
	}
	return transcript.HashID([]byte(strings.TrimSpace(text)))
}

const requestHeading = "## My request for Codex:"

// injectedPrefixes open the user-role messages Codex adds itself.
var injectedPrefixes = []string{
	"<environment_context>", "<user_instructions>", "<permissions instructions>", "<collaboration_mode>",
	"<multi_agent_mode>", "<apps_instructions>", "<skills_instructions>", "<plugins_instructions>",
	"# AGENTS.md instructions", "<INSTRUCTIONS>", "You are `/root`",
}

// classify says why a user-role message was not typed by the person ("" when
// it was).
func classify(text string) string {
	t := strings.TrimLeft(text, " \t\r\n")
	switch {
	case strings.HasPrefix(t, "<user_shell_command>"):
		return transcript.MetaShell
	case strings.HasPrefix(t, "<turn_aborted>"):
		return transcript.MetaInterrupt
	case strings.HasPrefix(t, "<subagent_notification>"):
		return transcript.MetaTaskNotification
	}
	for _, pre := range injectedPrefixes {
		if strings.HasPrefix(t, pre) {
			return transcript.MetaInjected
		}
	}
	return ""
}

// harnessOnly reports whether a message's items all say (in newer rollouts'
// metadata) that the harness wrote them, not the person.
func harnessOnly(pl rawjson.Object) bool {
	items := rawjson.AsArray(pl.Path("internal_chat_message_metadata_passthrough", "content_item_metadata"))
	if len(items) == 0 {
		return false
	}
	for _, it := range items {
		if rawjson.AsString(rawjson.AsObject(it).Path("provenance", "type")) != "harness" {
			return false
		}
	}
	return true
}

// envCwd returns the folder an <environment_context> message names (the
// only place the early rollouts say it).
func envCwd(text string) string {
	if !strings.Contains(text, "<environment_context>") {
		return ""
	}
	_, rest, ok := strings.Cut(text, "<cwd>")
	if !ok {
		return ""
	}
	cwd, _, ok := strings.Cut(rest, "</cwd>")
	if !ok {
		return ""
	}
	return strings.TrimSpace(cwd)
}

func (p *parser) toolCall() {
	pl := p.pl
	callID := rawjson.AsString(pl.Get("call_id"))
	name := rawjson.AsString(pl.Get("name"))
	var input []byte
	switch p.sub {
	case "function_call":
		input = pl.Get("arguments")
		p.use("call_id", "name", "arguments")
	case "custom_tool_call":
		input = pl.Get("input")
		p.use("call_id", "name", "input")
	case "local_shell_call":
		name, input = "local_shell", pl.Get("action")
		p.use("call_id", "action")
	case "tool_search_call":
		name, input = "tool_search", pl.Get("arguments")
		p.use("call_id", "arguments")
	case "web_search_call":
		name, input = "web_search", pl.Get("action")
		p.use("call_id", "action")
	case "image_generation_call":
		name = "image_generation"
		p.use("call_id")
	}
	if callID == "" && p.sub != "function_call" && p.sub != "custom_tool_call" {
		callID = p.native
	}
	e := p.event(transcript.KindToolCall, "")
	e.ToolCall = &transcript.ToolCall{CallID: callID, Name: name, Input: rawjson.Value(input)}
	if callID == "" {
		return
	}
	c := call{Name: name}
	c.Patch, c.Cwd = callPatch(name, input)
	if c.Patch != "" && c.Cwd == "" {
		c.Cwd = p.ctx.Project().Cwd
	}
	if p.st.Calls == nil {
		p.st.Calls = map[string]call{}
	}
	p.st.Calls[callID] = c
}

func (p *parser) toolOutput() {
	pl := p.pl
	callID := rawjson.AsString(pl.Get("call_id"))
	c := p.st.Calls[callID]
	out := pl.Get("output")
	p.use("call_id", "output")
	if out == nil && p.sub == "tool_search_output" {
		out = pl.Get("tools")
		p.use("tools")
	}
	text, ok, known := outcome(out)
	if s, said := p.st.Status[callID]; !known && said {
		ok = s
	}
	if rawjson.AsString(pl.Get("status")) == "failed" {
		ok = false
	}
	e := p.event(transcript.KindToolResult, "")
	e.ToolResult = &transcript.ToolResult{CallID: callID, Name: c.Name, OK: ok, Text: text, Output: rawjson.Value(out)}
	if callID == "" {
		return
	}
	if c.Patch != "" && !p.st.Edited[callID] {
		p.emitEdits(callID, c, patchEdits(c), ok)
	}
	delete(p.st.Calls, callID)
	delete(p.st.Status, callID)
}

// outcome reads a tool output: its text, whether the call succeeded, and
// whether the output says (else ok is true). Codex's outputs carry no flag:
// the legacy shell wrote {"output", "metadata": {"exit_code"}} as a string,
// unified exec "Process exited with code N", freeform tools "Exit code: N";
// an object with "success" says it; and Codex's own messages for a call that
// did not run (rejected, aborted, a patch that did not verify) are failures.
func outcome(raw []byte) (text string, ok, known bool) {
	if s, isStr := rawjson.String(raw); isStr {
		if strings.HasPrefix(s, "{") && rawjson.Valid([]byte(s)) {
			o := rawjson.AsObject([]byte(s))
			if code := o.Path("metadata", "exit_code"); rawjson.IsNumber(code) {
				return rawjson.AsString(o.Get("output")), rawjson.Int(code) == 0, true
			}
		}
		ok, known = exitStatus(s)
		return s, ok, known
	}
	text = flatten(raw)
	if o := rawjson.AsObject(raw); o != nil && o.Get("success") != nil {
		return text, rawjson.Bool(o.Get("success")), true
	}
	ok, known = exitStatus(text)
	return text, ok, known
}

// failurePrefixes open the outputs Codex writes for a call that did not run.
var failurePrefixes = []string{
	"aborted", "exec command rejected", "patch rejected", "apply_patch verification failed",
	"failed to parse function arguments", "unsupported call", "execution error:",
}

// exitStatus reads the exit code a tool output states in its header: the
// first lines, before "Output:".
func exitStatus(text string) (ok, known bool) {
	rest := text
	for range 8 {
		if rest == "" {
			break
		}
		line, next, _ := strings.Cut(rest, "\n")
		rest = next
		line = strings.TrimSpace(line)
		if line == "Output:" { // what follows is the command's own output
			break
		}
		for _, pre := range []string{"Exit code:", "Process exited with code"} {
			if v, found := strings.CutPrefix(line, pre); found {
				if n, err := strconv.Atoi(strings.TrimSpace(v)); err == nil {
					return n == 0, true
				}
			}
		}
	}
	t := strings.ToLower(strings.TrimSpace(text))
	for _, pre := range failurePrefixes {
		if strings.HasPrefix(t, pre) {
			return false, true
		}
	}
	return true, false
}

// applied emits the file edits of a patch_apply_end (or item_completed
// FileChange): from its changes when it has them (the tool's own diff), else
// from the call's patch. A second end record of a call whose edits were
// emitted is a duplicate.
func (p *parser) applied(callID string, changes []byte, ok bool) {
	if callID != "" && p.st.Edited[callID] {
		p.item = nil
		p.out = p.unknown(p.rawType(), transcript.ReasonDuplicate)
		return
	}
	c := p.st.Calls[callID]
	cwd := c.Cwd
	if cwd == "" {
		cwd = p.ctx.Project().Cwd
	}
	var edits []*transcript.FileEdit
	var fromInput []*transcript.FileEdit // the call's patch, when a change says nothing
	for _, mem := range rawjson.AsObject(changes) {
		fe := changeEdit(cwd, mem.KeyString(), rawjson.AsObject(mem.Value))
		if fe == nil {
			continue
		}
		if fe.Unified == "" && (fe.Op == transcript.OpUpdate || fe.Op == transcript.OpMove) && c.Patch != "" {
			if fromInput == nil {
				fromInput = patchEdits(c)
			}
			for _, in := range fromInput {
				if in.Path == fe.Path {
					fe = in
					break
				}
			}
		}
		edits = append(edits, fe)
	}
	if len(edits) == 0 && c.Patch != "" {
		edits = patchEdits(c)
	}
	if len(edits) == 0 {
		p.item = nil
		p.out = p.unknown(p.rawType(), transcript.ReasonUnmapped)
		return
	}
	p.emitEdits(callID, c, edits, ok)
}

// patchEdits are the edits of a call's patch.
func patchEdits(c call) []*transcript.FileEdit {
	var out []*transcript.FileEdit
	for _, op := range transcript.ParsePatch(c.Patch) {
		out = append(out, patchEdit(c.Cwd, op))
	}
	return out
}

func (p *parser) emitEdits(callID string, c call, edits []*transcript.FileEdit, ok bool) {
	if len(edits) == 0 {
		return
	}
	tool := c.Name
	if tool == "" {
		tool = "apply_patch"
	}
	for _, fe := range edits {
		fe.CallID, fe.Tool, fe.OK = callID, tool, ok
		suffix := "edit:" + fe.Path
		if p.main < 0 {
			suffix = ""
		}
		e := p.event(transcript.KindFileEdit, suffix)
		e.FileEdit = fe
	}
	if callID != "" {
		if p.st.Edited == nil {
			p.st.Edited = map[string]bool{}
		}
		p.st.Edited[callID] = true
	}
}
