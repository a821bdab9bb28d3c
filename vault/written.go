package vault

import (
	"bytes"

	"go.yaml.in/yaml/v3"
)

// ParseWritten is ParseNote for a caller that only reads the note (its
// memory, id and properties), never rewrites it: a note in the plain shape
// cortex writes — properties of one line each, "key: value", and lists of
// "  - item" lines, in printable ASCII with nothing YAML would read another
// way, plain or in double quotes without escapes (cortex's links) — is
// split without the YAML decoder, which was most of a rebuild's
// reading. Any other note is parsed by ParseNote. Both give the same
// memory, id and properties (FuzzParseWritten); the scalars' YAML tags are
// not resolved, which only a rewrite would look at.
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
	var list *yaml.Node // the list the lines are adding to
	line := 0
	for len(text) > 0 {
		l, after, found := bytes.Cut(text, []byte("\n"))
		if !found {
			return nil, false // the closing line follows a newline
		}
		text = after
		line++
		if item, ok := bytes.CutPrefix(l, []byte("  - ")); ok {
			value, style, ok := writtenValue(item)
			if list == nil || !ok {
				return nil, false
			}
			if len(list.Content) == 0 {
				list.Line, list.Column = line, 3
			}
			list.Content = append(list.Content, &yaml.Node{Kind: yaml.ScalarNode, Style: style, Tag: "!!str", Value: value, Line: line, Column: 5})
			continue
		}
		if list != nil && len(list.Content) == 0 {
			return nil, false // "key:" with nothing under it is null
		}
		list = nil
		k, v, ok := bytes.Cut(l, []byte(":"))
		if !ok || !plainKey(k) {
			return nil, false
		}
		key := string(k)
		if _, twice := keyLines[key]; twice {
			return nil, false
		}
		keyLines[key] = line - 1
		kn := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: key, Line: line, Column: 1}
		if len(v) == 0 {
			list = &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
			fm.Content = append(fm.Content, kn, list)
			continue
		}
		v, ok = bytes.CutPrefix(v, []byte(" "))
		if !ok {
			return nil, false
		}
		value, style, ok := writtenValue(v)
		if !ok {
			return nil, false
		}
		fm.Content = append(fm.Content, kn, &yaml.Node{Kind: yaml.ScalarNode, Style: style, Tag: "!!str", Value: value, Line: line, Column: len(key) + 3})
	}
	if list != nil && len(list.Content) == 0 || len(fm.Content) == 0 {
		return nil, false
	}
	n.fm, n.keyLines = fm, keyLines
	return n, true
}

// writtenValue is the text YAML reads a one-line value v as, and its
// style, when it is plain (plainValue) or double-quoted (quotedValue);
// false otherwise.
func writtenValue(v []byte) (string, yaml.Style, bool) {
	if plainValue(v) {
		return string(v), 0, true
	}
	if inner, ok := quotedValue(v); ok {
		return string(inner), yaml.DoubleQuotedStyle, true
	}
	return "", 0, false
}

// quotedValue is the text between the double quotes of v when YAML reads v
// as that text: printable ASCII with neither a backslash (an escape) nor a
// double quote inside. cortex writes its links so ("[[note]]", since a
// bracket would start a list), and about a third of the notes of a vault
// have them.
func quotedValue(v []byte) ([]byte, bool) {
	if len(v) < 3 || v[0] != '"' || v[len(v)-1] != '"' {
		return nil, false
	}
	inner := v[1 : len(v)-1]
	for _, c := range inner {
		if c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
			return nil, false
		}
	}
	return inner, true
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

// plainValue reports whether v is a one-line value YAML reads as the text it
// is: printable ASCII that starts with a letter or digit, ends with neither
// a space nor a colon, holds no ": " (a mapping), " #" (a comment) or tab,
// and is not one of the words YAML reads as null.
func plainValue(v []byte) bool {
	if len(v) == 0 {
		return false
	}
	if c := v[0]; !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
		return false
	}
	for _, c := range v {
		if c < 0x20 || c > 0x7e {
			return false
		}
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
