package memories

import (
	"context"
	"errors"
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
	// ID, when set, is the new memory's id instead of a fresh one: an id
	// derived from what the memory is made of (KeyedID of a captured event),
	// so that saving it again — a run interrupted after the note was written
	// and run again — finds the memory and writes nothing (SaveResult.Existed).
	ID string
}

// SaveResult describes a saved memory.
type SaveResult struct {
	ID      string `json:"id"`
	ShortID string `json:"short_id"`
	Title   string `json:"title"`
	Project string `json:"project"`
	Path    string `json:"path"`
	// Existed says the request's ID was taken already: the memory was saved
	// before and nothing was written.
	Existed bool `json:"existed,omitempty"`
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
	if req.ID != "" {
		// Saved before: nothing to check, nothing to write.
		var res *SaveResult
		err := s.backend.View(ctx, func(snap Snapshot) (err error) {
			res, err = existingResult(snap, m.ID)
			return err
		})
		if err != nil || res != nil {
			return res, err
		}
	}
	// The safety scan runs beside the store's work up to the comparison
	// (the write lock, the catalog, the vault's check, the word sets) on
	// another core: in a one-shot process it is a fifth of the save, most
	// of it building the scan's tables. It is waited for before anything is
	// written, and its refusal is still the first answer: an unsafe text
	// is refused as unsafe, whatever else the save ran into, and the
	// store's work is cancelled as soon as it is known.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	screened := s.screenAside(ctx, cancel, m.Title, m.Body)
	// So does the memory's fingerprint, which the comparison needs first.
	fingerprint := s.fingerprintAside(m.Title, m.Body)
	// The time of the change: the memory's creation, unless the request
	// dates it.
	at := m.Created
	if !req.Created.IsZero() {
		at = s.eventTime()
	}
	var res *SaveResult
	update := s.backend.Update
	if d, ok := s.backend.(DeferredIndexer); ok {
		update = d.UpdateDeferred // a save does not wait for the full-text index
	}
	err = update(ctx, func(tx Tx) error {
		if req.ID != "" {
			if res, err = existingResult(tx, m.ID); err != nil || res != nil {
				return err
			}
		}
		// Compared under the write lock, so that two saves of one text at
		// once cannot both pass.
		dup, related, fp, err := s.compareFP(ctx, tx, m, fingerprint, "")
		if serr := screened(); serr != nil {
			return serr
		}
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
		keepWords(ctx, tx, m, fp)
		op := OpSave
		if m.Source == SourceCapture {
			op = OpNormalize // captured memories come only through normalize
		}
		tx.Record(Event{Time: at, Op: op, ID: m.ID, Path: m.Path, Title: m.Title})
		res = &SaveResult{ID: m.ID, ShortID: tx.ShortID(m.ID), Title: m.Title, Project: m.Project, Path: m.Path}
		return nil
	})
	if serr := screened(); serr != nil {
		// Refused before fn ran (or the store's work was cancelled for
		// it): the refusal is the answer, as when the scan ran first.
		return nil, serr
	}
	if err != nil {
		return nil, err
	}
	return res, nil
}

// screenAside starts screen of title and content on its own goroutine and
// returns what waits for its answer (any number of times). A refusal
// cancels the work it runs beside (stop).
func (s *Service) screenAside(ctx context.Context, stop context.CancelFunc, title, content string) func() error {
	if !s.checks.Scan {
		return func() error { return nil }
	}
	done := make(chan struct{})
	var err error
	go func() {
		defer close(done)
		if err = s.screen(ctx, title, content); err != nil {
			stop()
		}
	}()
	return func() error {
		<-done
		return err
	}
}

// existingResult is the result of a save whose memory exists already as id;
// nil when there is none.
func existingResult(snap Snapshot, id string) (*SaveResult, error) {
	e, err := snap.Get(id)
	if errors.Is(err, ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &SaveResult{ID: e.ID, ShortID: snap.ShortID(e.ID), Title: e.Title, Project: e.Project, Path: e.Path, Existed: true}, nil
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
	id := req.ID
	if id == "" {
		id = s.ids.NewID(t) // ids to the millisecond, so they sort by creation
	} else if id = NormalizeID(id); !ValidIDChars(id) || len(id) < MinPrefix || len(id) > 64 {
		return nil, invalid("id", "%q is not an id: 8 to 64 lower-case letters, digits, '-' and '_'", req.ID)
	}
	now := t.UTC().Truncate(time.Second) // dates in notes are to the second
	return &Memory{
		ID:         id,
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
