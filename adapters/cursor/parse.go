package cursor

import (
	"cmp"
	"encoding/json"
	"strconv"
	"strings"
	"time"

	"github.com/cortexmem/cortex/transcript"
	"github.com/cortexmem/cortex/transcript/rawjson"
	"github.com/cortexmem/cortex/transcript/sqlitedb"
)

// state is what a stream of Cursor rows remembers; it round-trips through
// JSON.
type state struct {
	// Marks are the highest rowid parsed per table: Load reads above them.
	Marks map[string]int64 `json:"marks,omitempty"`
	// Folder is the workspace's folder (a workspace database).
	Folder    string                    `json:"folder,omitempty"`
	Composers map[string]*composerState `json:"composers,omitempty"`
	Bubbles   map[string]*bubbleState   `json:"bubbles,omitempty"`
	// Tabs counts the bubbles of each old chat tab given events.
	Tabs map[string]int `json:"tabs,omitempty"`
	// Hashes are the hashes of the ItemTable values last read, by key.
	Hashes map[string]string `json:"hashes,omitempty"`
}

type composerState struct {
	Started bool   `json:"started,omitempty"`
	Hash    string `json:"hash,omitempty"`
	Time    string `json:"time,omitempty"`
	Model   string `json:"model,omitempty"`
}

type bubbleState struct {
	Hash     string `json:"hash"`
	TextHash string `json:"text_hash,omitempty"`
	Version  int    `json:"version,omitempty"`
	LastID   string `json:"last_id,omitempty"`
	Call     bool   `json:"call,omitempty"`
	Result   bool   `json:"result,omitempty"`
}

type parser struct {
	ctx     *transcript.Context
	st      *state
	rec     transcript.Record
	out     []transcript.Event
	sid     string
	time    string
	project transcript.Project
}

// Parse turns one row line into events.
func (a *Adapter) Parse(rec transcript.Record, ctx *transcript.Context) []transcript.Event {
	obj, bad := transcript.RecordObject(ctx, rec)
	if bad != nil {
		return bad
	}
	l, ok := sqlitedb.LineOf(obj)
	if !ok {
		return []transcript.Event{transcript.UnknownEvent(ctx, rec, "", transcript.ReasonUnrecognized)}
	}
	st := transcript.StateOf[state](ctx)
	p := &parser{ctx: ctx, st: st, rec: rec, project: transcript.Project{Cwd: st.Folder}}
	key := rawjson.AsString(l.Values.Get("key"))
	value := l.Values.Get("value")
	switch {
	case l.Table == tableWorkspace:
		st.Folder = rawjson.AsString(l.Values.Get("folder"))
		p.project.Cwd = st.Folder
		p.unknown("workspace", transcript.ReasonUnmapped)
	case l.Table == tableKV && strings.HasPrefix(key, keyBubble):
		cid, bid, _ := strings.Cut(strings.TrimPrefix(key, keyBubble), ":")
		p.bubble(cid, bid, value, rawjson.AsObject(value), "/")
	case l.Table == tableKV && strings.HasPrefix(key, keyComposer):
		p.composer(strings.TrimPrefix(key, keyComposer), value)
	case l.Table == tableItems && key == keyChatData:
		p.chatData(value)
	case l.Table == tableItems && key == keyComposers:
		p.unknown(key, transcript.ReasonUnmapped)
	default:
		p.unknown(l.Table+"/"+key, transcript.ReasonUnrecognized)
	}
	if l.RowID > 0 && (l.Table == tableKV || l.Table == tableItems) {
		if st.Marks == nil {
			st.Marks = map[string]int64{}
		}
		st.Marks[l.Table] = max(st.Marks[l.Table], l.RowID)
	}
	if len(p.out) > 0 {
		pointer := l.Table + "/" + key
		for i := range p.out {
			p.out[i].Provenance.Pointer = pointer
		}
	}
	return p.out
}

func (p *parser) event(kind transcript.Kind, id string) *transcript.Event {
	p.ctx.SetSession(p.sid)
	e := p.ctx.NewEvent(p.rec, kind, id)
	e.SessionID, e.Timestamp, e.Project = p.sid, p.time, p.project
	p.out = append(p.out, e)
	return &p.out[len(p.out)-1]
}

func (p *parser) unknown(rawType, reason string) {
	e := p.event(transcript.KindUnknown, transcript.HashID(p.rec.Data))
	e.Unknown = transcript.NewUnknown(rawType, reason, p.rec.Data, true)
}

// millis is epoch milliseconds as RFC 3339 (UTC); a string is kept as it
// is; "" for neither.
func millis(v []byte) string {
	if s, ok := rawjson.String(v); ok {
		return s
	}
	if ms := rawjson.Int(v); ms > 0 && ms < 1e15 {
		return time.UnixMilli(ms).UTC().Format("2006-01-02T15:04:05.000Z")
	}
	return ""
}

// composerOf returns the state of composer cid, starting its session (a
// start synthesised from this record when the record is not its
// composerData) the first time.
func (p *parser) composerOf(cid string, synthesized bool) *composerState {
	if p.st.Composers == nil {
		p.st.Composers = map[string]*composerState{}
	}
	c := p.st.Composers[cid]
	if c == nil {
		c = &composerState{}
		p.st.Composers[cid] = c
	}
	p.sid = cid
	if !c.Started {
		c.Started = true
		e := p.event(transcript.KindSessionStart, cid+"#start")
		e.SessionStart = &transcript.SessionStart{Synthesized: synthesized}
	}
	return c
}

// composer reads a composerData value: the session's start, and the
// bubbles it keeps inline (older versions).
func (p *parser) composer(cid string, value []byte) {
	m := rawjson.AsObject(value)
	hash := transcript.HashID(value)
	p.time = millis(m.Get("createdAt"))
	rawType := "composerData/update"
	if p.st.Composers != nil && p.st.Composers[cid] != nil && p.st.Composers[cid].Started {
		c := p.composerOf(cid, false)
		if c.Hash == hash {
			p.unknown("composerData", transcript.ReasonDuplicate)
			return
		}
		if c.Hash == "" {
			// The first composerData of a session its bubbles started.
			rawType = "composerData"
		}
		c.Hash = hash
	} else {
		c := p.composerOf(cid, false)
		c.Hash = hash
		c.Model = rawjson.AsString(m.Path("modelConfig", "modelName"))
		p.out[len(p.out)-1].SessionStart.Model = c.Model
		if name := rawjson.Value(m.Get("name")); name != nil {
			p.out[len(p.out)-1].Extra = map[string]json.RawMessage{"title": name}
		}
	}
	for i, b := range rawjson.AsArray(m.Get("conversation")) {
		bo := rawjson.AsObject(b)
		bid := cmp.Or(rawjson.AsString(bo.Get("bubbleId")), strconv.Itoa(i))
		p.bubble(cid, bid, b, bo, "/conversation/"+strconv.Itoa(i))
	}
	if len(p.out) == 0 {
		p.unknown(rawType, transcript.ReasonUnmapped)
	}
}

// bubble gives the events of a bubble, or of what changed in it: value is
// the bubble's JSON, b its members (split once by the caller).
func (p *parser) bubble(cid, bid string, value []byte, b rawjson.Object, where string) {
	if t := millis(b.Get("createdAt")); t != "" {
		p.time = t
	}
	p.composerOf(cid, true)
	if p.st.Bubbles == nil {
		p.st.Bubbles = map[string]*bubbleState{}
	}
	key := cid + ":" + bid
	bs := p.st.Bubbles[key]
	hash := transcript.HashID(value)
	if bs != nil && bs.Hash == hash {
		if where == "/" {
			p.unknown("bubble", transcript.ReasonDuplicate)
		}
		return
	}
	if bs == nil {
		bs = &bubbleState{}
		p.st.Bubbles[key] = bs
	}
	bs.Hash = hash
	before := len(p.out)
	typ := rawjson.Int(b.Get("type"))
	text := rawjson.AsString(b.Get("text"))
	thinking := rawjson.AsString(rawjson.AsObject(b.Get("thinking")).Get("text"))
	tf := rawjson.AsObject(b.Get("toolFormerData"))
	if th := transcript.HashID([]byte(text), []byte(thinking)); (text != "" || thinking != "" || typ == 1) && th != bs.TextHash {
		id, replaces := bid, ""
		if bs.Version > 0 {
			id, replaces = bid+"#v"+strconv.Itoa(bs.Version+1), bs.LastID
		}
		var e *transcript.Event
		if typ == 1 {
			e = p.event(transcript.KindUserTurn, id)
			e.UserTurn = &transcript.UserTurn{Text: text}
		} else {
			e = p.event(transcript.KindAssistantTurn, id)
			e.AssistantTurn = &transcript.AssistantTurn{Text: text, Thinking: thinking, MessageID: bid}
			for _, cb := range rawjson.AsArray(b.Get("codeBlocks")) {
				e.AssistantTurn.Parts = append(e.AssistantTurn.Parts, transcript.Part{Type: "code_block", Raw: cb})
			}
			if tc := rawjson.AsObject(b.Get("tokenCount")); rawjson.Int(tc.Get("inputTokens"))+rawjson.Int(tc.Get("outputTokens")) > 0 && bs.Version == 0 {
				e.AssistantTurn.Usage = &transcript.Usage{InputTokens: rawjson.Int(tc.Get("inputTokens")),
					OutputTokens: rawjson.Int(tc.Get("outputTokens")), Raw: b.Get("tokenCount")}
			}
		}
		e.Replaces = replaces
		bs.Version++
		bs.TextHash, bs.LastID = th, e.EventID
	}
	if tf != nil {
		p.tool(bid, tf, bs)
	}
	if len(p.out) == before {
		rawType := "bubble/update"
		if !strings.HasPrefix(where, "/conversation") && bs.Version == 0 && !bs.Call {
			rawType = "bubble"
		}
		p.unknown(rawType, transcript.ReasonUnmapped)
	}
}

// tool gives a tool bubble's call, and its result and file edit once it
// completed or failed.
func (p *parser) tool(bid string, tf rawjson.Object, bs *bubbleState) {
	name := rawjson.AsString(tf.Get("name"))
	callID := cmp.Or(rawjson.AsString(tf.Get("toolCallId")), bid)
	args, _ := jsonString(tf.Get("rawArgs"))
	if !bs.Call {
		bs.Call = true
		e := p.event(transcript.KindToolCall, bid+"#call")
		e.ToolCall = &transcript.ToolCall{CallID: callID, Name: name, Input: rawjson.Value(args)}
	}
	status := rawjson.AsString(tf.Get("status"))
	if bs.Result || status != "completed" && status != "error" {
		return
	}
	bs.Result = true
	ok := status == "completed"
	result, text := jsonString(tf.Get("result"))
	e := p.event(transcript.KindToolResult, bid+"#result")
	r := rawjson.AsObject(result)
	if r != nil {
		text = cmp.Or(rawjson.AsString(r.Get("error")), rawjson.AsString(r.Get("output")), rawjson.AsString(r.Get("contents")), text)
	}
	e.ToolResult = &transcript.ToolResult{CallID: callID, Name: name, OK: ok, Text: text, Structured: rawjson.Value(result)}
	if fe := fileEdit(name, rawjson.AsObject(args), r, ok); fe != nil {
		fe.CallID = callID
		ev := p.event(transcript.KindFileEdit, bid+"#edit")
		ev.FileEdit = fe
	}
}

// jsonString reads a value Cursor keeps as JSON inside a string (rawArgs,
// result): the JSON it holds when it holds some, else the value; and the
// string decoded ("" when the value is not a string), so that the caller
// that wants its text does not decode it a second time.
func jsonString(v []byte) ([]byte, string) {
	s, ok := rawjson.String(v)
	if !ok {
		return v, ""
	}
	if b := []byte(s); rawjson.Valid(b) {
		return b, s
	}
	return v, s
}

// chatData reads the older chat panel's value: {tabs: [{tabId, chatTitle,
// bubbles: [{type: "user"|"ai", text, id}]}]}, rewritten whole: each tab's
// bubbles not given before give their turns.
func (p *parser) chatData(value []byte) {
	hash := transcript.HashID(value)
	if p.st.Hashes == nil {
		p.st.Hashes = map[string]string{}
	}
	if p.st.Hashes[keyChatData] == hash {
		p.unknown(keyChatData, transcript.ReasonDuplicate)
		return
	}
	p.st.Hashes[keyChatData] = hash
	if p.st.Tabs == nil {
		p.st.Tabs = map[string]int{}
	}
	for _, tab := range rawjson.AsArray(rawjson.AsObject(value).Get("tabs")) {
		t := rawjson.AsObject(tab)
		tid := rawjson.AsString(t.Get("tabId"))
		if tid == "" {
			continue
		}
		p.sid = tid
		p.time = millis(t.Get("lastSendTime"))
		bubbles := rawjson.AsArray(t.Get("bubbles"))
		done := p.st.Tabs[tid]
		if done == 0 && len(bubbles) > 0 {
			e := p.event(transcript.KindSessionStart, tid+"#start")
			e.SessionStart = &transcript.SessionStart{}
			if title := rawjson.Value(t.Get("chatTitle")); title != nil {
				e.Extra = map[string]json.RawMessage{"title": title}
			}
		}
		for i := done; i < len(bubbles); i++ {
			b := rawjson.AsObject(bubbles[i])
			id := tid + "#" + cmp.Or(rawjson.AsString(b.Get("id")), strconv.Itoa(i))
			text := rawjson.AsString(b.Get("text"))
			if rawjson.AsString(b.Get("type")) == "user" {
				e := p.event(transcript.KindUserTurn, id)
				e.UserTurn = &transcript.UserTurn{Text: text}
			} else {
				e := p.event(transcript.KindAssistantTurn, id)
				e.AssistantTurn = &transcript.AssistantTurn{Text: text}
			}
		}
		p.st.Tabs[tid] = max(done, len(bubbles))
	}
	if len(p.out) == 0 {
		p.unknown(keyChatData, transcript.ReasonUnmapped)
	}
}
