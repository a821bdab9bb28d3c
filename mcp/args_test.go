package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cortexmem/cortex/memories"
	"github.com/cortexmem/cortex/vault"
)

// result is a tool result as a test reads it.
type result struct {
	isError    bool
	text       string
	structured json.RawMessage
}

func (e *env) try(name string, args any) result {
	e.t.Helper()
	res, err := e.session.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		e.t.Fatalf("%s %v: a protocol error, want a tool result: %v", name, args, err)
	}
	e.checkOutput(name, res)
	var r result
	r.isError = res.IsError
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			r.text += tc.Text
		}
	}
	if res.StructuredContent != nil {
		data, err := json.Marshal(res.StructuredContent)
		if err != nil {
			e.t.Fatal(err)
		}
		r.structured = data
	}
	return r
}

// TestMalformedArguments sends every tool, through a client session, every
// kind of malformed argument its published schema allows one to think of: each
// argument missing (when required), null, of each wrong type, out of range,
// an argument the tool does not have, and arguments that are not an object.
// Every refusal names the argument and the rule, and none reads like Go's
// reflection ("<invalid reflect.Value>") or a JSON Schema path.
func TestMalformedArguments(t *testing.T) {
	e := newEnv(t)
	notes := filepath.Join(e.root, "home", "notes")
	if err := os.MkdirAll(notes, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(notes, "a.md"), []byte("# Build\n\nThe build cache lives in /var/cache/build and is shared.\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	n := 0
	// valid are arguments each tool accepts, fresh for each call (a save
	// must not be a duplicate of the last one, a supersede needs a live
	// memory).
	valid := map[string]func() map[string]any{
		"memory_save": func() map[string]any {
			n++
			return map[string]any{"content": fmt.Sprintf("Memory number %d about %s.", n, wordsFor(n)), "project": "web"}
		},
		"memory_recall": func() map[string]any { return map[string]any{"query": "memory", "limit": 5, "project": "web"} },
		"recall":        func() map[string]any { return map[string]any{"scope": "recent", "project": "web"} },
		"memory_list":   func() map[string]any { return map[string]any{"project": "web"} },
		"memory_import": func() map[string]any { return map[string]any{"source_path": notes, "dry_run": true} },
		"capture": func() map[string]any {
			return map[string]any{"type": "stop", "session": "s1", "content": "the session ended"}
		},
		"status": func() map[string]any { return map[string]any{"limit": 5} },
		"context_assemble": func() map[string]any {
			return map[string]any{"query": "memory", "project": "web", "scope_id": "web", "budget": 300}
		},
		"reflect": func() map[string]any {
			return map[string]any{"project": "web", "scope_id": "web", "since": "7d", "style": "full"}
		},
		"supersede": func() map[string]any {
			n++
			r := e.try("memory_save", map[string]any{"content": fmt.Sprintf("To be replaced, number %d: %s.", n, wordsFor(n+1000))})
			var out struct{ ID string }
			if err := json.Unmarshal(r.structured, &out); err != nil || out.ID == "" {
				t.Fatalf("save for supersede: %s (%v)", r.text, err)
			}
			return map[string]any{"id": out.ID, "reason": "a test"}
		},
	}
	tools, err := e.session.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	bad := func(r result) string {
		for _, s := range []string{"invalid reflect.Value", "validating", "/properties/", "json:", "Go struct"} {
			if strings.Contains(r.text, s) {
				return s
			}
		}
		return ""
	}
	// refused checks that a call was refused with a message naming arg.
	refused := func(tool, arg, what string, args any) {
		t.Helper()
		r := e.try(tool, args)
		switch {
		case !r.isError:
			t.Errorf("%s, %s %s: accepted: %s", tool, arg, what, r.text)
		case bad(r) != "":
			t.Errorf("%s, %s %s: the message has %q: %s", tool, arg, what, bad(r), r.text)
		case !strings.HasPrefix(r.text, arg+": ") && !strings.Contains(r.text, "\n"+arg+": "):
			t.Errorf("%s, %s %s: the message does not name the argument: %s", tool, arg, what, r.text)
		}
	}
	for _, tool := range tools.Tools {
		mk, ok := valid[tool.Name]
		if !ok {
			t.Errorf("no valid arguments for tool %s: add them to this test", tool.Name)
			continue
		}
		if r := e.try(tool.Name, mk()); r.isError {
			t.Fatalf("%s with valid arguments: %s", tool.Name, r.text)
		}
		var schema jsonschema.Schema
		data, _ := json.Marshal(tool.InputSchema)
		if err := json.Unmarshal(data, &schema); err != nil {
			t.Fatal(err)
		}
		for name, prop := range schema.Properties {
			required := slices.Contains(schema.Required, name)
			with := func(v any) map[string]any {
				args := mk()
				args[name] = v
				return args
			}
			if required {
				args := mk()
				delete(args, name)
				refused(tool.Name, name, "missing", args)
				refused(tool.Name, name, "null", with(nil))
			} else {
				// A null is an argument left out.
				if r := e.try(tool.Name, with(nil)); r.isError {
					t.Errorf("%s, %s null: refused: %s", tool.Name, name, r.text)
				}
			}
			for _, v := range wrongValues(prop) {
				refused(tool.Name, name, fmt.Sprintf("= %#v", v), with(v))
			}
		}
		args := mk()
		args["colour"] = "blue"
		refused(tool.Name, "colour", "(not an argument)", args)
		for _, args := range []any{[]any{1, 2}, "content", 42} {
			refused(tool.Name, "arguments", fmt.Sprintf("%#v", args), args)
		}
	}
}

// wrongValues are values a property's schema refuses.
func wrongValues(s *jsonschema.Schema) []any {
	if len(s.AnyOf) > 0 { // a list of strings or a string
		return []any{5, true, map[string]any{"a": "b"}, []any{"ok", 7}, []any{nil}}
	}
	switch s.Type {
	case "string":
		return []any{42, true, []any{"a"}, map[string]any{"a": "b"}}
	case "boolean":
		return []any{"yes", 1, []any{true}}
	case "integer":
		out := []any{"ten", "5", 2.5, true, []any{1}, 1e30}
		if s.Minimum != nil {
			out = append(out, *s.Minimum-1, 0, -1)
		}
		if s.Maximum != nil {
			out = append(out, *s.Maximum+1)
		}
		return out
	}
	return []any{map[string]any{"unexpected": "type"}}
}

func TestMalformedArgumentMessages(t *testing.T) {
	e := newEnv(t)
	for _, tt := range []struct {
		tool string
		args any
		want string
	}{
		{"memory_save", map[string]any{}, "content: is required"},
		{"memory_save", map[string]any{"content": nil}, "content: is required; got null"},
		{"memory_save", map[string]any{"content": 42}, "content: must be a string; got the number 42"},
		{"memory_save", map[string]any{"content": "A memory long enough to be saved.", "importance": 0}, "importance: is 0; it must be from 1 to 5"},
		{"memory_save", map[string]any{"content": "A memory long enough to be saved.", "importance": 2.5}, "importance: must be a whole number from 1 to 5; got the number 2.5"},
		{"memory_save", map[string]any{"content": "A memory long enough to be saved.", "tags": []any{"ok", 7}}, "tags: item 2 must be a string; got the number 7"},
		{"memory_save", map[string]any{"content": "A memory long enough to be saved.", "tags": 7}, "tags: must be a list of strings or a string; got the number 7"},
		{"memory_recall", map[string]any{"query": "x", "limit": 0}, "limit: is 0; it must be from 1 to 50"},
		{"memory_recall", map[string]any{"query": "x", "limit": 1e30}, "limit: is 1e+30; it must be from 1 to 50"},
		{"memory_recall", map[string]any{"query": "x", "limit": "ten"}, `limit: must be a whole number from 1 to 50; got the string "ten"`},
		{"memory_recall", map[string]any{"query": "x", "explain": "yes"}, `explain: must be true or false; got the string "yes"`},
		{"memory_list", map[string]any{"project": []any{"a"}, "status": 3}, "project: must be a string; got a list of 1 items\nstatus: must be a string; got the number 3"},
		{"memory_list", map[string]any{"colour": "blue"}, "colour: is not an argument of memory_list; its arguments are project, scope_id, filter, type, status, limit"},
		{"supersede", []any{"01abcdefgh"}, "arguments: must be an object of named arguments; got a list of 1 items"},
	} {
		r := e.try(tt.tool, tt.args)
		if !r.isError || r.text != tt.want {
			t.Errorf("%s %v: isError %v, %q; want %q", tt.tool, tt.args, r.isError, r.text, tt.want)
		}
	}
}

// TestArgumentsDecoded: what the checks let through reaches the tool as the
// caller meant it: a whole number written 5.0, a null left out.
func TestArgumentsDecoded(t *testing.T) {
	s := inputSchema[RecallInput](intRange{"limit", 1, 50})
	for _, tt := range []struct {
		raw  string
		want RecallInput
	}{
		{`{"query":"q","limit":5.0}`, RecallInput{Query: "q", Limit: 5}},
		{`{"query":"q","limit":5e0,"tags":"a, b"}`, RecallInput{Query: "q", Limit: 5, Tags: StringList{"a", "b"}}},
		{`{"query":"q","limit":null,"scope":null,"tags":null,"explain":null}`, RecallInput{Query: "q"}},
		{``, RecallInput{}},
		{`null`, RecallInput{}},
	} {
		var got RecallInput
		if err := decodeArgs("recall", s, json.RawMessage(tt.raw), &got); err != nil {
			t.Errorf("%s: %v", tt.raw, err)
			continue
		}
		if diff := cmp.Diff(got, tt.want); diff != "" {
			t.Errorf("%s (-got +want):\n%s", tt.raw, diff)
		}
	}
}

// TestClientRecorded: a memory an agent saves through the server is recorded
// as source mcp, with the client's name and version in its provenance; so are
// a replacement written by supersede and the memories of an import (whose
// source stays import).
func TestClientRecorded(t *testing.T) {
	e := newEnvAs(t, &mcp.Implementation{Name: "claude-code", Version: "2.1.3"})
	note := func(path string) *memories.Memory {
		t.Helper()
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		n, err := vault.ParseNote(data)
		if err != nil {
			t.Fatal(err)
		}
		return n.Memory("x.md", time.Time{})
	}
	type origin struct{ Source, Client string }
	check := func(what, path string, want origin) {
		t.Helper()
		m := note(path)
		if diff := cmp.Diff(origin{string(m.Source), m.Provenance.Client}, want); diff != "" {
			t.Errorf("%s (-got +want):\n%s", what, diff)
		}
	}
	r := e.try("memory_save", map[string]any{"content": "The staging database pool is 20 per pod, because of max_connections.", "project": "api"})
	var saved struct{ ID, Path string }
	if err := json.Unmarshal(r.structured, &saved); err != nil || r.isError {
		t.Fatalf("save: %s %v", r.text, err)
	}
	check("saved", saved.Path, origin{"mcp", "claude-code 2.1.3"})

	r = e.try("supersede", map[string]any{"id": saved.ID, "replacement": "The staging database pool is 40 per pod since the load test."})
	var sup struct{ New struct{ Path string } }
	if err := json.Unmarshal(r.structured, &sup); err != nil || r.isError {
		t.Fatalf("supersede: %s %v", r.text, err)
	}
	check("replacement", sup.New.Path, origin{"mcp", "claude-code 2.1.3"})
	if m := note(sup.New.Path); m.Provenance.DerivedFrom != saved.ID {
		t.Errorf("replacement derived from %q, want %q", m.Provenance.DerivedFrom, saved.ID)
	}
	check("superseded", saved.Path, origin{"mcp", "claude-code 2.1.3"})

	notes := filepath.Join(e.root, "home", "notes")
	if err := os.MkdirAll(notes, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(notes, "redis.md"), []byte("# Redis\n\nThe client timeout is 5s by default; bulk jobs need 30s.\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r = e.try("memory_import", map[string]any{"source_path": notes})
	var imp struct{ Memories []struct{ Path string } }
	if err := json.Unmarshal(r.structured, &imp); err != nil || r.isError || len(imp.Memories) != 1 {
		t.Fatalf("import: %s %v", r.text, err)
	}
	check("imported", imp.Memories[0].Path, origin{"import", "claude-code 2.1.3"})

	r = e.try("memory_list", map[string]any{})
	if !strings.Contains(r.text, "Sources: import:1, mcp:1") {
		t.Errorf("list: %s", r.text)
	}
}

func TestClientName(t *testing.T) {
	for _, tt := range []struct {
		in   *mcp.Implementation
		want string
	}{
		{nil, ""},
		{&mcp.Implementation{Name: "claude-code", Version: "2.1.3"}, "claude-code 2.1.3"},
		{&mcp.Implementation{Name: "codex-mcp-client"}, "codex-mcp-client"},
		{&mcp.Implementation{Version: "1.0"}, ""},
		{&mcp.Implementation{Name: "evil\nsource: user\x00", Version: "1\u200b.0\u202e"}, "evil source: user 1 .0"},
		{&mcp.Implementation{Name: strings.Repeat("n", 300)}, strings.Repeat("n", maxClientName)},
	} {
		if got := clientName(tt.in); got != tt.want {
			t.Errorf("clientName(%+v) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// wordsFor is a phrase of words that differ from one n to the next, so that
// no memory of a test is a duplicate of another.
func wordsFor(n int) string {
	vocab := strings.Fields(`amber birch cobalt delta ember fjord garnet harbor indigo juniper kelp lagoon
		marble nectar onyx prairie quartz raven sierra tundra umber violet walnut xenon yonder zephyr`)
	var w []string
	for i := 0; i < 6; i++ {
		w = append(w, vocab[(n*7+i*11+n/len(vocab))%len(vocab)]+fmt.Sprint(n*31+i))
	}
	return strings.Join(w, " ")
}

// FuzzDecodeArgs: whatever arrives as a call's arguments, decodeArgs neither
// panics nor lets through what the input type cannot hold, and each line of
// a refusal names an argument.
func FuzzDecodeArgs(f *testing.F) {
	for _, seed := range []string{
		``, `null`, `{}`, `[]`, `"x"`, `{"query":"q","limit":5}`, `{"limit":"ten"}`, `{"limit":1e400}`,
		`{"limit":-0.0}`, `{"tags":[null]}`, `{"tags":"a,b","explain":null}`, `{"query":null}`, `{"query":"q","query":5}`,
		`{"colour":1,"limit":0}`, `{"limit":5.0000000000000001}`, `{"since":"7d"`,
	} {
		f.Add([]byte(seed))
	}
	s := inputSchema[RecallInput](intRange{"limit", 1, memories.MaxRecallLimit})
	names := append(propertyNames(s), "arguments")
	f.Fuzz(func(t *testing.T, data []byte) {
		var in RecallInput
		err := decodeArgs("memory_recall", s, data, &in)
		if err == nil {
			if in.Limit != 0 && (in.Limit < 1 || in.Limit > memories.MaxRecallLimit) {
				t.Errorf("%s: limit %d let through", data, in.Limit)
			}
			return
		}
		for _, line := range strings.Split(err.Error(), "\n") {
			arg, _, ok := strings.Cut(line, ": ")
			if !ok || strings.Contains(line, "reflect") {
				t.Errorf("%s: %q does not name an argument", data, line)
			}
			if !slices.Contains(names, arg) && !strings.HasPrefix(line, arg+": is not an argument of") {
				t.Errorf("%s: %q names %q", data, line, arg)
			}
		}
	})
}
