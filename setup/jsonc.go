package setup

import (
	"fmt"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// The JSON reader here keeps what encoding/json throws away: where every value,
// key and comma is in the file. Setup edits a person's configuration by splicing
// text at those places, so every byte outside cortex's own entries stays as it
// was: comments, key order, spacing, the final newline.
//
// It reads JSON with comments (// and /* */) and trailing commas, as Gemini CLI
// and Cursor accept, so such a file is kept rather than refused; what setup
// writes is always plain JSON.

// kind is the type of a JSON value.
type kind uint8

const (
	kindObject kind = iota + 1
	kindArray
	kindString
	kindNumber
	kindBool
	kindNull
)

// maxDepth bounds nesting, so a hostile file cannot exhaust the stack.
const maxDepth = 512

// jvalue is a parsed value and where it is in the source.
type jvalue struct {
	kind       kind
	start, end int // the value's bytes are src[start:end]

	members []jmember // objects
	elems   []*jvalue // arrays
	str     string    // strings, decoded
}

// jmember is one key and its value in an object.
type jmember struct {
	key      string
	keyStart int // offset of the key's opening quote
	val      *jvalue
}

// member returns the value of key in an object, the index of its member, and
// an error when the key appears more than once: a client reading the file keeps
// one of them and cortex cannot know which, so it refuses to guess.
func (v *jvalue) member(src []byte, key string) (*jvalue, int, error) {
	found, idx := (*jvalue)(nil), -1
	for i, m := range v.members {
		if m.key != key {
			continue
		}
		if found != nil {
			return nil, -1, &SyntaxError{Line: lineOf(src, m.keyStart), Column: columnOf(src, m.keyStart),
				Msg: fmt.Sprintf("%q appears twice in the same object (first on line %d)", key, lineOf(src, v.members[idx].keyStart))}
		}
		found, idx = m.val, i
	}
	return found, idx, nil
}

// SyntaxError is a file setup cannot read, with the place it stopped.
type SyntaxError struct {
	Path         string // set by the caller that knows the file
	Line, Column int    // 1-based; the column counts bytes
	Msg          string
}

func (e *SyntaxError) Error() string {
	if e.Path == "" {
		return fmt.Sprintf("line %d, column %d: %s", e.Line, e.Column, e.Msg)
	}
	return fmt.Sprintf("%s: line %d, column %d: %s", e.Path, e.Line, e.Column, e.Msg)
}

func lineOf(src []byte, off int) int {
	n := 1
	for _, c := range src[:min(off, len(src))] {
		if c == '\n' {
			n++
		}
	}
	return n
}

func columnOf(src []byte, off int) int {
	off = min(off, len(src))
	i := off
	for i > 0 && src[i-1] != '\n' {
		i--
	}
	return off - i + 1
}

// parseJSON reads a whole document. An empty document (nothing but spaces and
// comments) returns a nil value and no error: a file with nothing in it holds
// no setting yet.
func parseJSON(src []byte) (*jvalue, error) {
	p := &jparser{src: src}
	if len(src) >= 3 && src[0] == 0xEF && src[1] == 0xBB && src[2] == 0xBF {
		p.pos = 3 // a byte order mark: kept, never read
	}
	if err := p.skip(); err != nil {
		return nil, err
	}
	if p.pos == len(src) {
		return nil, nil
	}
	v, err := p.value(0)
	if err != nil {
		return nil, err
	}
	if err := p.skip(); err != nil {
		return nil, err
	}
	if p.pos != len(src) {
		return nil, p.errf("unexpected %s after the end of the document", p.what())
	}
	return v, nil
}

type jparser struct {
	src []byte
	pos int
}

func (p *jparser) errf(format string, a ...any) error {
	return &SyntaxError{Line: lineOf(p.src, p.pos), Column: columnOf(p.src, p.pos), Msg: fmt.Sprintf(format, a...)}
}

// what names the byte at the current position for an error message.
func (p *jparser) what() string {
	if p.pos >= len(p.src) {
		return "end of file"
	}
	r, _ := utf8.DecodeRune(p.src[p.pos:])
	if r == utf8.RuneError || r < 0x20 {
		return fmt.Sprintf("byte 0x%02x", p.src[p.pos])
	}
	return strconv.QuoteRune(r)
}

// skip passes over spaces and comments.
func (p *jparser) skip() error {
	for p.pos < len(p.src) {
		switch c := p.src[p.pos]; {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			p.pos++
		case c == '/' && p.pos+1 < len(p.src) && p.src[p.pos+1] == '/':
			for p.pos < len(p.src) && p.src[p.pos] != '\n' {
				p.pos++
			}
		case c == '/' && p.pos+1 < len(p.src) && p.src[p.pos+1] == '*':
			start := p.pos
			p.pos += 2
			for {
				if p.pos+1 >= len(p.src) {
					p.pos = start
					return p.errf("a /* comment is never closed")
				}
				if p.src[p.pos] == '*' && p.src[p.pos+1] == '/' {
					p.pos += 2
					break
				}
				p.pos++
			}
		default:
			return nil
		}
	}
	return nil
}

func (p *jparser) value(depth int) (*jvalue, error) {
	if depth > maxDepth {
		return nil, p.errf("values are nested more than %d deep", maxDepth)
	}
	if p.pos >= len(p.src) {
		return nil, p.errf("unexpected end of file: a value is missing")
	}
	switch c := p.src[p.pos]; {
	case c == '{':
		return p.object(depth)
	case c == '[':
		return p.array(depth)
	case c == '"':
		start := p.pos
		s, err := p.string()
		if err != nil {
			return nil, err
		}
		return &jvalue{kind: kindString, start: start, end: p.pos, str: s}, nil
	case c == '-' || c >= '0' && c <= '9':
		return p.number()
	case c == 't':
		return p.literal("true", kindBool)
	case c == 'f':
		return p.literal("false", kindBool)
	case c == 'n':
		return p.literal("null", kindNull)
	}
	return nil, p.errf("unexpected %s where a value should be", p.what())
}

func (p *jparser) literal(word string, k kind) (*jvalue, error) {
	start := p.pos
	if len(p.src)-p.pos < len(word) || string(p.src[p.pos:p.pos+len(word)]) != word {
		return nil, p.errf("unexpected %s where a value should be", p.what())
	}
	p.pos += len(word)
	return &jvalue{kind: k, start: start, end: p.pos}, nil
}

func (p *jparser) number() (*jvalue, error) {
	start := p.pos
	digits := func() int {
		n := 0
		for p.pos < len(p.src) && p.src[p.pos] >= '0' && p.src[p.pos] <= '9' {
			p.pos++
			n++
		}
		return n
	}
	if p.src[p.pos] == '-' {
		p.pos++
	}
	switch {
	case p.pos < len(p.src) && p.src[p.pos] == '0':
		p.pos++
	case digits() == 0:
		return nil, p.errf("a number needs digits")
	}
	if p.pos < len(p.src) && p.src[p.pos] == '.' {
		p.pos++
		if digits() == 0 {
			return nil, p.errf("a number needs digits after its decimal point")
		}
	}
	if p.pos < len(p.src) && (p.src[p.pos] == 'e' || p.src[p.pos] == 'E') {
		p.pos++
		if p.pos < len(p.src) && (p.src[p.pos] == '+' || p.src[p.pos] == '-') {
			p.pos++
		}
		if digits() == 0 {
			return nil, p.errf("a number needs digits in its exponent")
		}
	}
	return &jvalue{kind: kindNumber, start: start, end: p.pos}, nil
}

// string reads a string at the current position and returns it decoded.
func (p *jparser) string() (string, error) {
	start := p.pos
	p.pos++ // the opening quote
	var out []byte
	for {
		if p.pos >= len(p.src) {
			p.pos = start
			return "", p.errf("a string is never closed")
		}
		c := p.src[p.pos]
		switch {
		case c == '"':
			p.pos++
			return string(out), nil
		case c < 0x20:
			return "", p.errf("a string holds the control character 0x%02x; write it as an escape", c)
		case c == '\\':
			if p.pos+1 >= len(p.src) {
				return "", p.errf("a string ends in the middle of an escape")
			}
			e := p.src[p.pos+1]
			switch e {
			case '"', '\\', '/':
				out = append(out, e)
			case 'b':
				out = append(out, '\b')
			case 'f':
				out = append(out, '\f')
			case 'n':
				out = append(out, '\n')
			case 'r':
				out = append(out, '\r')
			case 't':
				out = append(out, '\t')
			case 'u':
				r, ok := p.hex4(p.pos + 2)
				if !ok {
					return "", p.errf(`\u needs four hexadecimal digits`)
				}
				p.pos += 4
				if utf16.IsSurrogate(r) {
					if r2, ok := p.hex4(p.pos + 4); ok && p.src[p.pos+2] == '\\' && p.src[p.pos+3] == 'u' {
						if d := utf16.DecodeRune(r, r2); d != utf8.RuneError {
							r = d
							p.pos += 6
						}
					}
				}
				out = utf8.AppendRune(out, r)
			default:
				return "", p.errf("unknown escape \\%c in a string", e)
			}
			p.pos += 2
		default:
			out = append(out, c)
			p.pos++
		}
	}
}

func (p *jparser) hex4(at int) (rune, bool) {
	if at+4 > len(p.src) {
		return 0, false
	}
	n, err := strconv.ParseUint(string(p.src[at:at+4]), 16, 32)
	if err != nil {
		return 0, false
	}
	return rune(n), true
}

func (p *jparser) object(depth int) (*jvalue, error) {
	v := &jvalue{kind: kindObject, start: p.pos}
	p.pos++
	for {
		if err := p.skip(); err != nil {
			return nil, err
		}
		if p.pos >= len(p.src) {
			return nil, p.errf("unexpected end of file: the object opened on line %d is never closed", lineOf(p.src, v.start))
		}
		if p.src[p.pos] == '}' {
			p.pos++
			v.end = p.pos
			return v, nil
		}
		if len(v.members) > 0 {
			// After a member: a comma, then another member or the end
			// (a trailing comma, as JSON with comments allows).
			if p.src[p.pos] != ',' {
				return nil, p.errf("unexpected %s after a member: a comma or } should be here", p.what())
			}
			p.pos++
			if err := p.skip(); err != nil {
				return nil, err
			}
			if p.pos < len(p.src) && p.src[p.pos] == '}' {
				p.pos++
				v.end = p.pos
				return v, nil
			}
		}
		if p.pos >= len(p.src) || p.src[p.pos] != '"' {
			return nil, p.errf("unexpected %s where a key in double quotes should be", p.what())
		}
		keyStart := p.pos
		key, err := p.string()
		if err != nil {
			return nil, err
		}
		if err := p.skip(); err != nil {
			return nil, err
		}
		if p.pos >= len(p.src) || p.src[p.pos] != ':' {
			return nil, p.errf("unexpected %s after a key: a colon should be here", p.what())
		}
		p.pos++
		if err := p.skip(); err != nil {
			return nil, err
		}
		val, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		v.members = append(v.members, jmember{key: key, keyStart: keyStart, val: val})
	}
}

func (p *jparser) array(depth int) (*jvalue, error) {
	v := &jvalue{kind: kindArray, start: p.pos}
	p.pos++
	for {
		if err := p.skip(); err != nil {
			return nil, err
		}
		if p.pos >= len(p.src) {
			return nil, p.errf("unexpected end of file: the list opened on line %d is never closed", lineOf(p.src, v.start))
		}
		if p.src[p.pos] == ']' {
			p.pos++
			v.end = p.pos
			return v, nil
		}
		if len(v.elems) > 0 {
			if p.src[p.pos] != ',' {
				return nil, p.errf("unexpected %s after a list item: a comma or ] should be here", p.what())
			}
			p.pos++
			if err := p.skip(); err != nil {
				return nil, err
			}
			if p.pos < len(p.src) && p.src[p.pos] == ']' {
				p.pos++
				v.end = p.pos
				return v, nil
			}
		}
		e, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		v.elems = append(v.elems, e)
	}
}
