package view

import (
	"math"
	"time"

	"github.com/cortexmem/cortex/memories"
)

// Abs turns a note's path relative to cortex's folder in the vault into the
// absolute path results show.
type Abs func(rel string) string

// Memory is a memory in a result: everything but its text.
type Memory struct {
	ID         string    `json:"id" jsonschema:"the memory's id (a ULID); any unique prefix of 8 or more characters works where an id is asked for"`
	ShortID    string    `json:"short_id" jsonschema:"the shortest unique prefix of the id, at least 8 characters"`
	Title      string    `json:"title"`
	Type       string    `json:"type" jsonschema:"decision, preference, convention, gotcha, fact, lesson, note, meeting, action, session, episode, summary or reflection"`
	Project    string    `json:"project"`
	Area       string    `json:"area,omitempty"`
	Tags       []string  `json:"tags"`
	Source     string    `json:"source" jsonschema:"how the memory arrived: user, import, capture, mined, hook or mcp (saved by an agent through the MCP server)"`
	Status     string    `json:"status" jsonschema:"active, open, done or superseded"`
	Importance int       `json:"importance" jsonschema:"1 to 5"`
	Created    time.Time `json:"created"`
	Updated    time.Time `json:"updated"`
	// Path is the note's file.
	Path         string `json:"path" jsonschema:"the note's absolute path in the Obsidian vault"`
	Supersedes   string `json:"supersedes,omitempty" jsonschema:"the id of the memory this one replaced"`
	SupersededBy string `json:"superseded_by,omitempty" jsonschema:"the id of the memory that replaced this one"`
}

// EntryOf is the view of a catalog entry whose short id is short.
func EntryOf(e *memories.Entry, short string, abs Abs) Memory {
	return Memory{
		ID: e.ID, ShortID: short, Title: e.Title, Type: string(e.Type), Project: e.Project, Area: e.Area,
		Tags: list(e.Tags), Source: string(e.Source), Status: string(e.Status), Importance: e.Importance,
		Created: e.Created, Updated: e.Updated, Path: abs(e.Path), SupersededBy: e.SupersededBy,
	}
}

// MemoryOf is the view of a memory whose short id is short.
func MemoryOf(m *memories.Memory, short string, abs Abs) Memory {
	e := memories.EntryOf(m)
	v := EntryOf(&e, short, abs)
	v.Supersedes = m.Supersedes
	return v
}

// Round rounds a score or a signal to 6 decimals: enough to order and compare
// results, short enough to read. Every number a view shows goes through it.
func Round(f float64) float64 { return math.Round(f*1e6) / 1e6 }

// list is l, or an empty list for nil: a list prints as [], never null.
func list[T any](l []T) []T {
	if l == nil {
		return []T{}
	}
	return l
}
