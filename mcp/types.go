package mcp

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/cortexmem/cortex/memories"
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
	return s
}

// Memory is a memory in a tool's structured output.
type Memory struct {
	ID         string    `json:"id" jsonschema:"the memory's id (a ULID); any unique prefix of 8 or more characters works where an id is asked for"`
	ShortID    string    `json:"short_id" jsonschema:"the shortest unique prefix of the id, at least 8 characters"`
	Title      string    `json:"title"`
	Type       string    `json:"type" jsonschema:"decision, preference, convention, gotcha, fact, lesson, note, meeting, action, session, episode, summary or reflection"`
	Project    string    `json:"project"`
	Area       string    `json:"area,omitempty"`
	Tags       []string  `json:"tags"`
	Source     string    `json:"source" jsonschema:"how the memory arrived: user, import, capture, mined, hook or mcp (saved by an agent through this server)"`
	Status     string    `json:"status" jsonschema:"active, open, done or superseded"`
	Importance int       `json:"importance" jsonschema:"1 to 5"`
	Created    time.Time `json:"created"`
	Updated    time.Time `json:"updated"`
	// Path is the note's file.
	Path         string `json:"path" jsonschema:"the note's absolute path in the Obsidian vault"`
	Supersedes   string `json:"supersedes,omitempty"`
	SupersededBy string `json:"superseded_by,omitempty"`
}

func (s *server) entry(e *memories.Entry, short string) Memory {
	tags := e.Tags
	if tags == nil {
		tags = []string{}
	}
	return Memory{
		ID: e.ID, ShortID: short, Title: e.Title, Type: string(e.Type), Project: e.Project, Area: e.Area,
		Tags: tags, Source: string(e.Source), Status: string(e.Status), Importance: e.Importance,
		Created: e.Created, Updated: e.Updated, Path: s.abs(e.Path), SupersededBy: e.SupersededBy,
	}
}

func (s *server) memory(m *memories.Memory, short string) Memory {
	e := memories.EntryOf(m)
	out := s.entry(&e, short)
	out.Supersedes = m.Supersedes
	return out
}
