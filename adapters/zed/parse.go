package zed

import (
	"cmp"
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"strings"

	"github.com/cortexmem/cortex/transcript"
	"github.com/cortexmem/cortex/transcript/rawjson"
	"github.com/cortexmem/cortex/transcript/sqlitedb"
)

// state is what a stream of thread rows remembers. It round-trips through
// JSON.
type state struct {
	// Mark is how far Load has read: the latest updated_at parsed and the
	// threads parsed at that time.
	Mark    mark                   `json:"mark"`
	Threads map[string]*threadInfo `json:"threads,omitempty"`
	// marked is the set of Mark.IDs, built when first needed (not saved):
	// the rows of one time, when many (a database Zed migrated in one
	// go), would otherwise each search all the others.
	marked map[string]bool
	// canon's, tree's and scratch's buffers serve every thread of the
	// stream (not saved).
	canon   canon
	tree    tree
	scratch scratch
}

type mark struct {
	Time string   `json:"time,omitempty"`
	IDs  []string `json:"ids,omitempty"`
}

type threadInfo struct {
	Root string    `json:"root,omitempty"`
	Hash string    `json:"hash"`
	Msgs []msgInfo `json:"msgs,omitempty"`
	Cwd  string    `json:"cwd,omitempty"`
}

// msgInfo is what was given of one message of a thread.
type msgInfo struct {
	Hash string `json:"hash"`
	Role string `json:"role"`
	// First is the id of its first event: a rewind to before the message
	// drops from it on.
	First   string   `json:"first,omitempty"`
	Items   int      `json:"items,omitempty"`
	Results []string `json:"results,omitempty"`
}

// Parse turns one row of threads into events.
func (a *Adapter) Parse(rec transcript.Record, ctx *transcript.Context) []transcript.Event {
	obj, bad := transcript.RecordObject(ctx, rec)
	if bad != nil {
		return bad
	}
	l, ok := sqlitedb.LineOf(obj)
	id := rawjson.AsString(l.Values.Get("id"))
	if !ok || l.Table != tableThreads || id == "" {
		return []transcript.Event{transcript.UnknownEvent(ctx, rec, "", transcript.ReasonUnrecognized)}
	}
	st := transcript.StateOf[state](ctx)
	p := &parser{ctx: ctx, st: st, rec: rec, id: id, row: l.Values}
	p.parse()
	st.advance(rawjson.AsString(l.Values.Get("updated_at")), id)
	pointer := tableThreads + "/" + id
	for i := range p.out {
		p.out[i].Provenance.Pointer = pointer
	}
	return p.out
}

func (st *state) advance(t, id string) {
	switch {
	case t > st.Mark.Time:
		st.Mark = mark{Time: t, IDs: []string{id}}
		st.marked = map[string]bool{id: true}
	case t == st.Mark.Time:
		if st.marked == nil {
			// Restored from a saved position, or the mark's first time.
			st.marked = make(map[string]bool, len(st.Mark.IDs))
			for _, x := range st.Mark.IDs {
				st.marked[x] = true
			}
		}
		if !st.marked[id] {
			st.marked[id] = true
			st.Mark.IDs = append(st.Mark.IDs, id)
		}
	}
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

type parser struct {
	ctx     *transcript.Context
	st      *state
	rec     transcript.Record
	id      string
	row     rawjson.Object
	out     []transcript.Event
	sid     string
	agent   string
	project transcript.Project
	time    string
	model   string
	usage   rawjson.Object // request_token_usage
	pending []byte         // the usage of the last user message, for the answer's first text
}

func (p *parser) event(kind transcript.Kind, id string) *transcript.Event {
	p.ctx.SetSession(p.sid)
	e := p.ctx.NewEvent(p.rec, kind, id)
	e.SessionID, e.AgentID, e.Sidechain = p.sid, p.agent, p.agent != ""
	e.Project, e.Timestamp = p.project, p.time
	p.out = append(p.out, e)
	return &p.out[len(p.out)-1]
}

func (p *parser) unknown(rawType, reason string) {
	e := p.event(transcript.KindUnknown, transcript.HashID(p.rec.Data))
	e.Unknown = transcript.NewUnknown(rawType, reason, p.rec.Data, true)
}

func (p *parser) parse() {
	if p.st.Threads == nil {
		p.st.Threads = map[string]*threadInfo{}
	}
	ti := p.st.Threads[p.id]
	p.sid = p.id
	if ti != nil && ti.Root != "" {
		p.sid, p.agent = ti.Root, p.id
	}
	if ti != nil {
		p.project.Cwd = ti.Cwd
	}
	p.time = rawjson.AsString(p.row.Get("updated_at"))
	dataType := rawjson.AsString(p.row.Get("data_type"))
	thread, err := decodeThread(dataType, p.row.Get("data"))
	if err != nil {
		reason := transcript.ReasonMalformed
		if errors.Is(err, errDataType) {
			reason = transcript.ReasonUnrecognized
		}
		p.unknown("threads/"+dataType, reason)
		return
	}
	tr := &p.st.tree
	tr.index(thread)
	t := tr.obj(thread)
	hash := transcript.HashID(thread)
	if ti == nil {
		ti = p.start(t)
	} else if ti.Hash == hash {
		p.unknown("threads", transcript.ReasonDuplicate)
		return
	}
	ti.Hash = hash
	p.model = modelOf(tr, t.Get("model"))
	p.usage = tr.obj(t.Get("request_token_usage"))
	msgs := parseMessages(tr, t, &p.st.canon, &p.st.scratch)
	// Room for the events up front (a message of the agent gives one per
	// item and per result, and a file edit for a result of an edit tool;
	// another message gives one): a thread's events are many, each large.
	n := len(p.out) + 2
	for _, m := range msgs {
		if m.role != "agent" {
			n++
			continue
		}
		n += len(m.items) + len(m.results)
		for _, r := range m.results {
			if r.toolName == "" || editTools[r.toolName] {
				n++
			}
		}
	}
	p.out = slices.Grow(p.out, n-len(p.out))
	p.messages(ti, msgs)
	if len(p.out) == 0 {
		p.unknown("threads/update", transcript.ReasonUnmapped)
	}
}

// start reads a thread's first row: its session_start.
func (p *parser) start(t rawjson.Object) *threadInfo {
	ti := &threadInfo{}
	parent := cmp.Or(rawjson.AsString(p.row.Get("parent_id")), rawjson.AsString(p.st.tree.path(t, "subagent_context", "parent_thread_id")))
	if parent != "" && parent != p.id {
		ti.Root = parent
		if pt := p.st.Threads[parent]; pt != nil && pt.Root != "" {
			ti.Root = pt.Root
		}
		p.sid, p.agent = ti.Root, p.id
	}
	p.project = projectOf(&p.st.tree, t, p.row)
	ti.Cwd = p.project.Cwd
	p.st.Threads[p.id] = ti
	p.time = cmp.Or(rawjson.AsString(p.row.Get("created_at")), p.time)
	e := p.event(transcript.KindSessionStart, p.id+"#start")
	e.SessionStart = &transcript.SessionStart{Model: modelOf(&p.st.tree, t.Get("model"))}
	if ti.Root != "" {
		e.SessionStart.Trigger = "subagent"
	}
	if title := firstValue(t.Get("title"), t.Get("summary"), p.row.Get("summary")); title != nil {
		e.Extra = map[string]json.RawMessage{"title": title}
	}
	p.time = rawjson.AsString(p.row.Get("updated_at"))
	return ti
}

// projectOf reads where a thread worked: its project snapshot's first
// worktree (with its git state), else the row's first folder.
func projectOf(tr *tree, t, row rawjson.Object) transcript.Project {
	var pr transcript.Project
	if wt := tr.arr(tr.path(t, "initial_project_snapshot", "worktree_snapshots")); len(wt) > 0 {
		w := tr.obj(wt[0])
		pr.Cwd = rawjson.AsString(w.Get("worktree_path"))
		pr.RepoRoot = pr.Cwd
		g := tr.obj(w.Get("git_state"))
		pr.Repository = rawjson.AsString(g.Get("remote_url"))
		pr.GitSHA = rawjson.AsString(g.Get("head_sha"))
		pr.GitBranch = rawjson.AsString(g.Get("current_branch"))
	}
	if pr.Cwd == "" {
		folders := rawjson.AsString(row.Get("folder_paths"))
		pr.Cwd, _, _ = strings.Cut(folders, "\n")
	}
	return pr
}

// modelOf reads a thread's model: {provider, model}.
func modelOf(tr *tree, v []byte) string {
	m := tr.obj(v)
	return rawjson.AsString(m.Get("model"))
}

// messages compares a thread's messages with those given before and gives
// the events of what is new (see the package documentation).
func (p *parser) messages(ti *threadInfo, msgs []message) {
	k := 0
	for k < len(msgs) && k < len(ti.Msgs) && ti.Msgs[k].Hash == msgs[k].hash {
		k++
	}
	if k < len(ti.Msgs) {
		old := &ti.Msgs[k]
		if k == len(ti.Msgs)-1 && k < len(msgs) && old.Role == "agent" && msgs[k].role == "agent" && len(msgs[k].items) >= old.Items {
			p.agentMessage(k, msgs[k], old)
			old.Hash = msgs[k].hash
			k++
		} else {
			e := p.event(transcript.KindRewind, transcript.HashID(p.rec.Data)+"#rewind")
			e.Rewind = &transcript.Rewind{Dropped: old.First}
			ti.Msgs = ti.Msgs[:k]
		}
	}
	for i := k; i < len(msgs); i++ {
		m := msgs[i]
		info := msgInfo{Hash: m.hash, Role: m.role}
		before := len(p.out)
		switch m.role {
		case "user", "resume":
			p.userMessage(i, m)
		case "agent":
			p.agentMessage(i, m, &info)
		default:
			e := p.event(transcript.KindUnknown, p.id+"#"+strconv.Itoa(i))
			e.Unknown = transcript.NewUnknown("message/"+m.role, transcript.ReasonUnmapped, m.raw, true)
		}
		if len(p.out) > before {
			info.First = p.out[before].EventID
		}
		ti.Msgs = append(ti.Msgs, info)
	}
}

func (p *parser) userMessage(i int, m message) {
	id := cmp.Or(m.id, p.id+"#"+strconv.Itoa(i))
	e := p.event(transcript.KindUserTurn, id)
	e.UserTurn = &transcript.UserTurn{Text: m.text, Parts: m.parts}
	if m.role == "resume" {
		e.UserTurn.Text, e.UserTurn.Meta = "Continue where you left off", transcript.MetaInjected
	}
	p.pending = nil
	if m.id != "" {
		p.pending = rawjson.Value(p.usage.Get(m.id))
	}
}

// agentMessage gives the events of an agent message's items from
// info.Items on, and of its tool results not given yet.
func (p *parser) agentMessage(i int, m message, info *msgInfo) {
	for k, it := range m.items {
		if k < info.Items {
			continue
		}
		id := p.id + "#" + strconv.Itoa(i) + "." + strconv.Itoa(k)
		switch it.kind {
		case "Text", "Thinking", "RedactedThinking":
			e := p.event(transcript.KindAssistantTurn, id)
			at := &transcript.AssistantTurn{Model: p.model}
			switch it.kind {
			case "Text":
				at.Text = it.text
			case "Thinking":
				at.Thinking = it.text
			default:
				at.Parts = []transcript.Part{{Type: "redacted_thinking", Raw: it.raw}}
			}
			if it.kind == "Text" && p.pending != nil {
				at.Usage = usageOf(&p.st.tree, p.pending)
				p.pending = nil
			}
			e.AssistantTurn = at
		case "ToolUse":
			e := p.event(transcript.KindToolCall, cmp.Or(it.toolID, id))
			e.ToolCall = &transcript.ToolCall{CallID: it.toolID, Name: it.toolName, Input: rawjson.Value(it.input)}
		default:
			e := p.event(transcript.KindUnknown, id)
			e.Unknown = transcript.NewUnknown("agent/"+it.kind, transcript.ReasonUnrecognized, it.raw, true)
		}
	}
	info.Items = len(m.items)
	for _, r := range m.results {
		if contains(info.Results, r.toolUseID) {
			continue
		}
		info.Results = append(info.Results, r.toolUseID)
		call := m.call(r.toolUseID)
		name := cmp.Or(r.toolName, call.toolName)
		e := p.event(transcript.KindToolResult, r.toolUseID+"#result")
		e.ToolResult = &transcript.ToolResult{CallID: r.toolUseID, Name: name, OK: !r.isError, Text: r.text,
			Output: rawjson.Value(r.content), Structured: rawjson.Value(r.output)}
		if fe := fileEdit(&p.st.tree, name, p.st.tree.obj(call.input), p.st.tree.obj(r.output), !r.isError); fe != nil {
			fe.CallID = r.toolUseID
			ev := p.event(transcript.KindFileEdit, r.toolUseID+"#edit")
			ev.FileEdit = fe
		}
	}
}

// call is the message's last ToolUse item of id (the zero item when there
// is none). A message has a few items: a search costs less than a map.
func (m message) call(id string) item {
	var found item
	for _, it := range m.items {
		if it.kind == "ToolUse" && it.toolID == id {
			found = it
		}
	}
	return found
}

// usageOf reads Zed's TokenUsage {input_tokens, output_tokens,
// cache_creation_input_tokens, cache_read_input_tokens}.
func usageOf(tr *tree, v []byte) *transcript.Usage {
	u := tr.obj(v)
	if u == nil {
		return nil
	}
	return &transcript.Usage{
		InputTokens:      rawjson.Int(u.Get("input_tokens")),
		OutputTokens:     rawjson.Int(u.Get("output_tokens")),
		CacheWriteTokens: rawjson.Int(u.Get("cache_creation_input_tokens")),
		CacheReadTokens:  rawjson.Int(u.Get("cache_read_input_tokens")),
		Raw:              v,
	}
}

// firstValue is the first of vs that is a value (not absent, not null).
func firstValue(vs ...[]byte) []byte {
	for _, v := range vs {
		if rawjson.Value(v) != nil {
			return v
		}
	}
	return nil
}
