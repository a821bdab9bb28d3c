package opencode

import (
	"cmp"
	"encoding/json"
	"regexp"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/cortexmem/cortex/transcript"
	"github.com/cortexmem/cortex/transcript/rawjson"
	"github.com/cortexmem/cortex/transcript/sqlitedb"
)

// state is what a stream remembers between rows. It round-trips through
// JSON (a saved Position).
type state struct {
	// Marks are, per table, how far Load has been read: the highest
	// time_updated parsed and the ids of the rows parsed at that time.
	Marks    map[string]mark         `json:"marks,omitempty"`
	Sessions map[string]*sessionInfo `json:"sessions,omitempty"`
	Messages map[string]*messageInfo `json:"messages,omitempty"`
	Parts    map[string]*partInfo    `json:"parts,omitempty"`
}

type mark struct {
	Time int64    `json:"time"`
	IDs  []string `json:"ids,omitempty"`
}

type sessionInfo struct {
	// Root is the root session of a child session (a subagent's task).
	Root     string `json:"root,omitempty"`
	Cwd      string `json:"cwd,omitempty"`
	Hash     string `json:"hash,omitempty"`
	Revert   string `json:"revert,omitempty"`
	Archived bool   `json:"archived,omitempty"`
	// Compaction is the trigger of the compaction under way: its summary
	// message follows.
	Compaction string `json:"compaction,omitempty"`
	// Created is the session's time of creation (epoch ms), which tells a
	// fork's copies of its parent's messages: they keep their own, older,
	// times.
	Created int64 `json:"created,omitempty"`
}

type messageInfo struct {
	Session string `json:"session"`
	Role    string `json:"role,omitempty"`
	// Summary marks a compaction's summary message.
	Summary bool   `json:"summary,omitempty"`
	Model   string `json:"model,omitempty"`
	Cwd     string `json:"cwd,omitempty"`
	Root    string `json:"root,omitempty"`
	Tokens  string `json:"tokens,omitempty"`
	Hash    string `json:"hash,omitempty"`
	// Created is the message's time, for its parts that say none.
	Created int64 `json:"created,omitempty"`
	// Texts counts the assistant texts given events (the first carries
	// the usage).
	Texts int `json:"texts,omitempty"`
	// Copy marks a message a fork copied from the session it was forked
	// from: it and its parts are that session's, read there.
	Copy bool `json:"copy,omitempty"`
}

type partInfo struct {
	Hash     string `json:"hash,omitempty"`
	TextHash string `json:"text_hash,omitempty"`
	Version  int    `json:"version,omitempty"`
	LastID   string `json:"last_id,omitempty"`
	Call     bool   `json:"call,omitempty"`
	Result   bool   `json:"result,omitempty"`
}

// parser turns one row into events.
type parser struct {
	ctx  *transcript.Context
	st   *state
	rec  transcript.Record
	line sqlitedb.Line
	id   string
	data rawjson.Object
	out  []transcript.Event
	// session is the id events carry, agent the child session's.
	sid, agent string
	project    transcript.Project
	time       string
}

// Parse turns one row line into events.
func (a *Adapter) Parse(rec transcript.Record, ctx *transcript.Context) []transcript.Event {
	obj, bad := transcript.RecordObject(ctx, rec)
	if bad != nil {
		return bad
	}
	l, ok := sqlitedb.LineOf(obj)
	if !ok || rank(l.Table) < 0 {
		return []transcript.Event{transcript.UnknownEvent(ctx, rec, "", transcript.ReasonUnrecognized)}
	}
	st := transcript.StateOf[state](ctx)
	p := &parser{ctx: ctx, st: st, rec: rec, line: l, id: rawjson.AsString(l.Values.Get("id"))}
	p.data = rawjson.AsObject(l.Values.Get("data"))
	if p.id == "" {
		p.id = rawjson.AsString(p.data.Get("id"))
	}
	switch {
	case p.id == "":
		p.unknown(l.Table, transcript.ReasonMalformed)
	case l.Table == tableSession:
		p.session()
	case l.Table == tableMessage:
		p.message()
	default:
		p.part()
	}
	st.advance(l, p.id)
	pointer := l.Table + "/" + p.id
	if f := rawjson.AsString(l.Values.Get(colFile)); f != "" {
		pointer = f
	} else if ptr := rawjson.AsString(l.Values.Get(colPointer)); ptr != "" {
		pointer = ptr
	}
	for i := range p.out {
		p.out[i].Provenance.Pointer = pointer
	}
	return p.out
}

// seen reports whether the row of table (a part's of message mid) was
// last read with the hash h.
func (st *state) seen(table, mid, id, h string) bool {
	switch table {
	case tableSession:
		return st.Sessions[id] != nil && st.Sessions[id].Hash == h
	case tableMessage:
		return st.Messages[id] != nil && st.Messages[id].Hash == h
	}
	p := st.Parts[mid+"/"+id]
	return p != nil && p.Hash == h
}

// advance moves the table's mark past the row.
func (st *state) advance(l sqlitedb.Line, id string) {
	tu := l.Values.Get("time_updated")
	if !rawjson.IsNumber(tu) || l.Values.Has(colPointer) {
		return
	}
	t := rawjson.Int(tu)
	if st.Marks == nil {
		st.Marks = map[string]mark{}
	}
	m := st.Marks[l.Table]
	switch {
	case t > m.Time:
		st.Marks[l.Table] = mark{Time: t, IDs: []string{id}}
	case t == m.Time && !slices.Contains(m.IDs, id):
		m.IDs = append(m.IDs, id)
		st.Marks[l.Table] = m
	}
}

// rowHash is the hash of a row line but its time of update: a row whose
// time alone changed is not a new version. (The value is a slice of the
// line: where it starts is told by what is left of the line after it.)
func rowHash(data []byte, l sqlitedb.Line) string {
	v := l.Values.Get("time_updated")
	if v == nil {
		return transcript.HashID(data)
	}
	off := cap(data) - cap(v)
	if off < 0 || off+len(v) > len(data) {
		return transcript.HashID(data)
	}
	return transcript.HashID(data[:off], data[off+len(v):])
}

// event starts an event of the row.
func (p *parser) event(kind transcript.Kind, id string) *transcript.Event {
	p.ctx.SetSession(p.sid)
	e := p.ctx.NewEvent(p.rec, kind, id)
	e.SessionID, e.AgentID, e.Sidechain = p.sid, p.agent, p.agent != ""
	e.Project = p.project
	e.Timestamp = p.time
	p.out = append(p.out, e)
	return &p.out[len(p.out)-1]
}

// unknown keeps the row as an Unknown event, its id the row's hash.
func (p *parser) unknown(rawType, reason string) {
	p.unknownID(transcript.HashID(p.rec.Data), rawType, reason)
}

// unknownID keeps the row as an Unknown event of the given id: a message's
// or part's own id the first time it is read, so a rewind can name it.
func (p *parser) unknownID(id, rawType, reason string) {
	e := p.event(transcript.KindUnknown, id)
	e.Unknown = transcript.NewUnknown(rawType, reason, p.rec.Data, true)
}

// millis is epoch milliseconds as RFC 3339 in UTC; "" for none.
func millis(ms int64) string {
	if ms <= 0 || ms > 1e15 {
		return ""
	}
	t := time.UnixMilli(ms).UTC()
	y, mo, d := t.Date()
	if y > 9999 {
		return t.Format(millisLayout)
	}
	// Every row gives one: written digit by digit it costs a third of what
	// Format's reading of the layout does.
	h, mi, sec := t.Clock()
	var b [24]byte
	put := func(i, v, n int) {
		for j := i + n - 1; j >= i; j-- {
			b[j] = byte('0' + v%10)
			v /= 10
		}
	}
	put(0, y, 4)
	b[4] = '-'
	put(5, int(mo), 2)
	b[7] = '-'
	put(8, d, 2)
	b[10] = 'T'
	put(11, h, 2)
	b[13] = ':'
	put(14, mi, 2)
	b[16] = ':'
	put(17, sec, 2)
	b[19] = '.'
	put(20, int(ms%1000), 3)
	b[23] = 'Z'
	return string(b[:])
}

const millisLayout = "2006-01-02T15:04:05.000Z"

// created is the row's time of creation: its column, else its data's.
func (p *parser) created() int64 {
	if v := p.line.Values.Get("time_created"); rawjson.IsNumber(v) {
		return rawjson.Int(v)
	}
	for _, path := range [][]string{{"time", "created"}, {"time", "start"}} {
		if v := p.data.Path(path...); rawjson.IsNumber(v) {
			return rawjson.Int(v)
		}
	}
	return 0
}

// col is a session column, else the same field of the session's data (an
// export's or a storage file's info).
func (p *parser) col(column string, dataPath ...string) []byte {
	if v := p.line.Values.Get(column); v != nil && string(v) != "null" {
		return v
	}
	return p.data.Path(dataPath...)
}

// useSession sets the session and project events of a row of session sid
// carry; a session never seen gets a synthesised start.
func (p *parser) useSession(sid string) *sessionInfo {
	if p.st.Sessions == nil {
		p.st.Sessions = map[string]*sessionInfo{}
	}
	s := p.st.Sessions[sid]
	if s == nil {
		s = &sessionInfo{}
		p.st.Sessions[sid] = s
		p.setSession(sid, s)
		e := p.event(transcript.KindSessionStart, sid+"#start")
		e.SessionStart = &transcript.SessionStart{Synthesized: true}
		return s
	}
	p.setSession(sid, s)
	return s
}

func (p *parser) setSession(sid string, s *sessionInfo) {
	p.sid, p.agent = sid, ""
	if s.Root != "" {
		p.sid, p.agent = s.Root, sid
	}
	p.project = transcript.Project{Cwd: s.Cwd}
}

// session reads a session row: its start, or what changed.
func (p *parser) session() {
	if p.st.Sessions == nil {
		p.st.Sessions = map[string]*sessionInfo{}
	}
	p.time = millis(p.created())
	hash := rowHash(p.rec.Data, p.line)
	revert := string(rawjson.Value(p.col("revert", "revert")))
	archived := rawjson.Int(p.col("time_archived", "time", "archived")) > 0
	s := p.st.Sessions[p.id]
	if s == nil {
		s = &sessionInfo{Cwd: rawjson.AsString(p.col("directory", "directory")), Hash: hash, Revert: revert, Created: p.created()}
		if parent := rawjson.AsString(p.col("parent_id", "parentID")); parent != "" && parent != p.id {
			s.Root = parent
			if ps := p.st.Sessions[parent]; ps != nil && ps.Root != "" {
				s.Root = ps.Root
			}
		}
		p.st.Sessions[p.id] = s
		p.setSession(p.id, s)
		e := p.event(transcript.KindSessionStart, p.id+"#start")
		e.SessionStart = &transcript.SessionStart{ToolVersion: rawjson.AsString(p.col("version", "version")),
			Model: modelName(p.col("model", "model"))}
		switch {
		case s.Root != "":
			e.SessionStart.Trigger = "subagent"
		case forkTitle().MatchString(rawjson.AsString(p.col("title", "title"))):
			// A fork has no parent_id; OpenCode titles it after the
			// session it copies. Its copies are told by their times
			// (see message).
			e.SessionStart.Trigger = "fork"
		}
		if title := rawjson.Value(p.col("title", "title")); title != nil {
			e.Extra = map[string]json.RawMessage{"title": title}
		}
		if archived {
			s.Archived = true
			end := p.event(transcript.KindSessionEnd, p.id+"#end")
			end.SessionEnd = &transcript.SessionEnd{Reason: "archived"}
		}
		return
	}
	p.setSession(p.id, s)
	if s.Hash == hash {
		p.unknown("session", transcript.ReasonDuplicate)
		return
	}
	s.Hash = hash
	s.Created = cmp.Or(s.Created, p.created())
	if dir := rawjson.AsString(p.col("directory", "directory")); dir != "" {
		s.Cwd = dir
		p.project.Cwd = dir
	}
	if revert != s.Revert {
		s.Revert = revert
		if r := rawjson.AsObject(p.col("revert", "revert")); r != nil {
			dropped := cmp.Or(rawjson.AsString(r.Get("partID")), rawjson.AsString(r.Get("messageID")))
			e := p.event(transcript.KindRewind, transcript.HashID(p.rec.Data)+"#rewind")
			e.Rewind = &transcript.Rewind{Dropped: dropped}
		}
	}
	if archived && !s.Archived {
		s.Archived = true
		e := p.event(transcript.KindSessionEnd, p.id+"#end")
		e.SessionEnd = &transcript.SessionEnd{Reason: "archived"}
	}
	if len(p.out) == 0 {
		p.unknown("session/update", transcript.ReasonUnmapped)
	}
}

// forkTitle is the title OpenCode gives a fork: its session's, then
// " (fork #<n>)". Compiled on first use, not as every command starts.
var forkTitle = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(` \(fork #\d+\)$`) })

// modelName reads a session's model: {"id", "providerID"} or a string.
func modelName(v []byte) string {
	if s, ok := rawjson.String(v); ok {
		return s
	}
	m := rawjson.AsObject(v)
	return cmp.Or(rawjson.AsString(m.Get("id")), rawjson.AsString(m.Get("modelID")))
}

// message records what a message row says, for its parts.
func (p *parser) message() {
	if p.st.Messages == nil {
		p.st.Messages = map[string]*messageInfo{}
	}
	sid := cmp.Or(rawjson.AsString(p.line.Values.Get("session_id")), rawjson.AsString(p.data.Get("sessionID")))
	created := p.created()
	p.time = millis(created)
	s := p.useSession(sid)
	role := rawjson.AsString(p.data.Get("role"))
	hash := rowHash(p.rec.Data, p.line)
	m := p.st.Messages[p.id]
	if m != nil && m.Hash == hash {
		p.unknown("message/"+role, transcript.ReasonDuplicate)
		return
	}
	rawType, id := "message/"+role, p.id
	if m == nil {
		m = &messageInfo{Session: sid}
		p.st.Messages[p.id] = m
	} else {
		rawType, id = rawType+"/update", transcript.HashID(p.rec.Data)
	}
	m.Hash, m.Role = hash, role
	m.Summary = rawjson.Bool(p.data.Get("summary"))
	m.Model = cmp.Or(rawjson.AsString(p.data.Get("modelID")), rawjson.AsString(p.data.Path("model", "modelID")))
	if path := rawjson.AsObject(p.data.Get("path")); path != nil {
		m.Cwd, m.Root = rawjson.AsString(path.Get("cwd")), rawjson.AsString(path.Get("root"))
		s.Cwd = cmp.Or(s.Cwd, m.Cwd)
	}
	m.Tokens = string(rawjson.Value(p.data.Get("tokens")))
	m.Created = created
	p.project = transcript.Project{Cwd: cmp.Or(m.Cwd, s.Cwd), RepoRoot: m.Root}
	// A message is written after its session is made, but a fork copies
	// its parent's messages (new ids, same content) keeping their times:
	// one older than its session is such a copy, whose events the parent
	// session gives.
	if rawType == "message/"+role && m.Created > 0 && s.Created > 0 && m.Created < s.Created {
		m.Copy = true
	}
	reason := transcript.ReasonUnmapped
	if m.Copy {
		reason = transcript.ReasonDuplicate
	}
	p.unknownID(id, rawType, reason)
}

// part reads a part row.
func (p *parser) part() {
	if p.st.Parts == nil {
		p.st.Parts = map[string]*partInfo{}
	}
	mid := cmp.Or(rawjson.AsString(p.line.Values.Get("message_id")), rawjson.AsString(p.data.Get("messageID")))
	m := p.st.Messages[mid]
	if m == nil {
		m = &messageInfo{Session: cmp.Or(rawjson.AsString(p.line.Values.Get("session_id")), rawjson.AsString(p.data.Get("sessionID")))}
	}
	p.time = millis(cmp.Or(p.created(), m.Created))
	s := p.useSession(m.Session)
	p.project = transcript.Project{Cwd: cmp.Or(m.Cwd, s.Cwd), RepoRoot: m.Root}
	typ := rawjson.AsString(p.data.Get("type"))
	hash := rowHash(p.rec.Data, p.line)
	// Parts are kept by message and id: the storage/ layout names a part
	// by its file below its message's folder.
	key := mid + "/" + p.id
	pt := p.st.Parts[key]
	if pt != nil && pt.Hash == hash {
		p.unknown("part/"+typ, transcript.ReasonDuplicate)
		return
	}
	first := pt == nil
	if first {
		pt = &partInfo{}
		p.st.Parts[key] = pt
	}
	pt.Hash = hash
	if m.Copy {
		// A fork's copy of a part of its parent's message.
		if first {
			p.unknownID(p.id, "part/"+typ, transcript.ReasonDuplicate)
		} else {
			p.unknown("part/"+typ, transcript.ReasonDuplicate)
		}
		return
	}
	switch typ {
	case "text", "reasoning":
		p.text(typ, m, s, pt)
	case "tool":
		p.tool(pt)
	case "compaction":
		trigger := "manual"
		if rawjson.Bool(p.data.Get("auto")) {
			trigger = "auto"
		}
		s.Compaction = trigger
		e := p.event(transcript.KindCompaction, p.id)
		e.Compaction = &transcript.Compaction{Trigger: trigger, Details: rawjson.Value(p.line.Values.Get("data"))}
	case "":
		p.unknown("part", transcript.ReasonMalformed)
	default:
		if first {
			p.unknownID(p.id, "part/"+typ, transcript.ReasonUnmapped)
		} else {
			p.unknown("part/"+typ+"/update", transcript.ReasonUnmapped)
		}
	}
	if len(p.out) == 0 {
		p.unknown("part/"+typ+"/update", transcript.ReasonUnmapped)
	}
}

// text gives a text or reasoning part's event: a new one, or a new version
// of the one given before when the text changed.
func (p *parser) text(typ string, m *messageInfo, s *sessionInfo, pt *partInfo) {
	text := rawjson.AsString(p.data.Get("text"))
	th := transcript.HashID([]byte(text))
	if pt.Version > 0 && th == pt.TextHash {
		return
	}
	id, replaces := p.id, ""
	if pt.Version > 0 {
		id, replaces = p.id+"#v"+strconv.Itoa(pt.Version+1), pt.LastID
	}
	var e *transcript.Event
	switch {
	case m.Role == "user" && typ == "text":
		e = p.event(transcript.KindUserTurn, id)
		e.UserTurn = &transcript.UserTurn{Text: text}
		if rawjson.Bool(p.data.Get("synthetic")) || rawjson.Bool(p.data.Get("ignored")) {
			e.UserTurn.Meta = transcript.MetaInjected
		}
	case m.Summary && typ == "text":
		e = p.event(transcript.KindCompaction, id)
		e.Compaction = &transcript.Compaction{Trigger: s.Compaction, Summary: text}
	default:
		e = p.event(transcript.KindAssistantTurn, id)
		at := &transcript.AssistantTurn{Model: m.Model}
		if typ == "reasoning" {
			at.Thinking = text
		} else {
			at.Text = text
		}
		if mid := rawjson.AsString(p.line.Values.Get("message_id")); mid != "" || p.data.Has("messageID") {
			at.MessageID = cmp.Or(mid, rawjson.AsString(p.data.Get("messageID")))
		}
		if pt.Version == 0 {
			at.Continued = m.Texts > 0
			if m.Texts == 0 {
				at.Usage = usage(m.Tokens)
			}
			m.Texts++
		}
		e.AssistantTurn = at
	}
	e.Replaces = replaces
	pt.Version++
	pt.TextHash, pt.LastID = th, e.EventID
}

// usage reads a message's tokens {input, output, reasoning, cache{read,
// write}}.
func usage(tokens string) *transcript.Usage {
	t := rawjson.AsObject([]byte(tokens))
	if t == nil {
		return nil
	}
	u := &transcript.Usage{
		InputTokens:      rawjson.Int(t.Get("input")),
		OutputTokens:     rawjson.Int(t.Get("output")),
		ReasoningTokens:  rawjson.Int(t.Get("reasoning")),
		CacheReadTokens:  rawjson.Int(t.Path("cache", "read")),
		CacheWriteTokens: rawjson.Int(t.Path("cache", "write")),
		Raw:              json.RawMessage(tokens),
	}
	return u
}

// tool gives a tool part's call when first seen, and its result (and file
// edits) once it completed or failed.
func (p *parser) tool(pt *partInfo) {
	name := rawjson.AsString(p.data.Get("tool"))
	callID := cmp.Or(rawjson.AsString(p.data.Get("callID")), p.id)
	st := rawjson.AsObject(p.data.Get("state"))
	input := st.Get("input")
	if !pt.Call {
		pt.Call = true
		e := p.event(transcript.KindToolCall, p.id)
		e.ToolCall = &transcript.ToolCall{CallID: callID, Name: name, Input: rawjson.Value(input)}
	}
	status := rawjson.AsString(st.Get("status"))
	if pt.Result || status != "completed" && status != "error" {
		return
	}
	pt.Result = true
	ok := status == "completed"
	e := p.event(transcript.KindToolResult, p.id+"#result")
	out := st.Get("output")
	if !ok {
		out = st.Get("error")
	}
	e.ToolResult = &transcript.ToolResult{CallID: callID, Name: name, OK: ok, Text: textOf(out),
		Output: rawjson.Value(out), Structured: rawjson.Value(st.Get("metadata"))}
	for i, fe := range fileEdits(name, rawjson.AsObject(input), rawjson.AsObject(st.Get("metadata")), ok) {
		id := p.id + "#edit"
		if i > 0 {
			id += ":" + strconv.Itoa(i+1)
		}
		fe.CallID = callID
		ev := p.event(transcript.KindFileEdit, id)
		ev.FileEdit = fe
	}
}

// textOf flattens a tool's output to text.
func textOf(v []byte) string {
	if s, ok := rawjson.String(v); ok {
		return s
	}
	if rawjson.Value(v) == nil {
		return ""
	}
	return string(v)
}
