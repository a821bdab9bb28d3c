package otlp

import (
	"encoding/base64"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// The OTLP/JSON decoder, with the rules of the protobuf JSON mapping as the
// official runtime reads it (protojson, unknown fields discarded): strict
// JSON in UTF-8 (no invalid escapes nor lone surrogates); a field under its
// JSON name or its proto name, at most once; null for any field leaves it
// unset; 64-bit integers as numbers or strings, integral exponents allowed;
// bytes in standard or URL base64, with or without padding; enums by name
// (an unknown name is dropped) or number; one member of AnyValue's oneof;
// messages nest at most recursionLimit deep.

// jsonDecoder reads one JSON text.
type jsonDecoder struct {
	b []byte
	i int
}

// errJSON is a syntax error at the decoder's position.
func (d *jsonDecoder) errJSON(what string) error {
	return fmt.Errorf("syntax error at offset %d: %s", d.i, what)
}

func (d *jsonDecoder) space() {
	for d.i < len(d.b) {
		switch d.b[d.i] {
		case ' ', '\n', '\r', '\t':
			d.i++
		default:
			return
		}
	}
}

// peek is the next byte after white space, 0 at the end.
func (d *jsonDecoder) peek() byte {
	d.space()
	if d.i >= len(d.b) {
		return 0
	}
	return d.b[d.i]
}

// isNull reads a null when one comes next.
func (d *jsonDecoder) isNull() (bool, error) {
	if d.peek() != 'n' {
		return false, nil
	}
	return true, d.literal("null")
}

// literal reads the word (true, false, null).
func (d *jsonDecoder) literal(word string) error {
	d.space()
	if !strings.HasPrefix(string(d.b[d.i:min(len(d.b), d.i+len(word))]), word) {
		return d.errJSON("invalid value")
	}
	d.i += len(word)
	return d.delimited()
}

// delimited checks that a number or literal is not run into letters,
// digits or signs.
func (d *jsonDecoder) delimited() error {
	if d.i < len(d.b) && notDelim(d.b[d.i]) {
		return d.errJSON("invalid value")
	}
	return nil
}

func notDelim(c byte) bool {
	return c == '-' || c == '+' || c == '.' || c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

// object reads an object, calling field with each name; field reads the
// value.
func (d *jsonDecoder) object(field func(name string) error) error {
	if d.peek() != '{' {
		return d.errJSON("want an object")
	}
	d.i++
	if d.peek() == '}' {
		d.i++
		return nil
	}
	for {
		if d.peek() != '"' {
			return d.errJSON("want a field name")
		}
		name, err := d.str()
		if err != nil {
			return err
		}
		if d.peek() != ':' {
			return d.errJSON(`missing ":" after field name`)
		}
		d.i++
		if err := field(name); err != nil {
			return err
		}
		switch d.peek() {
		case ',':
			d.i++
		case '}':
			d.i++
			return nil
		default:
			return d.errJSON("want , or }")
		}
	}
}

// array reads an array, calling elem for each element; elem reads it.
func (d *jsonDecoder) array(elem func() error) error {
	if d.peek() != '[' {
		return d.errJSON("want an array")
	}
	d.i++
	if d.peek() == ']' {
		d.i++
		return nil
	}
	for {
		if err := elem(); err != nil {
			return err
		}
		switch d.peek() {
		case ',':
			d.i++
		case ']':
			d.i++
			return nil
		default:
			return d.errJSON("want , or ]")
		}
	}
}

// str reads a string.
func (d *jsonDecoder) str() (string, error) {
	if d.peek() != '"' {
		return "", d.errJSON("want a string")
	}
	d.i++
	var out []byte
	start := d.i
	for d.i < len(d.b) {
		c := d.b[d.i]
		switch {
		case c == '"':
			s := string(append(out, d.b[start:d.i]...))
			d.i++
			return s, nil
		case c < ' ':
			return "", d.errJSON("control character in string")
		case c == '\\':
			out = append(out, d.b[start:d.i]...)
			r, err := d.escape()
			if err != nil {
				return "", err
			}
			out = utf8.AppendRune(out, r)
			start = d.i
		case c < utf8.RuneSelf:
			d.i++
		default:
			r, n := utf8.DecodeRune(d.b[d.i:])
			if r == utf8.RuneError && n == 1 {
				return "", d.errJSON("invalid UTF-8 in string")
			}
			d.i += n
		}
	}
	return "", d.errJSON("unterminated string")
}

// escape reads an escape sequence; a \u surrogate must be followed by the
// \u escape of its pair.
func (d *jsonDecoder) escape() (rune, error) {
	if d.i+1 >= len(d.b) {
		return 0, d.errJSON("unterminated string")
	}
	c := d.b[d.i+1]
	d.i += 2
	switch c {
	case '"', '\\', '/':
		return rune(c), nil
	case 'b':
		return '\b', nil
	case 'f':
		return '\f', nil
	case 'n':
		return '\n', nil
	case 'r':
		return '\r', nil
	case 't':
		return '\t', nil
	case 'u':
		r, err := d.hex4()
		if err != nil || !utf16.IsSurrogate(r) {
			return r, err
		}
		if d.i+1 >= len(d.b) || d.b[d.i] != '\\' || d.b[d.i+1] != 'u' {
			return 0, d.errJSON("invalid escape code")
		}
		d.i += 2
		r2, err := d.hex4()
		if err != nil {
			return 0, err
		}
		if r = utf16.DecodeRune(r, r2); r == unicode.ReplacementChar {
			return 0, d.errJSON("invalid escape code")
		}
		return r, nil
	}
	return 0, d.errJSON("invalid escape code")
}

// hex4 reads the four hexadecimal digits of a \u escape.
func (d *jsonDecoder) hex4() (rune, error) {
	if d.i+4 > len(d.b) {
		return 0, d.errJSON("unterminated string")
	}
	var r rune
	for _, c := range d.b[d.i : d.i+4] {
		var v byte
		switch {
		case '0' <= c && c <= '9':
			v = c - '0'
		case 'a' <= c && c <= 'f':
			v = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			v = c - 'A' + 10
		default:
			return 0, d.errJSON("invalid escape code")
		}
		r = r<<4 | rune(v)
	}
	d.i += 4
	return r, nil
}

// numberLen is the length of the JSON number at the start of b, 0 when
// there is none.
func numberLen(b []byte) int {
	i := 0
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && '1' <= b[i] && b[i] <= '9':
		for i < len(b) && '0' <= b[i] && b[i] <= '9' {
			i++
		}
	default:
		return 0
	}
	if i+1 < len(b) && b[i] == '.' && '0' <= b[i+1] && b[i+1] <= '9' {
		i += 2
		for i < len(b) && '0' <= b[i] && b[i] <= '9' {
			i++
		}
	}
	if i+1 < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if b[i] == '+' || b[i] == '-' {
			i++
			if i == len(b) {
				return 0
			}
		}
		for i < len(b) && '0' <= b[i] && b[i] <= '9' {
			i++
		}
	}
	if i < len(b) && notDelim(b[i]) {
		return 0
	}
	return i
}

// number reads a number and returns its text.
func (d *jsonDecoder) number() (string, error) {
	d.space()
	n := numberLen(d.b[d.i:])
	if n == 0 {
		return "", d.errJSON("invalid value")
	}
	s := string(d.b[d.i : d.i+n])
	d.i += n
	return s, nil
}

// skip reads any value, its objects and arrays nesting at most limit
// deep.
func (d *jsonDecoder) skip(limit int) error {
	var open []byte // the brackets open, innermost last
	for {
		// A value comes here.
		switch c := d.peek(); c {
		case '{', '[':
			d.i++
			open = append(open, c)
			if len(open) > limit {
				return errJSONDepth
			}
			if c == '{' && d.peek() == '}' || c == '[' && d.peek() == ']' {
				d.i++
				open = open[:len(open)-1]
				break
			}
			if c == '{' {
				if err := d.name(); err != nil {
					return err
				}
			}
			continue
		case '"':
			if _, err := d.str(); err != nil {
				return err
			}
		case 't':
			if err := d.literal("true"); err != nil {
				return err
			}
		case 'f':
			if err := d.literal("false"); err != nil {
				return err
			}
		case 'n':
			if err := d.literal("null"); err != nil {
				return err
			}
		default:
			if _, err := d.number(); err != nil {
				return err
			}
		}
		// After a value: the brackets that close here, then a comma (and
		// in an object the next name) before the next value.
		for {
			if len(open) == 0 {
				return nil
			}
			top, c := open[len(open)-1], d.peek()
			if top == '{' && c == '}' || top == '[' && c == ']' {
				d.i++
				open = open[:len(open)-1]
				continue
			}
			if c != ',' {
				return d.errJSON("want , or a closing bracket")
			}
			d.i++
			if top == '{' {
				if err := d.name(); err != nil {
					return err
				}
			}
			break
		}
	}
}

// name reads a field name and the colon after it.
func (d *jsonDecoder) name() error {
	if d.peek() != '"' {
		return d.errJSON("want a field name")
	}
	if _, err := d.str(); err != nil {
		return err
	}
	if d.peek() != ':' {
		return d.errJSON(`missing ":" after field name`)
	}
	d.i++
	return nil
}

// errJSONDepth is returned for values nested deeper than the limit.
var errJSONDepth = errors.New("exceeded max recursion depth")

// errJSONValue is returned for a value of the wrong type for its field.
func errJSONValue(field string) error {
	return fmt.Errorf("invalid value for field %s", field)
}

// integer reads a 64 or 32-bit integer (signed or not) as the JSON mapping
// sends it: a number, or a string holding one, with an exponent or a
// fraction as long as the value is integral.
func (d *jsonDecoder) integer(field string, bits int, signed bool) (int64, uint64, error) {
	var raw string
	switch c := d.peek(); {
	case c == '"':
		s, err := d.str()
		if err != nil {
			return 0, 0, err
		}
		if raw = leadingNumber(s); raw == "" {
			return 0, 0, errJSONValue(field)
		}
	case c == '-' || '0' <= c && c <= '9':
		var err error
		if raw, err = d.number(); err != nil {
			return 0, 0, err
		}
	default:
		if err := d.skip(recursionLimit); err != nil {
			return 0, 0, err
		}
		return 0, 0, errJSONValue(field)
	}
	s, ok := intString(raw)
	if !ok {
		return 0, 0, errJSONValue(field)
	}
	if signed {
		n, err := strconv.ParseInt(s, 10, bits)
		if err != nil {
			return 0, 0, errJSONValue(field)
		}
		return n, 0, nil
	}
	n, err := strconv.ParseUint(s, 10, bits)
	if err != nil {
		return 0, 0, errJSONValue(field)
	}
	return 0, n, nil
}

// leadingNumber is the number a string holding one starts with, "" when
// it has white space around it or starts with anything else. (The mapping
// reads the string's first JSON token, so "12 34" is 12.)
func leadingNumber(s string) string {
	if s != strings.TrimSpace(s) || s == "" || s[0] != '-' && (s[0] < '0' || s[0] > '9') {
		return ""
	}
	return s[:numberLen([]byte(s))]
}

// intString writes the JSON number raw as a decimal integer without
// exponent or fraction; ok is false when it is not integral or has more
// than 20 digits.
func intString(raw string) (string, bool) {
	neg := strings.HasPrefix(raw, "-")
	s := strings.TrimPrefix(raw, "-")
	var intp, frac, exp string
	if s[0] == '0' {
		s = s[1:]
	} else {
		n := 0
		for n < len(s) && '0' <= s[n] && s[n] <= '9' {
			n++
		}
		intp, s = s[:n], s[n:]
	}
	if len(s) >= 2 && s[0] == '.' {
		n := 1
		for n < len(s) && '0' <= s[n] && s[n] <= '9' {
			n++
		}
		frac, s = strings.TrimRight(s[1:n], "0"), s[n:]
	}
	if len(s) >= 2 && (s[0] == 'e' || s[0] == 'E') {
		exp = s[1:]
	}
	if intp == "" && frac == "" {
		return "0", true
	}
	e := 0
	if exp != "" {
		v, err := strconv.ParseInt(exp, 10, 32)
		if err != nil {
			return "", false
		}
		e = int(v)
	}
	var num string
	if e >= 0 {
		if len(frac) > e || len(intp)+e > 20 {
			return "", false
		}
		num = intp + frac + strings.Repeat("0", e-len(frac))
	} else {
		if len(frac) > 0 {
			return "", false
		}
		index := len(intp) + e
		if index < 0 || strings.Trim(intp[index:], "0") != "" {
			return "", false
		}
		num = intp[:index]
	}
	if neg {
		return "-" + num, true
	}
	return num, true
}

// float reads a double: a number, a string holding one, or "NaN",
// "Infinity", "-Infinity".
func (d *jsonDecoder) float(field string) (float64, error) {
	var raw string
	switch c := d.peek(); {
	case c == '"':
		s, err := d.str()
		if err != nil {
			return 0, err
		}
		switch s {
		case "NaN":
			return math.NaN(), nil
		case "Infinity":
			return math.Inf(1), nil
		case "-Infinity":
			return math.Inf(-1), nil
		}
		if raw = leadingNumber(s); raw == "" {
			return 0, errJSONValue(field)
		}
	case c == '-' || '0' <= c && c <= '9':
		var err error
		if raw, err = d.number(); err != nil {
			return 0, err
		}
	default:
		if err := d.skip(recursionLimit); err != nil {
			return 0, err
		}
		return 0, errJSONValue(field)
	}
	f, err := strconv.ParseFloat(raw, 64)
	if err != nil {
		return 0, errJSONValue(field)
	}
	return f, nil
}

// boolean reads true or false.
func (d *jsonDecoder) boolean(field string) (bool, error) {
	switch d.peek() {
	case 't':
		return true, d.literal("true")
	case 'f':
		return false, d.literal("false")
	}
	if err := d.skip(recursionLimit); err != nil {
		return false, err
	}
	return false, errJSONValue(field)
}

// text reads a string field.
func (d *jsonDecoder) text(field string) (string, error) {
	if d.peek() == '"' {
		return d.str()
	}
	if err := d.skip(recursionLimit); err != nil {
		return "", err
	}
	return "", errJSONValue(field)
}

// bytes reads a bytes field: base64, standard or URL alphabet, padded or
// not.
func (d *jsonDecoder) bytes(field string) ([]byte, error) {
	s, err := d.text(field)
	if err != nil {
		return nil, err
	}
	enc := base64.StdEncoding
	if strings.ContainsAny(s, "-_") {
		enc = base64.URLEncoding
	}
	if len(s)%4 != 0 {
		enc = enc.WithPadding(base64.NoPadding)
	}
	b, err := enc.DecodeString(s)
	if err != nil {
		return nil, errJSONValue(field)
	}
	return b, nil
}

// message reads a message: fieldNum maps a name (JSON or proto) to its
// field number, 0 for a field the message does not have, which is skipped;
// set reads the value of a field that is not null. limit is how deep
// messages may still nest.
func (d *jsonDecoder) message(limit int, fieldNum func(string) int, set func(num, limit int, name string) error) error {
	limit--
	if limit < 0 {
		return errJSONDepth
	}
	var seen []int
	return d.object(func(name string) error {
		num := fieldNum(name)
		if num == 0 {
			return d.skip(limit)
		}
		for _, s := range seen {
			if s == num {
				return fmt.Errorf("duplicate field %q", name)
			}
		}
		seen = append(seen, num)
		if null, err := d.isNull(); null || err != nil {
			return err
		}
		return set(num, limit, name)
	})
}

// list reads an array of messages.
func (d *jsonDecoder) list(elem func() error) error {
	if d.peek() != '[' {
		if err := d.skip(recursionLimit); err != nil {
			return err
		}
		return errors.New("want an array")
	}
	return d.array(elem)
}

// decodeJSON decodes a LogsData in OTLP/JSON.
func decodeJSON(b []byte) (*logsData, error) {
	d := &jsonDecoder{b: b}
	var out logsData
	err := d.message(recursionLimit, func(n string) int {
		if n == "resourceLogs" || n == "resource_logs" {
			return fLogsDataResourceLogs
		}
		return 0
	}, func(_, limit int, _ string) error {
		return d.list(func() error {
			out.resourceLogs = append(out.resourceLogs, resourceLogs{})
			return d.resourceLogs(limit, &out.resourceLogs[len(out.resourceLogs)-1])
		})
	})
	if err != nil {
		return nil, err
	}
	if d.space(); d.i != len(d.b) {
		return nil, d.errJSON("text after the request")
	}
	return &out, nil
}

func (d *jsonDecoder) resourceLogs(limit int, rl *resourceLogs) error {
	return d.message(limit, func(n string) int {
		switch n {
		case "resource":
			return fResourceLogsResource
		case "scopeLogs", "scope_logs":
			return fResourceLogsScopeLogs
		case "schemaUrl", "schema_url":
			return fResourceLogsSchemaURL
		}
		return 0
	}, func(num, limit int, name string) error {
		switch num {
		case fResourceLogsResource:
			rl.resource = resource{}
			return d.resource(limit, &rl.resource)
		case fResourceLogsScopeLogs:
			return d.list(func() error {
				rl.scopeLogs = append(rl.scopeLogs, scopeLogs{})
				return d.scopeLogs(limit, &rl.scopeLogs[len(rl.scopeLogs)-1])
			})
		}
		_, err := d.text(name)
		return err
	})
}

func (d *jsonDecoder) resource(limit int, r *resource) error {
	return d.message(limit, func(n string) int {
		switch n {
		case "attributes":
			return fResourceAttributes
		case "droppedAttributesCount", "dropped_attributes_count":
			return fResourceDropped
		case "entityRefs", "entity_refs":
			return fResourceEntityRefs
		}
		return 0
	}, func(num, limit int, name string) error {
		switch num {
		case fResourceAttributes:
			return d.keyValues(limit, &r.attributes)
		case fResourceEntityRefs:
			return d.list(func() error { return d.entityRef(limit) })
		}
		_, _, err := d.integer(name, 32, false)
		return err
	})
}

// entityRef reads an EntityRef, which a Record does not keep.
func (d *jsonDecoder) entityRef(limit int) error {
	return d.message(limit, func(n string) int {
		switch n {
		case "schemaUrl", "schema_url":
			return fEntityRefSchemaURL
		case "type":
			return fEntityRefType
		case "idKeys", "id_keys":
			return fEntityRefIDKeys
		case "descriptionKeys", "description_keys":
			return fEntityRefDescription
		}
		return 0
	}, func(num, _ int, name string) error {
		if num == fEntityRefIDKeys || num == fEntityRefDescription {
			return d.list(func() error {
				_, err := d.text(name)
				return err
			})
		}
		_, err := d.text(name)
		return err
	})
}

func (d *jsonDecoder) scopeLogs(limit int, sl *scopeLogs) error {
	return d.message(limit, func(n string) int {
		switch n {
		case "scope":
			return fScopeLogsScope
		case "logRecords", "log_records":
			return fScopeLogsLogRecords
		case "schemaUrl", "schema_url":
			return fScopeLogsSchemaURL
		}
		return 0
	}, func(num, limit int, name string) error {
		switch num {
		case fScopeLogsScope:
			sl.scope = scope{}
			return d.scope(limit, &sl.scope)
		case fScopeLogsLogRecords:
			return d.list(func() error {
				sl.logRecords = append(sl.logRecords, logRecord{})
				return d.logRecord(limit, &sl.logRecords[len(sl.logRecords)-1])
			})
		}
		_, err := d.text(name)
		return err
	})
}

func (d *jsonDecoder) scope(limit int, s *scope) error {
	return d.message(limit, func(n string) int {
		switch n {
		case "name":
			return fScopeName
		case "version":
			return fScopeVersion
		case "attributes":
			return fScopeAttributes
		case "droppedAttributesCount", "dropped_attributes_count":
			return fScopeDropped
		}
		return 0
	}, func(num, limit int, name string) error {
		var err error
		switch num {
		case fScopeName:
			s.name, err = d.text(name)
		case fScopeVersion:
			s.version, err = d.text(name)
		case fScopeAttributes:
			err = d.keyValues(limit, &s.attributes)
		default:
			_, _, err = d.integer(name, 32, false)
		}
		return err
	})
}

func (d *jsonDecoder) logRecord(limit int, lr *logRecord) error {
	return d.message(limit, func(n string) int {
		switch n {
		case "timeUnixNano", "time_unix_nano":
			return fRecordTime
		case "observedTimeUnixNano", "observed_time_unix_nano":
			return fRecordObservedTime
		case "severityNumber", "severity_number":
			return fRecordSeverityNumber
		case "severityText", "severity_text":
			return fRecordSeverityText
		case "body":
			return fRecordBody
		case "attributes":
			return fRecordAttributes
		case "droppedAttributesCount", "dropped_attributes_count":
			return fRecordDropped
		case "flags":
			return fRecordFlags
		case "traceId", "trace_id":
			return fRecordTraceID
		case "spanId", "span_id":
			return fRecordSpanID
		case "eventName", "event_name":
			return fRecordEventName
		}
		return 0
	}, func(num, limit int, name string) error {
		var err error
		switch num {
		case fRecordTime:
			_, lr.timeUnixNano, err = d.integer(name, 64, false)
		case fRecordObservedTime:
			_, lr.observedTimeUnixNano, err = d.integer(name, 64, false)
		case fRecordSeverityNumber:
			lr.severityNumber, err = d.enum(name)
		case fRecordSeverityText:
			lr.severityText, err = d.text(name)
		case fRecordBody:
			lr.body = &anyValue{}
			err = d.anyValue(limit, lr.body)
		case fRecordAttributes:
			err = d.keyValues(limit, &lr.attributes)
		case fRecordDropped:
			var n uint64
			_, n, err = d.integer(name, 32, false)
			lr.droppedCount = uint32(n)
		case fRecordFlags:
			var n uint64
			_, n, err = d.integer(name, 32, false)
			lr.flags = uint32(n)
		case fRecordTraceID:
			lr.traceID, err = d.bytes(name)
		case fRecordSpanID:
			lr.spanID, err = d.bytes(name)
		case fRecordEventName:
			lr.eventName, err = d.text(name)
		}
		return err
	})
}

// enum reads a SeverityNumber: its name (an unknown name leaves it unset)
// or a 32-bit number (not a string holding one).
func (d *jsonDecoder) enum(field string) (int32, error) {
	switch c := d.peek(); {
	case c == '"':
		s, err := d.str()
		if err != nil {
			return 0, err
		}
		n, _ := severityNumber(s)
		return n, nil
	case c == '-' || '0' <= c && c <= '9':
		n, _, err := d.integer(field, 32, true)
		return int32(n), err
	}
	if err := d.skip(recursionLimit); err != nil {
		return 0, err
	}
	return 0, errJSONValue(field)
}

// keyValues reads a list of KeyValue onto kvs.
func (d *jsonDecoder) keyValues(limit int, kvs *[]keyValue) error {
	return d.list(func() error {
		var kv keyValue
		err := d.message(limit, func(n string) int {
			switch n {
			case "key":
				return fKeyValueKey
			case "value":
				return fKeyValueValue
			}
			return 0
		}, func(num, limit int, name string) error {
			if num == fKeyValueKey {
				var err error
				kv.key, err = d.text(name)
				return err
			}
			kv.value = &anyValue{}
			return d.anyValue(limit, kv.value)
		})
		*kvs = append(*kvs, kv)
		return err
	})
}

// anyValue reads an AnyValue into v: one member of its oneof at most.
func (d *jsonDecoder) anyValue(limit int, v *anyValue) error {
	set := false
	return d.message(limit, func(n string) int {
		switch n {
		case "stringValue", "string_value":
			return fAnyString
		case "boolValue", "bool_value":
			return fAnyBool
		case "intValue", "int_value":
			return fAnyInt
		case "doubleValue", "double_value":
			return fAnyDouble
		case "arrayValue", "array_value":
			return fAnyArray
		case "kvlistValue", "kvlist_value":
			return fAnyKvlist
		case "bytesValue", "bytes_value":
			return fAnyBytes
		}
		return 0
	}, func(num, limit int, name string) error {
		if set {
			return fmt.Errorf("%s: AnyValue's value is already set", name)
		}
		set = true
		var err error
		switch num {
		case fAnyString:
			*v = anyValue{kind: kindString}
			v.str, err = d.text(name)
		case fAnyBool:
			*v = anyValue{kind: kindBool}
			v.boolean, err = d.boolean(name)
		case fAnyInt:
			*v = anyValue{kind: kindInt}
			v.integer, _, err = d.integer(name, 64, true)
		case fAnyDouble:
			*v = anyValue{kind: kindDouble}
			v.double, err = d.float(name)
		case fAnyBytes:
			*v = anyValue{kind: kindBytes}
			v.bytes, err = d.bytes(name)
		case fAnyArray:
			*v = anyValue{kind: kindArray}
			err = d.message(limit, listField, func(_, limit int, _ string) error {
				return d.list(func() error {
					e := &anyValue{}
					v.array = append(v.array, e)
					return d.anyValue(limit, e)
				})
			})
		case fAnyKvlist:
			*v = anyValue{kind: kindKvlist}
			err = d.message(limit, listField, func(_, limit int, _ string) error {
				return d.keyValues(limit, &v.kvlist)
			})
		}
		return err
	})
}

// listField is the field number of ArrayValue's and KeyValueList's one
// field, values.
func listField(n string) int {
	if n == "values" {
		return fListValues
	}
	return 0
}
