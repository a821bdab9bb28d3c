package vault

import (
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/cortexmem/cortex/memories"
)

// Frontmatter keys, in the order a new note lists them.
var canonicalKeys = []string{
	"id", "title", "aliases", "type", "project", "area", "tags", "source", "status", "importance",
	"created", "updated", "due", "related", "supersedes", "superseded_by", "superseded_at",
	"supersede_reason", "provenance",
}

// fieldsBefore is the standard key a memory's Fields are written before.
const fieldsBefore = "provenance"

// IsStandardKey reports whether key is one of the frontmatter keys cortex
// reads into a memory (and so not a Field).
func IsStandardKey(key string) bool { return slices.Contains(canonicalKeys, key) }

// NewNote renders m as a new note: the frontmatter keys that have a value, in
// canonical order, then the body. Links to other notes are written relative
// to cortex's folder; the vault's own NewNote writes them from the vault root.
func NewNote(m *memories.Memory) (*Note, error) { return newNote(m, "") }

// NewNote renders m as a new note of this vault (see the package's NewNote).
func (v *Vault) NewNote(m *memories.Memory) (*Note, error) { return newNote(m, v.linkFolder()) }

func newNote(m *memories.Memory, folder string) (*Note, error) {
	n := &Note{fm: &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}, folder: folder}
	keys := make([]string, 0, len(canonicalKeys)+len(m.Fields))
	for i, f := range m.Fields {
		if f.Key == "" || IsStandardKey(f.Key) || slices.ContainsFunc(m.Fields[:i], func(g memories.Field) bool { return g.Key == f.Key }) {
			return nil, fmt.Errorf("vault: field %q: must be a new, non-standard frontmatter key", f.Key)
		}
	}
	for _, k := range canonicalKeys {
		if k == fieldsBefore {
			for _, f := range m.Fields {
				keys = append(keys, f.Key)
			}
		}
		keys = append(keys, k)
	}
	for _, k := range keys {
		v, err := n.valueOf(m, k)
		if err != nil {
			return nil, err
		}
		if v != nil {
			n.set(k, v)
		}
	}
	n.SetBody(m.Body)
	return n, nil
}

// SetBody replaces the note's body with m's, as NewNote writes it.
func (n *Note) SetBody(body string) {
	n.Body = []byte("\n" + strings.TrimRight(body, "\n") + "\n")
}

// Apply writes the listed keys of m into the note's frontmatter and leaves every
// other key, and the body, alone. A key whose value in m is empty is removed.
func (n *Note) Apply(m *memories.Memory, keys ...string) error {
	for _, k := range keys {
		v, err := n.valueOf(m, k)
		if err != nil {
			return err
		}
		n.set(k, v)
	}
	return nil
}

// valueOf renders field key of m as a YAML value, nil when it is empty.
func (n *Note) valueOf(m *memories.Memory, key string) (*yaml.Node, error) {
	switch key {
	case "id":
		return str(m.ID), nil
	case "title":
		return str(m.Title), nil
	case "type":
		return str(string(m.Type)), nil
	case "project":
		return str(m.Project), nil
	case "area":
		return str(m.Area), nil
	case "tags":
		return list(m.Tags, false), nil
	case "aliases":
		return list(m.Aliases, false), nil
	case "source":
		return str(string(m.Source)), nil
	case "status":
		return str(string(m.Status)), nil
	case "importance":
		if m.Importance == 0 {
			return nil, nil
		}
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: strconv.Itoa(m.Importance)}, nil
	case "created":
		return timestamp(m.Created), nil
	case "updated":
		return timestamp(m.Updated), nil
	case "due":
		return str(m.Due), nil
	case "related":
		links := make([]string, len(m.Related))
		for i, r := range m.Related {
			links[i] = "[[" + r + "]]"
		}
		return list(links, true), nil
	case "supersedes":
		return n.supersedeValue(m.Supersedes, m.SupersedesNote), nil
	case "superseded_by":
		return n.supersedeValue(m.SupersededBy, m.SupersededByNote), nil
	case "superseded_at":
		return timestamp(m.SupersededAt), nil
	case "supersede_reason":
		return str(m.SupersedeReason), nil
	case "provenance":
		return provenance(m.Provenance), nil
	}
	for _, f := range m.Fields {
		if f.Key == key {
			return fieldValue(f), nil
		}
	}
	return nil, fmt.Errorf("vault: no frontmatter key %q", key)
}

// supersedeValue renders a supersede property: a link to note aliased with
// id when the note is known, else the bare id.
func (n *Note) supersedeValue(id, note string) *yaml.Node {
	if id == "" || note == "" {
		return str(id)
	}
	v := str(supersedeLink(n.folder, note, id))
	v.Style = yaml.DoubleQuotedStyle
	return v
}

// fieldValue renders a Field; links are double-quoted.
func fieldValue(f memories.Field) *yaml.Node {
	if f.List != nil {
		return list(f.List, len(f.List) > 0 && isLink(f.List[0]))
	}
	v := str(f.Value)
	if v != nil && isLink(f.Value) {
		v.Style = yaml.DoubleQuotedStyle
	}
	return v
}

func isLink(s string) bool { return strings.HasPrefix(s, "[[") && strings.HasSuffix(s, "]]") }

func str(s string) *yaml.Node {
	if s == "" {
		return nil
	}
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s}
}

func timestamp(t time.Time) *yaml.Node {
	if t.IsZero() {
		return nil
	}
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!timestamp", Value: t.UTC().Format(time.RFC3339)}
}

// list renders a block sequence; quoted items are double-quoted, as Obsidian
// writes links in properties.
func list(items []string, quoted bool) *yaml.Node {
	if len(items) == 0 {
		return nil
	}
	seq := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
	for _, it := range items {
		v := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: it}
		if quoted {
			v.Style = yaml.DoubleQuotedStyle
		}
		seq.Content = append(seq.Content, v)
	}
	return seq
}

func provenance(p memories.Provenance) *yaml.Node {
	if p.IsZero() {
		return nil
	}
	m := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	add := func(k string, v *yaml.Node) {
		if v != nil {
			m.Content = append(m.Content, str(k), v)
		}
	}
	add("event_ids", list(p.EventIDs, false))
	add("source_session", str(p.SourceSession))
	add("source_tool", str(p.SourceTool))
	add("client", str(p.Client))
	add("source_path", str(p.SourcePath))
	add("derived_from", str(p.DerivedFrom))
	add("source_hash", str(p.SourceHash))
	return m
}

// Memory reads the note as a memory, leniently: a property of the wrong shape is
// ignored (the note still loads) and a missing one takes its default. relPath is
// the note's path in the vault and mtime its modification time, which stands in
// for missing dates.
func (n *Note) Memory(relPath string, mtime time.Time) *memories.Memory {
	m := &memories.Memory{Path: relPath, Body: string(n.Body)}
	m.ID = n.ID()
	if m.ID == "" {
		m.ID = memories.DerivedID(relPath)
	}
	m.Title = oneLine(n.scalar("title"))
	if m.Title == "" {
		m.Title = titleOf(n.Body, relPath)
	}
	m.Type = memories.Type(strings.ToLower(n.scalar("type")))
	if m.Type == "" {
		m.Type = memories.DefaultType
	}
	m.Project = scopeOf(n.scalar("project"))
	if m.Project == "" {
		m.Project = projectFromPath(relPath)
	}
	m.Area = scopeOf(n.scalar("area"))
	m.Tags = tagsOf(n.value("tags"))
	m.Aliases = listOf(n.value("aliases"))
	m.Source = memories.Source(strings.ToLower(n.scalar("source")))
	if m.Source == "" {
		m.Source = memories.SourceUser
	}
	m.Status = memories.Status(strings.ToLower(n.scalar("status")))
	if m.Status == "" {
		m.Status = memories.StatusActive
	}
	m.Importance = memories.DefaultImportance
	if v, err := strconv.Atoi(n.scalar("importance")); err == nil && v >= memories.MinImportance && v <= memories.MaxImportance {
		m.Importance = v
	}
	m.Created = timeOf(n.scalar("created"))
	if m.Created.IsZero() {
		m.Created = timeOf(n.scalar("date"))
	}
	if m.Created.IsZero() {
		m.Created = mtime.UTC().Truncate(time.Second)
	}
	m.Updated = timeOf(n.scalar("updated"))
	if m.Updated.IsZero() {
		m.Updated = m.Created
		if mtime.After(m.Created) {
			m.Updated = mtime.UTC().Truncate(time.Second)
		}
	}
	m.Due = n.scalar("due")
	for _, r := range listOf(n.value("related")) {
		if r = linkTarget(r); r != "" {
			m.Related = append(m.Related, r)
		}
	}
	m.Supersedes = supersedeID(n.scalar("supersedes"))
	m.SupersededBy = supersedeID(n.scalar("superseded_by"))
	m.SupersededAt = timeOf(n.scalar("superseded_at"))
	m.SupersedeReason = n.scalar("supersede_reason")
	if p := n.value("provenance"); p != nil && p.Kind == yaml.MappingNode {
		get := func(k string) *yaml.Node {
			for i := 0; i+1 < len(p.Content); i += 2 {
				if p.Content[i].Value == k {
					return p.Content[i+1]
				}
			}
			return nil
		}
		m.Provenance = memories.Provenance{
			EventIDs:      listOf(get("event_ids")),
			SourceSession: scalarValue(get("source_session")),
			SourceTool:    scalarValue(get("source_tool")),
			SourcePath:    scalarValue(get("source_path")),
			DerivedFrom:   scalarValue(get("derived_from")),
			SourceHash:    scalarValue(get("source_hash")),
			Client:        scalarValue(get("client")),
		}
	}
	return m
}

// String is the scalar at key, "" when it is absent or not a scalar.
func (n *Note) String(key string) string { return n.scalar(key) }

// Strings is the list (or single string) at key, "" items left out.
func (n *Note) Strings(key string) []string { return listOf(n.value(key)) }

// ID is the note's own id property, lower-cased, or "" when it has no usable one.
func (n *Note) ID() string {
	id := memories.NormalizeID(n.scalar("id"))
	if !memories.ValidIDChars(id) || len(id) > maxIDLen {
		return ""
	}
	return id
}

func (n *Note) scalar(key string) string { return scalarValue(n.value(key)) }

func scalarValue(v *yaml.Node) string {
	if v == nil || v.Kind != yaml.ScalarNode || v.Tag == "!!null" {
		return ""
	}
	return strings.TrimSpace(v.Value)
}

// listOf reads a list property; a single value counts as a list of one.
func listOf(v *yaml.Node) []string {
	if v == nil {
		return nil
	}
	switch v.Kind {
	case yaml.ScalarNode:
		if s := scalarValue(v); s != "" {
			return []string{s}
		}
	case yaml.SequenceNode:
		var out []string
		for _, c := range v.Content {
			if s := scalarValue(c); s != "" {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

// tagsOf reads tags leniently: a list, or one string of tags separated by commas
// or spaces; invalid tags are dropped.
func tagsOf(v *yaml.Node) []string {
	var raw []string
	for _, s := range listOf(v) {
		raw = append(raw, strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' })...)
	}
	var out []string
	for _, t := range raw {
		if tags, err := memories.NormalizeTags([]string{t}); err == nil {
			out = append(out, tags...)
		}
	}
	tags, _ := memories.NormalizeTags(out) // drop duplicates
	return tags
}

func scopeOf(s string) string {
	v, err := memories.NormalizeScope("project", s)
	if err != nil {
		return ""
	}
	return v
}

// projectFromPath reads the project of a note filed as memories/<project>/….
func projectFromPath(rel string) string {
	parts := strings.Split(rel, "/")
	if len(parts) >= 3 && parts[0] == "memories" {
		if p := scopeOf(parts[1]); p != "" {
			return p
		}
	}
	return memories.DefaultProject
}

// titleOf is the title of a note without one: its first "# " heading, else its
// file name.
func titleOf(body []byte, rel string) string {
	for _, line := range strings.Split(string(body), "\n") {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "# ") {
			if t := strings.TrimSpace(line[2:]); t != "" {
				return t
			}
		}
	}
	return strings.TrimSuffix(path.Base(rel), ".md")
}

func oneLine(s string) string {
	if i := strings.IndexAny(s, "\r\n"); i >= 0 {
		s = s[:i]
	}
	return strings.TrimSpace(s)
}

// linkTarget turns "[[name|alias]]" or "[[name#heading]]" into "name".
func linkTarget(s string) string {
	s = strings.TrimSpace(s)
	s = strings.TrimPrefix(s, "[[")
	s = strings.TrimSuffix(s, "]]")
	if i := strings.IndexAny(s, "|#"); i >= 0 {
		s = s[:i]
	}
	return strings.TrimSpace(s)
}

var timeLayouts = []string{
	time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02 15:04:05", "2006-01-02T15:04",
	"2006-01-02 15:04", "2006-01-02",
}

// timeOf parses the date and time forms people and tools write; zero when none
// fits. Times without a zone are read as UTC. A property a note does not
// have is "": no layout fits it, and failing each of them made an error
// apiece, four times for a note without dates (most imported ones).
func timeOf(s string) time.Time {
	if s == "" {
		return time.Time{}
	}
	for _, l := range timeLayouts {
		if t, err := time.Parse(l, s); err == nil {
			return t.UTC()
		}
	}
	return time.Time{}
}
