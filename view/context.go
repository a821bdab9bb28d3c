package view

import "github.com/cortexmem/cortex/briefing"

// Context is an assembled briefing.
type Context struct {
	Query    string `json:"query"`
	Project  string `json:"project"`
	Budget   int    `json:"budget" jsonschema:"the most tokens (characters/4) the briefing may take"`
	Tokens   int    `json:"tokens" jsonschema:"the briefing's size in tokens (characters/4)"`
	Markdown string `json:"markdown" jsonschema:"the briefing, markdown: what to read"`
	// Sections are what the markdown shows, in its order.
	Sections    []ContextSection `json:"sections" jsonschema:"what the briefing shows, section by section: playbook, memories, decisions, transcripts"`
	Synthesized bool             `json:"synthesized,omitempty" jsonschema:"true when the markdown was written by the synthesis command"`
	Fallback    string           `json:"fallback,omitempty" jsonschema:"when synthesis was asked for and not used, why"`
	Omitted     int              `json:"omitted" jsonschema:"how many items found did not fit the budget"`
}

// ContextSection is one section of a briefing.
type ContextSection struct {
	Name  string        `json:"name"`
	Items []ContextItem `json:"items"`
	Note  string        `json:"note,omitempty" jsonschema:"why the section is empty"`
}

// ContextItem is one item of a briefing, with where to open it.
type ContextItem struct {
	ID      string        `json:"id"`
	ShortID string        `json:"short_id,omitempty"`
	Title   string        `json:"title"`
	Type    string        `json:"type"`
	Path    string        `json:"path" jsonschema:"the note's path in the vault, or a transcript's file:line"`
	Ban     bool          `json:"ban,omitempty"`
	Edits   []ContextEdit `json:"edits,omitempty" jsonschema:"the code edits a decision produced"`
}

// ContextEdit is a code edit a decision produced.
type ContextEdit struct {
	ID      string `json:"id"`
	ShortID string `json:"short_id"`
	Title   string `json:"title"`
	Path    string `json:"path" jsonschema:"the episode note's path in the vault"`
}

// ContextOf is the view of a briefing.
func ContextOf(b *briefing.Briefing) Context {
	out := Context{Query: b.Query, Project: b.Project, Budget: b.Budget, Tokens: b.Tokens, Markdown: b.Markdown,
		Sections: []ContextSection{}, Synthesized: b.Synthesized, Fallback: b.Fallback, Omitted: b.Omitted}
	for _, s := range b.Sections {
		cs := ContextSection{Name: s.Name, Items: []ContextItem{}, Note: s.Note}
		for _, it := range s.Items {
			cs.Items = append(cs.Items, contextItem(it))
		}
		out.Sections = append(out.Sections, cs)
	}
	return out
}

func contextItem(it briefing.Item) ContextItem {
	ci := ContextItem{ID: it.ID, ShortID: it.ShortID, Title: it.Title, Type: it.Type, Path: it.Path, Ban: it.Ban}
	for _, e := range it.Edits {
		ci.Edits = append(ci.Edits, ContextEdit{ID: e.ID, ShortID: e.ShortID, Title: e.Title, Path: e.Path})
	}
	return ci
}
