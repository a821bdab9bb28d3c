package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// portability lists what in a tool's schema some clients refuse or misread,
// with the JSON pointer of each place: the checks of the MCP Inspector's
// strict mode and of clients that map schemas to a one-type dialect (Gemini's
// function declarations, OpenAI's strict mode), as far as they concern the
// schemas this server can produce.
//
//   - the root is an object schema ("type": "object"), for arguments as for
//     results, as the MCP schema of Tool asks;
//   - every schema is an object with one "type", a string naming a JSON type
//     other than null — no ["null", "array"] unions, no "type": "null" — or,
//     for a value of two types, an "anyOf" of such schemas; never a bare
//     true or {} (any value);
//   - an array says its items; an object says its properties or, for a map,
//     the schema of its values, and whether it takes other keys
//     ("additionalProperties"); "required" names only properties it has;
//   - no keyword outside the plain subset: $ref and $defs, oneOf, allOf, not,
//     if/then/else, patternProperties, prefixItems, OpenAPI's nullable; no
//     $schema or $id (a dialect tag some clients refuse: MCP's default,
//     2020-12, needs none).
func portability(root any) []string {
	var found []string
	report := func(at, format string, args ...any) {
		if at == "" {
			at = "/"
		}
		found = append(found, at+": "+fmt.Sprintf(format, args...))
	}
	rootObj, ok := root.(map[string]any)
	if !ok || rootObj["type"] != "object" {
		report("", `the root must be {"type": "object", …}`)
	}
	var walk func(at string, v any)
	walk = func(at string, v any) {
		s, ok := v.(map[string]any)
		if !ok {
			report(at, "a schema must be an object, not %s", jsonOf(v))
			return
		}
		for _, k := range []string{"$schema", "$id", "$ref", "$defs", "definitions", "$dynamicRef", "oneOf", "allOf", "not", "if", "then", "else", "patternProperties", "prefixItems", "nullable"} {
			if _, ok := s[k]; ok {
				report(at, "%q is not portable", k)
			}
		}
		typ, hasType := s["type"]
		alts, hasAnyOf := s["anyOf"].([]any)
		// kinds are the types the schema says, to look inside each even
		// when it says more than one.
		var kinds []any
		switch t := typ.(type) {
		case nil:
			if hasType {
				report(at, `"type" is null`)
			} else if !hasAnyOf {
				report(at, `no "type": the schema takes any value`)
			}
		case string:
			kinds = []any{t}
			if !slices.Contains([]string{"string", "integer", "number", "boolean", "array", "object"}, t) {
				report(at, `"type" %q is not a JSON type a client maps (null included)`, t)
			}
		case []any:
			kinds = t
			report(at, `"type" must be one type, not %s`, jsonOf(t))
		default:
			report(at, `"type" must be a string, not %s`, jsonOf(t))
		}
		for i, alt := range alts {
			walk(fmt.Sprintf("%s/anyOf/%d", at, i), alt)
		}
		if _, ok := s["anyOf"]; ok && len(alts) == 0 {
			report(at, `"anyOf" must be a list of schemas`)
		}
		if slices.Contains(kinds, "array") {
			if items, ok := s["items"]; !ok {
				report(at, `an array must say its "items"`)
			} else {
				walk(at+"/items", items)
			}
		}
		if slices.Contains(kinds, "object") {
			props, hasProps := s["properties"].(map[string]any)
			extra, hasExtra := s["additionalProperties"]
			switch {
			case !hasExtra:
				report(at, `an object must say whether it takes other keys ("additionalProperties")`)
			case extra == false:
			case extra == true:
				report(at, `"additionalProperties": true takes any value; give their schema`)
			default:
				walk(at+"/additionalProperties", extra)
			}
			if !hasProps && (extra == false || !hasExtra) && at != "" {
				report(at, `an object must say its "properties" or the schema of its values`)
			}
			names := make([]string, 0, len(props))
			for name := range props {
				names = append(names, name)
			}
			sort.Strings(names)
			for _, name := range names {
				walk(at+"/properties/"+name, props[name])
			}
			if req, ok := s["required"]; ok {
				list, _ := req.([]any)
				for _, r := range list {
					name, _ := r.(string)
					if _, ok := props[name]; !ok {
						report(at, "required %s is not a property", jsonOf(r))
					}
				}
				if list == nil {
					report(at, `"required" must be a list of property names`)
				}
			}
		}
	}
	walk("", root)
	return found
}

func jsonOf(v any) string {
	data, _ := json.Marshal(v)
	return string(data)
}

// toolName is the form the MCP specification recommends for a tool's name.
var toolName = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,128}$`)

// TestSchemasPortable walks every tool's input and output schema as
// tools/list gives them to a client and fails on anything a strict client
// refuses: see portability.
func TestSchemasPortable(t *testing.T) {
	e := newEnv(t)
	res, err := e.session.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Tools) == 0 {
		t.Fatal("no tools")
	}
	for _, tool := range res.Tools {
		if !toolName.MatchString(tool.Name) {
			t.Errorf("tool %q: a name of letters, digits, _, - and . (at most 128)", tool.Name)
		}
		for _, side := range []struct {
			name   string
			schema any
		}{{"inputSchema", tool.InputSchema}, {"outputSchema", tool.OutputSchema}} {
			if side.schema == nil {
				t.Errorf("%s: no %s", tool.Name, side.name)
				continue
			}
			// What the client reads: the schema as JSON.
			var v any
			if err := json.Unmarshal([]byte(jsonOf(side.schema)), &v); err != nil {
				t.Fatal(err)
			}
			if found := portability(v); len(found) > 0 {
				t.Errorf("%s %s:\n  %s", tool.Name, side.name, strings.Join(found, "\n  "))
			}
		}
	}
}

// TestPortability holds the check to each rule: a check that passes every
// schema would let TestSchemasPortable pass on anything.
func TestPortability(t *testing.T) {
	for _, tt := range []struct {
		name, schema string
		want         []string
	}{
		{"plain", `{"type":"object","additionalProperties":false,"properties":{"a":{"type":"string"},"b":{"type":"array","items":{"type":"integer"}},"m":{"type":"object","additionalProperties":{"type":"integer"}},"l":{"anyOf":[{"type":"array","items":{"type":"string"}},{"type":"string"}]}},"required":["a"]}`, nil},
		{"root not an object", `{"type":"string"}`, []string{`/: the root must be {"type": "object", …}`}},
		{"union", `{"type":"object","additionalProperties":false,"properties":{"a":{"type":["null","array"],"items":{"type":"string"}}}}`,
			[]string{`/properties/a: "type" must be one type, not ["null","array"]`}},
		{"null type", `{"type":"object","additionalProperties":false,"properties":{"a":{"type":"null"}}}`,
			[]string{`/properties/a: "type" "null" is not a JSON type a client maps (null included)`}},
		{"no type", `{"type":"object","additionalProperties":false,"properties":{"a":{"description":"anything"}}}`,
			[]string{`/properties/a: no "type": the schema takes any value`}},
		{"bare true", `{"type":"object","additionalProperties":false,"properties":{"a":true}}`,
			[]string{`/properties/a: a schema must be an object, not true`}},
		{"union in anyOf", `{"type":"object","additionalProperties":false,"properties":{"a":{"anyOf":[{"type":["string","null"]}]}}}`,
			[]string{`/properties/a/anyOf/0: "type" must be one type, not ["string","null"]`}},
		{"array without items", `{"type":"object","additionalProperties":false,"properties":{"a":{"type":"array"}}}`,
			[]string{`/properties/a: an array must say its "items"`}},
		{"object open", `{"type":"object","properties":{"a":{"type":"string"}}}`,
			[]string{`/: an object must say whether it takes other keys ("additionalProperties")`}},
		{"object of anything", `{"type":"object","additionalProperties":false,"properties":{"a":{"type":"object","additionalProperties":true}}}`,
			[]string{`/properties/a: "additionalProperties": true takes any value; give their schema`}},
		{"object without properties", `{"type":"object","additionalProperties":false,"properties":{"a":{"type":"object","additionalProperties":false}}}`,
			[]string{`/properties/a: an object must say its "properties" or the schema of its values`}},
		{"required unknown", `{"type":"object","additionalProperties":false,"properties":{"a":{"type":"string"}},"required":["b"]}`,
			[]string{`/: required "b" is not a property`}},
		{"ref", `{"type":"object","additionalProperties":false,"properties":{"a":{"$ref":"#/$defs/x"}},"$defs":{"x":{"type":"string"}}}`,
			[]string{`/: "$defs" is not portable`, `/properties/a: "$ref" is not portable`, `/properties/a: no "type": the schema takes any value`}},
		{"dialect", `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","additionalProperties":false,"properties":{}}`,
			[]string{`/: "$schema" is not portable`}},
		{"nullable", `{"type":"object","additionalProperties":false,"properties":{"a":{"type":"string","nullable":true}}}`,
			[]string{`/properties/a: "nullable" is not portable`}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var v any
			if err := json.Unmarshal([]byte(tt.schema), &v); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(portability(v), tt.want); diff != "" {
				t.Errorf("(-got +want):\n%s", diff)
			}
		})
	}
}
