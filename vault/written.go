package vault

import (
	"bytes"
	"strings"
	"unicode"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// ParseWritten is ParseNote for a caller that only reads the note (its
// memory, id and properties), never rewrites it: a note in the plain shape
// cortex writes — properties of one line each, "key: value", lists of
// "  - item" lines, and one level of nested properties ("provenance:" and
// its "  key: value" lines, lists of "    - item" lines under them), lists
// on one line ("[a, b]", flowList), in printable text with nothing YAML
// would read another way, values plain or double-quoted without escapes —
// is split without the YAML decoder, which was most of a rebuild's
// reading. Any other note is parsed by ParseNote.
// Both give the same memory, id and properties (FuzzParseWritten); the
// scalars' YAML tags are not resolved, which only a rewrite would look at.
func ParseWritten(data []byte) (*Note, error) {
	if n, ok := parseWritten(data); ok {
		return n, nil
	}
	return ParseNote(data)
}

// parseWritten splits data when it is in the plain shape ParseWritten reads
// itself, and reports whether it was.
func parseWritten(data []byte) (*Note, bool) {
	rest, ok := bytes.CutPrefix(data, []byte("---\n"))
	if !ok {
		return nil, false
	}
	text, body, ok := cutFrontmatter(rest)
	if !ok {
		return nil, false
	}
	n := &Note{text: text, Body: body}
	fm := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Line: 1, Column: 1}
	keyLines := map[string]int{}
	// open is the value of the last property given nothing on its line: a
	// list or a nested set of properties, as its first line says (Kind 0
	// until then); sub is the same for the last nested property.
	var open, sub *yaml.Node
	line := 0
	for len(text) > 0 {
		l, after, found := bytes.Cut(text, []byte("\n"))
		if !found {
			return nil, false // the closing line follows a newline
		}
		text = after
		line++
		if item, ok := bytes.CutPrefix(l, []byte("    - ")); ok {
			if sub == nil || !addItem(sub, item, line, 5) {
				return nil, false
			}
			continue
		}
		if sub != nil && len(sub.Content) == 0 {
			return nil, false // "key:" with nothing under it is null
		}
		sub = nil
		if item, ok := bytes.CutPrefix(l, []byte("  - ")); ok {
			if open == nil || open.Kind == yaml.MappingNode || !addItem(open, item, line, 3) {
				return nil, false
			}
			continue
		}
		if nested, ok := bytes.CutPrefix(l, []byte("  ")); ok {
			if open == nil || open.Kind == yaml.SequenceNode {
				return nil, false
			}
			if open.Kind == 0 {
				open.Kind, open.Tag, open.Line, open.Column = yaml.MappingNode, "!!map", line, 3
			}
			k, v, ok := property(nested, line, 3)
			if !ok {
				return nil, false
			}
			for i := 0; i < len(open.Content); i += 2 {
				if open.Content[i].Value == k.Value {
					return nil, false
				}
			}
			open.Content = append(open.Content, k, v)
			if v.Kind == 0 {
				sub = v
			}
			continue
		}
		if open != nil && len(open.Content) == 0 {
			return nil, false
		}
		open = nil
		k, v, ok := property(l, line, 1)
		if !ok {
			return nil, false
		}
		if _, twice := keyLines[k.Value]; twice {
			return nil, false
		}
		keyLines[k.Value] = line - 1
		fm.Content = append(fm.Content, k, v)
		if v.Kind == 0 {
			open = v
		}
	}
	if open != nil && len(open.Content) == 0 || sub != nil && len(sub.Content) == 0 || len(fm.Content) == 0 {
		return nil, false
	}
	n.fm, n.keyLines = fm, keyLines
	return n, true
}

// property reads l, a "key: value" or "key:" line whose key is at column,
// as the key's and the value's nodes; a value of Kind 0 stands for the
// lines that follow.
func property(l []byte, line, column int) (k, v *yaml.Node, ok bool) {
	key, val, ok := bytes.Cut(l, []byte(":"))
	if !ok || !plainKey(key) {
		return nil, nil, false
	}
	k = &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: string(key), Line: line, Column: column}
	if len(val) == 0 {
		return k, &yaml.Node{}, true
	}
	val, ok = bytes.CutPrefix(val, []byte(" "))
	if !ok {
		return nil, nil, false
	}
	if len(val) > 0 && val[0] == '[' {
		v, ok = flowList(val, line, column+len(key)+2)
		return k, v, ok
	}
	s, style, ok := writtenValue(val)
	if !ok {
		return nil, nil, false
	}
	return k, &yaml.Node{Kind: yaml.ScalarNode, Style: style, Tag: "!!str", Value: s, Line: line, Column: column + len(key) + 2}, true
}

// flowList reads v, a list on one line in YAML's flow style whose "[" is at
// column of line: "[]", or "[a, b]" — items that are plain values
// (plainValue) of letters, digits and a few signs (flowItem), separated by
// a comma and one space, "[" and "]" tight around them. That is how tags
// are often written by hand ("tags: [deploy, infra]"), and YAML reads each
// item as the text it is.
func flowList(v []byte, line, column int) (*yaml.Node, bool) {
	if len(v) < 2 || v[len(v)-1] != ']' {
		return nil, false
	}
	list := &yaml.Node{Kind: yaml.SequenceNode, Style: yaml.FlowStyle, Tag: "!!seq", Line: line, Column: column}
	in := v[1 : len(v)-1]
	if len(in) == 0 {
		return list, true
	}
	at := column + 1
	for {
		item, rest, more := bytes.Cut(in, []byte(", "))
		if !plainValue(item) || !flowItem(item) {
			return nil, false
		}
		list.Content = append(list.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: string(item), Line: line, Column: at})
		if !more {
			return list, true
		}
		at += utf8.RuneCount(item) + 2 // YAML counts columns in characters
		in = rest
	}
}

// flowItem reports whether an item of a flow list holds only letters,
// digits and marks, and of ASCII "-", "_", ".", "/", "+" and spaces: nothing
// that ends a plain value in a flow list ("?", ",", a bracket or brace, a
// colon) or would start a comment.
func flowItem(item []byte) bool {
	for _, r := range string(item) {
		switch {
		case r < utf8.RuneSelf:
			if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./+ ", r)) {
				return false
			}
		case !unicode.In(r, unicode.Letter, unicode.Digit, unicode.Mark):
			return false
		}
	}
	return true
}

// addItem adds item, read on line with its "-" at column, to list, which
// becomes a list with its first item.
func addItem(list *yaml.Node, item []byte, line, column int) bool {
	val, style, ok := writtenValue(item)
	if !ok {
		return false
	}
	if list.Kind == 0 {
		list.Kind, list.Tag, list.Line, list.Column = yaml.SequenceNode, "!!seq", line, column
	}
	list.Content = append(list.Content, &yaml.Node{Kind: yaml.ScalarNode, Style: style, Tag: "!!str", Value: val, Line: line, Column: column + 2})
	return true
}

// plainKey reports whether k is a property name YAML reads as itself: lower
// case letters, digits and underscores, starting with a letter.
func plainKey(k []byte) bool {
	if len(k) == 0 || k[0] < 'a' || k[0] > 'z' {
		return false
	}
	for _, c := range k {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

// writtenValue is the text of a one-line value in the shape cortex writes,
// and its YAML style: a plain value (plainValue), or a double-quoted one whose
// text is printable (printable) without a quote or a backslash, which YAML
// reads as that text — the related links cortex writes ("[[name]]") are.
func writtenValue(v []byte) (string, yaml.Style, bool) {
	if plainValue(v) {
		return string(v), 0, true
	}
	if len(v) < 3 || v[0] != '"' || v[len(v)-1] != '"' {
		return "", 0, false
	}
	in := v[1 : len(v)-1]
	if !printable(in) || bytes.ContainsAny(in, "\"\\") {
		return "", 0, false
	}
	return string(in), yaml.DoubleQuotedStyle, true
}

// printable reports whether v is text YAML reads as it is within a line:
// printable ASCII, and valid UTF-8 of characters YAML allows in a document
// that it does not read as a line break (U+0085, U+2028, U+2029) or a byte
// order mark (U+FEFF) — the titles of notes in other languages. The C1
// controls (U+0080–U+009F) and the surrogates are not allowed.
func printable(v []byte) bool {
	for i := 0; i < len(v); {
		c := v[i]
		if c < utf8.RuneSelf {
			if c < 0x20 || c > 0x7e {
				return false
			}
			i++
			continue
		}
		r, size := utf8.DecodeRune(v[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			return false
		case r >= 0xa0 && r <= 0xd7ff && r != 0x2028 && r != 0x2029:
		case r >= 0xe000 && r <= 0xfffd && r != 0xfeff:
		case r >= 0x10000 && r <= utf8.MaxRune:
		default:
			return false
		}
		i += size
	}
	return true
}

// plainValue reports whether v is a one-line value YAML reads as the text it
// is: printable (printable), starting with a letter or digit of ASCII or any
// other character printable allows (YAML's indicators are all ASCII), ending
// with neither a space nor a colon, holding no ": " (a mapping), " #" (a
// comment) or tab, and not one of the words YAML reads as null.
func plainValue(v []byte) bool {
	if len(v) == 0 {
		return false
	}
	if c := v[0]; !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c >= utf8.RuneSelf) {
		return false
	}
	if !printable(v) {
		return false
	}
	if c := v[len(v)-1]; c == ' ' || c == ':' {
		return false
	}
	if bytes.Contains(v, []byte(": ")) || bytes.Contains(v, []byte(" #")) {
		return false
	}
	switch string(v) {
	case "null", "Null", "NULL":
		return false
	}
	return true
}
