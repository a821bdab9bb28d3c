package vault

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"strconv"

	"github.com/adrg/frontmatter"
	"go.yaml.in/yaml/v3"
)

// Note is a markdown file split into its YAML frontmatter and its body. The
// frontmatter is kept as a YAML node tree, so a rewrite keeps every key, comment
// and quoting style a person put there, in order.
type Note struct {
	// fm is the frontmatter mapping; nil when the file has none.
	fm *yaml.Node
	// Body is everything after the closing "---" line, verbatim (line endings
	// included).
	Body []byte
	// crlf records that the file uses Windows line endings; they are kept.
	crlf bool
	// bom records a leading UTF-8 byte order mark; it is kept.
	bom bool
}

// ParseError says why a note's frontmatter cannot be read, and where.
type ParseError struct {
	Path string // set by callers that know it
	Line int    // 1-based line in the file, 0 when unknown
	Msg  string
}

func (e *ParseError) Error() string {
	loc := e.Path
	if loc == "" {
		loc = "note"
	}
	if e.Line > 0 {
		loc += ":" + strconv.Itoa(e.Line)
	}
	return loc + ": frontmatter: " + e.Msg
}

var (
	utf8BOM = []byte("\xef\xbb\xbf")
	// yamlFormat makes adrg/frontmatter decode with YAML v3 (its default is v2).
	yamlFormat = frontmatter.NewFormat("---", "---", yaml.Unmarshal)
	yamlLineRe = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)
)

// ParseNote splits data into frontmatter and body. A file without frontmatter is
// a note with an empty one. Frontmatter must start on the first line, as in
// Obsidian; one that is not closed, is not valid YAML, or is not a mapping is a
// *ParseError, and such a note must never be rewritten.
func ParseNote(data []byte) (*Note, error) {
	n := &Note{}
	if bytes.HasPrefix(data, utf8BOM) {
		n.bom = true
		data = data[len(utf8BOM):]
	}
	first, _, _ := bytes.Cut(data, []byte("\n"))
	n.crlf = bytes.HasSuffix(first, []byte("\r"))
	if string(bytes.TrimRight(first, " \t\r")) != "---" {
		n.Body = data
		return n, nil
	}
	var doc yaml.Node
	body, err := frontmatter.MustParse(bytes.NewReader(data), &doc, yamlFormat)
	switch {
	case errors.Is(err, frontmatter.ErrNotFound):
		return nil, &ParseError{Line: 1, Msg: "the opening '---' has no closing '---' line"}
	case err != nil:
		return nil, yamlError(err)
	}
	n.Body = body
	switch {
	case doc.Kind == 0: // empty frontmatter
		n.fm = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	case doc.Kind == yaml.DocumentNode && len(doc.Content) == 1 && doc.Content[0].Kind == yaml.MappingNode:
		n.fm = doc.Content[0]
	default:
		return nil, &ParseError{Line: 2, Msg: "is not a set of key: value properties"}
	}
	if err := checkKeys(n.fm); err != nil {
		return nil, err
	}
	return n, nil
}

// yamlError turns a YAML error into a ParseError with a file line number (YAML
// counts from the line after the opening "---").
func yamlError(err error) *ParseError {
	msg := err.Error()
	if m := yamlLineRe.FindStringSubmatch(msg); m != nil {
		line, _ := strconv.Atoi(m[1])
		return &ParseError{Line: line + 1, Msg: m[2]}
	}
	return &ParseError{Msg: msg}
}

// checkKeys rejects mappings whose keys are not plain scalars, or repeat: such a
// note cannot be rewritten without guessing.
func checkKeys(m *yaml.Node) error {
	seen := map[string]bool{}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k := m.Content[i]
		if k.Kind != yaml.ScalarNode {
			return &ParseError{Line: k.Line + 1, Msg: "a property name must be plain text"}
		}
		if seen[k.Value] {
			return &ParseError{Line: k.Line + 1, Msg: fmt.Sprintf("property %q appears twice", k.Value)}
		}
		seen[k.Value] = true
	}
	return nil
}

// HasFrontmatter reports whether the note has a frontmatter block.
func (n *Note) HasFrontmatter() bool { return n.fm != nil }

// Has reports whether the frontmatter has key.
func (n *Note) Has(key string) bool { return n.value(key) != nil }

// value returns the value node of key, or nil.
func (n *Note) value(key string) *yaml.Node {
	if n.fm == nil {
		return nil
	}
	for i := 0; i+1 < len(n.fm.Content); i += 2 {
		if n.fm.Content[i].Value == key {
			return n.fm.Content[i+1]
		}
	}
	return nil
}

// Keys lists the frontmatter keys in file order.
func (n *Note) Keys() []string {
	if n.fm == nil {
		return nil
	}
	keys := make([]string, 0, len(n.fm.Content)/2)
	for i := 0; i+1 < len(n.fm.Content); i += 2 {
		keys = append(keys, n.fm.Content[i].Value)
	}
	return keys
}

// set gives key the value v, in place when the key exists, else appended (or
// first, for "id"). A nil v removes the key.
func (n *Note) set(key string, v *yaml.Node) {
	if n.fm == nil {
		n.fm = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	}
	for i := 0; i+1 < len(n.fm.Content); i += 2 {
		if n.fm.Content[i].Value != key {
			continue
		}
		if v == nil {
			n.fm.Content = append(n.fm.Content[:i], n.fm.Content[i+2:]...)
			return
		}
		old := n.fm.Content[i+1]
		v.HeadComment, v.LineComment, v.FootComment = old.HeadComment, old.LineComment, old.FootComment
		n.fm.Content[i+1] = v
		return
	}
	if v == nil {
		return
	}
	k := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: key}
	if key == "id" {
		n.fm.Content = append([]*yaml.Node{k, v}, n.fm.Content...)
		return
	}
	n.fm.Content = append(n.fm.Content, k, v)
}

// Bytes renders the note: frontmatter (when there is one) and body, with the
// file's original line endings and byte order mark.
func (n *Note) Bytes() ([]byte, error) {
	var b bytes.Buffer
	if n.bom {
		b.Write(utf8BOM)
	}
	if n.fm != nil {
		nl := "\n"
		if n.crlf {
			nl = "\r\n"
		}
		b.WriteString("---" + nl)
		if len(n.fm.Content) > 0 {
			var y bytes.Buffer
			enc := yaml.NewEncoder(&y)
			enc.SetIndent(2)
			if err := enc.Encode(n.fm); err != nil {
				return nil, fmt.Errorf("encode frontmatter: %w", err)
			}
			if err := enc.Close(); err != nil {
				return nil, fmt.Errorf("encode frontmatter: %w", err)
			}
			out := y.Bytes()
			if n.crlf {
				out = bytes.ReplaceAll(out, []byte("\n"), []byte("\r\n"))
			}
			b.Write(out)
		}
		b.WriteString("---" + nl)
	}
	b.Write(n.Body)
	return b.Bytes(), nil
}
