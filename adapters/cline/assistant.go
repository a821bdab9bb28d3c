package cline

import (
	"encoding/json"
	"strconv"
	"strings"
	"sync"

	"github.com/cortexmem/cortex/transcript"
	"github.com/cortexmem/cortex/transcript/rawjson"
)

// toolNames are the tools of Cline, Roo Code and Kilo Code, whose calls the
// extensions' XML tool calling writes as <name><param>…</param></name> in
// the assistant's text. Made on first use, not as every command starts.
var toolNames = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		"execute_command": true, "read_file": true, "write_to_file": true, "replace_in_file": true, "apply_diff": true,
		"insert_content": true, "search_and_replace": true, "search_files": true, "list_files": true,
		"list_code_definition_names": true, "browser_action": true, "use_mcp_tool": true, "access_mcp_resource": true,
		"ask_followup_question": true, "attempt_completion": true, "plan_mode_respond": true, "act_mode_respond": true,
		"new_task": true, "load_mcp_documentation": true, "summarize_task": true, "condense": true, "new_rule": true,
		"report_bug": true, "web_fetch": true, "web_search": true, "switch_mode": true, "codebase_search": true,
		"update_todo_list": true, "fetch_instructions": true, "edit": true, "edit_file": true, "search_replace": true,
		"apply_patch": true, "focus_chain": true, "use_skill": true, "run_slash_command": true, "generate_image": true,
	}
})

// maxToolName is the length of the longest of toolNames (TestMaxToolName):
// a constant, so that the table is made only when a parse first needs it.
const maxToolName = len("list_code_definition_names")

// spoken are the tools through which the model talks to the person: the
// parameter holding its words joins the answer's text.
var spoken = map[string]string{
	"attempt_completion": "result", "plan_mode_respond": "response", "act_mode_respond": "response",
	"ask_followup_question": "question",
}

// compacting are the tools whose call summarises the conversation (Cline's
// automatic compaction and /smol): the context parameter is the summary.
var compacting = map[string]bool{"summarize_task": true, "condense": true}

// xmlCall is a tool call written in the assistant's text.
type xmlCall struct {
	name   string
	params map[string]string
}

// parseXML splits an assistant's text into what it says, its thinking
// (<thinking> blocks) and its tool calls. A tool's block runs from
// "<name>" to the last "</name>" before the next tool (a file's content may
// hold the tag), its parameters likewise.
func parseXML(text string) (said, thinking string, calls []xmlCall) {
	var out, think []string
	rest := text
	for {
		start, name := firstTag(rest)
		if start < 0 {
			out = append(out, rest)
			break
		}
		out = append(out, rest[:start])
		body := rest[start+len(name)+2:]
		closing := "</" + name + ">"
		if name == "thinking" {
			end := strings.Index(body, closing)
			if end < 0 {
				think = append(think, body)
				break
			}
			think = append(think, strings.TrimSpace(body[:end]))
			rest = body[end+len(closing):]
			continue
		}
		end := strings.LastIndex(body, closing)
		if next, _ := firstTag(body); next >= 0 && end > next {
			// Another tool follows: this one ends at its first closing tag.
			end = strings.Index(body, closing)
		}
		if end < 0 {
			calls = append(calls, xmlCall{name: name, params: params(body)})
			break
		}
		calls = append(calls, xmlCall{name: name, params: params(body[:end])})
		rest = body[end+len(closing):]
	}
	return strings.TrimSpace(strings.Join(out, "")), strings.Join(think, "\n\n"), calls
}

// firstTag finds the first "<tool>" or "<thinking>" opening tag.
func firstTag(s string) (int, string) {
	for i := strings.IndexByte(s, '<'); i >= 0; {
		j := strings.IndexByte(s[i:], '>')
		if j < 0 {
			return -1, ""
		}
		// A name longer than any tool's is none (and is not hashed: the
		// next '>' may be far off in a file's content).
		name := s[i+1 : i+j]
		if len(name) <= maxToolName && (name == "thinking" || toolNames()[name]) {
			return i, name
		}
		k := strings.IndexByte(s[i+1:], '<')
		if k < 0 {
			return -1, ""
		}
		i += 1 + k
	}
	return -1, ""
}

// params reads a tool block's <param>value</param> children; a value's
// surrounding newline is dropped, as the extensions drop it.
func params(body string) map[string]string {
	out := map[string]string{}
	for {
		i := strings.IndexByte(body, '<')
		if i < 0 {
			return out
		}
		j := strings.IndexByte(body[i:], '>')
		if j < 0 {
			return out
		}
		name := body[i+1 : i+j]
		if name == "" || strings.ContainsAny(name, " /\n\t=\"") {
			body = body[i+1:]
			continue
		}
		rest := body[i+j+1:]
		closing := "</" + name + ">"
		end := strings.Index(rest, closing)
		if name == "content" || name == "diff" || name == "result" || name == "context" {
			end = strings.LastIndex(rest, closing)
		}
		if end < 0 {
			return out
		}
		v := strings.TrimPrefix(rest[:end], "\n")
		v = strings.TrimSuffix(v, "\n")
		out[name] = v
		body = rest[end+len(closing):]
	}
}

// jsonParams encodes a call's parameters as a JSON object (keys sorted, as
// encoding/json writes a map).
func jsonParams(ps map[string]string) json.RawMessage {
	b, _ := json.Marshal(ps) // a map of strings always encodes
	return b
}

func (p *parser) assistant(m rawjson.Object) {
	// Results answer the calls of the answer just before them: calls of
	// earlier answers that got none will get none.
	p.xmlQ = p.xmlQ[:0]
	content := m.Get("content")
	var said, thinking []string
	var parts []transcript.Part
	type native struct {
		id, name string
		input    []byte
	}
	var natives []native
	var xmls []xmlCall
	addText := func(t string) {
		s, th, calls := parseXML(t)
		if s != "" {
			said = append(said, s)
		}
		if th != "" {
			thinking = append(thinking, th)
		}
		xmls = append(xmls, calls...)
	}
	if s, ok := rawjson.String(content); ok {
		addText(s)
	}
	for _, raw := range rawjson.AsArray(content) {
		b := rawjson.AsObject(raw)
		switch typ := rawjson.AsString(b.Get("type")); typ {
		case "text":
			addText(rawjson.AsString(b.Get("text")))
		case "thinking", "reasoning":
			t := rawjson.AsString(b.Get("thinking"))
			if t == "" {
				t = rawjson.AsString(b.Get("text"))
			}
			thinking = append(thinking, t)
			parts = append(parts, transcript.Part{Type: typ, Raw: raw})
		case "tool_use":
			natives = append(natives, native{rawjson.AsString(b.Get("id")), rawjson.AsString(b.Get("name")), b.Get("input")})
		default:
			parts = append(parts, transcript.Part{Type: typ, Raw: raw})
		}
	}
	// The words of the tools that talk to the person are the answer's.
	for _, c := range xmls {
		if k := spoken[c.name]; k != "" && strings.TrimSpace(c.params[k]) != "" {
			said = append(said, strings.TrimSpace(c.params[k]))
		}
	}
	for _, c := range natives {
		if k := spoken[c.name]; k != "" {
			if s := strings.TrimSpace(rawjson.AsString(rawjson.AsObject(c.input).Get(k))); s != "" {
				said = append(said, s)
			}
		}
	}
	inputs := make([]json.RawMessage, len(xmls))
	for j, c := range xmls {
		inputs[j] = jsonParams(c.params)
		if spoken[c.name] != "" {
			parts = append(parts, spokenPart(c.name, inputs[j]))
		}
	}
	for _, c := range natives {
		if spoken[c.name] != "" {
			parts = append(parts, spokenPart(c.name, rawjson.Value(c.input)))
		}
	}
	if len(said) > 0 || len(thinking) > 0 || len(parts) > 0 || len(xmls)+len(natives) == 0 {
		e := p.event(transcript.KindAssistantTurn, "")
		e.AssistantTurn = &transcript.AssistantTurn{Text: strings.Join(said, "\n\n"), Thinking: strings.Join(thinking, "\n\n"),
			MessageID: rawjson.AsString(m.Get("id")), Parts: parts}
		if mi := rawjson.AsObject(m.Get("modelInfo")); mi != nil {
			e.AssistantTurn.Model = rawjson.AsString(mi.Get("modelId"))
		}
	}
	for j, c := range xmls {
		id := p.id + ":" + strconv.Itoa(j)
		p.toolCall(id, c.name, inputs[j], true)
	}
	for j, c := range natives {
		id := c.id
		if id == "" {
			id = p.id + ":" + strconv.Itoa(len(xmls)+j)
		}
		p.toolCall(id, c.name, rawjson.Value(c.input), false)
	}
}

// spokenPart keeps the call of a tool that speaks to the person as a part
// of the answer (its words are the answer's text): it acts on nothing, so
// it is no tool call.
func spokenPart(name string, input []byte) transcript.Part {
	return transcript.Part{Type: "tool_use:" + name, Raw: input}
}

// toolCall emits a call (a compaction for the tools that summarise the
// conversation) and remembers it for its result.
func (p *parser) toolCall(id, name string, input []byte, xml bool) {
	in := rawjson.AsObject(input)
	switch {
	case spoken[name] != "":
		// Kept as a part of the answer; its result is still paired.
	case compacting[name]:
		e := p.event(transcript.KindCompaction, "compaction:"+id)
		e.Compaction = &transcript.Compaction{Trigger: name, Summary: rawjson.AsString(in.Get("context"))}
	default:
		// An XML call has no id of its own: the one made up here pairs it
		// with its result and edit.
		e := p.event(transcript.KindToolCall, "tool_call:"+id)
		e.ToolCall = &transcript.ToolCall{CallID: id, Name: name, Input: input}
	}
	p.calls[id] = call{name: name, input: in, xml: xml}
	if xml {
		p.xmlQ = append(p.xmlQ, id)
	}
}
