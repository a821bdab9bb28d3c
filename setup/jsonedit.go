package setup

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
)

// Edits to a JSON document are splices of text at the places the reader found.
// Each one is the inverse of another: removing what an insertion added gives
// the bytes back, so uninstall restores the file cortex found. (The one
// exception is a container that was empty: "{ }" and "{\n}" both come back
// as "{}", and an emptied list or object of cortex's is removed with its key.)

// jnode is a value cortex writes: an object with ordered keys, a list, a
// string or an integer.
type jnode any

// jobj is an object whose keys keep the order they are given in.
type jobj []jfield

type jfield struct {
	key string
	val jnode
}

// quote encodes s as a JSON string, leaving <, > and & as they are (paths
// and shell commands are easier to read that way).
func quote(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	return strings.TrimSuffix(b.String(), "\n")
}

// render writes v as JSON. Inline renders it on one line with ", " and ": "
// between items, as people write short lists; otherwise each item is on its own
// line, indented by indent plus one unit per level.
func render(v jnode, indent, unit, nl string, inline bool) string {
	var b strings.Builder
	renderTo(&b, v, indent, unit, nl, inline)
	return b.String()
}

func renderTo(b *strings.Builder, v jnode, indent, unit, nl string, inline bool) {
	switch v := v.(type) {
	case string:
		b.WriteString(quote(v))
	case int:
		b.WriteString(strconv.Itoa(v))
	case []jnode:
		if len(v) == 0 {
			b.WriteString("[]")
			return
		}
		if !inline && scalars(v) {
			inline = true // a short list of words stays on one line: ["mcp"]
		}
		b.WriteByte('[')
		for i, e := range v {
			if i > 0 {
				b.WriteByte(',')
				if inline {
					b.WriteByte(' ')
				}
			}
			if !inline {
				b.WriteString(nl + indent + unit)
			}
			renderTo(b, e, indent+unit, unit, nl, inline)
		}
		if !inline {
			b.WriteString(nl + indent)
		}
		b.WriteByte(']')
	case jobj:
		if len(v) == 0 {
			b.WriteString("{}")
			return
		}
		b.WriteByte('{')
		for i, f := range v {
			if i > 0 {
				b.WriteByte(',')
				if inline {
					b.WriteByte(' ')
				}
			}
			if !inline {
				b.WriteString(nl + indent + unit)
			}
			b.WriteString(quote(f.key) + ": ")
			renderTo(b, f.val, indent+unit, unit, nl, inline)
		}
		if !inline {
			b.WriteString(nl + indent)
		}
		b.WriteByte('}')
	default:
		panic("setup: render: unsupported value") // a programming error: cortex writes only the types above
	}
}

// scalars reports whether a list holds only strings and numbers.
func scalars(l []jnode) bool {
	for _, e := range l {
		switch e.(type) {
		case string, int:
		default:
			return false
		}
	}
	return true
}

// style is how a document is laid out: its newline and indentation unit, so
// what cortex adds looks like what is around it.
type style struct {
	nl, unit string
}

// styleOf finds the document's newline (CRLF or LF) and indentation unit (the
// indentation of the root object's first member when it has its own line;
// two spaces otherwise).
func styleOf(src []byte, root *jvalue) style {
	st := style{nl: "\n", unit: "  "}
	if i := bytes.IndexByte(src, '\n'); i > 0 && src[i-1] == '\r' {
		st.nl = "\r\n"
	}
	if root == nil || root.kind != kindObject || len(root.members) == 0 {
		return st
	}
	first := root.members[0].keyStart
	if !startsLine(src, first) {
		return st
	}
	base, ind := lineIndent(src, root.start), lineIndent(src, first)
	if strings.HasPrefix(ind, base) && len(ind) > len(base) {
		st.unit = ind[len(base):]
	}
	return st
}

// lineStart is the offset where the line holding off begins.
func lineStart(src []byte, off int) int {
	i := off
	for i > 0 && src[i-1] != '\n' {
		i--
	}
	return i
}

// lineIndent is the spaces and tabs that begin the line holding off.
func lineIndent(src []byte, off int) string {
	s := lineStart(src, off)
	e := s
	for e < len(src) && (src[e] == ' ' || src[e] == '\t') {
		e++
	}
	return string(src[s:e])
}

// startsLine reports whether only spaces and tabs come before off on its line.
func startsLine(src []byte, off int) bool {
	for i := off - 1; i >= 0; i-- {
		switch src[i] {
		case ' ', '\t':
		case '\n':
			return true
		default:
			return false
		}
	}
	return true
}

// blank reports whether b holds only whitespace and, when commas is set,
// commas: no comment, nothing a person wrote.
func blank(b []byte, commas bool) bool {
	for _, c := range b {
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
		case c == ',' && commas:
		default:
			return false
		}
	}
	return true
}

// span is one item of a container: an object member from its key to the end
// of its value, or a list element.
type span struct{ start, end int }

func items(c *jvalue) []span {
	var out []span
	if c.kind == kindObject {
		for _, m := range c.members {
			out = append(out, span{m.keyStart, m.val.end})
		}
		return out
	}
	for _, e := range c.elems {
		out = append(out, span{e.start, e.end})
	}
	return out
}

func splice(src []byte, start, end int, text string) []byte {
	out := make([]byte, 0, len(src)-(end-start)+len(text))
	out = append(out, src[:start]...)
	out = append(out, text...)
	return append(out, src[end:]...)
}

// insertItem adds an item at the end of container c. text renders the item
// for an indentation and a layout (inline or one item per line). The item
// follows the layout of the items already there.
func insertItem(src []byte, c *jvalue, st style, text func(indent string, inline bool) string) []byte {
	its := items(c)
	open, closing := c.start, c.end-1
	if len(its) > 0 {
		last := its[len(its)-1]
		before := open + 1
		if len(its) > 1 {
			before = its[len(its)-2].end
		}
		if bytes.ContainsRune(src[before:last.start], '\n') {
			ind := lineIndent(src, last.start)
			return splice(src, last.end, last.end, ","+st.nl+ind+text(ind, false))
		}
		return splice(src, last.end, last.end, ", "+text("", true))
	}
	base := lineIndent(src, open)
	ind := base + st.unit
	if blank(src[open+1:closing], false) {
		return splice(src, open+1, closing, st.nl+ind+text(ind, false)+st.nl+base)
	}
	// Comments inside an empty container stay; the item goes after them.
	if startsLine(src, closing) {
		at := lineStart(src, closing)
		return splice(src, at, at, ind+text(ind, false)+st.nl)
	}
	return splice(src, closing, closing, st.nl+ind+text(ind, false)+st.nl+base)
}

// removeItem deletes item i of container c with the comma that separates it,
// the inverse of insertItem.
func removeItem(src []byte, c *jvalue, i int) []byte {
	its := items(c)
	it := its[i]
	open, closing := c.start, c.end-1
	switch {
	case len(its) == 1:
		if blank(src[open+1:it.start], false) && blank(src[it.end:closing], true) {
			return splice(src, open+1, closing, "")
		}
		return removeLine(src, it.start, afterComma(src, it.end))
	case i > 0:
		prev := its[i-1]
		if blank(src[prev.end:it.start], true) {
			return splice(src, prev.end, it.end, "")
		}
		// Comments between the two items stay: remove the comma after prev,
		// then the item (with its line when it has one to itself).
		comma := separator(src, prev.end, it.start)
		out := removeLine(src, it.start, it.end)
		return splice(out, comma, comma+1, "")
	default:
		next := its[1]
		if blank(src[it.end:next.start], true) {
			return splice(src, it.start, next.start, "")
		}
		end := afterComma(src, it.end)
		for end < len(src) && (src[end] == ' ' || src[end] == '\t') {
			end++
		}
		return splice(src, it.start, end, "")
	}
}

// afterComma is the offset after a comma that directly follows end (spaces
// allowed), or end.
func afterComma(src []byte, end int) int {
	i := end
	for i < len(src) && (src[i] == ' ' || src[i] == '\t') {
		i++
	}
	if i < len(src) && src[i] == ',' {
		return i + 1
	}
	return end
}

// separator is the offset of the comma between two items, found between from
// and to outside comments (a comment may hold commas of its own).
func separator(src []byte, from, to int) int {
	p := &jparser{src: src[:to], pos: from}
	for p.pos < to {
		_ = p.skip() // the document was read whole: comments here are closed
		if p.pos < to && src[p.pos] == ',' {
			return p.pos
		}
		p.pos++
	}
	panic("setup: no comma between two items") // the reader found one there
}

// removeLine deletes src[start:end]. When the text has its line to itself,
// the newline before it goes too, so no blank line is left; otherwise only the
// text goes (the line before may end in a // comment, which must not swallow
// what follows).
func removeLine(src []byte, start, end int) []byte {
	rest := end
	for rest < len(src) && (src[rest] == ' ' || src[rest] == '\t' || src[rest] == '\r') {
		rest++
	}
	if startsLine(src, start) && (rest == len(src) || src[rest] == '\n') {
		if ls := lineStart(src, start); ls > 0 {
			start = ls - 1
			if start > 0 && src[start-1] == '\r' {
				start--
			}
		}
	}
	return splice(src, start, end, "")
}
