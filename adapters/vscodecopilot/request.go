package vscodecopilot

import (
	"encoding/json"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/cortexmem/cortex/transcript"
	"github.com/cortexmem/cortex/transcript/rawjson"
)

// emitter builds the events of one record.
type emitter struct {
	ctx *transcript.Context
	rec transcript.Record
	out []transcript.Event
}

// event appends an event of the record, pointing at pointer inside the
// session, and returns it (valid until the next append).
func (em *emitter) event(kind transcript.Kind, id, ts, pointer string) *transcript.Event {
	e := em.ctx.NewEvent(em.rec, kind, id)
	e.Timestamp = ts
	e.Provenance.Pointer = pointer
	em.out = append(em.out, e)
	return &em.out[len(em.out)-1]
}

// unknown preserves the whole record, which is valid JSON.
func (em *emitter) unknown(rawType, reason, pointer string) {
	e := em.event(transcript.KindUnknown, "", "", pointer)
	e.Unknown = transcript.NewUnknown(rawType, reason, em.rec.Data, true)
}

// msTime is a time in Unix milliseconds as an RFC 3339 UTC timestamp with
// milliseconds; "" for none. VS Code stores times as numbers; events carry
// them as text, the same for the same number.
func msTime(raw []byte) string {
	if !rawjson.IsNumber(raw) {
		return ""
	}
	ms := rawjson.Int(raw)
	if ms <= 0 || ms > 1<<53 {
		return ""
	}
	return time.UnixMilli(ms).UTC().Format("2006-01-02T15:04:05.000Z")
}

// sessionStart emits the start of the session a document or log's header
// describes ({version, sessionId, creationDate, customTitle, …}), once per
// session in a stream.
func (em *emitter) sessionStart(st *state, head rawjson.Object, pointer string) {
	session := rawjson.AsString(head.Get("sessionId"))
	em.ctx.SetSession(session)
	if st.Sessions[session] {
		return
	}
	if st.Sessions == nil {
		st.Sessions = map[string]bool{}
	}
	st.Sessions[session] = true
	id := ""
	if session != "" {
		id = session + "#start"
	}
	e := em.event(transcript.KindSessionStart, id, msTime(head.Get("creationDate")), pointer)
	e.SessionStart = &transcript.SessionStart{ToolVersion: extensionVersion(head)}
	var extra map[string]json.RawMessage
	for _, m := range head {
		switch k := m.KeyString(); k {
		case "requests", "sessionId", "creationDate", "requesterAvatarIconUri", "responderAvatarIconUri":
		default:
			if extra == nil {
				extra = map[string]json.RawMessage{}
			}
			extra[k] = m.Value
		}
	}
	e.Extra = extra
}

// request is what a request's events need of it, and what they were.
type request struct {
	obj     rawjson.Object
	id      string // requestId
	pointer string // where it is in the session: /requests/<i>
	ts      string // when it was sent
}

func newRequest(obj rawjson.Object, index int) request {
	r := request{obj: obj, id: rawjson.AsString(obj.Get("requestId")), pointer: "/requests/" + strconv.Itoa(index)}
	r.ts = msTime(obj.Get("timestamp"))
	return r
}

// sub is the id of one of the request's other events.
func (r request) sub(suffix string) string {
	if r.id == "" {
		return ""
	}
	return r.id + "#" + suffix
}

// complete reports whether the request's response is final: its
// modelState says complete, cancelled or failed; builds without modelState
// have a result or isCanceled once it is.
func complete(obj rawjson.Object) bool {
	if ms := rawjson.AsObject(obj.Get("modelState")); ms != nil {
		switch rawjson.Int(ms.Get("value")) {
		case 1, 2, 3: // Complete, Cancelled, Failed
			return true
		}
		return false
	}
	return rawjson.Value(obj.Get("result")) != nil || rawjson.Bool(obj.Get("isCanceled"))
}

// prompt emits the request's user turn: the message as typed, its
// attached variables as parts; a slash command (a subcommand or slash
// part, /compact) is marked as one. It returns the event's id.
func (em *emitter) prompt(r request) string {
	msg := rawjson.AsObject(r.obj.Get("message"))
	meta := ""
	for _, p := range rawjson.AsArray(msg.Get("parts")) {
		switch rawjson.AsString(rawjson.AsObject(p).Get("kind")) {
		case "slash", "subcommand", "prompt":
			meta = transcript.MetaCommand
		}
	}
	var parts []transcript.Part
	for _, v := range rawjson.AsArray(rawjson.AsObject(r.obj.Get("variableData")).Get("variables")) {
		parts = append(parts, transcript.Part{Type: "variable", Raw: v})
	}
	e := em.event(transcript.KindUserTurn, r.id, r.ts, r.pointer)
	e.UserTurn = &transcript.UserTurn{Text: rawjson.AsString(msg.Get("text")), Meta: meta, Parts: parts}
	return e.EventID
}

// workspaceFolder is the folder the session worked in, as a request says:
// the first folder of the workspace the extension described to the model
// (renderedGlobalContext), else the base of its markdown.
func workspaceFolder(obj rawjson.Object) string {
	md := rawjson.AsObject(rawjson.AsObject(obj.Get("result")).Get("metadata"))
	for _, c := range rawjson.AsArray(md.Get("renderedGlobalContext")) {
		text := rawjson.AsString(rawjson.AsObject(c).Get("text"))
		if _, rest, ok := strings.Cut(text, "following folders:\n- "); ok {
			line, _, _ := strings.Cut(rest, "\n")
			return strings.TrimSpace(line)
		}
	}
	for _, p := range rawjson.AsArray(obj.Get("response")) {
		if b := rawjson.AsString(rawjson.AsObject(rawjson.AsObject(p).Get("baseUri")).Get("path")); b != "" {
			if b != "/" {
				b = strings.TrimSuffix(b, "/")
			}
			return b
		}
	}
	return ""
}

// part is one element of a response, read.
type part struct {
	kind string // "" for markdown
	obj  rawjson.Object
	raw  []byte
	// agent is the subagent whose part it is: its own subAgentInvocationId,
	// or for a text edit, the last tool invocation's before it.
	agent string
	index int // its place in the response
}

func readParts(obj rawjson.Object) []part {
	var out []part
	agent := ""
	for i, raw := range rawjson.AsArray(obj.Get("response")) {
		o := rawjson.AsObject(raw)
		p := part{kind: rawjson.AsString(o.Get("kind")), obj: o, raw: raw, index: i}
		if p.kind == "toolInvocationSerialized" {
			agent = rawjson.AsString(o.Get("subAgentInvocationId"))
		}
		p.agent = agent
		out = append(out, p)
	}
	return out
}

// response emits the events of a finished request: the model's turns and
// tool calls (result.metadata.toolCallRounds, with their results from
// toolCallResults), or, for requests without rounds (ask and edit modes,
// older builds), one turn of the response's text; the file edits; the
// subagents' calls and edits; the compactions (metadata.summary and
// summaries); how a cancelled or failed response ended.
func (em *emitter) response(r request, prompt string) {
	obj := r.obj
	result := rawjson.AsObject(obj.Get("result"))
	md := rawjson.AsObject(result.Get("metadata"))
	parts := readParts(obj)
	model := rawjson.AsString(md.Get("resolvedModel"))
	if model == "" {
		model = rawjson.AsString(obj.Get("modelId"))
	}
	doneAt := msTime(rawjson.AsObject(obj.Get("modelState")).Get("completedAt"))
	if doneAt == "" {
		doneAt = r.ts
	}
	edits := newEditSet(parts)
	subs := subagentsOf(parts)
	summaries := rawjson.AsArray(md.Get("summaries"))
	if s := md.Get("summary"); rawjson.IsObject(s) && len(summaries) == 0 {
		summaries = [][]byte{s}
	}
	results := rawjson.AsObject(md.Get("toolCallResults"))
	rounds := rawjson.AsArray(md.Get("toolCallRounds"))
	last := prompt
	stop := stopReason(obj, result)

	if len(rounds) == 0 {
		text, thinking := responseText(parts)
		if text != "" || thinking != "" || len(edits.groups) == 0 {
			e := em.event(transcript.KindAssistantTurn, r.sub("response"), doneAt, r.pointer)
			e.ParentID = last
			e.AssistantTurn = &transcript.AssistantTurn{Text: text, Thinking: thinking, Model: model,
				MessageID: rawjson.AsString(obj.Get("responseId")), StopReason: stop, Usage: usage(obj)}
			last = e.EventID
		}
	}
	runSubagent := 0
	for i, raw := range rounds {
		round := rawjson.AsObject(raw)
		rid := rawjson.AsString(round.Get("id"))
		ts := msTime(round.Get("timestamp"))
		if ts == "" {
			ts = doneAt
		}
		text, thinking := rawjson.AsString(round.Get("response")), thinkingText(round.Get("thinking"))
		calls := rawjson.AsArray(round.Get("toolCalls"))
		if text != "" || thinking != "" || len(calls) == 0 {
			key := "round:" + rid
			if rid == "" {
				key = "round:" + strconv.Itoa(i)
			}
			e := em.event(transcript.KindAssistantTurn, r.sub(key), ts, r.pointer)
			e.ParentID = last
			at := &transcript.AssistantTurn{Text: text, Thinking: thinking, Model: model, MessageID: rid}
			if i == len(rounds)-1 {
				at.StopReason, at.Usage = stop, usage(obj)
			}
			e.AssistantTurn = at
			last = e.EventID
		}
		for _, craw := range calls {
			c := rawjson.AsObject(craw)
			cid, name := rawjson.AsString(c.Get("id")), rawjson.AsString(c.Get("name"))
			args := c.Get("arguments")
			e := em.event(transcript.KindToolCall, r.sub("tool_call:"+cid), ts, r.pointer)
			e.ParentID = last
			e.ToolCall = &transcript.ToolCall{CallID: cid, Name: name, Input: rawjson.Value(args)}
			callEvent := e.EventID
			if name == "runSubagent" && runSubagent < len(subs.order) {
				em.subagent(r, subs, subs.order[runSubagent], callEvent, ts, edits)
				runSubagent++
			}
			res := results.Get(cid)
			ok := true
			if res != nil {
				text := resultText(res)
				ok = !failed(text)
				e := em.event(transcript.KindToolResult, r.sub("tool_result:"+cid), ts, r.pointer)
				e.ParentID = callEvent
				e.ToolResult = &transcript.ToolResult{CallID: cid, Name: name, OK: ok, Text: text, Output: rawjson.Value(res)}
			}
			for n, fe := range edits.forCall(name, argsObject(args), ok, res != nil) {
				fe.CallID = cid
				suffix := "edit:" + cid
				if n > 0 {
					suffix += ":" + strconv.Itoa(n+1)
				}
				e := em.event(transcript.KindFileEdit, r.sub(suffix), ts, r.pointer)
				e.ParentID = callEvent
				e.FileEdit = fe
			}
		}
		for n, s := range summaries {
			if rawjson.AsString(rawjson.AsObject(s).Get("toolCallRoundId")) == rid && rid != "" {
				em.compaction(r, s, n, ts, last)
			}
		}
	}
	// Subagents no runSubagent call of the rounds names, and text edits no
	// call made (ask and edit modes apply code blocks; the agent's
	// insert_edit_into_file).
	for _, id := range subs.order[runSubagent:] {
		em.subagent(r, subs, id, last, doneAt, edits)
	}
	for n, fe := range edits.rest() {
		e := em.event(transcript.KindFileEdit, r.sub("textedit:"+strconv.Itoa(n+1)), doneAt, r.pointer)
		e.ParentID = last
		e.FileEdit = fe
	}
	// Summaries of rounds of earlier requests, or of none named.
	for n, s := range summaries {
		so := rawjson.AsObject(s)
		rid := rawjson.AsString(so.Get("toolCallRoundId"))
		named := false
		for _, raw := range rounds {
			if rid != "" && rawjson.AsString(rawjson.AsObject(raw).Get("id")) == rid {
				named = true
			}
		}
		if !named {
			em.compaction(r, s, n, doneAt, last)
		}
	}
}

// compaction emits a summary the conversation was compacted to: by
// /compact (manual), or when the context filled (auto).
func (em *emitter) compaction(r request, summary []byte, n int, ts, parent string) {
	e := em.event(transcript.KindCompaction, r.sub("compaction:"+strconv.Itoa(n+1)), ts, r.pointer)
	e.ParentID = parent
	trigger := "auto"
	if text := rawjson.AsString(rawjson.AsObject(r.obj.Get("message")).Get("text")); strings.HasPrefix(strings.TrimSpace(text), "/compact") {
		trigger = "manual"
	}
	e.Compaction = &transcript.Compaction{Trigger: trigger, Summary: rawjson.AsString(rawjson.AsObject(summary).Get("text")),
		Details: rawjson.Value(summary)}
}

// stopReason says how a response that did not complete ended: "cancelled"
// or "error"; "" for one that completed.
func stopReason(obj, result rawjson.Object) string {
	if ms := rawjson.AsObject(obj.Get("modelState")); ms != nil {
		switch rawjson.Int(ms.Get("value")) {
		case 2:
			return "cancelled"
		case 3:
			return "error"
		}
		return ""
	}
	switch {
	case rawjson.Bool(obj.Get("isCanceled")):
		return "cancelled"
	case rawjson.Value(result.Get("errorDetails")) != nil:
		return "error"
	}
	return ""
}

// usage is the request's token counts, when it records them.
func usage(obj rawjson.Object) *transcript.Usage {
	in, out := rawjson.Int(obj.Get("promptTokens")), rawjson.Int(obj.Get("completionTokens"))
	if in == 0 && out == 0 {
		return nil
	}
	return &transcript.Usage{InputTokens: in, OutputTokens: out}
}

// responseText is the text of a response's parts: its markdown, with
// inline references as the names they show, and its thinking.
func responseText(parts []part) (text, thinking string) {
	var b, th strings.Builder
	for _, p := range parts {
		switch p.kind {
		case "":
			if s, ok := rawjson.String(p.obj.Get("value")); ok {
				b.WriteString(s)
			}
		case "markdownContent":
			b.WriteString(rawjson.AsString(rawjson.AsObject(p.obj.Get("content")).Get("value")))
		case "inlineReference":
			ref := rawjson.AsObject(p.obj.Get("inlineReference"))
			name := rawjson.AsString(p.obj.Get("name"))
			if name == "" {
				name = path.Base(rawjson.AsString(ref.Get("path")))
			}
			if name == "" || name == "." {
				name = rawjson.AsString(ref.Get("name"))
			}
			b.WriteString("`" + name + "`")
		case "thinking":
			if th.Len() > 0 {
				th.WriteString("\n\n")
			}
			th.WriteString(thinkingText(p.obj.Get("value")))
		}
	}
	return b.String(), th.String()
}

// thinkingText reads thinking written as a string, a list of strings, or
// {text: either}.
func thinkingText(raw []byte) string {
	if o := rawjson.AsObject(raw); o != nil {
		raw = o.Get("text")
	}
	if s, ok := rawjson.String(raw); ok {
		return s
	}
	return strings.Join(rawjson.Strings(raw), "")
}

// failed reports whether a tool result's text is the extension's report of
// a call that failed or that the person cancelled.
func failed(text string) bool {
	return strings.HasPrefix(text, "ERROR while calling tool") || strings.HasPrefix(text, "The user cancelled the tool call")
}

// maxDepth bounds how deep resultText follows a result's tree (a
// prompt-tsx node renders as nested children).
const maxDepth = 64

// resultText flattens a tool result ({content: [parts]}, a part's value a
// string or a prompt-tsx tree of text nodes) to its text.
func resultText(raw []byte) string {
	var b strings.Builder
	for _, c := range rawjson.AsArray(rawjson.AsObject(raw).Get("content")) {
		v := rawjson.AsObject(c).Get("value")
		if s, ok := rawjson.String(v); ok {
			b.WriteString(s)
			continue
		}
		nodeText(&b, rawjson.AsObject(v).Get("node"), 0)
	}
	return b.String()
}

func nodeText(b *strings.Builder, raw []byte, depth int) {
	if depth > maxDepth {
		return
	}
	n := rawjson.AsObject(raw)
	if s, ok := rawjson.String(n.Get("text")); ok {
		b.WriteString(s)
	}
	for _, c := range rawjson.AsArray(n.Get("children")) {
		nodeText(b, c, depth+1)
	}
}

// argsObject reads a call's arguments: a string holding a JSON object (as
// the model wrote them), or an object.
func argsObject(raw []byte) rawjson.Object {
	if o := rawjson.AsObject(raw); o != nil {
		return o
	}
	if s, ok := rawjson.String(raw); ok && strings.HasPrefix(strings.TrimSpace(s), "{") && rawjson.Valid([]byte(s)) {
		return rawjson.AsObject([]byte(s))
	}
	return nil
}

// subagents are a response's subagent invocations: their tool invocations
// by subAgentInvocationId, in the order they first appear.
type subagents struct {
	order []string
	parts map[string][]part
}

func subagentsOf(parts []part) subagents {
	s := subagents{parts: map[string][]part{}}
	for _, p := range parts {
		if p.kind != "toolInvocationSerialized" || p.agent == "" {
			continue
		}
		if _, seen := s.parts[p.agent]; !seen {
			s.order = append(s.order, p.agent)
		}
		s.parts[p.agent] = append(s.parts[p.agent], p)
	}
	return s
}

// subagent emits what a subagent did, as VS Code records it in the
// parent's response: each tool it invoked (a call, and a result once
// complete) and the text edits after each. Its events carry the invocation
// as their agent.
func (em *emitter) subagent(r request, subs subagents, id, parent, ts string, edits *editSet) {
	for _, p := range subs.parts[id] {
		cid, tool := rawjson.AsString(p.obj.Get("toolCallId")), rawjson.AsString(p.obj.Get("toolId"))
		e := em.event(transcript.KindToolCall, r.sub("subagent:"+id+":tool_call:"+cid), ts, r.pointer)
		e.ParentID, e.AgentID, e.Sidechain = parent, id, true
		e.ToolCall = &transcript.ToolCall{CallID: cid, Name: tool, Input: rawjson.Value(p.obj.Get("toolSpecificData"))}
		callEvent := e.EventID
		ok := true
		if rawjson.Bool(p.obj.Get("isComplete")) {
			details := rawjson.AsObject(p.obj.Get("resultDetails"))
			ok = !rawjson.Bool(details.Get("isError"))
			e := em.event(transcript.KindToolResult, r.sub("subagent:"+id+":tool_result:"+cid), ts, r.pointer)
			e.ParentID, e.AgentID, e.Sidechain = callEvent, id, true
			e.ToolResult = &transcript.ToolResult{CallID: cid, Name: tool, OK: ok, Text: messageText(p.obj.Get("pastTenseMessage")),
				Structured: rawjson.Value(p.obj.Get("resultDetails"))}
		}
		for n, fe := range edits.forInvocation(p, tool, ok) {
			fe.CallID = cid
			e := em.event(transcript.KindFileEdit, r.sub("subagent:"+id+":edit:"+cid+":"+strconv.Itoa(n+1)), ts, r.pointer)
			e.ParentID, e.AgentID, e.Sidechain = callEvent, id, true
			e.FileEdit = fe
		}
	}
}

// messageText is an invocation message's text: a string or {value}.
func messageText(raw []byte) string {
	if s, ok := rawjson.String(raw); ok {
		return s
	}
	return rawjson.AsString(rawjson.AsObject(raw).Get("value"))
}
