package scribe

import (
	"time"

	"github.com/cortexmem/cortex/pipeline"
	"github.com/cortexmem/cortex/transcript"
)

// Session is what the events say about one agent session beyond the nodes:
// where and with what it ran, and when.
type Session struct {
	Source      transcript.SourceKind
	ID          string
	Project     transcript.Project
	Model       string
	ToolVersion string
	Start, End  time.Time
	// File is the session's main transcript: the file of its first event
	// that is not a subagent's.
	File string
}

// Sessions reads, from events, every session they hold, in the order each
// first appears.
func Sessions(events []transcript.Event) []Session {
	var out []Session
	at := map[sessionKey]int{}
	for i := range events {
		e := &events[i]
		k := sessionKey{e.Source, e.SessionID}
		j, ok := at[k]
		if !ok {
			j = len(out)
			at[k] = j
			out = append(out, Session{Source: e.Source, ID: e.SessionID})
		}
		s := &out[j]
		if s.Project.IsZero() && !e.Project.IsZero() {
			s.Project = e.Project
		}
		if s.File == "" && e.AgentID == "" && !e.Sidechain {
			s.File = e.Provenance.File
		}
		switch {
		case e.SessionStart != nil:
			s.Model = first(s.Model, e.SessionStart.Model)
			s.ToolVersion = first(s.ToolVersion, e.SessionStart.ToolVersion)
		case e.AssistantTurn != nil && !e.Sidechain:
			s.Model = first(s.Model, e.AssistantTurn.Model)
		}
		if t, ok := pipeline.ParseTime(e.Timestamp); ok {
			t = t.UTC().Truncate(time.Second)
			if s.Start.IsZero() || t.Before(s.Start) {
				s.Start = t
			}
			if t.After(s.End) {
				s.End = t
			}
		}
	}
	for i := range out {
		if out[i].File == "" {
			// Only subagents' events: name the first file seen.
			for j := range events {
				if events[j].Source == out[i].Source && events[j].SessionID == out[i].ID {
					out[i].File = events[j].Provenance.File
					break
				}
			}
		}
	}
	return out
}

// Redact passes every text of the sessions through the pipeline's
// redaction, as their nodes were.
func Redact(sessions []Session, p *pipeline.Pipeline) {
	for i := range sessions {
		s := &sessions[i]
		for _, f := range []*string{&s.ID, &s.Model, &s.ToolVersion, &s.File, &s.Project.Cwd, &s.Project.RepoRoot,
			&s.Project.Repository, &s.Project.GitBranch, &s.Project.GitSHA} {
			*f = p.RedactText(*f)
		}
	}
}

func first(have, next string) string {
	if have != "" {
		return have
	}
	return next
}
