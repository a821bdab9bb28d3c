package memories

import (
	"slices"
	"strings"
	"time"
)

// Type is what kind of knowledge a memory holds.
type Type string

// The memory types of SPEC §3.
const (
	TypeDecision   Type = "decision"
	TypePreference Type = "preference"
	TypeConvention Type = "convention"
	TypeGotcha     Type = "gotcha"
	TypeFact       Type = "fact"
	TypeLesson     Type = "lesson"
	TypeNote       Type = "note"
	TypeMeeting    Type = "meeting"
	TypeAction     Type = "action"
	TypeSession    Type = "session"
	TypeEpisode    Type = "episode"
	TypeSummary    Type = "summary"
	TypeReflection Type = "reflection"
)

// Types lists every valid type, in documentation order.
var Types = []Type{
	TypeDecision, TypePreference, TypeConvention, TypeGotcha, TypeFact, TypeLesson,
	TypeNote, TypeMeeting, TypeAction, TypeSession, TypeEpisode, TypeSummary, TypeReflection,
}

// Source says how a memory entered the store.
type Source string

// The sources of SPEC §3, and mcp for what agents save through the MCP server.
const (
	SourceUser    Source = "user"
	SourceImport  Source = "import"
	SourceCapture Source = "capture"
	SourceMined   Source = "mined"
	SourceHook    Source = "hook"
	// SourceMCP is a memory an agent saved through the MCP server; its
	// provenance names the client (Provenance.Client).
	SourceMCP Source = "mcp"
)

// Status is where a memory is in its life.
type Status string

// The statuses of SPEC §3.
const (
	StatusActive     Status = "active"
	StatusOpen       Status = "open"
	StatusDone       Status = "done"
	StatusSuperseded Status = "superseded"
)

// Defaults for memories that do not say otherwise.
const (
	DefaultProject    = "general"
	DefaultImportance = 3
	DefaultType       = TypeNote
)

// Memory is one note of the vault as the domain sees it. The vault keeps the
// note's other frontmatter keys; they never pass through here.
type Memory struct {
	ID      string
	Title   string
	Type    Type
	Project string
	Area    string
	Tags    []string
	// Aliases are other names Obsidian links the note by (an imported note's
	// own aliases).
	Aliases    []string
	Source     Source
	Status     Status
	Importance int
	Created    time.Time
	Updated    time.Time
	Due        string   // a date (YYYY-MM-DD), action items only
	Related    []string // note names, written as "[[name]]" links

	Supersedes      string // id of the memory this one replaces
	SupersededBy    string // id of the memory that replaced this one
	SupersededAt    time.Time
	SupersedeReason string
	// SupersedesNote and SupersededByNote are the note paths of the memories
	// Supersedes and SupersededBy name, so that the properties are links
	// Obsidian follows. Whoever writes those properties sets them; reading a
	// note leaves them empty (the id is the identity, the path may change).
	SupersedesNote   string
	SupersededByNote string

	Provenance Provenance

	// Fields are frontmatter properties beyond the standard ones that cortex
	// writes itself: the links and facts of notes mined from transcripts
	// (session, produced, produced_by, tool, …), in the order they are
	// written. A person's own properties never pass through here; the vault
	// keeps them as they are. Reading a note leaves Fields empty.
	Fields []Field

	// Body is the markdown after the frontmatter, verbatim.
	Body string
	// Path is the note's path relative to the vault root, with forward slashes.
	Path string
	// Symlink, set when the note is a symbolic link a person made, is the
	// file it leads to. cortex reads such a note (when it stays inside the
	// vault) and never rewrites it: that would replace the link with a file.
	Symlink string
}

// Provenance records where a memory came from.
type Provenance struct {
	EventIDs      []string
	SourceSession string
	SourceTool    string
	SourcePath    string
	DerivedFrom   string
	// SourceHash fingerprints what an import read (not where), so that
	// importing the same source again adds nothing.
	SourceHash string
	// Client is the MCP client that asked for the memory, as it named itself
	// when it connected ("claude-code 2.1.3"): which agent wrote it.
	Client string
}

// Field is one frontmatter property of Memory.Fields: a scalar Value, or a
// List when List is not nil. A value written "[[like this]]" is a link, and
// is quoted as Obsidian quotes links in properties.
type Field struct {
	Key   string
	Value string
	List  []string
}

// IsZero reports whether no provenance is recorded.
func (p Provenance) IsZero() bool {
	return len(p.EventIDs) == 0 && p.SourceSession == "" && p.SourceTool == "" &&
		p.SourcePath == "" && p.DerivedFrom == "" && p.SourceHash == "" && p.Client == ""
}

// Clone returns a deep copy of m.
func (m *Memory) Clone() *Memory {
	c := *m
	c.Tags = slices.Clone(m.Tags)
	c.Aliases = slices.Clone(m.Aliases)
	c.Related = slices.Clone(m.Related)
	c.Provenance.EventIDs = slices.Clone(m.Provenance.EventIDs)
	c.Fields = slices.Clone(m.Fields)
	for i := range c.Fields {
		c.Fields[i].List = slices.Clone(m.Fields[i].List)
	}
	return &c
}

// Content is the body without the blank lines and spaces around it: what was saved.
func (m *Memory) Content() string {
	return strings.TrimSpace(m.Body)
}

// Live reports whether the memory takes part in recall by default.
func (m *Memory) Live() bool { return m.Status.Live() }

// Live reports whether a memory of this status is live: recalled and listed
// by default, and counted in the map of contents' totals. Only a superseded
// memory is not.
func (s Status) Live() bool { return s != StatusSuperseded }

// Entry is one memory as the catalog knows it: everything but the body. Listing,
// id resolution and the map of contents work on entries alone.
type Entry struct {
	ID           string
	Path         string
	Title        string
	Type         Type
	Project      string
	Area         string
	Tags         []string
	Source       Source
	Status       Status
	Importance   int
	Created      time.Time
	Updated      time.Time
	SupersededBy string
}

// EntryOf is the catalog entry of m.
func EntryOf(m *Memory) Entry {
	return Entry{
		ID: m.ID, Path: m.Path, Title: m.Title, Type: m.Type, Project: m.Project,
		Area: m.Area, Tags: m.Tags, Source: m.Source, Status: m.Status,
		Importance: m.Importance, Created: m.Created, Updated: m.Updated,
		SupersededBy: m.SupersededBy,
	}
}

// Live reports whether the entry takes part in recall by default.
func (e *Entry) Live() bool { return e.Status.Live() }
