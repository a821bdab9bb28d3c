package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/cortexmem/cortex/memories"
)

// decodeArgs checks a tool call's arguments against the tool's input schema
// and decodes them into in. Every problem is an *memories.ArgError worded as
// the CLI words its own, "<argument>: <rule>; got <what came>": a missing
// required argument, a value of the wrong type, a number out of its range, an
// argument the tool does not have. All of them are reported at once, one per
// line, so that a model can fix its call in one go.
//
// The SDK's own validation is not used: its messages name JSON Schema paths
// and, for a null, read "<invalid reflect.Value>". A null given for an
// optional argument counts as leaving it out, which is what the clients that
// send one mean.
func decodeArgs(tool string, s *jsonschema.Schema, raw json.RawMessage, in any) error {
	obj := map[string]json.RawMessage{}
	if trimmed := bytes.TrimSpace(raw); len(trimmed) > 0 && !bytes.Equal(trimmed, []byte("null")) {
		if trimmed[0] != '{' {
			return &memories.ArgError{Arg: "arguments", Rule: "must be an object of named arguments; got " + describe(trimmed)}
		}
		if err := json.Unmarshal(trimmed, &obj); err != nil {
			return &memories.ArgError{Arg: "arguments", Rule: fmt.Sprintf("are not valid JSON: %v", err)}
		}
	}
	var errs []error
	for _, name := range propertyNames(s) {
		v, given := obj[name]
		required := slices.Contains(s.Required, name)
		switch {
		case !given && required:
			errs = append(errs, &memories.ArgError{Arg: name, Rule: "is required"})
		case !given:
		case isNull(v) && required:
			errs = append(errs, &memories.ArgError{Arg: name, Rule: "is required; got null"})
		case isNull(v):
			delete(obj, name)
		default:
			clean, err := checkValue(name, s.Properties[name], v)
			if err != nil {
				errs = append(errs, err)
			}
			obj[name] = clean
		}
	}
	var unknown []string
	for name := range obj {
		if s.Properties[name] == nil {
			unknown = append(unknown, name)
		}
	}
	sort.Strings(unknown)
	for _, name := range unknown {
		errs = append(errs, &memories.ArgError{Arg: name, Rule: fmt.Sprintf("is not an argument of %s; its arguments are %s",
			tool, strings.Join(propertyNames(s), ", "))})
	}
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	clean, err := json.Marshal(obj)
	if err != nil {
		return fmt.Errorf("arguments: %w", err)
	}
	if err := json.Unmarshal(clean, in); err != nil {
		// Not reached when the checks above agree with the input type.
		return &memories.ArgError{Arg: "arguments", Rule: err.Error()}
	}
	return nil
}

// propertyNames are the schema's properties in the order of the input type's
// fields.
func propertyNames(s *jsonschema.Schema) []string {
	names := slices.Clone(s.PropertyOrder)
	var rest []string
	for name := range s.Properties {
		if !slices.Contains(names, name) {
			rest = append(rest, name)
		}
	}
	sort.Strings(rest)
	return append(names, rest...)
}

func isList(v any) bool {
	_, ok := v.([]any)
	return ok
}

func isNull(v json.RawMessage) bool { return bytes.Equal(bytes.TrimSpace(v), []byte("null")) }

// checkValue checks one argument's value against its schema, and returns it
// as the input type decodes it: a whole number written 5.0 or 5e0 as 5.
func checkValue(name string, s *jsonschema.Schema, raw json.RawMessage) (json.RawMessage, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return raw, &memories.ArgError{Arg: name, Rule: fmt.Sprintf("is not valid JSON: %v", err)}
	}
	if rule, ok := matches(s, v); !ok {
		return raw, &memories.ArgError{Arg: name, Rule: rule}
	}
	if n, ok := v.(json.Number); ok && s.Type == "integer" {
		i, err := checkInteger(name, s, n)
		if err != nil {
			return raw, err
		}
		return json.RawMessage(strconv.Itoa(i)), nil
	}
	return raw, nil
}

// matches reports whether v has the type s asks for, and otherwise the rule
// it breaks.
func matches(s *jsonschema.Schema, v any) (string, bool) {
	if len(s.AnyOf) > 0 {
		for _, alt := range s.AnyOf {
			if _, ok := matches(alt, v); ok {
				return "", true
			}
		}
		// A value of the right kind but wrong inside (a list with a number
		// in it) is told what is wrong inside.
		for _, alt := range s.AnyOf {
			if alt.Type == "array" && isList(v) {
				return matches(alt, v)
			}
		}
		return "must be " + expected(s) + "; got " + describeValue(v), false
	}
	ok := true
	switch s.Type {
	case "string":
		_, ok = v.(string)
	case "boolean":
		_, ok = v.(bool)
	case "integer":
		// The range is checked apart, to say what the number was.
		_, ok = v.(json.Number)
	case "number":
		_, ok = v.(json.Number)
	case "array":
		var list []any
		if list, ok = v.([]any); ok && s.Items != nil {
			for i, item := range list {
				if _, itemOK := matches(s.Items, item); !itemOK {
					return fmt.Sprintf("item %d must be %s; got %s", i+1, expected(s.Items), describeValue(item)), false
				}
			}
		}
	case "object":
		_, ok = v.(map[string]any)
	}
	if !ok {
		return "must be " + expected(s) + "; got " + describeValue(v), false
	}
	return "", true
}

// checkInteger checks that n is a whole number within the schema's bounds,
// in the words of memories.CheckRange, and returns it.
func checkInteger(name string, s *jsonschema.Schema, n json.Number) (int, error) {
	f, err := n.Float64()
	if err != nil || f != math.Trunc(f) || math.IsInf(f, 0) {
		return 0, &memories.ArgError{Arg: name, Rule: "must be " + expected(s) + "; got " + describeValue(n)}
	}
	if s.Minimum == nil || s.Maximum == nil {
		if math.Abs(f) > math.MaxInt32 {
			return 0, &memories.ArgError{Arg: name, Rule: fmt.Sprintf("is %s; that is too large", n)}
		}
		return int(f), nil
	}
	lo, hi := int(*s.Minimum), int(*s.Maximum)
	if math.Abs(f) > math.MaxInt32 {
		return 0, &memories.ArgError{Arg: name, Rule: fmt.Sprintf("is %s; it must be from %d to %d", n, lo, hi)}
	}
	if err := memories.CheckRange(name, int(f), lo, hi); err != nil {
		return 0, err
	}
	return int(f), nil
}

// expected says in words what s accepts: "a string", "an integer from 1 to
// 50", "a list of strings or a string".
func expected(s *jsonschema.Schema) string {
	if len(s.AnyOf) > 0 {
		var alts []string
		for _, alt := range s.AnyOf {
			alts = append(alts, expected(alt))
		}
		return strings.Join(alts, " or ")
	}
	switch s.Type {
	case "string":
		return "a string"
	case "boolean":
		return "true or false"
	case "integer":
		if s.Minimum != nil && s.Maximum != nil {
			return fmt.Sprintf("a whole number from %d to %d", int(*s.Minimum), int(*s.Maximum))
		}
		return "a whole number"
	case "number":
		return "a number"
	case "array":
		if s.Items != nil && s.Items.Type == "string" {
			return "a list of strings"
		}
		return "a list"
	case "object":
		return "an object"
	}
	return "a JSON value"
}

// describe words raw JSON as describeValue does.
func describe(raw []byte) string {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return "text that is not JSON"
	}
	return describeValue(v)
}

// describeValue words a decoded JSON value for a message: its kind, and the
// value itself when it is short.
func describeValue(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case bool:
		return fmt.Sprint(v)
	case json.Number:
		return "the number " + clip(v.String())
	case string:
		if v == "" {
			return "an empty string"
		}
		return fmt.Sprintf("the string %q", clip(v))
	case []any:
		return fmt.Sprintf("a list of %d items", len(v))
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}

// clip shortens what a message quotes back.
func clip(s string) string {
	const max = 40
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	return string([]rune(s)[:max]) + "…"
}
