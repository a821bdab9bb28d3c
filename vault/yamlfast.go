package vault

import (
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// The frontmatter cortex writes is a block mapping of short scalars, a few
// lists of them and one mapping of them (provenance). yaml.v3's encoder
// took about 50 µs and 38 KB of garbage for each such note, 8% of the
// processor time of importing 10,000 real-shaped notes. appendFastYAML
// writes that common shape directly, byte for byte as yaml.v3 writes it
// (encodeYAML's settings: two-space indents, no line width, Unicode
// written as is); anything it is not certain of — a comment, an anchor, a
// flow or block style, an empty collection, a character yaml.v3 escapes, a
// value whose plain form might read back as another type — makes it give
// up, and the whole frontmatter goes to yaml.v3. TestFastYAMLIsYAMLv3s and
// FuzzFastYAML compare the two.

// scalarStyle is how a scalar is written.
type scalarStyle int

const (
	styleUnknown scalarStyle = iota // leave the frontmatter to yaml.v3
	stylePlain
	styleSingle
	styleDouble
)

// fastYAML is node (a mapping) as encodeYAML writes it, and true; false
// when it is not sure to write it as yaml.v3 does.
func fastYAML(node *yaml.Node) ([]byte, bool) {
	if node.Kind != yaml.MappingNode || len(node.Content) == 0 {
		return nil, false
	}
	return appendFastMapping(make([]byte, 0, 512), node, 0)
}

// plainCollection reports whether a mapping or sequence node has nothing
// but its kind and its content: no style, comment or anchor, and its own
// tag or none.
func plainCollection(n *yaml.Node, tag string) bool {
	return n.Style == 0 && n.Anchor == "" && n.HeadComment == "" && n.LineComment == "" &&
		n.FootComment == "" && (n.Tag == "" || n.Tag == tag) && len(n.Content) > 0
}

// appendFastMapping appends the block mapping m, each key indented by
// indent spaces.
func appendFastMapping(b []byte, m *yaml.Node, indent int) ([]byte, bool) {
	if !plainCollection(m, "!!map") || len(m.Content)%2 != 0 {
		return nil, false
	}
	for i := 0; i < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		if k.Kind != yaml.ScalarNode || len(k.Value) > 100 {
			return nil, false // a long key is not a simple key
		}
		b = appendSpaces(b, indent)
		var ok bool
		if b, ok = appendFastScalar(b, k); !ok {
			return nil, false
		}
		b = append(b, ':')
		switch v.Kind {
		case yaml.ScalarNode:
			b = append(b, ' ')
			if b, ok = appendFastScalar(b, v); !ok {
				return nil, false
			}
			b = append(b, '\n')
		case yaml.SequenceNode:
			if !plainCollection(v, "!!seq") {
				return nil, false
			}
			b = append(b, '\n')
			for _, it := range v.Content {
				if it.Kind != yaml.ScalarNode {
					return nil, false
				}
				b = appendSpaces(b, indent+2)
				b = append(b, '-', ' ')
				if b, ok = appendFastScalar(b, it); !ok {
					return nil, false
				}
				b = append(b, '\n')
			}
		case yaml.MappingNode:
			b = append(b, '\n')
			if b, ok = appendFastMapping(b, v, indent+2); !ok {
				return nil, false
			}
		default:
			return nil, false
		}
	}
	return b, true
}

func appendSpaces(b []byte, n int) []byte {
	for range n {
		b = append(b, ' ')
	}
	return b
}

// appendFastScalar appends the scalar n as yaml.v3 writes it in a block
// collection, when fastStyle knows how.
func appendFastScalar(b []byte, n *yaml.Node) ([]byte, bool) {
	if n.Anchor != "" || n.HeadComment != "" || n.LineComment != "" || n.FootComment != "" {
		return nil, false
	}
	v := n.Value
	switch fastStyle(n) {
	case stylePlain:
		return append(b, v...), true
	case styleSingle:
		b = append(b, '\'')
		for i := 0; i < len(v); i++ {
			if v[i] == '\'' {
				b = append(b, '\'')
			}
			b = append(b, v[i])
		}
		return append(b, '\''), true
	case styleDouble:
		b = append(b, '"')
		for i := 0; i < len(v); i++ {
			if v[i] == '"' || v[i] == '\\' {
				b = append(b, '\\')
			}
			b = append(b, v[i])
		}
		return append(b, '"'), true
	}
	return nil, false
}

// fastStyle is the style yaml.v3 writes the scalar n in, or styleUnknown.
// It follows yaml.v3's encoder (encoder.node: a !!str that would read back
// as another type is double-quoted; a tag the value implies is dropped) and
// its emitter (yaml_emitter_analyze_scalar and select_scalar_style: plain
// when the text allows it in a block, else single-quoted), for texts with
// none of the characters the emitter escapes or breaks lines at.
func fastStyle(n *yaml.Node) scalarStyle {
	v := n.Value
	if v == "" || !writtenAsIs(v) {
		return styleUnknown
	}
	switch n.Tag {
	case "", "!!str":
	case "!!int":
		if n.Style == 0 && isDecimal(v) {
			return stylePlain
		}
		return styleUnknown
	case "!!bool":
		if n.Style == 0 && (v == "true" || v == "false") {
			return stylePlain
		}
		return styleUnknown
	case "!!timestamp":
		if n.Style == 0 && isTimestamp(v) {
			return stylePlain
		}
		return styleUnknown
	default:
		return styleUnknown
	}
	switch n.Style {
	case yaml.DoubleQuotedStyle:
		return styleDouble
	case yaml.SingleQuotedStyle:
		return styleSingle
	case 0:
	default:
		return styleUnknown
	}
	if n.Tag == "!!str" {
		switch readsAs(v) {
		case readsUnknown:
			return styleUnknown
		case readsOther:
			return styleDouble
		}
	}
	if blockPlainAllowed(v) {
		return stylePlain
	}
	return styleSingle
}

// writtenAsIs reports whether every character of v is one yaml.v3 writes
// as it is in any style: valid UTF-8 that its is_printable holds (printable
// ASCII, and runes from U+00A0 of two and three bytes but U+FEFF, U+FFFE and
// U+FFFF), and neither a tab nor a line break (U+2028, U+2029). It is
// printable (written.go, what the reader takes as written) without the
// runes of four bytes, which YAML reads as they are but yaml.v3's emitter
// escapes, and without U+FFFD, left to yaml.v3.
func writtenAsIs(v string) bool {
	for i := 0; i < len(v); {
		c := v[i]
		if c < utf8.RuneSelf {
			if c < 0x20 || c == 0x7f {
				return false
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(v[i:])
		if r == utf8.RuneError || size == 4 || r < 0xa0 || r == 0x2028 || r == 0x2029 ||
			r >= 0xd800 && r < 0xe000 || r == 0xfeff || r == 0xfffe || r == 0xffff {
			return false
		}
		i += size
	}
	return true
}

// blockPlainAllowed is yaml_emitter_analyze_scalar's block_plain_allowed
// for a non-empty text that writtenAsIs holds: no leading or trailing
// space, no "---" or "..." start, no indicator where it would be read as
// one.
func blockPlainAllowed(v string) bool {
	if v[0] == ' ' || v[len(v)-1] == ' ' {
		return false
	}
	if len(v) >= 3 && (v[:3] == "---" || v[:3] == "...") {
		return false
	}
	followedBySpace := func(i int) bool { return i+1 >= len(v) || v[i+1] == ' ' }
	switch v[0] {
	case '#', ',', '[', ']', '{', '}', '&', '*', '!', '|', '>', '\'', '"', '%', '@', '`':
		return false
	case '?', ':', '-':
		if followedBySpace(0) {
			return false
		}
	}
	for i := 1; i < len(v); i++ {
		switch v[i] {
		case ':':
			if followedBySpace(i) {
				return false
			}
		case '#':
			if v[i-1] == ' ' {
				return false
			}
		}
	}
	return true
}

// reads is what a plain text reads back as.
type reads int

const (
	readsUnknown reads = iota
	readsString
	readsOther
)

// readsAs is what yaml.v3's resolve makes of the plain text v, found as it
// finds it: its words of null, bool, infinity, "not a number" and merge
// read as those; a text that starts with '.' as a float when strconv reads
// it as one; one that starts with a digit or a sign as an integer when
// strconv reads it as one (base prefixes and '_' allowed, as resolve allows
// them), or as binary or octal with a prefix. Any other text is a string,
// but for these, left to yaml.v3: texts that start with a digit or a sign
// and start as a date does (four digits and '-') or have only the
// characters of a float ("0123456789.+-eE"). So a hash ("43b083ce…"), an
// id ("01m8g537…") or a template ("<% tp.file.title %>") is known to read
// as a string.
func readsAs(v string) reads {
	switch v {
	case "true", "True", "TRUE", "false", "False", "FALSE", "~", "null", "Null", "NULL",
		".nan", ".NaN", ".NAN", ".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF",
		"-.inf", "-.Inf", "-.INF", "<<":
		return readsOther // resolve's map
	}
	switch v[0] {
	case '.':
		if _, err := strconv.ParseFloat(v, 64); err == nil {
			return readsOther
		}
		return readsString
	case '+', '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		if len(v) >= 5 && onlyOf(v[:4], "0123456789") && v[4] == '-' {
			return readsUnknown
		}
		plain := strings.ReplaceAll(v, "_", "")
		if !onlyOf(plain, numberBytes) {
			// A character no number has (an id's letters past f): the
			// parses below would fail, each allocating its error.
			return readsString
		}
		if _, err := strconv.ParseInt(plain, 0, 64); err == nil {
			return readsOther
		}
		if _, err := strconv.ParseUint(plain, 0, 64); err == nil {
			return readsOther
		}
		if onlyOf(plain, "0123456789.+-eE") {
			return readsUnknown
		}
		// Binary and octal with their prefixes, as resolve reads them.
		for _, p := range []struct {
			prefix string
			base   int
		}{{"0b", 2}, {"0o", 8}, {"-0b", 2}, {"-0o", 8}} {
			digits, ok := strings.CutPrefix(plain, p.prefix)
			if !ok {
				continue
			}
			if p.prefix[0] == '-' {
				digits = "-" + digits
			}
			_, errInt := strconv.ParseInt(digits, p.base, 64)
			_, errUint := strconv.ParseUint(digits, p.base, 64)
			if errInt == nil || errUint == nil {
				return readsOther
			}
		}
		return readsString
	}
	return readsString
}

// numberBytes are the bytes of every text yaml.v3 reads as an integer or a
// float from a digit or a sign: digits, hex digits, base prefixes' letters,
// '.', signs and the exponent's 'e' ('_' is taken out before).
const numberBytes = "0123456789abcdefABCDEFxXoObB.+-"

// onlyOf reports whether every byte of s is one of set's.
func onlyOf(s, set string) bool {
	for i := 0; i < len(s); i++ {
		if strings.IndexByte(set, s[i]) < 0 {
			return false
		}
	}
	return true
}

// isDecimal reports whether v is a decimal integer yaml.v3 reads as one:
// no sign but '-', no leading zero, at most 18 digits.
func isDecimal(v string) bool {
	d := v
	if d[0] == '-' {
		d = d[1:]
	}
	if d == "" || len(d) > 18 || d[0] == '0' && len(d) > 1 {
		return false
	}
	for i := 0; i < len(d); i++ {
		if d[i] < '0' || d[i] > '9' {
			return false
		}
	}
	return true
}

// isTimestamp reports whether v is a time as cortex writes it (RFC 3339,
// seconds, "Z" or an offset) that yaml.v3 reads back as a timestamp.
func isTimestamp(v string) bool {
	const digits = "dddd-dd-ddTdd:dd:dd"
	if len(v) < len(digits)+1 {
		return false
	}
	for i := 0; i < len(digits); i++ {
		c := v[i]
		if digits[i] == 'd' && (c < '0' || c > '9') || digits[i] != 'd' && c != digits[i] {
			return false
		}
	}
	switch rest := v[len(digits):]; {
	case rest == "Z":
	case len(rest) == 6 && (rest[0] == '+' || rest[0] == '-') && rest[3] == ':':
	default:
		return false
	}
	_, err := time.Parse("2006-1-2T15:4:5.999999999Z07:00", v)
	return err == nil
}
