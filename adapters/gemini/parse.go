package gemini

import (
	"encoding/json"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/cortexmem/cortex/transcript"
	"github.com/cortexmem/cortex/transcript/rawjson"
)

// state is what the adapter remembers between records of one stream. It is
// saved with the stream's Context, so every exported field round-trips
// through JSON.
type state struct {
	// Sessions holds the session ids whose session_start was emitted: a
	// second header of one (a resumed session) is a resume.
	Sessions map[string]bool `json:"sessions,omitempty"`
	// Agent is the subagent's own session id while the stream is a
	// subagent's chat file: its events carry the parent's session (from the
	// file's folder), as Claude Code's do, and Agent as their agent id.
	Agent string `json:"agent,omitempty"`
	// Started is set when a session_start was the last event other than
	// unknown: a second marker of the same start is not a new one.
	Started bool `json:"started,omitempty"`
	// Messages holds every message id read, with what was emitted for it.
	Messages map[string]*message `json:"messages,omitempty"`
	// Order is the conversation as the CLI holds it: message ids in
	// first-seen order, as the last checkpoint and rewind left them.
	Order []string `json:"order,omitempty"`
	// Calls holds every tool call read, by call id.
	Calls map[string]*toolCall `json:"calls,omitempty"`

	// InArray is set between a legacy document's head and its end: the
	// records are the elements of the array at Base, Next the index of the
	// next one (Legacy only).
	InArray bool   `json:"in_array,omitempty"`
	Base    string `json:"base,omitempty"`
	Next    int    `json:"next,omitempty"`

	// inOrder indexes Order (rebuilt when nil: it is not saved).
	inOrder map[string]bool
}

// message is what was read and emitted of one message id.
type message struct {
	// Seen counts the records that held the id; it numbers the versions of
	// the message's events.
	Seen int `json:"seen"`
	// Record is a hash of the last record that held the message: the same
	// bytes again are a duplicate.
	Record uint64 `json:"record"`
	// Body, Model and Tokens stand for what the main event carries: a new
	// version of it is emitted when they change.
	Body   uint64 `json:"body,omitempty"`
	Model  string `json:"model,omitempty"`
	Tokens uint64 `json:"tokens,omitempty"`
	// First and Last are the first and last events emitted for the message,
	// Main the latest version of its user_turn, assistant_turn or
	// compaction.
	First string `json:"first,omitempty"`
	Main  string `json:"main,omitempty"`
	Last  string `json:"last,omitempty"`
	// Prompt marks a user turn the person typed.
	Prompt bool `json:"prompt,omitempty"`
	// Calls are the keys of the tool calls the message holds.
	Calls []string `json:"calls,omitempty"`
}

// toolCall is what was read and emitted of one tool call.
type toolCall struct {
	// Msg is the model message that holds the call ("" when only a
	// function response named it).
	Msg  string `json:"msg,omitempty"`
	Name string `json:"name,omitempty"`
	// Args are the call's arguments, kept for the edit tools only (a result
	// that arrives alone still makes an edit).
	Args json.RawMessage `json:"args,omitempty"`
	// Call, Result and Edit are the latest versions of its events, with
	// hashes of what they carry.
	Call       string `json:"call,omitempty"`
	Result     string `json:"result,omitempty"`
	Edit       string `json:"edit,omitempty"`
	CallHash   uint64 `json:"call_hash,omitempty"`
	ResultHash uint64 `json:"result_hash,omitempty"`
	EditHash   uint64 `json:"edit_hash,omitempty"`
	// EditRank ranks where the edit's diff came from (editRank): a worse
	// source never replaces a better one.
	EditRank int `json:"edit_rank,omitempty"`
}

// Parse turns one line of a Gemini CLI chat file into events.
func (a *Adapter) Parse(rec transcript.Record, ctx *transcript.Context) []transcript.Event {
	return parseRecord(rec, ctx, "")
}

// parseRecord parses one record, its events pointing at pointer inside it
// (a legacy document's element).
func parseRecord(rec transcript.Record, ctx *transcript.Context, pointer string) []transcript.Event {
	st := transcript.StateOf[state](ctx)
	p := &parser{ctx: ctx, st: st, rec: rec, base: pointer, pointer: pointer}
	if !rawjson.Valid(rec.Data) {
		p.unknownRaw("", transcript.ReasonMalformed, false)
		return p.out
	}
	m, ok := rawjson.ParseObject(rec.Data)
	if !ok {
		p.unknownRaw("", transcript.ReasonMalformed, true)
		return p.out
	}
	p.m = m
	p.parse()
	return p.out
}

// parser holds one record being parsed.
type parser struct {
	ctx *transcript.Context
	st  *state
	rec transcript.Record
	m   rawjson.Object
	out []transcript.Event
	// base locates the record inside its document (legacy), pointer the
	// message being parsed (a checkpoint's entry): the events' provenance.
	base, pointer string
	// extra goes to the record's first event, unless that is Unknown (which
	// holds the whole record).
	extra map[string]json.RawMessage
}

func (p *parser) parse() {
	switch m := p.m; {
	case rawjson.IsString(m.Get("$rewindTo")):
		p.rewind()
	case rawjson.IsString(m.Get("id")):
		p.message(m, p.rec.Data, false, false)
	case rawjson.IsObject(m.Get("$set")):
		p.set()
	case isHeader(m):
		p.header(m, nil)
	case isMetadata(m):
		p.unknown("metadata", transcript.ReasonUnmapped, "", "")
	default:
		p.unknown(rawjson.AsString(m.Get("type")), transcript.ReasonUnrecognized, "", "")
	}
	if len(p.out) == 0 { // every branch emits; kept so a record never goes without
		p.unknown("", transcript.ReasonUnrecognized, "", "")
	}
	if len(p.extra) > 0 && p.out[0].Kind != transcript.KindUnknown {
		p.out[0].Extra = p.extra
	}
}

// event appends an event of the record and returns it (valid until the
// next append).
func (p *parser) event(kind transcript.Kind, id, ts string) *transcript.Event {
	e := p.ctx.NewEvent(p.rec, kind, id)
	e.Timestamp = ts
	e.Provenance.Pointer = p.pointer
	if p.st.Agent != "" {
		e.AgentID = p.st.Agent
		e.Sidechain = true
	}
	switch kind {
	case transcript.KindSessionStart:
		p.st.Started = true
	case transcript.KindUnknown:
	default:
		p.st.Started = false
	}
	p.out = append(p.out, e)
	return &p.out[len(p.out)-1]
}

// unknown preserves the whole record, which is valid JSON.
func (p *parser) unknown(rawType, reason, id, ts string) {
	e := p.event(transcript.KindUnknown, id, ts)
	e.Provenance.Pointer = p.base
	e.Unknown = transcript.NewUnknown(rawType, reason, p.rec.Data, true)
}

// unknownRaw preserves a record that is not a JSON object.
func (p *parser) unknownRaw(rawType, reason string, validJSON bool) {
	e := p.event(transcript.KindUnknown, "", "")
	e.Unknown = transcript.NewUnknown(rawType, reason, p.rec.Data, validJSON)
}

// addExtra keeps the members of o not in used for the record's first event,
// their names prefixed.
func (p *parser) addExtra(o rawjson.Object, prefix string, used ...string) {
	for _, mem := range o {
		k := mem.KeyString()
		if slices.Contains(used, k) {
			continue
		}
		if p.extra == nil {
			p.extra = map[string]json.RawMessage{}
		}
		p.extra[prefix+k] = mem.Value
	}
}

// header is a session's metadata (the first line of a chat file, or a
// legacy document's members) → session_start. A second header of a session
// already started is the CLI resuming it. A subagent's (kind "subagent")
// names its own session: the events carry the parent's, which the folder
// the file is in names (chats/<parent session>/<session>.jsonl), when it
// does. A legacy document on one line also holds the messages: they are
// read as a checkpoint.
func (p *parser) header(m rawjson.Object, legacyMembers []string) {
	session := rawjson.AsString(m.Get("sessionId"))
	p.st.Agent = ""
	if rawjson.AsString(m.Get("kind")) == "subagent" {
		p.st.Agent = session
	}
	p.ctx.SetSession(p.sessionOf(session))
	if dirs := rawjson.AsArray(m.Get("directories")); len(dirs) > 0 {
		p.ctx.SetProject(transcript.Project{Cwd: rawjson.AsString(dirs[0])})
	}
	trigger := ""
	if p.st.Sessions[session] {
		trigger = "resume"
	}
	if p.st.Sessions == nil {
		p.st.Sessions = map[string]bool{}
	}
	p.st.Sessions[session] = true
	id := ""
	if session != "" {
		id = session + "#start"
	}
	e := p.event(transcript.KindSessionStart, id, rawjson.AsString(m.Get("startTime")))
	e.Provenance.Pointer = p.base
	e.SessionStart = &transcript.SessionStart{Trigger: trigger}
	used := append([]string{"sessionId", "startTime"}, legacyMembers...)
	if msgs := m.Get("messages"); rawjson.IsArray(msgs) && legacyMembers == nil {
		p.addExtra(m, "", append(used, "messages")...)
		p.checkpoint(rawjson.AsArray(msgs), p.base+"/messages/")
		return
	}
	p.addExtra(m, "", used...)
}

// sessionOf is the session the events of a record naming session carry:
// the parent's for the subagent whose file this is, else session itself.
func (p *parser) sessionOf(session string) string {
	if session == "" || session != p.st.Agent {
		return session
	}
	if parent := parentSession(p.ctx.File()); parent != "" {
		return parent
	}
	return session
}

// parentSession returns the session id the folder holding file names — a
// subagent's chat file is chats/<parent session>/<session>.jsonl — when the
// folder's name is a session id (Gemini CLI's are UUIDs), else "". The file
// name is the one the stream's events carry: a function of the input, like
// the rest.
func parentSession(file string) string {
	dir, _ := path.Split(strings.ReplaceAll(file, `\`, "/"))
	dir = path.Base(strings.TrimSuffix(dir, "/"))
	if !isUUID(dir) {
		return ""
	}
	return dir
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

// set is a metadata update ({"$set": {…}}). The session id of a session
// already started is the CLI resuming it (it sets the id when it reopens a
// file) → session_start, unless a start was the last thing read (the CLI
// sometimes writes a header and this for one resume). Its messages, when it
// has them, are a checkpoint: the conversation as the CLI now holds it.
// Other updates (lastUpdated, summary, directories, the memory scratchpad)
// have no event kind: unknown (unmapped), after they update the session and
// project.
func (p *parser) set() {
	set := rawjson.AsObject(p.m.Get("$set"))
	session := rawjson.AsString(set.Get("sessionId"))
	p.ctx.SetSession(p.sessionOf(session))
	if dirs := rawjson.AsArray(set.Get("directories")); len(dirs) > 0 {
		p.ctx.SetProject(transcript.Project{Cwd: rawjson.AsString(dirs[0])})
	}
	used := []string{"messages"}
	if session != "" && p.st.Sessions[session] && !p.st.Started {
		e := p.event(transcript.KindSessionStart, session+"#start", "")
		e.Provenance.Pointer = p.base
		e.SessionStart = &transcript.SessionStart{Trigger: "resume"}
		used = append(used, "sessionId")
	}
	msgs := set.Get("messages")
	if rawjson.IsArray(msgs) || len(p.out) > 0 {
		p.addExtra(set, "$set.", used...)
	}
	if rawjson.IsArray(msgs) {
		p.checkpoint(rawjson.AsArray(msgs), p.base+"/$set/messages/")
	}
	if len(p.out) == 0 {
		p.unknown("$set", transcript.ReasonUnmapped, "", "")
	}
}

// checkpoint reads a list of messages that replaces the conversation the
// CLI holds (written at start, on resume and after compression or masking
// rewrote the model's history). A message not read before gives its events;
// one read before gives none, whatever the checkpoint changed in it: the
// CLI rewrites history to save context (a masked tool output, a summary in
// place of old turns), which is not a new version of what happened. Each
// event points at its entry.
//
// A checkpoint that leaves out messages the conversation held and brings
// messages never read is a compression: what it brings replaced what it
// left out. Its new user message is the summary (a compaction), told by the
// file's structure alone — the model writes the summary, and its words
// (a <state_snapshot> or anything else) prove nothing. A load or a resume
// leaves messages out too (the ones the model is not given), but brings
// none never read besides the CLI's session context.
func (p *parser) checkpoint(list [][]byte, prefix string) {
	order := make([]string, 0, len(list))
	in := make(map[string]bool, len(list))
	objs := make([]rawjson.Object, len(list))
	for i, raw := range list {
		objs[i] = rawjson.AsObject(raw)
		id, ok := rawjson.String(objs[i].Get("id"))
		if ok && !in[id] {
			in[id] = true
			order = append(order, id)
		}
	}
	replaced := false
	for _, id := range p.st.Order {
		if m := p.st.Messages[id]; m != nil && m.Main != "" && !in[id] {
			replaced = true
			break
		}
	}
	for i, raw := range list {
		if _, ok := rawjson.String(objs[i].Get("id")); !ok {
			continue
		}
		p.pointer = prefix + strconv.Itoa(i)
		p.message(objs[i], raw, true, replaced)
	}
	p.pointer = p.base
	p.st.Order, p.st.inOrder = order, in
}

// inOrder reports whether id is in the conversation, adding it at the end
// when add is set.
func (p *parser) inOrder(id string, add bool) bool {
	st := p.st
	if st.inOrder == nil {
		st.inOrder = make(map[string]bool, len(st.Order))
		for _, o := range st.Order {
			st.inOrder[o] = true
		}
	}
	if st.inOrder[id] {
		return true
	}
	if add {
		st.inOrder[id] = true
		st.Order = append(st.Order, id)
	}
	return false
}

// rewind is {"$rewindTo": id}: the message id and everything after it are
// dropped from the conversation (an id the conversation does not hold
// clears it, as the CLI's loader does). The rewind event says the last event
// kept (To), the first dropped and how many prompts went.
func (p *parser) rewind() {
	target := rawjson.AsString(p.m.Get("$rewindTo"))
	rw := &transcript.Rewind{Dropped: target}
	idx := slices.Index(p.st.Order, target)
	if idx >= 0 {
		if m := p.st.Messages[target]; m != nil && m.First != "" {
			rw.Dropped = m.First
		}
		if idx > 0 {
			if m := p.st.Messages[p.st.Order[idx-1]]; m != nil {
				rw.To = m.Last
			}
		}
	} else {
		idx = 0
	}
	for _, id := range p.st.Order[idx:] {
		m := p.st.Messages[id]
		if m == nil {
			continue
		}
		if m.Prompt {
			rw.Turns++
		}
		// The calls of dropped messages go too: a call id used again after
		// the rewind is a new call.
		for _, key := range m.Calls {
			if c := p.st.Calls[key]; c != nil && c.Msg == id {
				delete(p.st.Calls, key)
			}
		}
		delete(p.st.Messages, id)
	}
	p.st.Order, p.st.inOrder = p.st.Order[:idx], nil
	e := p.event(transcript.KindRewind, "", "")
	e.ParentID = rw.To
	e.Rewind = rw
}

// message reads one message: a record of its own, or an entry of a
// checkpoint (inCheckpoint). The CLI appends a message again, whole, each
// time it changes (tool calls, results or tokens arriving): the last record
// of an id wins. Only what changed is emitted, each new version of an event
// with Replaces naming the one it supersedes. Byte-identical bytes are a
// duplicate; a rewritten record that changes nothing the events carry is
// unknown (unmapped). replacing is set for the entries of a checkpoint that
// replaced messages of the conversation (see checkpoint).
func (p *parser) message(mo rawjson.Object, raw []byte, inCheckpoint, replacing bool) {
	id := rawjson.AsString(mo.Get("id"))
	typ := rawjson.AsString(mo.Get("type"))
	ts := rawjson.AsString(mo.Get("timestamp"))
	msg, known := p.st.Messages[id]
	if inCheckpoint && known {
		return
	}
	if !known {
		msg = &message{}
		if p.st.Messages == nil {
			p.st.Messages = map[string]*message{}
		}
		p.st.Messages[id] = msg
	}
	if !inCheckpoint {
		p.inOrder(id, true)
	}
	msg.Seen++
	h := hashOf(raw)
	if known && h == msg.Record {
		p.unknown(typ, transcript.ReasonDuplicate, id+"#duplicate", ts)
		return
	}
	msg.Record = h
	start := len(p.out)
	mp := &msgParser{parser: p, mo: mo, msg: msg, id: id, ts: ts, record: !inCheckpoint, replacing: replacing && !known}
	switch typ {
	case "user":
		mp.user()
	case "gemini":
		mp.gemini()
	case "info", "error", "warning":
		if !inCheckpoint {
			p.unknown(typ, transcript.ReasonUnmapped, versioned(id, msg.Seen), ts)
		}
	default:
		if !inCheckpoint {
			p.unknown(typ, transcript.ReasonUnrecognized, versioned(id, msg.Seen), ts)
		}
	}
	if len(p.out) == start && !inCheckpoint {
		p.unknown(typ+"/rewrite", transcript.ReasonUnmapped, versioned(id, msg.Seen), ts)
	}
	if len(p.out) > start {
		if msg.First == "" {
			msg.First = p.out[start].EventID
		}
		msg.Last = p.out[len(p.out)-1].EventID
	}
}

// versioned is the id of an event's n-th version: the base id for the first.
func versioned(base string, n int) string {
	if n <= 1 {
		return base
	}
	return base + "#v" + strconv.Itoa(n)
}

// msgParser holds one message being parsed.
type msgParser struct {
	*parser
	mo     rawjson.Object
	msg    *message
	id, ts string
	record bool // the message is the record (not a checkpoint's entry)
	// replacing marks a message never read that a checkpoint brought in
	// place of messages it left out: a compression's.
	replacing bool
}

// mainID is the id of a version of the message's main event.
func (mp *msgParser) mainID() string {
	if mp.msg.Main == "" {
		return versioned(mp.id, 1)
	}
	return versioned(mp.id, mp.msg.Seen)
}

// subID is the id of a version of one of the message's other events.
func (mp *msgParser) subID(suffix string, replacing bool) string {
	base := mp.id + "#" + suffix
	if replacing {
		return versioned(base, mp.msg.Seen)
	}
	return base
}

// content is a PartListUnion taken apart: its text, its thinking (parts
// marked thought), the parts kept verbatim (not plain text, not function
// calls or responses), and the function calls and responses.
type content struct {
	text, thinking []string
	parts          []transcript.Part
	calls          []rawjson.Object
	resps          [][]byte
}

func splitParts(raw []byte) content {
	var c content
	for _, pr := range parts(raw) {
		if s, ok := rawjson.String(pr); ok {
			c.text = append(c.text, s)
			continue
		}
		po := rawjson.AsObject(pr)
		switch k := partKind(po); k {
		case "text":
			c.text = append(c.text, rawjson.AsString(po.Get("text")))
			if len(po) > 1 {
				c.parts = append(c.parts, transcript.Part{Type: k, Raw: pr})
			}
		case "thought":
			c.thinking = append(c.thinking, rawjson.AsString(po.Get("text")))
			c.parts = append(c.parts, transcript.Part{Type: k, Raw: pr})
		case "functionCall":
			c.calls = append(c.calls, rawjson.AsObject(po.Get("functionCall")))
		case "functionResponse":
			c.resps = append(c.resps, pr)
		case "":
			c.parts = append(c.parts, transcript.Part{Type: "unknown", Raw: pr})
		default:
			c.parts = append(c.parts, transcript.Part{Type: k, Raw: pr})
		}
	}
	return c
}

func (h *hasher) parts(ps []transcript.Part) *hasher {
	for _, pt := range ps {
		h.string(pt.Type).bytes(pt.Raw)
	}
	return h
}

// The tags Gemini CLI wraps what it adds to a prompt in.
const (
	hookOpen       = "<hook_context>"
	hookClose      = "</hook_context>"
	sessionContext = "<session_context>"
)

// user reads a user message: the person's prompt, context the CLI injected,
// a compression summary, or the function responses sent back to the model
// (whose results the model's message before it holds already).
func (mp *msgParser) user() {
	c := splitParts(mp.mo.Get("content"))
	text := strings.Join(c.text, "")
	used, src := []string{"content", "displayContent"}, "content"
	if display := mp.mo.Get("displayContent"); rawjson.Value(display) != nil {
		// What the person typed, before the CLI expanded it (the contents
		// of @-referenced files): the content the model got stays in Extra.
		text = strings.Join(splitParts(display).text, "")
		used, src = used[1:], "displayContent"
	}
	start := len(mp.out)
	for i, raw := range c.resps {
		fr := rawjson.AsObject(rawjson.AsObject(raw).Get("functionResponse"))
		callID := rawjson.AsString(fr.Get("id"))
		key := callID
		if key == "" {
			key = mp.id + "#" + strconv.Itoa(i)
		}
		mp.tool(key, callID, rawjson.AsString(fr.Get("name")), nil, "", wrap(raw), nil, mp.ts, fromResponse)
	}
	if text == "" && len(c.parts) == 0 && len(c.resps) > 0 {
		if len(mp.out) == start && mp.record {
			mp.unknown("user/functionResponse", transcript.ReasonUnmapped, versioned(mp.id, mp.msg.Seen), mp.ts)
		}
		mp.done(used...)
		return
	}
	meta, summary := "", false
	trimmed := strings.TrimLeft(text, " \t\r\n")
	typed, hooked := stripHooks(text)
	switch {
	case strings.HasPrefix(trimmed, sessionContext):
		meta = transcript.MetaInjected
		if cwd := contextCwd(trimmed); cwd != "" {
			mp.ctx.SetProject(transcript.Project{Cwd: cwd})
		}
	case len(c.resps) > 0, hooked && typed == "":
		meta = transcript.MetaInjected
	case mp.replacing:
		// Brought by a compression in place of the turns it left out:
		// the summary, whatever the model wrote in it.
		summary = true
	case hooked:
		// Hook output the CLI put around the prompt (SessionStart and
		// BeforeAgent additionalContext): not typed; the record's content
		// keeps it.
		text = typed
		used = slices.DeleteFunc(used, func(k string) bool { return k == src })
	}
	body := new(hasher).string("user").string(text).string(meta).parts(c.parts).set()
	if summary {
		body = new(hasher).string("summary").string(text).set()
	}
	if mp.msg.Main != "" && body == mp.msg.Body {
		mp.done(used...)
		return
	}
	replaces := mp.msg.Main
	var e *transcript.Event
	if summary {
		e = mp.event(transcript.KindCompaction, mp.mainID(), mp.ts)
		e.Compaction = &transcript.Compaction{Summary: text}
	} else {
		e = mp.event(transcript.KindUserTurn, mp.mainID(), mp.ts)
		e.UserTurn = &transcript.UserTurn{Text: text, Meta: meta, Parts: c.parts}
	}
	e.Replaces = replaces
	mp.msg.Main, mp.msg.Body = e.EventID, body
	mp.msg.Prompt = meta == "" && !summary
	mp.done(used...)
}

// stripHooks removes the <hook_context> blocks from a prompt; it reports
// whether there were any.
func stripHooks(s string) (string, bool) {
	if !strings.Contains(s, hookOpen) {
		return s, false
	}
	var b strings.Builder
	rest, found := s, false
	for {
		i := strings.Index(rest, hookOpen)
		if i < 0 {
			break
		}
		j := strings.Index(rest[i:], hookClose)
		if j < 0 {
			break
		}
		b.WriteString(rest[:i])
		rest = rest[i+j+len(hookClose):]
		found = true
	}
	if !found {
		return s, false
	}
	b.WriteString(rest)
	return strings.TrimSpace(b.String()), true
}

// done keeps the message record's fields the events have no slot for
// (those besides the envelope and used), for the record's first event.
func (mp *msgParser) done(used ...string) {
	if mp.record {
		mp.addExtra(mp.mo, "", append(used, "id", "timestamp", "type")...)
	}
}

// gemini reads a model message: its text and thinking → assistant_turn,
// each tool call → tool_call, and each call that has finished → tool_result
// and, for the edit tools, file_edit.
func (mp *msgParser) gemini() {
	c := splitParts(mp.mo.Get("content"))
	text := strings.Join(c.text, "")
	thinking := c.thinking
	ps := c.parts
	for _, raw := range rawjson.AsArray(mp.mo.Get("thoughts")) {
		th := rawjson.AsObject(raw)
		subject, desc := rawjson.AsString(th.Get("subject")), rawjson.AsString(th.Get("description"))
		switch {
		case subject != "" && desc != "":
			thinking = append(thinking, subject+"\n\n"+desc)
		case subject != "" || desc != "":
			thinking = append(thinking, subject+desc)
		}
		ps = append(ps, transcript.Part{Type: "thought", Raw: raw})
	}
	thought := strings.Join(thinking, "\n\n")
	model := rawjson.AsString(mp.mo.Get("model"))
	tokens := mp.mo.Get("tokens")
	var tokHash uint64
	if rawjson.IsObject(tokens) {
		tokHash = hashOf(tokens)
	}
	calls := rawjson.AsArray(mp.mo.Get("toolCalls"))

	// A message of tool calls alone has no turn of its own.
	wantMain := text != "" || thought != "" || len(ps) > 0 || tokHash != 0 || len(calls)+len(c.calls) == 0
	body := new(hasher).string("gemini").string(text).string(thought).parts(ps).set()
	changed := mp.msg.Main == "" ||
		body != mp.msg.Body || model != "" && model != mp.msg.Model || tokHash != 0 && tokHash != mp.msg.Tokens
	if wantMain && changed {
		replaces := mp.msg.Main
		e := mp.event(transcript.KindAssistantTurn, mp.mainID(), mp.ts)
		e.Replaces = replaces
		if model == "" {
			model = mp.msg.Model
		}
		e.AssistantTurn = &transcript.AssistantTurn{Text: text, Thinking: thought, Model: model, MessageID: mp.id,
			Usage: usage(tokens), Parts: ps}
		mp.msg.Main = e.EventID
		mp.msg.Body = body
		if model != "" {
			mp.msg.Model = model
		}
		if tokHash != 0 {
			mp.msg.Tokens = tokHash
		}
	}

	listed := map[string]bool{}
	for i, raw := range calls {
		tc := rawjson.AsObject(raw)
		callID := rawjson.AsString(tc.Get("id"))
		key := callID
		if key == "" {
			key = mp.id + "#" + strconv.Itoa(i)
		}
		listed[key] = true
		cts := rawjson.AsString(tc.Get("timestamp"))
		if cts == "" {
			cts = mp.ts
		}
		mp.tool(key, callID, rawjson.AsString(tc.Get("name")), tc.Get("args"), rawjson.AsString(tc.Get("status")), tc.Get("result"),
			tc.Get("resultDisplay"), cts, fromModel)
	}
	// Function calls in the content (a checkpoint's copy of the model's
	// turn) that toolCalls does not list.
	for _, fc := range c.calls {
		callID := rawjson.AsString(fc.Get("id"))
		if callID == "" || listed[callID] {
			continue
		}
		mp.tool(callID, callID, rawjson.AsString(fc.Get("name")), fc.Get("args"), "", nil, nil, mp.ts, fromContent)
	}
	mp.done("content", "thoughts", "tokens", "model", "toolCalls")
}

func usage(raw []byte) *transcript.Usage {
	u := rawjson.AsObject(raw)
	if u == nil {
		return nil
	}
	return &transcript.Usage{
		InputTokens: rawjson.Int(u.Get("input")), OutputTokens: rawjson.Int(u.Get("output")),
		CacheReadTokens: rawjson.Int(u.Get("cached")), ReasoningTokens: rawjson.Int(u.Get("thoughts")),
		Raw: rawjson.Value(raw),
	}
}

// Where tool reads a call from.
const (
	fromModel    = iota // the model message's toolCalls: the call, its status and result
	fromContent         // a functionCall part of the model's content: the call only
	fromResponse        // a functionResponse part of a user message: the result only
)

// Tool call statuses that mean the call has finished.
var finished = map[string]bool{"success": true, "error": true, "cancelled": true}

// tool emits what is new of one tool call: the call, its result once it has
// finished, and the file edit of an edit tool. The model message's record
// is the authority: a function response (or a checkpoint) gives a result
// only for a call that has none yet, so the output the CLI masked in the
// model's history later never replaces the one the tool returned.
func (mp *msgParser) tool(key, callID, name string, args []byte, status string, result, display []byte, ts string, from int) {
	st := mp.st
	c := st.Calls[key]
	if c != nil && mp.record && from == fromModel && c.Msg != "" && c.Msg != mp.id {
		c = nil // a call id used again by another message: a new call
	}
	isNew := c == nil
	if isNew {
		c = &toolCall{}
		if st.Calls == nil {
			st.Calls = map[string]*toolCall{}
		}
		st.Calls[key] = c
	}
	if !mp.record && !isNew && c.Result != "" {
		return // a checkpoint's copy of a call already read
	}
	if from != fromResponse && c.Msg == "" {
		c.Msg = mp.id
		mp.msg.Calls = append(mp.msg.Calls, key)
	}
	if name != "" {
		c.Name = name
	}
	if editTools[c.Name] && rawjson.IsObject(args) {
		c.Args = json.RawMessage(args)
	}
	if from != fromResponse && (mp.record || isNew) {
		h := new(hasher).string(name).bytes(args).set()
		if h != c.CallHash {
			e := mp.event(transcript.KindToolCall, mp.subID("tool_call:"+key, c.Call != ""), mp.ts)
			e.Replaces = c.Call
			e.ParentID = mp.msg.Main
			e.ToolCall = &transcript.ToolCall{CallID: callID, Name: name, Input: rawjson.Value(args)}
			c.Call, c.CallHash = e.EventID, h
		}
	}
	if from == fromContent || from == fromResponse && c.Result != "" {
		return
	}
	if !finished[status] && rawjson.Value(result) == nil {
		return // not run yet, or running
	}
	ok := status == "success" || !finished[status] && !responseFailed(result)
	text := resultText(result)
	if s, isStr := rawjson.String(display); text == "" && isStr {
		text = s
	}
	if h := new(hasher).string(strconv.FormatBool(ok)).string(text).set(); h != c.ResultHash {
		e := mp.event(transcript.KindToolResult, mp.subID("tool_result:"+key, c.Result != ""), ts)
		e.Replaces = c.Result
		e.ParentID = c.Call
		e.ToolResult = &transcript.ToolResult{CallID: callID, Name: c.Name, OK: ok, Text: text,
			Output: rawjson.Value(result), Structured: rawjson.Value(display)}
		c.Result, c.ResultHash = e.EventID, h
	}
	if !editTools[c.Name] {
		return
	}
	fe := fileEdit(c.Name, rawjson.AsObject(c.Args), rawjson.AsObject(display), ok)
	if fe == nil {
		return
	}
	fe.CallID = callID
	rank := editRank[fe.From]
	h := new(hasher).string(strconv.FormatBool(fe.OK)).string(fe.Op).string(fe.Path).string(fe.Unified).set()
	if h == c.EditHash || fe.OK && rank < c.EditRank {
		return
	}
	e := mp.event(transcript.KindFileEdit, mp.subID("edit:"+key, c.Edit != ""), ts)
	e.Replaces = c.Edit
	e.ParentID = c.Result
	e.FileEdit = fe
	c.Edit, c.EditHash, c.EditRank = e.EventID, h, rank
}

// wrap makes one part a PartListUnion array, as a tool call's result is.
func wrap(part []byte) json.RawMessage {
	b := make([]byte, 0, len(part)+2)
	b = append(b, '[')
	b = append(b, part...)
	return append(b, ']')
}

// resultText flattens a tool call's result (function responses, text, other
// parts) to text.
func resultText(result []byte) string {
	var out []string
	for _, pr := range parts(result) {
		if s, ok := rawjson.String(pr); ok {
			out = append(out, s)
			continue
		}
		po := rawjson.AsObject(pr)
		switch k := partKind(po); k {
		case "functionResponse":
			out = append(out, responseText(rawjson.AsObject(po.Get("functionResponse")).Get("response")))
		case "text", "thought":
			out = append(out, rawjson.AsString(po.Get("text")))
		case "":
		default:
			out = append(out, "["+k+"]")
		}
	}
	return strings.Join(out, "\n")
}

// responseText is a function response's output: its output or error text,
// else the response as JSON.
func responseText(resp []byte) string {
	if s, ok := rawjson.String(resp); ok {
		return s
	}
	o := rawjson.AsObject(resp)
	for _, k := range []string{"output", "error", "content"} {
		if s, ok := rawjson.String(o.Get(k)); ok {
			return s
		}
	}
	if rawjson.Value(resp) == nil {
		return ""
	}
	return string(resp)
}

// responseFailed reports whether a result's function responses say error.
func responseFailed(result []byte) bool {
	for _, pr := range parts(result) {
		fr := rawjson.AsObject(rawjson.AsObject(pr).Get("functionResponse"))
		if rawjson.AsObject(fr.Get("response")).Has("error") {
			return true
		}
	}
	return false
}

// contextCwd finds the working folder in the <session_context> message the
// CLI sends first: the first of its workspace directories (0.2x and later),
// or the folder it says it is working in (earlier).
func contextCwd(text string) string {
	if _, rest, ok := strings.Cut(text, "**Workspace Directories:**\n"); ok {
		line, _, _ := strings.Cut(rest, "\n")
		if dir, ok := strings.CutPrefix(strings.TrimSpace(line), "- "); ok {
			return strings.TrimSpace(dir)
		}
	}
	if _, rest, ok := strings.Cut(text, "I'm currently working in the directory: "); ok {
		line, _, _ := strings.Cut(rest, "\n")
		return strings.TrimSpace(line)
	}
	return ""
}
