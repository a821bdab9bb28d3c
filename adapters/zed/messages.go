package zed

import (
	"bytes"
	"slices"
	"strings"

	"github.com/cortexmem/cortex/transcript"
	"github.com/cortexmem/cortex/transcript/rawjson"
)

// message is one message of a thread, in either format, read into what
// the events need.
type message struct {
	// role is "user", "agent", "resume", or the legacy format's other
	// roles ("system").
	role    string
	id      string
	text    string
	parts   []transcript.Part
	items   []item
	results []result
	raw     []byte
	hash    string
}

// item is one item of an agent message's content.
type item struct {
	kind             string // Text, Thinking, RedactedThinking, ToolUse, or another
	text             string
	toolID, toolName string
	input, raw       []byte
}

type result struct {
	toolUseID, toolName string
	isError             bool
	text                string
	content, output     []byte
}

// parseMessages reads a thread's messages: format 0.3.0 ({"User": …},
// {"Agent": …}, "Resume") or the legacy one ({id, role, segments, …}).
func parseMessages(tr *tree, t rawjson.Object, c *canon, sc *scratch) []message {
	elems := tr.arr(t.Get("messages"))
	clear(sc.msgs)
	out := slices.Grow(sc.msgs[:0], len(elems))
	defer func() { sc.msgs = out }()
	clear(sc.items)
	sc.items = sc.items[:0]
	for _, raw := range elems {
		m := message{raw: raw, hash: c.hashIn(tr, raw)}
		o := tr.obj(raw)
		switch {
		case rawjson.AsString(raw) == "Resume":
			m.role = "resume"
		case o.Has("User"):
			readUser(tr, &m, tr.obj(o.Get("User")))
		case o.Has("Agent"):
			readAgent(tr, &m, tr.obj(o.Get("Agent")), sc)
		case o.Has("role"):
			readLegacy(tr, &m, o)
		default:
			m.role = "unknown"
		}
		out = append(out, m)
	}
	return out
}

// canon hashes messages in canonical form (see hash), reusing its buffers
// from one message to the next: a thread is rewritten whole at every
// change, so every message of it is hashed at every save.
type canon struct {
	buf   []byte
	spans [][]span // the members of the object being read at each depth
	// sorted holds, at each depth, the members of an indexed object in
	// key order.
	sorted []rawjson.Object
}

// span is an object member: its key as written, and where its value's
// canonical form is in canon.buf.
type span struct {
	key      []byte
	from, to int
}

// hash is the hash of a message's JSON with its keys in a fixed order: a
// thread saved again by another version of Zed (or written by another
// serializer) may order them otherwise, and a message is the same if its
// content is.
func (c *canon) hash(raw []byte) string {
	c.buf = c.append(c.buf[:0], raw)
	return transcript.HashID(c.buf)
}

// hashIn is hash(raw) for raw of the JSON t indexes: its objects' members
// are sorted from the index, without reading their bytes again.
func (c *canon) hashIn(t *tree, raw []byte) string {
	if n, ok := t.find(raw); ok {
		c.buf = c.indexed(t, c.buf[:0], raw, n, 0)
		return transcript.HashID(c.buf)
	}
	return c.hash(raw)
}

// indexed appends the canonical form of the container v (node n of t) to
// dst: what append gives, read from the index.
func (c *canon) indexed(t *tree, dst, v []byte, n node, depth int) []byte {
	if v[0] == '[' {
		dst = append(dst, '[')
		for k, e := range t.elems[n.from:n.to] {
			if k > 0 {
				dst = append(dst, ',')
			}
			dst = c.member(t, dst, e, depth)
		}
		return append(dst, ']')
	}
	mems := t.mems[n.from:n.to]
	if !slices.IsSortedFunc(mems, compareKeys) {
		// Copied to be sorted: the index's order is the thread's.
		for len(c.sorted) <= depth {
			c.sorted = append(c.sorted, nil)
		}
		mems = append(c.sorted[depth][:0], mems...)
		slices.SortStableFunc(mems, compareKeys)
		c.sorted[depth] = mems
	}
	dst = append(dst, '{')
	for k, m := range mems {
		if k > 0 {
			dst = append(dst, ',')
		}
		dst = append(append(append(dst, '"'), m.Key...), '"', ':')
		dst = c.member(t, dst, m.Value, depth)
	}
	return append(dst, '}')
}

func compareKeys(a, b rawjson.Member) int { return bytes.Compare(a.Key, b.Key) }

// member appends the canonical form of a value inside an indexed
// container: a scalar as it is written (the index holds it without white
// space around it).
func (c *canon) member(t *tree, dst, v []byte, depth int) []byte {
	if rawjson.IsObject(v) || rawjson.IsArray(v) {
		if n, ok := t.find(v); ok {
			return c.indexed(t, dst, v, n, depth+1)
		}
		c.buf = dst
		c.value(v, 0, depth+1)
		return c.buf
	}
	return append(dst, v...)
}

// append appends v (valid JSON) with every object's members sorted by key
// and no white space between tokens.
func (c *canon) append(dst, v []byte) []byte {
	c.buf = dst
	if !rawjson.IsObject(v) && !rawjson.IsArray(v) {
		// A scalar, or a value after white space, is kept as it is.
		return append(c.buf, bytes.TrimSpace(v)...)
	}
	c.value(v, 0, 0)
	return c.buf
}

// value appends the canonical form of the value at v[i] to c.buf, reading
// it once, and returns the index after it. v is valid JSON, but should it
// not be, value stops at its end rather than fail.
func (c *canon) value(v []byte, i, depth int) int {
	switch v[i] {
	case '{':
		return c.object(v, i, depth)
	case '[':
		c.buf = append(c.buf, '[')
		i = rawjson.SkipSpace(v, i+1)
		for n := 0; i < len(v) && v[i] != ']'; n++ {
			if n > 0 {
				c.buf = append(c.buf, ',')
			}
			i = rawjson.SkipSpace(v, c.value(v, i, depth+1))
			if i < len(v) && v[i] == ',' {
				i = rawjson.SkipSpace(v, i+1)
			}
		}
		c.buf = append(c.buf, ']')
		return i + 1
	}
	end := rawjson.SkipValue(v, i)
	if end < 0 {
		end = len(v) // a number ending the message
	}
	c.buf = append(c.buf, v[i:end]...)
	return end
}

// object appends the object at v[i] with its members sorted: each member's
// value is written after what buf holds, then the members in key order
// after them, which are moved down to where the object starts.
func (c *canon) object(v []byte, i, depth int) int {
	for len(c.spans) <= depth {
		c.spans = append(c.spans, nil)
	}
	start := len(c.buf)
	mems := c.spans[depth][:0]
	i = rawjson.SkipSpace(v, i+1)
	for i < len(v) && v[i] == '"' {
		kend := rawjson.SkipString(v, i)
		if kend < 0 {
			break
		}
		key := v[i+1 : kend-1]
		i = rawjson.SkipSpace(v, kend)
		if i >= len(v) || v[i] != ':' {
			break
		}
		if i = rawjson.SkipSpace(v, i+1); i >= len(v) {
			break
		}
		from := len(c.buf)
		i = rawjson.SkipSpace(v, c.value(v, i, depth+1))
		mems = append(mems, span{key: key, from: from, to: len(c.buf)})
		if i < len(v) && v[i] == ',' {
			i = rawjson.SkipSpace(v, i+1)
		}
	}
	c.spans[depth] = mems
	slices.SortStableFunc(mems, func(a, b span) int { return bytes.Compare(a.key, b.key) })
	mid := len(c.buf)
	c.buf = append(c.buf, '{')
	for k, m := range mems {
		if k > 0 {
			c.buf = append(c.buf, ',')
		}
		c.buf = append(append(append(c.buf, '"'), m.key...), '"', ':')
		c.buf = append(c.buf, c.buf[m.from:m.to]...)
	}
	c.buf = append(c.buf, '}')
	n := copy(c.buf[start:], c.buf[mid:])
	c.buf = c.buf[:start+n]
	return i + 1
}

func readUser(tr *tree, m *message, u rawjson.Object) {
	m.role, m.id = "user", rawjson.AsString(u.Get("id"))
	var texts []string
	for _, c := range tr.arr(u.Get("content")) {
		co := tr.obj(c)
		switch {
		case rawjson.IsString(c):
			texts = append(texts, rawjson.AsString(c))
		case co.Has("Text"):
			texts = append(texts, rawjson.AsString(co.Get("Text")))
		case len(co) == 1:
			m.parts = append(m.parts, transcript.Part{Type: strings.ToLower(co[0].KeyString()), Raw: c})
		default:
			m.parts = append(m.parts, transcript.Part{Type: "unknown", Raw: c})
		}
	}
	m.text = strings.Join(texts, "\n")
}

// scratch holds the messages of a thread, and the items of its agent
// messages, from one thread to the next: what events keep of them is
// their strings and bytes, never the slices.
type scratch struct {
	msgs  []message
	items []item
}

func readAgent(tr *tree, m *message, a rawjson.Object, sc *scratch) {
	m.role = "agent"
	content := tr.arr(a.Get("content"))
	// The items are taken from sc.items (an earlier message's stay where
	// they are should it grow), capped so that no append reaches the next.
	from := len(sc.items)
	sc.items = slices.Grow(sc.items, len(content))
	m.items = sc.items[from : from : from+len(content)]
	defer func() { sc.items = sc.items[:from+len(m.items)] }()
	for _, c := range content {
		co := tr.obj(c)
		it := item{raw: c, kind: "unknown"}
		if len(co) == 1 {
			it.kind = co[0].KeyString()
		}
		v := co.Get(it.kind)
		switch it.kind {
		case "Text", "RedactedThinking":
			it.text = rawjson.AsString(v)
		case "Thinking":
			it.text = rawjson.AsString(tr.obj(v).Get("text"))
		case "ToolUse":
			tu := tr.obj(v)
			it.toolID, it.toolName, it.input = rawjson.AsString(tu.Get("id")), rawjson.AsString(tu.Get("name")), tu.Get("input")
		}
		m.items = append(m.items, it)
	}
	for _, mem := range tr.obj(a.Get("tool_results")) {
		r := tr.obj(mem.Value)
		m.results = append(m.results, result{
			toolUseID: cmpOr(rawjson.AsString(r.Get("tool_use_id")), mem.KeyString()),
			toolName:  rawjson.AsString(r.Get("tool_name")),
			isError:   rawjson.Bool(r.Get("is_error")),
			text:      contentText(tr, r.Get("content")),
			content:   r.Get("content"),
			output:    r.Get("output"),
		})
	}
}

// readLegacy reads a message of the format before 0.3.0 (Zed's first
// agent): {id, role, segments: [{type, text}], tool_uses, tool_results,
// context}.
func readLegacy(tr *tree, m *message, o rawjson.Object) {
	role := rawjson.AsString(o.Get("role"))
	var texts []string
	for _, s := range tr.arr(o.Get("segments")) {
		so := tr.obj(s)
		switch rawjson.AsString(so.Get("type")) {
		case "text":
			texts = append(texts, rawjson.AsString(so.Get("text")))
			m.items = append(m.items, item{kind: "Text", text: rawjson.AsString(so.Get("text")), raw: s})
		case "thinking":
			m.items = append(m.items, item{kind: "Thinking", text: rawjson.AsString(so.Get("text")), raw: s})
		case "redacted_thinking":
			m.items = append(m.items, item{kind: "RedactedThinking", raw: s})
		default:
			m.items = append(m.items, item{kind: "segment/" + rawjson.AsString(so.Get("type")), raw: s})
		}
	}
	switch role {
	case "user":
		m.role, m.items = "user", nil
		m.text = strings.Join(texts, "\n")
		if m.text == "" {
			m.text = rawjson.AsString(o.Get("context"))
		}
		return
	case "assistant":
		m.role = "agent"
	default:
		m.role, m.items = role, nil
		return
	}
	for _, tu := range tr.arr(o.Get("tool_uses")) {
		t := tr.obj(tu)
		m.items = append(m.items, item{kind: "ToolUse", toolID: rawjson.AsString(t.Get("id")), toolName: rawjson.AsString(t.Get("name")),
			input: t.Get("input"), raw: tu})
	}
	for _, res := range tr.arr(o.Get("tool_results")) {
		r := tr.obj(res)
		m.results = append(m.results, result{toolUseID: rawjson.AsString(r.Get("tool_use_id")), isError: rawjson.Bool(r.Get("is_error")),
			text: contentText(tr, r.Get("content")), content: r.Get("content"), output: r.Get("output")})
	}
}

// contentText reads a tool result's content: a string, {"Text": …}, or
// another kind (an image) which has no text.
func contentText(tr *tree, v []byte) string {
	if s, ok := rawjson.String(v); ok {
		return s
	}
	return rawjson.AsString(tr.obj(v).Get("Text"))
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
