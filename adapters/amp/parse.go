package amp

import (
	"encoding/json"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/cortexmem/cortex/transcript"
	"github.com/cortexmem/cortex/transcript/rawjson"
)

// Parse turns one record — a whole thread document — into events.
func (a *Adapter) Parse(rec transcript.Record, ctx *transcript.Context) []transcript.Event {
	m, malformed := transcript.RecordObject(ctx, rec)
	if malformed != nil {
		return malformed
	}
	if !isThread(m) {
		return []transcript.Event{transcript.UnknownEvent(ctx, rec, "", transcript.ReasonUnrecognized)}
	}
	msgs := rawjson.AsArray(m.Get("messages"))
	// Room for two events a message up front spares copying a long
	// thread's events as they grow.
	p := &parser{ctx: ctx, rec: rec, thread: rawjson.AsString(m.Get("id")), calls: map[string]call{}, out: make([]transcript.Event, 0, 2*len(msgs)+1)}
	p.start(m)
	for i, raw := range msgs {
		p.message(i, raw)
	}
	return p.out
}

type call struct {
	name  string
	input []byte
	ts    string // the time of the answer that made the call
}

// parser reads one thread.
type parser struct {
	ctx    *transcript.Context
	rec    transcript.Record
	thread string
	calls  map[string]call
	out    []transcript.Event
}

// event adds an event of the thread's record that points at pointer.
func (p *parser) event(kind transcript.Kind, id, pointer, ts string) *transcript.Event {
	e := p.ctx.NewEvent(p.rec, kind, id)
	e.Provenance.Pointer = pointer
	e.Timestamp = ts
	p.out = append(p.out, e)
	return &p.out[len(p.out)-1]
}

// millis formats an epoch-milliseconds value as an RFC 3339 time in UTC;
// "" when there is none.
func millis(raw []byte) string {
	if !rawjson.IsNumber(raw) {
		return ""
	}
	ms := rawjson.Int(raw)
	if ms <= 0 {
		return ""
	}
	return time.UnixMilli(ms).UTC().Format("2006-01-02T15:04:05.000Z07:00")
}

// threadKeys are the thread's members the events carry; the others go to
// the session_start's Extra.
var threadKeys = map[string]bool{"id": true, "created": true, "messages": true, "env": true}

func (p *parser) start(m rawjson.Object) {
	p.ctx.SetSession(p.thread)
	initial := rawjson.AsObject(m.Path("env", "initial"))
	if trees := rawjson.AsArray(initial.Get("trees")); len(trees) > 0 {
		t := rawjson.AsObject(trees[0])
		repo := rawjson.AsObject(t.Get("repository"))
		ref := rawjson.AsString(repo.Get("ref"))
		branch, _ := strings.CutPrefix(ref, "refs/heads/")
		if branch == ref {
			branch = ""
		}
		cwd := fileURIPath(rawjson.AsString(t.Get("uri")))
		p.ctx.SetProject(transcript.Project{Cwd: cwd, RepoRoot: cwd, Repository: rawjson.AsString(repo.Get("url")),
			GitBranch: branch, GitSHA: rawjson.AsString(repo.Get("sha"))})
	}
	model := ""
	for _, raw := range rawjson.AsArray(m.Get("messages")) {
		if model = rawjson.AsString(rawjson.AsObject(raw).Path("usage", "model")); model != "" {
			break
		}
	}
	e := p.event(transcript.KindSessionStart, p.thread+"#start", "", millis(m.Get("created")))
	e.SessionStart = &transcript.SessionStart{Model: model,
		ToolVersion: rawjson.AsString(rawjson.AsObject(initial.Get("platform")).Get("clientVersion"))}
	extra := map[string]json.RawMessage{}
	for _, mem := range m {
		if k := mem.KeyString(); !threadKeys[k] {
			extra[k] = mem.Value
		}
	}
	if env := m.Get("env"); env != nil {
		extra["env"] = env
	}
	if len(extra) > 0 {
		e.Extra = extra
	}
}

// fileURIPath is the path of a file:// URI (the URI itself when it is not
// one).
func fileURIPath(uri string) string {
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "file" {
		return uri
	}
	return u.Path
}

// messageKeys are the members of a message the events carry.
var messageKeys = map[string]bool{"role": true, "messageId": true, "content": true, "usage": true}

func (p *parser) message(i int, raw []byte) {
	pointer := "/messages/" + strconv.Itoa(i)
	m := rawjson.AsObject(raw)
	id := p.thread + "/" + strconv.Itoa(i)
	if n := m.Get("messageId"); rawjson.IsNumber(n) {
		id = p.thread + "/" + string(n)
	}
	first := len(p.out)
	switch role := rawjson.AsString(m.Get("role")); role {
	case "user":
		p.user(m, id, pointer)
	case "assistant":
		p.assistant(m, id, pointer)
	default:
		e := p.event(transcript.KindUnknown, id, pointer, "")
		e.Unknown = &transcript.Unknown{RawType: "message/" + role, Reason: transcript.ReasonUnrecognized}
		transcript.SetRaw(e.Unknown, raw)
		return
	}
	if len(p.out) == first {
		return
	}
	extra := map[string]json.RawMessage{}
	for _, mem := range m {
		if k := mem.KeyString(); !messageKeys[k] && !(k == "meta" && p.out[first].Kind == transcript.KindUserTurn) {
			extra[k] = mem.Value
		}
	}
	if len(extra) > 0 {
		p.out[first].Extra = extra
	}
}

func (p *parser) user(m rawjson.Object, id, pointer string) {
	ts := millis(m.Path("meta", "sentAt"))
	var texts []string
	var parts []transcript.Part
	var results []rawjson.Object
	content := m.Get("content")
	if s, ok := rawjson.String(content); ok {
		texts = append(texts, s)
	}
	for _, raw := range rawjson.AsArray(content) {
		b := rawjson.AsObject(raw)
		switch typ := rawjson.AsString(b.Get("type")); typ {
		case "text":
			texts = append(texts, rawjson.AsString(b.Get("text")))
		case "tool_result":
			results = append(results, b)
		default:
			parts = append(parts, transcript.Part{Type: typ, Raw: raw})
		}
	}
	main := ""
	if len(texts) > 0 || len(parts) > 0 || len(results) == 0 {
		e := p.event(transcript.KindUserTurn, id, pointer, ts)
		e.UserTurn = &transcript.UserTurn{Text: strings.Join(texts, "\n\n"), Parts: parts}
		main = e.EventID
	}
	for j, b := range results {
		callID := rawjson.AsString(b.Get("toolUseID"))
		key := callID
		if key == "" {
			key = strconv.Itoa(j)
		}
		rid := id + "#tool_result:" + key
		if main == "" {
			rid = id
		}
		c := p.calls[callID]
		rts := ts
		if rts == "" {
			// Amp writes no time on a message of results: the result
			// carries its call's.
			rts = c.ts
		}
		run := rawjson.AsObject(b.Get("run"))
		status := rawjson.AsString(run.Get("status"))
		ok := status == "done"
		text := resultText(run.Get("result"))
		if !ok {
			if msg := errorText(run.Get("error")); msg != "" {
				text = msg
			} else if text == "" {
				text = status
			}
		}
		e := p.event(transcript.KindToolResult, rid, pointer, rts)
		e.ToolResult = &transcript.ToolResult{CallID: callID, Name: c.name, OK: ok, Text: text,
			Output: rawjson.Value(run.Get("result")), Structured: rawjson.Value(b.Get("run"))}
		if main != "" {
			e.ParentID = main
		} else {
			main = e.EventID
		}
		if fe := fileEdit(c, rawjson.AsObject(run.Get("result")), ok); fe != nil {
			fe.CallID = callID
			ev := p.event(transcript.KindFileEdit, id+"#edit:"+key, pointer, rts)
			ev.ParentID = main
			ev.FileEdit = fe
		}
	}
}

// resultText flattens a tool's result: a string as it is, an object's
// output or content text, else the JSON.
func resultText(raw []byte) string {
	if s, ok := rawjson.String(raw); ok {
		return s
	}
	o := rawjson.AsObject(raw)
	for _, k := range []string{"output", "content", "diff"} {
		if s, ok := rawjson.String(o.Get(k)); ok {
			return s
		}
	}
	return string(rawjson.Value(raw))
}

// errorText is a failed run's error message.
func errorText(raw []byte) string {
	if s, ok := rawjson.String(raw); ok {
		return s
	}
	return rawjson.AsString(rawjson.AsObject(raw).Get("message"))
}

func (p *parser) assistant(m rawjson.Object, id, pointer string) {
	u := rawjson.AsObject(m.Get("usage"))
	ts := rawjson.AsString(u.Get("timestamp"))
	var texts, thinking []string
	var parts []transcript.Part
	var calls []rawjson.Object
	content := m.Get("content")
	if s, ok := rawjson.String(content); ok {
		texts = append(texts, s)
	}
	for _, raw := range rawjson.AsArray(content) {
		b := rawjson.AsObject(raw)
		switch typ := rawjson.AsString(b.Get("type")); typ {
		case "text":
			if t := rawjson.AsString(b.Get("text")); strings.TrimSpace(t) != "" {
				texts = append(texts, t)
			}
		case "thinking":
			thinking = append(thinking, rawjson.AsString(b.Get("thinking")))
			parts = append(parts, transcript.Part{Type: typ, Raw: raw})
		case "tool_use":
			calls = append(calls, b)
		default:
			parts = append(parts, transcript.Part{Type: typ, Raw: raw})
		}
	}
	main := ""
	if len(texts) > 0 || len(thinking) > 0 || len(parts) > 0 || len(calls) == 0 {
		e := p.event(transcript.KindAssistantTurn, id, pointer, ts)
		t := &transcript.AssistantTurn{Text: strings.Join(texts, "\n\n"), Thinking: strings.Join(thinking, "\n\n"),
			Model: rawjson.AsString(u.Get("model")), StopReason: rawjson.AsString(m.Path("state", "stopReason")), Parts: parts}
		if u != nil {
			t.Usage = &transcript.Usage{InputTokens: rawjson.Int(u.Get("inputTokens")), OutputTokens: rawjson.Int(u.Get("outputTokens")),
				CacheReadTokens: rawjson.Int(u.Get("cacheReadInputTokens")), CacheWriteTokens: rawjson.Int(u.Get("cacheCreationInputTokens")),
				Raw: rawjson.Value(m.Get("usage"))}
		}
		e.AssistantTurn = t
		main = e.EventID
	}
	for j, b := range calls {
		callID := rawjson.AsString(b.Get("id"))
		key := callID
		if key == "" {
			key = strconv.Itoa(j)
		}
		cid := id + "#tool_call:" + key
		if main == "" {
			cid = id
		}
		name := rawjson.AsString(b.Get("name"))
		e := p.event(transcript.KindToolCall, cid, pointer, ts)
		e.ToolCall = &transcript.ToolCall{CallID: callID, Name: name, Input: rawjson.Value(b.Get("input"))}
		if main != "" {
			e.ParentID = main
		} else {
			main = e.EventID
		}
		if callID != "" {
			p.calls[callID] = call{name: name, input: b.Get("input"), ts: ts}
		}
	}
}
