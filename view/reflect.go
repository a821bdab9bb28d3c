package view

import "github.com/cortexmem/cortex/reflection"

// Reflect is a roll-up of a session or of a project over a window.
type Reflect struct {
	Scope       string           `json:"scope" jsonschema:"what was reflected on: a session, or a project since a time"`
	Style       string           `json:"style" jsonschema:"brief (5 lines a section) or full"`
	Sessions    []string         `json:"sessions" jsonschema:"the sessions the events came from"`
	Transcripts []string         `json:"transcripts" jsonschema:"the transcript files read"`
	Sections    []ReflectSection `json:"sections" jsonschema:"intent, questions, decisions, files, friction, patterns, open, in that order"`
	Markdown    string           `json:"markdown"`
	// Saved is the reflection note, when it was saved.
	Saved *Save `json:"saved,omitempty" jsonschema:"the reflection note, when save was asked for"`
}

// ReflectSection is one section of a roll-up.
type ReflectSection struct {
	Name  string            `json:"name"`
	Title string            `json:"title"`
	Lines []reflection.Line `json:"lines"`
	More  int               `json:"more,omitempty" jsonschema:"how many lines the brief style left out"`
}

// ReflectOf is the view of a reflection; abs makes the saved note's path
// absolute.
func ReflectOf(r *reflection.Result, abs Abs) Reflect {
	out := Reflect{Scope: r.Scope, Style: r.Style, Sessions: r.Sessions, Transcripts: r.Files, Sections: []ReflectSection{}, Markdown: r.Markdown}
	for _, s := range r.Sections {
		out.Sections = append(out.Sections, ReflectSection{Name: s.Name, Title: s.Title, Lines: s.Lines, More: s.More})
	}
	if r.Saved != nil {
		s := SaveOf(r.Saved, abs)
		out.Saved = &s
	}
	return out
}
