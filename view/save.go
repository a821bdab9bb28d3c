package view

import "github.com/cortexmem/cortex/memories"

// Written is a note a call wrote: a saved memory or a replacement.
type Written struct {
	ID      string `json:"id" jsonschema:"the new memory's id"`
	ShortID string `json:"short_id" jsonschema:"the shortest unique prefix of the id, at least 8 characters"`
	Title   string `json:"title"`
	Project string `json:"project"`
	Path    string `json:"path" jsonschema:"the note's absolute path in the Obsidian vault"`
}

// Save is the memory saved.
type Save struct {
	Written
	Message string `json:"message" jsonschema:"the confirmation: Memory saved: <short id> '<title>'"`
}

// Supersede is the status change and the replacement.
type Supersede struct {
	OldID      string `json:"old_id" jsonschema:"the id of the memory superseded"`
	OldShortID string `json:"old_short_id"`
	OldTitle   string `json:"old_title"`
	Status     string `json:"status" jsonschema:"the old memory's status now: superseded"`
	// New is the replacement, when there is one.
	New     *Written `json:"new,omitempty" jsonschema:"the replacement memory; absent when the memory was retired without one"`
	Message string   `json:"message"`
}

// WrittenOf is the view of a note written.
func WrittenOf(res *memories.SaveResult, abs Abs) Written {
	return Written{ID: res.ID, ShortID: res.ShortID, Title: res.Title, Project: res.Project, Path: abs(res.Path)}
}

// SaveOf is the view of a save.
func SaveOf(res *memories.SaveResult, abs Abs) Save {
	return Save{Written: WrittenOf(res, abs), Message: res.Message()}
}

// SupersedeOf is the view of a supersede.
func SupersedeOf(res *memories.SupersedeResult, abs Abs) Supersede {
	out := Supersede{OldID: res.OldID, OldShortID: res.OldShortID, OldTitle: res.OldTitle, Status: string(res.Status), Message: res.Message()}
	if res.New != nil {
		w := WrittenOf(res.New, abs)
		out.New = &w
	}
	return out
}
