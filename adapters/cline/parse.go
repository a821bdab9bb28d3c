package cline

import (
	"encoding/json"
	"strconv"
	"strings"
	"time"

	"github.com/cortexmem/cortex/transcript"
	"github.com/cortexmem/cortex/transcript/rawjson"
)

// Parse turns one record — a whole task conversation — into events.
func (a *Adapter) Parse(rec transcript.Record, ctx *transcript.Context) []transcript.Event {
	valid := rawjson.Valid(rec.Data)
	msgs, isArray := rawjson.ParseArray(rec.Data)
	if !valid || !isArray {
		if valid && rawjson.IsObject(rec.Data) {
			return []transcript.Event{transcript.UnknownEvent(ctx, rec, "", transcript.ReasonUnrecognized)}
		}
		e := ctx.NewEvent(rec, transcript.KindUnknown, transcript.HashID(rec.Data))
		e.Unknown = transcript.NewUnknown("", transcript.ReasonMalformed, rec.Data, valid)
		return []transcript.Event{e}
	}
	// A message gives two or three events (a result, its edit, the text):
	// room for them (and their ids) up front spares copying a long task's
	// events as they grow. A message is tens of bytes at the least: room is
	// not made for more than the record's size allows (an array of a
	// million empty objects is no task of three million events).
	room := min(3*len(msgs)+1, len(rec.Data)/16+1)
	ctx.Grow(room)
	p := &parser{ctx: ctx, rec: rec, task: taskID(ctx.File()), calls: make(map[string]call, room/6),
		out: make([]transcript.Event, 0, room)}
	p.start(msgs)
	for i, raw := range msgs {
		p.message(i, raw)
	}
	if len(p.out) == 0 {
		return []transcript.Event{transcript.UnknownEvent(ctx, rec, "", transcript.ReasonUnrecognized)}
	}
	return p.out
}

// taskID is the task a conversation file belongs to: the name of its
// folder (tasks/<task id>/api_conversation_history.json), else the file's
// name without its extension.
func taskID(file string) string {
	f := strings.ReplaceAll(file, "\\", "/")
	dir, name := "", f
	if i := strings.LastIndexByte(f, '/'); i >= 0 {
		dir, name = f[:i], f[i+1:]
	}
	if name == HistoryFile && dir != "" {
		if i := strings.LastIndexByte(dir, '/'); i >= 0 {
			return dir[i+1:]
		}
		return dir
	}
	return strings.TrimSuffix(name, ".json")
}

// call is a tool call waiting for its result.
type call struct {
	name  string
	input rawjson.Object
	xml   bool // written as XML in the assistant's text, answered by position
}

// parser reads one conversation.
type parser struct {
	ctx   *transcript.Context
	rec   transcript.Record
	task  string
	calls map[string]call
	xmlQ  []string // the last answer's XML calls waiting for their result, in order
	out   []transcript.Event

	id, pointer, ts string // of the message being read
	main            int
	members         rawjson.Object // the message's, reused from one to the next
}

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

// millis formats epoch milliseconds as RFC 3339 in UTC ("" for none).
func millis(ms int64) string {
	if ms <= 0 {
		return ""
	}
	return time.UnixMilli(ms).UTC().Format("2006-01-02T15:04:05.000Z07:00")
}

// start emits the session_start: the task is the session; its time the
// first message's ts, else the task id when it is Cline's creation time in
// epoch milliseconds; the working folder the one the first environment
// details name.
func (p *parser) start(msgs [][]byte) {
	p.ctx.SetSession(p.task)
	ts := ""
	cwd := ""
	for _, raw := range msgs {
		m := rawjson.AsObject(raw)
		if ts == "" {
			ts = millis(rawjson.Int(m.Get("ts")))
		}
		if cwd == "" && rawjson.AsString(m.Get("role")) == "user" {
			for _, t := range texts(m.Get("content")) {
				if cwd = workingDir(t); cwd != "" {
					break
				}
			}
		}
		if ts != "" && cwd != "" {
			break
		}
	}
	if ts == "" {
		if n, err := strconv.ParseInt(p.task, 10, 64); err == nil && n > 1_000_000_000_000 && n < 10_000_000_000_000 {
			ts = millis(n)
		}
	}
	p.ctx.SetProject(transcript.Project{Cwd: cwd})
	p.id, p.pointer, p.ts, p.main = p.task+"#start", "", ts, -1
	e := p.event(transcript.KindSessionStart, "")
	e.SessionStart = &transcript.SessionStart{}
}

// workingDir reads the working folder from environment details: "#
// Current Working Directory (<dir>) Files" (Cline) or "# Current
// Workspace Directory (<dir>) Files" (Roo Code, Kilo Code).
func workingDir(text string) string {
	for _, marker := range []string{"# Current Working Directory (", "# Current Workspace Directory ("} {
		i := strings.Index(text, marker)
		if i < 0 {
			continue
		}
		rest := text[i+len(marker):]
		j := strings.Index(rest, ") Files")
		if j < 0 {
			continue
		}
		dir := rest[:j]
		if strings.HasPrefix(dir, "Primary: ") {
			return ""
		}
		return dir
	}
	return ""
}

// texts returns the text of a content: a string, or its text blocks.
func texts(content []byte) []string {
	if s, ok := rawjson.String(content); ok {
		return []string{s}
	}
	var out []string
	for _, b := range rawjson.AsArray(content) {
		o := rawjson.AsObject(b)
		if rawjson.AsString(o.Get("type")) == "text" {
			out = append(out, rawjson.AsString(o.Get("text")))
		}
	}
	return out
}

// messageKey reports whether k is a member of a message the events carry.
func messageKey(k string) bool {
	switch k {
	case "role", "content", "ts", "isSummary", "isTruncationMarker":
		return true
	}
	return false
}

func (p *parser) message(i int, raw []byte) {
	m, ok := rawjson.AppendObject(p.members, raw)
	if ok {
		p.members = m
	} else {
		m = nil
	}
	p.id = p.task + "/" + strconv.Itoa(i)
	p.pointer = p.id[len(p.task):] // "/<index>", without a string of its own
	p.ts = millis(rawjson.Int(m.Get("ts")))
	p.main = -1
	role := rawjson.AsString(m.Get("role"))
	switch {
	case m == nil:
		e := p.event(transcript.KindUnknown, "")
		e.Unknown = &transcript.Unknown{Reason: transcript.ReasonMalformed}
		transcript.SetRaw(e.Unknown, raw)
		return
	case rawjson.Bool(m.Get("isSummary")):
		e := p.event(transcript.KindCompaction, "")
		e.Compaction = &transcript.Compaction{Summary: strings.Join(texts(m.Get("content")), "\n\n")}
	case rawjson.Bool(m.Get("isTruncationMarker")):
		e := p.event(transcript.KindCompaction, "")
		e.Compaction = &transcript.Compaction{Trigger: "truncation", Summary: strings.Join(texts(m.Get("content")), "\n\n")}
	case role == "user":
		p.user(m.Get("content"))
	case role == "assistant":
		p.assistant(m)
	default:
		e := p.event(transcript.KindUnknown, "")
		rt := role
		if t := rawjson.AsString(m.Get("type")); t != "" {
			rt = t
		}
		e.Unknown = &transcript.Unknown{RawType: rt, Reason: transcript.ReasonUnrecognized}
		if role == "" && rawjson.AsString(m.Get("type")) == "reasoning" {
			e.Unknown.Reason = transcript.ReasonUnmapped
		}
		transcript.SetRaw(e.Unknown, raw)
		return
	}
	if p.main < 0 {
		return
	}
	var extra map[string]json.RawMessage
	for _, mem := range m {
		if messageKey(string(mem.Key)) {
			continue // a key written plainly, as the extensions write them
		}
		if k := mem.KeyString(); !messageKey(k) {
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
