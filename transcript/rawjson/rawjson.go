// Package rawjson reads values out of JSON that has already been validated,
// without decoding what is not asked for: an object's members and an array's
// elements are sub-slices of the input, found by skipping strings with a
// byte search. Adapters validate a record once (Valid) and then take it
// apart with this package, which is several times faster than decoding the
// record into maps with encoding/json, where every nested Unmarshal scans and
// validates its bytes again.
//
// On bytes that are not valid JSON the functions never panic, but what they
// return is unspecified: validate first.
package rawjson

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// Valid reports whether data is one valid JSON value, as encoding/json's
// Valid does.
func Valid(data []byte) bool { return valid(data) }

// Member is one member of an object: its key as written between the quotes
// (escapes not decoded) and its value's bytes.
type Member struct {
	Key   []byte
	Value []byte
}

// Object is an object's members in the order written.
type Object []Member

// Get returns the value of the member named key (the last one, as
// encoding/json does, when the name is repeated), or nil.
func (o Object) Get(key string) []byte {
	for i := len(o) - 1; i >= 0; i-- {
		m := o[i]
		if string(m.Key) == key || !plainKey(m.Key) && m.KeyString() == key {
			return m.Value
		}
	}
	return nil
}

// plainKey reports whether a key's bytes are its text: no escapes, UTF-8.
// Get asks it of every key it passes over: an ASCII key (most are) is
// settled in one short loop.
func plainKey(k []byte) bool {
	for _, c := range k {
		if c == '\\' {
			return false
		}
		if c >= utf8.RuneSelf {
			return bytes.IndexByte(k, '\\') < 0 && utf8.Valid(k)
		}
	}
	return true
}

// Has reports whether the object has a member named key.
func (o Object) Has(key string) bool { return o.Get(key) != nil }

// KeyString returns a member's key decoded.
func (m Member) KeyString() string {
	if plainKey(m.Key) {
		return string(m.Key)
	}
	return unescape(m.Key)
}

func unescape(k []byte) string {
	s, _ := String(append(append([]byte{'"'}, k...), '"'))
	return s
}

// ParseObject splits a JSON object into its members. It returns false when
// data is not an object.
func ParseObject(data []byte) (Object, bool) {
	// The members are gathered on the stack and copied once to a slice of
	// their number: most objects have a few, and growing a slice from
	// nothing would allocate three or four times for each.
	var buf [16]Member
	o, ok := AppendObject(buf[:0], data)
	if o == nil {
		return nil, ok
	}
	return slices.Clone(o), ok
}

// AppendObject is ParseObject appending the members to dst[:0], so that a
// caller reading many objects one after the other reuses one slice.
func AppendObject(dst Object, data []byte) (Object, bool) {
	i := SkipSpace(data, 0)
	if i >= len(data) || data[i] != '{' {
		return nil, false
	}
	out := dst[:0]
	i = SkipSpace(data, i+1)
	if i < len(data) && data[i] == '}' {
		if out == nil {
			out = Object{}
		}
		return out, true
	}
	for i < len(data) {
		if data[i] != '"' {
			return out, false
		}
		end := SkipString(data, i)
		if end < 0 {
			return out, false
		}
		key := data[i+1 : end-1]
		i = SkipSpace(data, end)
		if i >= len(data) || data[i] != ':' {
			return out, false
		}
		i = SkipSpace(data, i+1)
		vend := SkipValue(data, i)
		if vend < 0 {
			return out, false
		}
		out = append(out, Member{Key: key, Value: data[i:vend]})
		i = SkipSpace(data, vend)
		if i >= len(data) {
			return out, false
		}
		switch data[i] {
		case ',':
			i = SkipSpace(data, i+1)
		case '}':
			return out, true
		default:
			return out, false
		}
	}
	return out, false
}

// ParseArray splits a JSON array into its elements. It returns false when
// data is not an array.
func ParseArray(data []byte) ([][]byte, bool) {
	var buf [16][]byte // as in ParseObject
	a, ok := appendArray(buf[:0], data)
	if a == nil {
		return nil, ok
	}
	return slices.Clone(a), ok
}

// appendArray is ParseArray appending the elements to dst[:0].
func appendArray(dst [][]byte, data []byte) ([][]byte, bool) {
	i := SkipSpace(data, 0)
	if i >= len(data) || data[i] != '[' {
		return nil, false
	}
	out := dst[:0]
	i = SkipSpace(data, i+1)
	if i < len(data) && data[i] == ']' {
		if out == nil {
			out = [][]byte{}
		}
		return out, true
	}
	for i < len(data) {
		end := SkipValue(data, i)
		if end < 0 {
			return out, false
		}
		out = append(out, data[i:end])
		i = SkipSpace(data, end)
		if i >= len(data) {
			return out, false
		}
		switch data[i] {
		case ',':
			i = SkipSpace(data, i+1)
		case ']':
			return out, true
		default:
			return out, false
		}
	}
	return out, false
}

// String decodes a JSON string as encoding/json does; false when data is not
// one.
func String(data []byte) (string, bool) {
	if len(data) < 2 || data[0] != '"' || data[len(data)-1] != '"' {
		return "", false
	}
	body := data[1 : len(data)-1]
	if bytes.IndexByte(body, '\\') < 0 && utf8.Valid(body) {
		return string(body), true
	}
	if s, ok := decodeString(body); ok {
		return s, true
	}
	// What decodeString leaves: bytes that are not UTF-8 (encoding/json turns
	// them into U+FFFD), a lone surrogate, a string that is not JSON.
	var s string
	if json.Unmarshal(data, &s) != nil {
		return "", false
	}
	return s, true
}

// decodeString decodes the body of a JSON string (without its quotes) whose
// escapes are all well formed, whose \u surrogates come in pairs and whose
// other bytes are UTF-8 without control characters or quotes; false for
// any other body, which String leaves to encoding/json. Texts in
// transcripts are long and full of \n: decoding them here is several times
// faster than encoding/json, which validates the string again first.
func decodeString(body []byte) (string, bool) {
	var b strings.Builder
	b.Grow(len(body))
	for i := 0; i < len(body); {
		// A run without escapes is copied at once, found and checked in
		// one loop: a text full of \n has many short runs, each of which
		// a search for the backslash and a check after it would read twice.
		j, ascii := i, true
		for ; j < len(body) && body[j] != '\\'; j++ {
			if c := body[j]; c < 0x20 || c == '"' {
				return "", false
			} else if c >= utf8.RuneSelf {
				ascii = false
			}
		}
		run := body[i:j]
		if !ascii && !utf8.Valid(run) {
			return "", false
		}
		b.Write(run)
		i = j
		if i == len(body) {
			break
		}
		if i+1 >= len(body) {
			return "", false
		}
		switch c := body[i+1]; c {
		case '"', '\\', '/':
			b.WriteByte(c)
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'u':
			r, ok := hex4(body[i+2:])
			if !ok {
				return "", false
			}
			if utf16.IsSurrogate(r) {
				if len(body) < i+12 || body[i+6] != '\\' || body[i+7] != 'u' {
					return "", false
				}
				r2, ok := hex4(body[i+8:])
				if r = utf16.DecodeRune(r, r2); !ok || r == utf8.RuneError {
					return "", false
				}
				i += 6
			}
			b.WriteRune(r)
			i += 6
			continue
		default:
			return "", false
		}
		i += 2
	}
	return b.String(), true
}

// hex4 reads the four hex digits of a \u escape.
func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range b[:4] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

// The readers below never fail: they take a value out of a record already
// validated, and a value of another type reads as the zero value. JSON null
// is no value at all, whatever type was expected: it reads as nil, "", false
// or 0, and Value drops it, so a field a tool writes as null and a field it
// leaves out give the same event. (Get still returns null's bytes: whether a
// member is there is a question about the record's shape.)

// AsObject returns the members of data, or nil when data is not an object.
func AsObject(data []byte) Object {
	o, ok := ParseObject(data)
	if !ok {
		return nil
	}
	return o
}

// AsArray returns the elements of data, or nil when data is not an array.
func AsArray(data []byte) [][]byte {
	a, ok := ParseArray(data)
	if !ok {
		return nil
	}
	return a
}

// AsString returns the string data holds, or "" when data is not a string.
func AsString(data []byte) string {
	s, _ := String(data)
	return s
}

// Strings returns the strings among the elements of data (an array); the
// elements of other types are skipped.
func Strings(data []byte) []string {
	var out []string
	for _, v := range AsArray(data) {
		if s, ok := String(v); ok {
			out = append(out, s)
		}
	}
	return out
}

// Value returns data as a value an event keeps verbatim: nil when it is
// absent (empty) or null, so that an omitempty field is left out in both
// cases.
func Value(data []byte) json.RawMessage {
	if len(data) == 0 || string(data) == "null" {
		return nil
	}
	return json.RawMessage(data)
}

// Path returns the value nested in objects under keys (o.Path("git",
// "branch") is the branch member of o's git member), or nil when one of
// them is missing or not an object.
func (o Object) Path(keys ...string) []byte {
	var v []byte
	for i, k := range keys {
		if i > 0 {
			o = AsObject(v)
		}
		v = o.Get(k)
		if v == nil {
			return nil
		}
	}
	return v
}

// Bool reads true; anything else is false.
func Bool(data []byte) bool { return string(data) == "true" }

// Int reads a JSON number as an integer (a fraction is cut off); 0 when data
// is not a number.
func Int(data []byte) int64 {
	if n, err := strconv.ParseInt(string(data), 10, 64); err == nil {
		return n
	}
	if f, err := strconv.ParseFloat(string(data), 64); err == nil && f >= -9.2e18 && f <= 9.2e18 {
		return int64(f)
	}
	return 0
}

// IsObject reports whether data starts an object.
func IsObject(data []byte) bool { return len(data) > 0 && data[0] == '{' }

// IsArray reports whether data starts an array.
func IsArray(data []byte) bool { return len(data) > 0 && data[0] == '[' }

// IsString reports whether data starts a string.
func IsString(data []byte) bool { return len(data) > 0 && data[0] == '"' }

// IsNumber reports whether data starts a number.
func IsNumber(data []byte) bool {
	return len(data) > 0 && (data[0] == '-' || data[0] >= '0' && data[0] <= '9')
}

// SkipSpace returns the index of the first byte at or after i that is not
// JSON white space (len(data) when there is none).
func SkipSpace(data []byte, i int) int {
	for i < len(data) {
		switch data[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// SkipString returns the index after the string starting at data[i] (a
// quote), or -1 when data ends first.
func SkipString(data []byte, i int) int {
	j := i + 1
	for {
		// Most strings (keys, names, ids) are short: a plain loop finds
		// their quote before a call to IndexByte would have started.
		k := -1
		for p, end := j, min(len(data), j+16); p < end; p++ {
			if data[p] == '"' {
				k = p - j
				break
			}
		}
		if k < 0 && j+16 < len(data) {
			if k = bytes.IndexByte(data[j+16:], '"'); k >= 0 {
				k += 16
			}
		}
		if k < 0 {
			return -1
		}
		j += k
		// An escaped quote has an odd number of backslashes before it.
		n := 0
		for b := j - 1; b > i && data[b] == '\\'; b-- {
			n++
		}
		if n%2 == 0 {
			return j + 1
		}
		j++
	}
}

// SkipValue returns the index after the value starting at data[i] (strings
// skipped, brackets matched; a scalar ends at a delimiter or white space),
// or -1 when data ends first — a cut-off buffer is never read as a whole
// value, which is what a streaming framer needs.
func SkipValue(data []byte, i int) int {
	if i >= len(data) {
		return -1
	}
	switch data[i] {
	case '"':
		return SkipString(data, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(data); j++ {
			switch data[j] {
			case '"':
				e := SkipString(data, j)
				if e < 0 {
					return -1
				}
				j = e - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1
				}
			}
		}
		return -1
	default:
		for j := i; j < len(data); j++ {
			switch data[j] {
			case ',', '}', ']', ' ', '\t', '\n', '\r':
				return j
			}
		}
		return -1
	}
}
