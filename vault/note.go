package vault

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/adrg/frontmatter"
	"go.yaml.in/yaml/v3"
)

// Note is a markdown file split into its YAML frontmatter and its body. The
// frontmatter is kept as a YAML node tree, so a rewrite keeps every key, comment
// and quoting style a person put there, in order.
type Note struct {
	// fm is the frontmatter mapping; nil when the file has none.
	fm *yaml.Node
	// text is the frontmatter as it was in the file, and keyLines where each
	// of its top-level properties starts: a rewrite changes the lines of the
	// properties it sets and leaves every other byte as the person wrote it.
	text     []byte
	keyLines map[string]int
	// edited lists the properties set since parsing, in order.
	edited []string
	// Body is everything after the closing "---" line, verbatim (line endings
	// included).
	Body []byte
	// crlf records that the file uses Windows line endings; they are kept.
	crlf bool
	// bom records a leading UTF-8 byte order mark; it is kept.
	bom bool
	// folder is cortex's folder relative to the vault root, which links the
	// note writes to other notes start with ("" writes paths relative to
	// cortex's folder).
	folder string
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
	// yamlFormat makes adrg/frontmatter decode with YAML v3 (its default is v2),
	// into a node tree, refusing a second document.
	yamlFormat = frontmatter.NewFormat("---", "---", decodeFrontmatter)
	yamlLineRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^yaml: line (\d+): (.*)$`) })
)

// decodeFrontmatter decodes YAML text into v, a *yaml.Node. A second document
// ("--- x", or "..." followed by more keys) is an error: a rewrite would drop it.
func decodeFrontmatter(text []byte, v any) error {
	doc, ok := v.(*yaml.Node)
	if !ok {
		return fmt.Errorf("frontmatter decodes into a *yaml.Node, not %T", v)
	}
	dec := yaml.NewDecoder(bytes.NewReader(text))
	if err := dec.Decode(doc); err != nil && !errors.Is(err, io.EOF) {
		return err
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		if err != nil {
			return err
		}
		return &ParseError{Line: extra.Line + 1, Msg: "holds more than one YAML document"}
	}
	return nil
}

// hasIndentedDelimiter reports whether text holds a line that is "---" once its
// spaces are trimmed but not at the line's start.
func hasIndentedDelimiter(text []byte) bool {
	for _, line := range bytes.Split(text, []byte("\n")) {
		if string(bytes.TrimSpace(line)) == "---" && !isDelimiter(line) {
			return true
		}
	}
	return false
}

// frontmatterError words a decoding error as a ParseError with a file line.
func frontmatterError(err error, text []byte) *ParseError {
	var pe *ParseError
	if errors.As(err, &pe) {
		return pe
	}
	return yamlError(err, text)
}

// NoteBody is the body ParseNote gives a note's bytes, found without decoding
// the properties: for a caller that knows the bytes parse (they are those a
// catalog record was made from) and needs only the text. ok is false where
// ParseNote would fail to find the properties' end.
func NoteBody(data []byte) (body []byte, ok bool) {
	data = bytes.TrimPrefix(data, utf8BOM)
	first, rest, _ := bytes.Cut(data, []byte("\n"))
	if !isDelimiter(first) {
		return data, true
	}
	_, body, ok = cutFrontmatter(rest)
	return body, ok
}

// ParseNote splits data into frontmatter and body. A file without frontmatter is
// a note with an empty one. Frontmatter must start on the first line, as in
// Obsidian; one that is not closed, is not valid YAML, is more than one YAML
// document, or is not a mapping is a *ParseError, and such a note must never be
// rewritten.
func ParseNote(data []byte) (*Note, error) {
	n := &Note{}
	if bytes.HasPrefix(data, utf8BOM) {
		n.bom = true
		data = data[len(utf8BOM):]
	}
	first, rest, _ := bytes.Cut(data, []byte("\n"))
	n.crlf = bytes.HasSuffix(first, []byte("\r"))
	if !isDelimiter(first) {
		if second, _, _ := bytes.Cut(rest, []byte("\n")); isMarker(first, '<') && isDelimiter(second) {
			// A merge conflict that takes in the opening "---": the
			// properties are in it.
			return nil, &ParseError{Line: 1, Msg: conflictMsg}
		}
		n.Body = data
		return n, nil
	}
	text, body, ok := cutFrontmatter(rest)
	if !ok {
		if h := ConflictMarkers(rest); len(h) > 0 {
			return nil, &ParseError{Line: h[0].Start + 1, Msg: conflictMsg}
		}
		return nil, &ParseError{Line: 1, Msg: "the opening '---' has no closing '---' line"}
	}
	if l := frontmatterMarker(text); l > 0 {
		// Found before the YAML is decoded, which would name a line of
		// one side's version with a message about YAML syntax.
		return nil, &ParseError{Line: l + 1, Msg: conflictMsg}
	}
	n.Body = body
	var doc yaml.Node
	if hasIndentedDelimiter(text) {
		// adrg/frontmatter would end the frontmatter at this line (it trims
		// every line); Obsidian does not, and neither do we: decode the text
		// ourselves rather than cut a property short.
		if err := decodeFrontmatter(text, &doc); err != nil {
			return nil, frontmatterError(err, text)
		}
	} else {
		// Only the frontmatter and its closing line: adrg/frontmatter
		// copies whatever follows into a growing buffer, and all that is
		// asked of it is that it end the properties where cutFrontmatter
		// did. It ends them at that line or before (it trims every line),
		// so it agrees when it leaves nothing after them.
		got, err := frontmatter.MustParse(bytes.NewReader(data[:len(data)-len(body)]), &doc, yamlFormat)
		if err != nil {
			return nil, frontmatterError(err, text)
		}
		if len(got) != 0 {
			return nil, &ParseError{Line: 1, Msg: "cannot find where the properties end"}
		}
	}
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
	n.text = text
	n.keyLines = make(map[string]int, len(n.fm.Content)/2)
	for i := 0; i+1 < len(n.fm.Content); i += 2 {
		n.keyLines[n.fm.Content[i].Value] = n.fm.Content[i].Line - 1
	}
	return n, nil
}

// isDelimiter reports whether line opens or closes frontmatter: "---" at the
// start of the line, spaces after it allowed.
func isDelimiter(line []byte) bool {
	return string(bytes.TrimRight(line, " \t\r")) == "---"
}

// cutFrontmatter splits what follows the opening line at the closing one. As in
// Obsidian, only a "---" at the start of a line closes the frontmatter: an
// indented one is YAML text (a block scalar may hold a markdown rule). The split
// is checked against adrg/frontmatter's, which reads the properties.
func cutFrontmatter(rest []byte) (text, body []byte, ok bool) {
	for pos := 0; pos < len(rest); {
		line, _, found := bytes.Cut(rest[pos:], []byte("\n"))
		next := pos + len(line)
		if found {
			next++
		}
		if isDelimiter(line) {
			return rest[:pos], rest[next:], true
		}
		pos = next
	}
	return nil, nil, false
}

// yamlError turns a YAML error in text into a ParseError with a file line
// number (YAML counts from the line after the opening "---"). An error found at
// the end of text, such as a bracket never closed, is put on its last line
// rather than on the closing "---".
func yamlError(err error, text []byte) *ParseError {
	msg := err.Error()
	if m := yamlLineRe().FindStringSubmatch(msg); m != nil {
		line, _ := strconv.Atoi(m[1])
		if yamlParserProblems()[m[2]] {
			line++
		}
		last := 0
		for i, l := range bytes.Split(text, []byte("\n")) {
			if len(bytes.TrimSpace(l)) > 0 {
				last = i + 1
			}
		}
		return &ParseError{Line: min(line, last) + 1, Msg: m[2]}
	}
	return &ParseError{Msg: msg}
}

// yamlParserProblems are the messages of YAML's parser errors, as opposed to its
// scanner's: yaml.v3 counts the parser's lines from 0 and the scanner's from 1.
// Made on first use, not as every command starts.
var yamlParserProblems = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		"did not find expected ',' or ']'":       true,
		"did not find expected ',' or '}'":       true,
		"did not find expected '-' indicator":    true,
		"did not find expected <document start>": true,
		"did not find expected <stream-start>":   true,
		"did not find expected key":              true,
		"did not find expected node content":     true,
		"found duplicate %TAG directive":         true,
		"found duplicate %YAML directive":        true,
		"found incompatible YAML document":       true,
		"found undefined tag handle":             true,
	}
})

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
	_, v := n.pair(key)
	return v
}

// pair returns the key and value nodes of key, or nils.
func (n *Note) pair(key string) (*yaml.Node, *yaml.Node) {
	if n.fm == nil {
		return nil, nil
	}
	for i := 0; i+1 < len(n.fm.Content); i += 2 {
		if n.fm.Content[i].Value == key {
			return n.fm.Content[i], n.fm.Content[i+1]
		}
	}
	return nil, nil
}

// IsList reports whether the property key is a list.
func (n *Note) IsList(key string) bool {
	v := n.value(key)
	return v != nil && v.Kind == yaml.SequenceNode
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
		if v == nil {
			return // nothing to remove; do not add an empty frontmatter
		}
		n.fm = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	}
	if !slices.Contains(n.edited, key) {
		n.edited = append(n.edited, key)
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
		if out, ok := n.splice(); ok {
			b.Write(out)
		} else if len(n.fm.Content) > 0 {
			out, err := encodeYAML(n.fm)
			if err != nil {
				return nil, err
			}
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

// encodeYAML renders a node as YAML with two-space indents: as yaml.v3
// does, by fastYAML when it can.
func encodeYAML(node *yaml.Node) ([]byte, error) {
	foldedToLiteral(node)
	if out, ok := fastYAML(node); ok {
		return out, nil
	}
	return encodeYAMLv3(node)
}

// encodeYAMLv3 renders a node as YAML with two-space indents by yaml.v3.
func encodeYAMLv3(node *yaml.Node) ([]byte, error) {
	var y bytes.Buffer
	enc := yaml.NewEncoder(&y)
	enc.SetIndent(2)
	if err := enc.Encode(node); err != nil {
		return nil, fmt.Errorf("encode frontmatter: %w", err)
	}
	if err := enc.Close(); err != nil {
		return nil, fmt.Errorf("encode frontmatter: %w", err)
	}
	return y.Bytes(), nil
}

// splice renders the frontmatter by editing the text it was read from: the lines
// of each property set since parsing are replaced (or removed, or added — "id"
// first, others last), every other line is kept byte for byte, so a rewrite
// touches nothing a person wrote beyond what it must. ok is false when there is
// no such text, or the edited text would not read back as the properties now
// are; Bytes then encodes the whole frontmatter.
func (n *Note) splice() ([]byte, bool) {
	if n.text == nil {
		return nil, false
	}
	if len(n.edited) == 0 {
		return n.text, true
	}
	lines := strings.SplitAfter(string(n.text), "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	// Each property owns its first line and the lines that continue it:
	// indented ones, sequence items, and blank lines inside them.
	type span struct{ from, to int }
	spans := map[string]span{}
	for key, from := range n.keyLines {
		to := from + 1
		for j := to; j < len(lines); j++ {
			l := strings.TrimRight(lines[j], "\r\n")
			if l == "" {
				continue
			}
			if l[0] != ' ' && l[0] != '\t' && l[0] != '-' {
				break
			}
			to = j + 1
		}
		spans[key] = span{from, to}
	}
	replace := map[int]string{} // first line of a span → its new text
	drop := map[int]bool{}
	var head, tail strings.Builder
	for _, key := range n.edited {
		k, v := n.pair(key)
		var text string
		if v != nil {
			one := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Content: []*yaml.Node{
				withoutHeadComment(k), withoutHeadComment(v)}}
			out, err := encodeYAML(one)
			if err != nil {
				return nil, false
			}
			text = string(out)
			if n.crlf {
				text = strings.ReplaceAll(text, "\n", "\r\n")
			}
		}
		sp, existed := spans[key]
		switch {
		case existed:
			replace[sp.from] = text
			for j := sp.from + 1; j < sp.to; j++ {
				drop[j] = true
			}
		case key == "id":
			head.WriteString(text)
		default:
			tail.WriteString(text)
		}
	}
	var b strings.Builder
	b.WriteString(head.String())
	for j, l := range lines {
		if text, ok := replace[j]; ok {
			b.WriteString(text)
		} else if !drop[j] {
			b.WriteString(l)
		}
	}
	if tail.Len() > 0 && len(lines) > 0 && !strings.HasSuffix(lines[len(lines)-1], "\n") {
		b.WriteString("\n")
	}
	b.WriteString(tail.String())
	out := []byte(b.String())
	if !sameProperties(out, n.fm) {
		return nil, false
	}
	return out, true
}

// withoutHeadComment copies v without the comments above it, which stay in the
// lines kept around it.
func withoutHeadComment(v *yaml.Node) *yaml.Node {
	c := *v
	c.HeadComment, c.FootComment = "", ""
	return &c
}

// sameProperties reports whether text reads back as the properties of fm: the
// same keys in the same order with the same values.
func sameProperties(text []byte, fm *yaml.Node) bool {
	var doc yaml.Node
	if err := decodeFrontmatter(text, &doc); err != nil {
		return false
	}
	var got, want any
	if len(doc.Content) == 1 {
		if doc.Content[0].Decode(&got) != nil {
			return false
		}
	}
	if fm.Decode(&want) != nil {
		return false
	}
	if len(fm.Content) == 0 {
		return got == nil || reflect.DeepEqual(got, map[string]any{})
	}
	gotKeys := []string{}
	if len(doc.Content) == 1 {
		for i := 0; i+1 < len(doc.Content[0].Content); i += 2 {
			gotKeys = append(gotKeys, doc.Content[0].Content[i].Value)
		}
	}
	wantKeys := []string{}
	for i := 0; i+1 < len(fm.Content); i += 2 {
		wantKeys = append(wantKeys, fm.Content[i].Value)
	}
	return slices.Equal(gotKeys, wantKeys) && reflect.DeepEqual(got, want)
}

// foldedToLiteral turns folded block scalars (">") that have an indented line
// into literal ones ("|"), which mean the same: yaml.v3 writes such folded
// scalars back with extra line breaks, which changes their value.
func foldedToLiteral(n *yaml.Node) {
	if n.Kind == yaml.ScalarNode && n.Style&yaml.FoldedStyle != 0 && hasIndentedLine(n.Value) {
		n.Style = n.Style&^yaml.FoldedStyle | yaml.LiteralStyle
	}
	for _, c := range n.Content {
		foldedToLiteral(c)
	}
}

func hasIndentedLine(s string) bool {
	for _, line := range strings.Split(s, "\n") {
		if strings.HasPrefix(line, " ") || strings.HasPrefix(line, "\t") {
			return true
		}
	}
	return false
}
