package windsurf

import (
	"bytes"
	"encoding/json"
	"net/url"
	"path"
	"strconv"
	"strings"

	"github.com/cortexmem/cortex/transcript"
	"github.com/cortexmem/cortex/transcript/rawjson"
)

// state is what the adapter remembers between records of one stream. It is
// saved with the stream's Context, so every field round-trips through JSON.
type state struct {
	// Started are the trajectories whose (synthesized) session_start was
	// emitted.
	Started map[string]bool `json:"started,omitempty"`
}

// Parse turns one line — a trajectory step or a hook's payload — into
// events.
func (a *Adapter) Parse(rec transcript.Record, ctx *transcript.Context) []transcript.Event {
	st := transcript.StateOf[state](ctx)
	m, malformed := transcript.RecordObject(ctx, rec)
	if malformed != nil {
		return malformed
	}
	p := &parser{ctx: ctx, st: st, rec: rec, m: m, id: transcript.HashID(rec.Data)}
	switch {
	case isStep(m):
		p.step()
	case isHookPayload(m):
		p.hook()
	default:
		p.unknown(rawjson.AsString(m.Get("type")), transcript.ReasonUnrecognized)
	}
	return p.out
}

// parser holds one record being parsed.
type parser struct {
	ctx *transcript.Context
	st  *state
	rec transcript.Record
	m   rawjson.Object
	id  string // the record's content hash: Windsurf's records have no id
	ts  string
	out []transcript.Event
}

// event appends an event of the record and returns it (valid until the
// next append); the record's other events follow its first.
func (p *parser) event(kind transcript.Kind, id string) *transcript.Event {
	e := p.ctx.NewEvent(p.rec, kind, id)
	e.Timestamp = p.ts
	for i := len(p.out) - 1; i >= 0; i-- {
		if p.out[i].Kind != transcript.KindSessionStart {
			e.ParentID = p.out[i].EventID
			break
		}
	}
	p.out = append(p.out, e)
	return &p.out[len(p.out)-1]
}

func (p *parser) unknown(rawType, reason string) {
	e := p.ctx.NewEvent(p.rec, transcript.KindUnknown, p.id)
	e.Timestamp = p.ts
	e.Unknown = transcript.NewUnknown(rawType, reason, p.rec.Data, true)
	p.out = append(p.out, e)
}

// start emits the session's start before its first record: Windsurf writes
// none, so it is synthesized.
func (p *parser) start(session string) {
	p.ctx.SetSession(session)
	if session == "" || p.st.Started[session] {
		return
	}
	if p.st.Started == nil {
		p.st.Started = map[string]bool{}
	}
	p.st.Started[session] = true
	e := p.ctx.NewEvent(p.rec, transcript.KindSessionStart, session+"#start")
	e.Timestamp = p.ts
	e.SessionStart = &transcript.SessionStart{Synthesized: true}
	p.out = append(p.out, e)
}

// fileSession is the trajectory a transcript's name names:
// transcripts/<trajectory>.jsonl.
func fileSession(file string) string {
	name := path.Base(strings.ReplaceAll(file, `\`, "/"))
	if !strings.HasSuffix(name, ".jsonl") {
		return ""
	}
	return strings.TrimSuffix(name, ".jsonl")
}

// outputKeys are the members of a step that hold what the tool returned
// rather than what it was asked.
var outputKeys = map[string]bool{"content": true, "output": true, "result": true, "mcp_result": true}

// step reads one step of a trajectory transcript ({type, status, <type>:
// {…}}): user_input → user_turn; planner_response → assistant_turn;
// code_action → the edit's call, result and file_edit; every other step
// (view_file, run_command, find, grep_search, list_directory, MCP tools, …)
// → a tool_call and, once it has run, its tool_result.
func (p *parser) step() {
	typ := rawjson.AsString(p.m.Get("type"))
	body := rawjson.AsObject(p.m.Get(typ))
	status := rawjson.AsString(p.m.Get("status"))
	p.ts = rawjson.AsString(p.m.Get("timestamp"))
	if p.ctx.Session() == "" {
		p.start(fileSession(p.ctx.File()))
	}
	switch typ {
	case "user_input":
		e := p.event(transcript.KindUserTurn, p.id)
		e.UserTurn = &transcript.UserTurn{Text: rawjson.AsString(body.Get("user_response"))}
		e.Extra = extra(body, "user_response")
	case "planner_response":
		e := p.event(transcript.KindAssistantTurn, p.id)
		e.AssistantTurn = &transcript.AssistantTurn{Text: rawjson.AsString(body.Get("response")), Thinking: rawjson.AsString(body.Get("thinking"))}
		e.Extra = extra(body, "response", "thinking")
	default:
		p.tool(typ, body, status)
	}
}

// tool emits a tool step's call, its result once it has run (done, error or
// cancelled), and, for a code action, its file edit.
func (p *parser) tool(typ string, body rawjson.Object, status string) {
	if typ == "run_command" && p.ctx.Project().Cwd == "" {
		p.ctx.SetProject(transcript.Project{Cwd: rawjson.AsString(body.Get("cwd"))})
	}
	var input, output []byte
	var outKey string
	for _, mem := range body {
		if outputKeys[mem.KeyString()] && output == nil {
			output, outKey = mem.Value, mem.KeyString()
		}
	}
	input = without(body, outKey, "original_content", "new_content")
	call := p.event(transcript.KindToolCall, p.id)
	callID := call.EventID
	call.ToolCall = &transcript.ToolCall{CallID: callID, Name: typ, Input: rawjson.Value(input)}
	switch status {
	case "done", "error", "cancelled", "canceled":
	default:
		return // not run yet
	}
	ok := status == "done"
	if typ == "run_command" && (rawjson.Int(body.Get("exit_code")) != 0 || rawjson.Bool(body.Get("user_rejected"))) {
		ok = false
	}
	ack := rawjson.AsString(body.Get("acknowledgement_type"))
	if strings.Contains(ack, "REJECT") {
		ok = false // the person rejected the change: the file is as it was
	}
	text := rawjson.AsString(output)
	if text == "" && (rawjson.IsObject(output) || rawjson.IsArray(output)) {
		text = string(output)
	}
	r := p.event(transcript.KindToolResult, p.id+"#result")
	r.ToolResult = &transcript.ToolResult{CallID: callID, Name: typ, OK: ok, Text: text, Output: rawjson.Value(output)}
	if typ != "code_action" {
		return
	}
	if fe := codeEdit(body, ok); fe != nil {
		fe.CallID = callID
		e := p.event(transcript.KindFileEdit, p.id+"#edit")
		e.FileEdit = fe
	}
}

// codeEdit is a code action's edit: the file's content before and after
// (original_content, new_content), diffed; a file with no content before
// is created.
func codeEdit(body rawjson.Object, ok bool) *transcript.FileEdit {
	file := uriPath(rawjson.AsString(body.Get("path")))
	after, hasAfter := rawjson.String(body.Get("new_content"))
	if file == "" || !hasAfter {
		return nil
	}
	before, hasBefore := rawjson.String(body.Get("original_content"))
	fe := &transcript.FileEdit{Tool: "code_action", Path: file, Op: transcript.OpUpdate, OK: ok, Old: before, New: after,
		From: transcript.FromContent}
	if !ok {
		fe.From = transcript.FromInput // proposed, not made: the file is as it was
	}
	oldHdr := file
	if !hasBefore || before == "" {
		fe.Op, oldHdr = transcript.OpCreate, "/dev/null"
	}
	hunks := transcript.Diff(before, after)
	fe.Unified = transcript.FormatUnified(oldHdr, file, hunks)
	fe.Added, fe.Removed = transcript.CountChanges(hunks)
	return fe
}

// uriPath is the file a step names: a file:// URI's path (a Windows drive's
// without the leading "/"), else the path as written.
func uriPath(s string) string {
	rest, ok := strings.CutPrefix(s, "file://")
	if !ok {
		return s
	}
	if u, err := url.PathUnescape(rest); err == nil {
		rest = u
	}
	if len(rest) >= 3 && rest[0] == '/' && rest[2] == ':' {
		rest = rest[1:]
	}
	return rest
}

// without is obj without the members named (nil when none is left).
func without(obj rawjson.Object, keys ...string) []byte {
	var b bytes.Buffer
	b.WriteByte('{')
	n := 0
	for _, m := range obj {
		skip := false
		for _, k := range keys {
			if k != "" && m.KeyString() == k {
				skip = true
			}
		}
		if skip {
			continue
		}
		if n > 0 {
			b.WriteByte(',')
		}
		n++
		b.WriteByte('"')
		b.Write(m.Key)
		b.WriteString(`":`)
		b.Write(m.Value)
	}
	if n == 0 {
		return nil
	}
	b.WriteByte('}')
	return b.Bytes()
}

// extra is obj's members besides those named, for an event's Extra.
func extra(obj rawjson.Object, used ...string) map[string]json.RawMessage {
	var out map[string]json.RawMessage
	for _, m := range obj {
		k := m.KeyString()
		skip := false
		for _, u := range used {
			if u == k {
				skip = true
			}
		}
		if skip {
			continue
		}
		if out == nil {
			out = map[string]json.RawMessage{}
		}
		out[k] = m.Value
	}
	return out
}

// The hook events (agent_action_name) whose payload says something the
// event model has no kind for: kept as unknown (unmapped). A pre-hook's
// action may yet be blocked, and its post-hook says it ran; the transcript
// hook names the file the adapter reads itself.
var unmappedHooks = map[string]bool{
	"pre_read_code": true, "pre_write_code": true, "pre_run_command": true, "pre_mcp_tool_use": true,
	"post_cascade_response_with_transcript": true, "post_setup_worktree": true,
}

// hook reads one hook payload ({agent_action_name, trajectory_id,
// execution_id, timestamp, tool_info: {…}}, Windsurf's Cascade Hooks):
// pre_user_prompt → user_turn; post_cascade_response → assistant_turn;
// post_write_code → the write's call, result and a file_edit per edit
// (old_string and new_string alone: fragments); post_read_code,
// post_run_command and post_mcp_tool_use → a call and its result.
func (p *parser) hook() {
	action := rawjson.AsString(p.m.Get("agent_action_name"))
	ti := rawjson.AsObject(p.m.Get("tool_info"))
	p.ts = rawjson.AsString(p.m.Get("timestamp"))
	p.start(rawjson.AsString(p.m.Get("trajectory_id")))
	if cwd := rawjson.AsString(ti.Get("cwd")); cwd != "" && p.ctx.Project().Cwd == "" {
		p.ctx.SetProject(transcript.Project{Cwd: cwd})
	}
	model := rawjson.AsString(p.m.Get("model_name"))
	switch action {
	case "pre_user_prompt":
		e := p.event(transcript.KindUserTurn, p.id)
		e.UserTurn = &transcript.UserTurn{Text: rawjson.AsString(ti.Get("user_prompt"))}
	case "post_cascade_response":
		e := p.event(transcript.KindAssistantTurn, p.id)
		e.AssistantTurn = &transcript.AssistantTurn{Text: rawjson.AsString(ti.Get("response")), Model: model}
	case "post_write_code", "post_read_code", "post_run_command", "post_mcp_tool_use":
		name := strings.TrimPrefix(action, "post_")
		input := p.m.Get("tool_info")
		var output []byte
		if action == "post_mcp_tool_use" {
			if n := rawjson.AsString(ti.Get("mcp_tool_name")); n != "" {
				name = n
			}
			input, output = ti.Get("mcp_tool_arguments"), ti.Get("mcp_result")
		}
		call := p.event(transcript.KindToolCall, p.id)
		callID := call.EventID
		call.ToolCall = &transcript.ToolCall{CallID: callID, Name: name, Input: rawjson.Value(input)}
		text := rawjson.AsString(output)
		if text == "" && rawjson.Value(output) != nil && !rawjson.IsString(output) {
			text = string(output)
		}
		r := p.event(transcript.KindToolResult, p.id+"#result")
		r.ToolResult = &transcript.ToolResult{CallID: callID, Name: name, OK: true, Text: text, Output: rawjson.Value(output)}
		if action != "post_write_code" {
			break
		}
		file := rawjson.AsString(ti.Get("file_path"))
		for i, raw := range rawjson.AsArray(ti.Get("edits")) {
			ed := rawjson.AsObject(raw)
			fe := fragment(file, rawjson.AsString(ed.Get("old_string")), rawjson.AsString(ed.Get("new_string")))
			fe.CallID = callID
			id := p.id + "#edit"
			if i > 0 {
				id += ":" + strconv.Itoa(i+1)
			}
			e := p.event(transcript.KindFileEdit, id)
			e.FileEdit = fe
		}
	default:
		reason := transcript.ReasonUnrecognized
		if unmappedHooks[action] {
			reason = transcript.ReasonUnmapped
		}
		p.unknown(action, reason)
	}
}

// fragment is a diff of a replaced text and its replacement alone (its
// line numbers are not the file's).
func fragment(file, old, new string) *transcript.FileEdit {
	if file == "" {
		file = "(unknown)"
	}
	hunks := transcript.FragmentDiff(old, new)
	fe := &transcript.FileEdit{Tool: "write_code", Path: file, Op: transcript.OpUpdate, OK: true, Old: old, New: new,
		From: transcript.FromInput, Fragment: true}
	fe.Unified = transcript.FormatUnified(file, file, hunks)
	fe.Added, fe.Removed = transcript.CountChanges(hunks)
	return fe
}
