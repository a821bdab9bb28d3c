package mcp

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// StringList is a list argument a model may give as a JSON list or as one
// comma-separated string: ["auth","jwt"] or "auth,jwt".
type StringList []string

// UnmarshalJSON accepts a list of strings, a string of comma-separated items,
// or null.
func (l *StringList) UnmarshalJSON(b []byte) error {
	var list []string
	if err := json.Unmarshal(b, &list); err == nil {
		*l = list
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("want a list of strings or one comma-separated string, got %s", b)
	}
	*l = nil
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			*l = append(*l, p)
		}
	}
	return nil
}

// intRange bounds a whole-number argument: the schema publishes it (minimum,
// maximum) and decodeArgs holds calls to it, 0 included.
type intRange struct {
	arg    string
	lo, hi int
}

// inputSchema is the schema of a tool's input type, with StringList taking a
// string or a list of strings, and the ranges of its number arguments.
func inputSchema[In any](ranges ...intRange) *jsonschema.Schema {
	s, err := jsonschema.For[In](&jsonschema.ForOptions{TypeSchemas: map[reflect.Type]*jsonschema.Schema{
		reflect.TypeFor[StringList](): {AnyOf: []*jsonschema.Schema{
			{Type: "array", Items: &jsonschema.Schema{Type: "string"}},
			{Type: "string"},
		}},
	}})
	if err != nil {
		panic(fmt.Sprintf("mcp: schema of %T: %v", *new(In), err))
	}
	for _, r := range ranges {
		p := s.Properties[r.arg]
		if p == nil || p.Type != "integer" {
			panic(fmt.Sprintf("mcp: schema of %T: no integer argument %s", *new(In), r.arg))
		}
		p.Minimum, p.Maximum = ptr(float64(r.lo)), ptr(float64(r.hi))
	}
	singleTypes(s)
	return s
}

// outputSchema is the schema of a tool's structured result, a view type.
func outputSchema[Out any]() *jsonschema.Schema {
	s, err := jsonschema.For[Out](&jsonschema.ForOptions{})
	if err != nil {
		panic(fmt.Sprintf("mcp: output schema of %T: %v", *new(Out), err))
	}
	singleTypes(s)
	return s
}

// singleTypes rewrites the ["null", T] types the schema package gives every
// Go slice and pointer as T. A JSON null never comes out of a view (lists are
// made empty, optional parts are omitempty), and clients that map schemas to
// a one-type dialect, such as Gemini's function declarations, reject unions.
// Any other union is a mistake in a type: it panics, when the server starts.
func singleTypes(s *jsonschema.Schema) {
	if s == nil {
		return
	}
	switch {
	case len(s.Types) == 2 && s.Types[0] == "null" && s.Type == "":
		s.Type, s.Types = s.Types[1], nil
	case len(s.Types) > 0:
		panic(fmt.Sprintf("mcp: a schema of types %v: a tool's schemas have one type per value", s.Types))
	}
	for _, p := range s.Properties {
		singleTypes(p)
	}
	for _, alt := range s.AnyOf {
		singleTypes(alt)
	}
	singleTypes(s.Items)
	singleTypes(s.AdditionalProperties)
}
