package cline

import (
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/cortexmem/cortex/transcript"
	"github.com/cortexmem/cortex/transcript/rawjson"
)

// typedTags wrap what the person typed in the messages the extensions send:
// the task (<task> in Cline, <user_message> in Roo Code and Kilo Code), a
// reply to a completion or a denied tool (<feedback>, <user_message>) and an
// answer to the model's question (<answer>).
var typedTags = []string{"task", "feedback", "answer", "user_message"}

// typed returns what the person typed in text: the content of its typed
// tags, in order, and whether it had any.
func typed(text string) ([]string, bool) {
	var out []string
	found := false
	for {
		start, tag := openTag(text)
		if start < 0 {
			return out, found
		}
		rest := text[start+len(tag)+2:]
		end := strings.Index(rest, "</"+tag+">")
		if end < 0 {
			return out, found
		}
		found = true
		if s := strings.TrimSpace(rest[:end]); s != "" {
			out = append(out, s)
		}
		text = rest[end+len(tag)+3:]
	}
}

// openTag finds the first opening typed tag in text: its index and name,
// -1 when there is none. It visits each '<' once, where searching for each
// tag in turn would read a long text (environment details, a file's
// content) once per tag.
func openTag(text string) (int, string) {
	for i := 0; ; {
		j := strings.IndexByte(text[i:], '<')
		if j < 0 {
			return -1, ""
		}
		i += j + 1
		for _, t := range typedTags {
			if strings.HasPrefix(text[i:], t) && strings.HasPrefix(text[i+len(t):], ">") {
				return i - 1, t
			}
		}
	}
}

// resultHeader matches the line that opens a tool's result given as text
// (the extensions' XML tool calling): "[write_to_file for 'cache.go']
// Result:". Compiled on first use, not at every command's start.
var resultHeader = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^\[([A-Za-z_][A-Za-z0-9_]*)(?: for [^\]]*)?\] Result:`)
})

// matchHeader matches resultHeader at the start of text; nil when it does
// not (the regular expression runs only on a text that starts with '[').
func matchHeader(text string) []string {
	if !strings.HasPrefix(text, "[") {
		return nil
	}
	return resultHeader().FindStringSubmatch(text)
}

// injected says whether a text block of a user message was added by the
// extension (environment details, file contents it attached, a task
// resumption notice, an error it reports to the model).
func injected(text string) bool {
	t := strings.TrimLeft(text, " \t\r\n")
	for _, p := range []string{"<environment_details>", "<file_content", "<folder_content", "[TASK RESUMPTION]", "[ERROR]", "<explicit_instructions", "<slash-command"} {
		if strings.HasPrefix(t, p) {
			return true
		}
	}
	return false
}

// user reads a user message: results of the previous answer's tool calls,
// what the person typed (wherever the extension put it), and what the
// extension added.
func (p *parser) user(content []byte) {
	var person, added []string
	var parts []transcript.Part
	addTyped := func(text string) bool {
		t, ok := typed(text)
		person = append(person, t...)
		return ok
	}
	if s, ok := rawjson.String(content); ok {
		if !addTyped(s) {
			if injected(s) {
				added = append(added, s)
			} else {
				person = append(person, s)
			}
		}
	}
	// Each block decoded once, and searched for typed tags once: texts are
	// long (environment details, files) and hold escapes.
	type block struct {
		typ, text string
		obj       rawjson.Object
		raw       []byte
		typed     []string
		hasTyped  bool
	}
	elems := rawjson.AsArray(content)
	blocks := make([]block, 0, len(elems))
	anyTyped := false
	for _, raw := range elems {
		b := block{obj: rawjson.AsObject(raw), raw: raw}
		b.typ = rawjson.AsString(b.obj.Get("type"))
		if b.typ == "text" {
			b.text = rawjson.AsString(b.obj.Get("text"))
			if strings.IndexByte(b.text, '<') >= 0 {
				b.typed, b.hasTyped = typed(b.text)
			}
			if b.hasTyped {
				anyTyped = true
			}
		}
		blocks = append(blocks, b)
	}
	for i := 0; i < len(blocks); i++ {
		b := blocks[i]
		switch b.typ {
		case "tool_result":
			text := resultText(b.obj.Get("content"))
			addTyped(text)
			p.result(rawjson.AsString(b.obj.Get("tool_use_id")), "", text, rawjson.Bool(b.obj.Get("is_error")), b.obj.Get("content"))
		case "text":
			text := b.text
			if m := matchHeader(text); m != nil {
				body := strings.TrimPrefix(strings.TrimPrefix(text[len(m[0]):], "\n"), " ")
				if strings.TrimSpace(body) == "" && i+1 < len(blocks) {
					// Older builds wrote the result as the next block.
					next := blocks[i+1]
					if next.typ == "text" && matchHeader(next.text) == nil &&
						!strings.HasPrefix(strings.TrimSpace(next.text), "<environment_details>") {
						body = next.text
						i++
					}
				}
				addTyped(body)
				p.result("", m[1], body, false, nil)
				continue
			}
			if b.hasTyped {
				person = append(person, b.typed...)
				if rest := strings.TrimSpace(stripTyped(text)); rest != "" {
					added = append(added, rest)
				}
				continue
			}
			if injected(text) || anyTyped {
				added = append(added, text)
			} else {
				person = append(person, text)
			}
		default:
			parts = append(parts, transcript.Part{Type: b.typ, Raw: b.raw})
		}
	}
	if len(person) > 0 || len(parts) > 0 {
		e := p.event(transcript.KindUserTurn, "text")
		e.UserTurn = &transcript.UserTurn{Text: strings.Join(person, "\n\n"), Parts: parts}
	}
	if len(added) > 0 {
		e := p.event(transcript.KindUserTurn, "context")
		e.UserTurn = &transcript.UserTurn{Text: strings.Join(added, "\n\n"), Meta: transcript.MetaInjected}
	}
	if p.main < 0 {
		e := p.event(transcript.KindUserTurn, "")
		e.UserTurn = &transcript.UserTurn{}
	}
}

// stripTyped is text without its typed tags and their content.
func stripTyped(text string) string {
	for _, t := range typedTags {
		for {
			i := strings.Index(text, "<"+t+">")
			if i < 0 {
				break
			}
			j := strings.Index(text[i:], "</"+t+">")
			if j < 0 {
				break
			}
			text = text[:i] + text[i+j+len(t)+3:]
		}
	}
	return text
}

// resultText flattens a tool_result's content.
func resultText(raw []byte) string {
	if s, ok := rawjson.String(raw); ok {
		return s
	}
	var out []string
	for _, b := range rawjson.AsArray(raw) {
		o := rawjson.AsObject(b)
		switch t := rawjson.AsString(o.Get("type")); t {
		case "text":
			out = append(out, rawjson.AsString(o.Get("text")))
		case "":
		default:
			out = append(out, "["+t+"]")
		}
	}
	return strings.Join(out, "\n")
}

// failed reports whether a tool's result text says the call did not do
// what it was asked.
func failed(text string) bool {
	t := strings.TrimSpace(text)
	if i := strings.Index(t, "] Result:"); i >= 0 && strings.HasPrefix(t, "[") {
		t = strings.TrimSpace(t[i+len("] Result:"):])
	}
	for _, p := range []string{"The tool execution failed", "The user denied this operation", "<error>", "[ERROR]", "Error:"} {
		if strings.HasPrefix(t, p) {
			return true
		}
	}
	return strings.Contains(t, "The tool execution failed with the following error")
}

// result emits a tool call's result and its file edit. callID is the
// native id; an XML call (callID "") is answered by the first waiting call
// of that name.
func (p *parser) result(callID, name, text string, isError bool, output []byte) {
	if callID == "" && name != "" {
		for i, id := range p.xmlQ {
			if p.calls[id].name == name {
				callID = id
				p.xmlQ = append(p.xmlQ[:i], p.xmlQ[i+1:]...)
				break
			}
		}
	}
	c := p.calls[callID]
	if name == "" {
		name = c.name
	}
	ok := !isError && !failed(text)
	key := callID
	if key == "" {
		key = name + "-" + strconv.Itoa(len(p.out))
	}
	e := p.event(transcript.KindToolResult, "tool_result:"+key)
	e.ToolResult = &transcript.ToolResult{CallID: callID, Name: name, OK: ok, Text: text, Output: rawjson.Value(output)}
	for k, fe := range fileEdits(c, text, ok) {
		fe.CallID = callID
		suffix := "edit:" + key
		if k > 0 {
			suffix += ":" + strconv.Itoa(k+1)
		}
		ev := p.event(transcript.KindFileEdit, suffix)
		ev.FileEdit = fe
	}
}
