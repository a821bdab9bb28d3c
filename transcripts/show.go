package transcripts

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/cortexmem/cortex/index"
	"github.com/cortexmem/cortex/memories"
	"github.com/cortexmem/cortex/scribe"
	"github.com/cortexmem/cortex/transcript"
)

// ShowRequest asks for one session's exchanges.
type ShowRequest struct {
	// Session is a session id or a prefix of one.
	Session string
	// Around, when above 0, keeps the exchange holding that line of one of
	// the session's files, with the one before and the one after it.
	Around int
	NoSync bool
}

// SessionView is a session's exchanges in order, for reading.
type SessionView struct {
	Tool    string `json:"tool"`
	Session string `json:"session"`
	// Files are the session's transcripts (its main file, its subagents').
	Files []string `json:"files"`
	// Total is how many exchanges the session has; Exchanges those shown.
	Total     int   `json:"total"`
	Exchanges []Hit `json:"exchanges"`
	// Around is the line asked for, Focus the index in Exchanges of the
	// exchange holding it (-1 without Around).
	Around int `json:"around,omitempty"`
	Focus  int `json:"focus"`
}

// maxSessionDocs bounds the exchanges Show reads of one session.
const maxSessionDocs = 20000

// SessionNotFoundError means no indexed session has the id asked for.
type SessionNotFoundError struct{ Ref string }

func (e *SessionNotFoundError) Error() string {
	return fmt.Sprintf("no session %q in the transcripts (cortex transcripts search finds sessions; cortex transcripts sources says what is indexed)", e.Ref)
}

// Unwrap makes errors.Is(err, memories.ErrNotFound) true.
func (e *SessionNotFoundError) Unwrap() error { return memories.ErrNotFound }

// Show returns a session's exchanges in order: each file's (the main
// transcript's first), by position in the file.
func (s *Service) Show(ctx context.Context, r ShowRequest) (*SessionView, error) {
	ref := strings.TrimSpace(r.Session)
	if ref == "" {
		return nil, &memories.ArgError{Arg: "session", Rule: "give a session id (or the start of one)"}
	}
	if r.Around < 0 {
		return nil, &memories.ArgError{Arg: "--around", Rule: fmt.Sprintf("%d is not a line number (1 or more)", r.Around)}
	}
	if !r.NoSync {
		if _, err := s.Sync(ctx); err != nil {
			return nil, err
		}
	}
	var hits []index.TranscriptHit
	err := s.withIndex(ctx, func(idx *index.TranscriptIndex) error {
		var err error
		hits, err = idx.Search(ctx, index.TranscriptQuery{Session: ref, Size: maxSessionDocs})
		return err
	})
	if err != nil {
		return nil, err
	}
	type key struct{ tool, session string }
	groups := map[key][]index.TranscriptDoc{}
	for _, h := range hits {
		k := key{h.Doc.Tool, h.Doc.Session}
		groups[k] = append(groups[k], h.Doc)
	}
	var docs []index.TranscriptDoc
	var k key
	for gk, g := range groups {
		// An id that is also the start of longer ones names itself.
		if len(groups) == 1 || gk.session == ref {
			docs, k = g, gk
		}
	}
	switch {
	case len(groups) == 0:
		return nil, &SessionNotFoundError{Ref: ref}
	case docs == nil:
		var names []string
		for gk := range groups {
			names = append(names, gk.session+" ("+gk.tool+")")
		}
		slices.Sort(names)
		return nil, &memories.ArgError{Arg: "session", Rule: fmt.Sprintf("%q is the start of %d sessions: %s; give more of the id", ref, len(names), strings.Join(names, ", "))}
	}
	v := &SessionView{Tool: k.tool, Session: k.session, Total: len(docs), Focus: -1, Around: r.Around}
	first := map[string]time.Time{}
	for _, d := range docs {
		if t, ok := first[d.File]; !ok || !d.Time.IsZero() && (t.IsZero() || d.Time.Before(t)) {
			first[d.File] = d.Time
		}
	}
	slices.SortFunc(docs, func(a, b index.TranscriptDoc) int {
		if a.File != b.File {
			// The main transcript first, then by when each began.
			if a.Agent == "" != (b.Agent == "") {
				if a.Agent == "" {
					return -1
				}
				return 1
			}
			ta, tb := first[a.File], first[b.File]
			if !ta.Equal(tb) {
				if tb.IsZero() || !ta.IsZero() && ta.Before(tb) {
					return -1
				}
				return 1
			}
			return strings.Compare(a.File, b.File)
		}
		if a.Offset != b.Offset {
			if a.Offset < b.Offset {
				return -1
			}
			return 1
		}
		return strings.Compare(a.ID, b.ID)
	})
	for _, d := range docs {
		if !slices.Contains(v.Files, d.File) {
			v.Files = append(v.Files, d.File)
		}
	}
	lo, hi := 0, len(docs)
	if r.Around > 0 {
		// The exchange that starts last at or before the line, of those
		// that reach it (in the main transcript first).
		at := -1
		for i, d := range docs {
			if d.Line > 0 && d.Line <= r.Around && r.Around <= max(d.EndLine, d.Line) &&
				(at < 0 || d.File == docs[at].File && d.Line > docs[at].Line) {
				at = i
			}
		}
		if at < 0 {
			return nil, &memories.ArgError{Arg: "--around", Rule: fmt.Sprintf("line %d is in no exchange of session %s (its exchanges start at lines %s)", r.Around, k.session, lineList(docs))}
		}
		lo, hi = at, at+1
		if at > 0 && docs[at-1].File == docs[at].File {
			lo = at - 1
		}
		if at+1 < len(docs) && docs[at+1].File == docs[at].File {
			hi = at + 2
		}
		v.Focus = at - lo
	}
	for _, d := range docs[lo:hi] {
		h := hitOf(index.TranscriptHit{Doc: d}, 0, nil)
		h.User, h.Reply = d.User, excerpt(d.Reply, 4000)
		v.Exchanges = append(v.Exchanges, h)
	}
	return v, nil
}

// lineList names the first lines of the exchanges, for a message.
func lineList(docs []index.TranscriptDoc) string {
	var out []string
	for i, d := range docs {
		if i == 8 {
			out = append(out, "…")
			break
		}
		if d.Line > 0 {
			out = append(out, fmt.Sprint(d.Line))
		}
	}
	if len(out) == 0 {
		return "none (the file has no lines: see the pointers of cortex transcripts search)"
	}
	return strings.Join(out, ", ")
}

// SourcesReport is where transcripts were looked for, what was found and
// indexed, and what was passed over and why.
type SourcesReport struct {
	scribe.SourceReport
	Index IndexStatus `json:"index"`
}

// IndexStatus is what the transcript index holds.
type IndexStatus struct {
	Dir       string               `json:"dir"`
	Files     int                  `json:"files"`
	Exchanges int                  `json:"exchanges"`
	Messages  int                  `json:"messages"`
	Synced    time.Time            `json:"synced,omitzero"`
	PerTool   map[string]ToolCount `json:"per_tool"`
	// Unreadable are transcripts found that could not be read, and why.
	Unreadable []transcript.Skip `json:"unreadable"`
	// Busy is set when another process was updating the index.
	Busy bool `json:"busy,omitempty"`
}

// ToolCount is what the index holds of one tool.
type ToolCount struct {
	Files     int `json:"files"`
	Exchanges int `json:"exchanges"`
}

// Sources brings the index up to date and says where it looked (each tool's
// folders, from its default or its override variable), what it found and
// indexed, and what it skipped and why.
func (s *Service) Sources(ctx context.Context) (*SourcesReport, error) {
	rep, err := s.sync(ctx, true)
	if err != nil {
		return nil, err
	}
	out := &SourcesReport{Index: IndexStatus{Dir: s.o.Dir, PerTool: map[string]ToolCount{}, Unreadable: rep.Unreadable, Busy: rep.Busy}}
	if s.o.Selection.All {
		out.SourceReport = scribe.Discover(s.o.Selection.Env)
	}
	if out.Index.Unreadable == nil {
		out.Index.Unreadable = []transcript.Skip{}
	}
	_, m, err := s.load()
	if err != nil {
		return nil, err
	}
	if m.Synced > 0 {
		out.Index.Synced = time.Unix(0, m.Synced).UTC()
	}
	for _, p := range m.paths() {
		e := m.Files[p]
		if e.Err != "" {
			continue
		}
		c := out.Index.PerTool[string(e.Tool)]
		c.Files++
		c.Exchanges += e.Docs
		out.Index.PerTool[string(e.Tool)] = c
		out.Index.Files++
		out.Index.Exchanges += e.Docs
		out.Index.Messages += e.Messages
	}
	return out, nil
}
