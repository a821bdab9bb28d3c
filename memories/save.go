package memories

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// SaveRequest is what a caller asks to remember. Only Content is required.
type SaveRequest struct {
	Content string
	Title   string
	Tags    []string
	// Aliases are other names of the note, for Obsidian's links.
	Aliases    []string
	Project    string
	Area       string
	Type       string
	Importance int

	// Source says how the memory arrived; empty means SourceUser.
	Source     Source
	Provenance Provenance
	// Created, when set, is when the memory was first written down (an
	// imported note's own date); otherwise it is now.
	Created time.Time
}

// SaveResult describes a saved memory.
type SaveResult struct {
	ID      string `json:"id"`
	ShortID string `json:"short_id"`
	Title   string `json:"title"`
	Project string `json:"project"`
	Path    string `json:"path"`
}

// Message is the one-line confirmation the CLI prints and the MCP tool returns.
func (r *SaveResult) Message() string {
	return fmt.Sprintf("Memory saved: %s '%s'", r.ShortID, r.Title)
}

// Save validates a memory, screens it (Checks) and writes it as a new note
// linked to the memories most like it. A refusal is a *RejectedError.
func (s *Service) Save(ctx context.Context, req SaveRequest) (*SaveResult, error) {
	m, err := s.newMemory("content", req)
	if err != nil {
		return nil, err
	}
	if err := s.screen(ctx, m.Title, m.Body); err != nil {
		return nil, err
	}
	// The time of the change: the memory's creation, unless the request
	// dates it.
	at := m.Created
	if !req.Created.IsZero() {
		at = s.eventTime()
	}
	var res *SaveResult
	err = s.backend.Update(ctx, func(tx Tx) error {
		// Compared under the write lock, so that two saves of one text at
		// once cannot both pass.
		dup, related, err := s.compare(ctx, tx, m, "")
		if err != nil {
			return err
		}
		if dup != nil {
			return s.refuseDuplicateAt(tx, tx, m, dup, at)
		}
		m.Related = noteNames(related)
		if err := tx.Create(ctx, m); err != nil {
			return err
		}
		tx.Record(Event{Time: at, Op: OpSave, ID: m.ID, Path: m.Path, Title: m.Title})
		res = &SaveResult{ID: m.ID, ShortID: tx.ShortID(m.ID), Title: m.Title, Project: m.Project, Path: m.Path}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}

// newMemory validates req and builds the memory it describes, with a new id and
// the current time. contentArg names the content in errors: the argument the
// caller typed it as.
func (s *Service) newMemory(contentArg string, req SaveRequest) (*Memory, error) {
	content := cleanContent(req.Content)
	if err := CheckContent(contentArg, content); err != nil {
		return nil, err
	}
	title := TitleFrom(content)
	if req.Title != "" {
		t, err := CheckTitle(req.Title)
		if err != nil {
			return nil, err
		}
		title = t
	}
	tags, err := NormalizeTags(req.Tags)
	if err != nil {
		return nil, err
	}
	project, err := NormalizeScope("project", req.Project)
	if err != nil {
		return nil, err
	}
	if project == "" {
		project = DefaultProject
	}
	area, err := NormalizeScope("area", req.Area)
	if err != nil {
		return nil, err
	}
	typ, err := ParseType(req.Type)
	if err != nil {
		return nil, err
	}
	importance, err := CheckImportance(req.Importance)
	if err != nil {
		return nil, err
	}
	source := req.Source
	if source == "" {
		source = SourceUser
	}
	status := StatusActive
	if typ == TypeAction {
		status = StatusOpen
	}
	t := s.now()
	if !req.Created.IsZero() {
		t = req.Created
	}
	now := t.UTC().Truncate(time.Second) // dates in notes are to the second
	return &Memory{
		ID:         s.ids.NewID(t), // ids to the millisecond, so they sort by creation
		Title:      title,
		Type:       typ,
		Project:    project,
		Area:       area,
		Tags:       tags,
		Aliases:    cleanAliases(req.Aliases),
		Source:     source,
		Status:     status,
		Importance: importance,
		Created:    now,
		Updated:    now,
		Provenance: req.Provenance,
		Body:       content,
	}, nil
}

// cleanContent normalises line endings and drops the blank lines and spaces around
// the text; everything between is kept verbatim.
func cleanContent(s string) string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	s = strings.TrimRight(s, " \t\r\n")
	for {
		i := strings.IndexByte(s, '\n')
		if i < 0 || strings.TrimSpace(s[:i]) != "" {
			return s
		}
		s = s[i+1:]
	}
}

// cleanAliases keeps the aliases that are one non-empty line, once each.
func cleanAliases(in []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, a := range in {
		a = strings.Join(strings.Fields(a), " ")
		if a != "" && !seen[a] {
			seen[a] = true
			out = append(out, a)
		}
	}
	return out
}
