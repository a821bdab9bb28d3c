package reflection

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"time"

	"github.com/cortexmem/cortex/memories"
	"github.com/cortexmem/cortex/transcript"
)

// Events reads the event stream: the agents' transcripts.
type Events interface {
	// Session is every event of the session with this id (or with an id
	// that starts with it), every file of it, each file in order; none when
	// no transcript holds it.
	Session(ctx context.Context, id string) ([]transcript.Event, error)
	// Project is every event of the sessions of the project (by the name
	// of their repository or folder) written since then.
	Project(ctx context.Context, project string, since time.Time) ([]transcript.Event, error)
}

// Notes reads the vault: the store (memories.Backend).
type Notes interface {
	View(ctx context.Context, fn func(memories.Snapshot) error) error
}

// Saver saves a reflection note: memories.Service.
type Saver interface {
	Save(ctx context.Context, req memories.SaveRequest) (*memories.SaveResult, error)
}

// Service reflects.
type Service struct {
	Events Events
	Notes  Notes
	Saver  Saver
	// Now is the clock, for --since; time.Now when nil.
	Now func() time.Time
}

// Request asks for a reflection: of one session, or of a project since a
// time.
type Request struct {
	Session string
	Project string
	// Since is a duration back from now (7d, 12h) or a date; default 1d.
	Since string
	Style string
	// Save stores the reflection as a reflection note.
	Save bool
}

// DefaultSince is the window of a project's reflection without --since.
const DefaultSince = "1d"

// Result is a reflection and, when it was saved, the note.
type Result struct {
	*Reflection
	Saved *memories.SaveResult `json:"saved,omitempty"`
}

// minSession is the shortest session id prefix accepted.
const minSession = 8

// maxDecisionLoads bounds the decision notes read to find a session's.
const maxDecisionLoads = 500

// Reflect gathers the events and notes req names, rolls them up and, when
// asked, saves the result.
func (s *Service) Reflect(ctx context.Context, req Request) (*Result, error) {
	style := strings.ToLower(strings.TrimSpace(req.Style))
	switch style {
	case "":
		style = StyleBrief
	case StyleBrief, StyleFull:
	default:
		return nil, &memories.ArgError{Arg: "style", Rule: fmt.Sprintf("%q is not brief or full", req.Style)}
	}
	session := strings.TrimSpace(req.Session)
	project, err := memories.NormalizeScope("project", req.Project)
	if err != nil {
		return nil, err
	}
	now := time.Now
	if s.Now != nil {
		now = s.Now
	}
	in := Input{Style: style}
	var since time.Time
	switch {
	case session != "" && (project != "" || req.Since != ""):
		return nil, &memories.ArgError{Arg: "session", Rule: "give a session, or a project and since, not both"}
	case session != "":
		if len(session) < minSession || strings.ContainsAny(session, `/\`) {
			return nil, &memories.ArgError{Arg: "session", Rule: fmt.Sprintf("%q is not a session id (at least %d characters, no slashes)", session, minSession)}
		}
		in.Scope = "session " + session
		if in.Events, err = s.Events.Session(ctx, session); err != nil {
			return nil, err
		}
		if len(in.Events) == 0 {
			return nil, fmt.Errorf("session %s: no transcript in the agents' folders holds it: %w", session, memories.ErrNotFound)
		}
	case project != "":
		sinceArg := req.Since
		if sinceArg == "" {
			sinceArg = DefaultSince
		}
		if since, err = memories.ParseSince(sinceArg, now()); err != nil {
			return nil, err
		}
		in.Scope = fmt.Sprintf("project %s since %s", project, since.UTC().Format("2006-01-02 15:04"))
		if in.Events, err = s.Events.Project(ctx, project, since); err != nil {
			return nil, err
		}
	default:
		return nil, &memories.ArgError{Arg: "session", Rule: "give a session id, or a project (with since)"}
	}
	if project == "" {
		project = projectOf(in.Events)
	}
	sessions := map[string]bool{}
	for _, e := range in.Events {
		if e.SessionID != "" {
			sessions[e.SessionID] = true
		}
	}
	err = s.Notes.View(ctx, func(snap memories.Snapshot) error {
		var err error
		in.Decisions, in.Actions, err = notes(ctx, snap, project, since, sessions, in.Events)
		return err
	})
	if err != nil {
		return nil, err
	}
	res := &Result{Reflection: Reflect(in)}
	if req.Save {
		if res.Saved, err = s.save(ctx, res.Reflection, project, lastTime(in.Events, now())); err != nil {
			return res, err
		}
	}
	return res, nil
}

// notes are the decisions made in the sessions (session mode) or in the
// project since then, and the project's open action items.
func notes(ctx context.Context, snap memories.Snapshot, project string, since time.Time, sessions map[string]bool,
	events []transcript.Event) (decisions, actions []Note, err error) {
	es, err := snap.Entries()
	if err != nil {
		return nil, nil, err
	}
	first, last := window(events)
	loads := 0
	for _, e := range es {
		if !e.Live() {
			continue
		}
		switch {
		case e.Type == memories.TypeAction && e.Status == memories.StatusOpen && project != "" && e.Project == project:
			actions = append(actions, noteOf(e, snap.ShortID(e.ID)))
		case e.Type != memories.TypeDecision:
		case since.IsZero():
			// A session's decisions: mined notes dated within its events,
			// whose provenance names one of its sessions.
			if first.IsZero() || e.Created.Before(first.Add(-time.Minute)) || e.Created.After(last.Add(time.Minute)) || loads == maxDecisionLoads {
				continue
			}
			loads++
			m, err := snap.Load(ctx, e.Path)
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			if err != nil {
				return nil, nil, err
			}
			if sessions[m.Provenance.SourceSession] {
				decisions = append(decisions, noteOf(e, snap.ShortID(e.ID)))
			}
		case e.Project == project && !e.Created.Before(since):
			decisions = append(decisions, noteOf(e, snap.ShortID(e.ID)))
		}
	}
	sortNotes(actions)
	return decisions, actions, nil
}

func sortNotes(ns []Note) {
	for i := 1; i < len(ns); i++ {
		for j := i; j > 0 && (ns[j].Created.Before(ns[j-1].Created) || ns[j].Created.Equal(ns[j-1].Created) && ns[j].ID < ns[j-1].ID); j-- {
			ns[j], ns[j-1] = ns[j-1], ns[j]
		}
	}
}

// window is the first and last time the events carry.
func window(events []transcript.Event) (first, last time.Time) {
	for _, e := range events {
		t, err := time.Parse(time.RFC3339Nano, e.Timestamp)
		if err != nil {
			continue
		}
		if first.IsZero() || t.Before(first) {
			first = t
		}
		if t.After(last) {
			last = t
		}
	}
	return first, last
}

func lastTime(events []transcript.Event, now time.Time) time.Time {
	if _, last := window(events); !last.IsZero() {
		return last
	}
	return now
}

// projectOf is the project the events worked in: the name of the first
// repository or folder they name.
func projectOf(events []transcript.Event) string {
	for _, e := range events {
		dir := e.Project.RepoRoot
		if dir == "" {
			dir = e.Project.Cwd
		}
		if dir == "" {
			continue
		}
		name := filepath.Base(filepath.Clean(dir))
		if p, err := memories.NormalizeScope("project", name); err == nil && p != "" {
			return p
		}
	}
	return ""
}

// save stores the reflection as a note, its id derived from its scope and
// text, so that saving the same reflection again finds it.
func (s *Service) save(ctx context.Context, r *Reflection, project string, at time.Time) (*memories.SaveResult, error) {
	if s.Saver == nil {
		return nil, errors.New("reflect: nothing to save with")
	}
	sum := sha256.Sum256([]byte(r.Markdown))
	prov := memories.Provenance{DerivedFrom: "reflect " + r.Scope}
	if len(r.Sessions) > 0 {
		prov.SourceSession = r.Sessions[0]
	}
	if len(r.Files) > 0 {
		prov.SourcePath = r.Files[0]
	}
	if project == "" {
		project = memories.DefaultProject
	}
	return s.Saver.Save(ctx, memories.SaveRequest{
		ID:      memories.KeyedID(at, "reflection\x00"+r.Scope+"\x00"+hex.EncodeToString(sum[:])),
		Title:   "Reflection: " + r.Scope,
		Content: r.Markdown, Type: string(memories.TypeReflection), Project: project,
		Tags: []string{"reflection"}, Source: memories.SourceMined, Provenance: prov,
	})
}
