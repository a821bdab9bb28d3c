package normalize

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/cortexmem/cortex/adapters"
	"github.com/cortexmem/cortex/inbox"
	"github.com/cortexmem/cortex/memories"
	"github.com/cortexmem/cortex/scribe"
	"github.com/cortexmem/cortex/transcript"
	"github.com/cortexmem/cortex/vault"
)

// SessionsDir is the folder of session notes inside the cortex folder;
// records of captured sessions go into CapturedDir below each tool's folder
// (sessions/<tool>/captured/), apart from the notes the pipeline makes.
const (
	SessionsDir = "sessions"
	CapturedDir = "captured"
)

// sessions handles a run of stop and pre_compact events of different
// sessions: each event's transcript goes through the pipeline, then the
// sessions' records are written in one write of the store. It returns how
// many of the run's events it handled: all, or those before one whose
// transcript the store failed to take (the error), whose records are
// written.
func (n *Normalizer) sessions(ctx context.Context, run []*pending) (int, error) {
	reads := make([]transcriptRead, 0, len(run))
	var stop error
	for _, p := range run {
		tr := n.readTranscript(ctx, p.ev, p.er)
		if tr.err != nil {
			stop = tr.err
			break
		}
		reads = append(reads, tr)
	}
	if len(reads) == 0 {
		return 0, stop
	}
	recs := make([]memories.RecordRequest, len(reads))
	for i, tr := range reads {
		recs[i] = sessionRecord(run[i].ev, tr)
	}
	results, err := n.Service.RecordAll(ctx, recs)
	if err != nil {
		return 0, err
	}
	for i, tr := range reads {
		er, rec, res := run[i].er, recs[i], results[i]
		er.Notes = append(er.Notes, tr.notes...)
		er.Notes = append(er.Notes, Note{ID: res.ID, Type: memories.TypeSession, Title: rec.Note.Title, Path: res.Path, Outcome: res.Outcome})
		er.Detail = fmt.Sprintf("session record %s; %s", res.Outcome, tr.plain)
	}
	return len(reads), stop
}

// transcriptRead is what came of an event's transcript.
type transcriptRead struct {
	// path is the transcript read (or that could not be); found says
	// discovery found it for the event's session.
	path  string
	found bool
	// notes are the notes the pipeline made or found (session, decision,
	// episode), sessions the links to its session notes.
	notes    []Note
	sessions []string
	// summary says in words what came of it, for the record (markdown,
	// with links to the notes), plain for the result.
	summary, plain string
	// err is an error that is not the transcript's (the store failing):
	// it stops the pass.
	err error
}

// readTranscript runs the event's transcript through the pipeline.
func (n *Normalizer) readTranscript(ctx context.Context, ev *inbox.Event, er *EventResult) transcriptRead {
	var tr transcriptRead
	say := func(msg string) {
		tr.summary, tr.plain = msg, msg
	}
	unreadable := func(err error) {
		msg := fmt.Sprintf("transcript %s could not be read: %v", tr.path, err)
		er.Warnings = append(er.Warnings, msg)
		tr.plain = msg
		tr.summary = fmt.Sprintf("transcript %s could not be read: %s", codeSpan(tr.path), codeSpan(err.Error()))
	}
	tr.path = ev.Transcript
	if tr.path == "" {
		if ev.Session == "" {
			say("no transcript: the event names neither a transcript nor a session")
			return tr
		}
		p := n.findTranscript(ctx, ev.Client, ev.Session)
		if p == "" {
			say("no transcript: the event names none, and discovery found none of this session")
			return tr
		}
		tr.path, tr.found = p, true
	}
	if n.Transcripts == nil {
		say("transcript not read (no transcript runner)")
		return tr
	}
	files, err := n.transcriptFiles(ev, tr.path)
	if err != nil {
		unreadable(err)
		return tr
	}
	res, err := n.Transcripts.Run(ctx, files)
	if err != nil {
		// The files were just opened: a failure now is one of them going
		// away meanwhile, or the store's (which stops the pass).
		var pe *fs.PathError
		if errors.As(err, &pe) && slices.ContainsFunc(files, func(f scribe.File) bool { return f.Path == pe.Path }) ||
			errors.Is(err, memories.ErrInvalid) {
			unreadable(err)
			return tr
		}
		tr.err = err
		return tr
	}
	tr.describe(res)
	return tr
}

// transcriptFiles are the files of the transcript at p, each with its
// adapter: the file, and the subagents' files the tool keeps in a folder
// named after the session beside it (Claude Code's <session>/subagents/).
// The event's client names the tool when it is one cortex reads; otherwise
// the file's first records tell.
func (n *Normalizer) transcriptFiles(ev *inbox.Event, p string) ([]scribe.File, error) {
	as := ""
	if k, ok := transcript.ParseSource(ev.Client); ok {
		if _, ok := adapters.For(k); ok {
			as = string(k)
		}
	}
	paths := []string{p}
	if ev.Session != "" && !strings.ContainsAny(ev.Session, `/\`) && ev.Session != "." && ev.Session != ".." {
		paths = append(paths, sessionFolderFiles(filepath.Join(filepath.Dir(p), ev.Session))...)
	}
	files, _, err := scribe.Select(scribe.Selection{Paths: paths, As: as})
	if err != nil {
		return nil, err
	}
	// Only a session that ended is complete: a turn's end or a compaction
	// may leave a record being written, which waits for a later read.
	final := isSessionEnd(ev)
	for i := range files {
		files[i].Final = final
	}
	return files, nil
}

// sessionFolderFiles lists the JSON lines files below dir, sorted; none
// when there is no such folder.
func sessionFolderFiles(dir string) []string {
	var out []string
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.Type().IsRegular() && strings.HasSuffix(d.Name(), ".jsonl") {
			out = append(out, p)
		}
		return nil
	})
	slices.Sort(out)
	return out
}

// isSessionEnd says the event is a session's end (SessionEnd, sessionEnd),
// not a turn's.
func isSessionEnd(ev *inbox.Event) bool {
	return ev.Type == inbox.TypeStop && strings.EqualFold(ev.Hook, "SessionEnd")
}

// describe says what a run of the transcript made, and keeps its notes.
func (tr *transcriptRead) describe(res *scribe.RunResult) {
	prefix, plain := "", ""
	if tr.found {
		prefix = "transcript " + codeSpan(tr.path) + " found by its session id; "
		plain = "transcript " + tr.path + " found by its session id; "
	}
	if len(res.Read) == 0 {
		tr.summary = prefix + "transcript unchanged since it was last read"
		tr.plain = plain + "transcript unchanged since it was last read"
		return
	}
	decisions, edits := 0, 0
	if res.Mine != nil {
		for _, it := range res.Mine.Items {
			tr.notes = append(tr.notes, Note{ID: it.ID, Type: it.Type, Title: it.Title, Path: it.Path, Outcome: it.Outcome})
			if it.Outcome == memories.MineDuplicate || it.Outcome == memories.MineRejected {
				continue
			}
			switch it.Type {
			case memories.TypeSession:
				tr.sessions = append(tr.sessions, "[["+strings.TrimSuffix(path.Base(it.Path), ".md")+"|"+vault.LinkAlias(it.Title)+"]]")
			case memories.TypeDecision:
				decisions++
			case memories.TypeEpisode:
				edits++
			}
		}
	}
	if len(tr.sessions) == 0 {
		tr.summary = prefix + fmt.Sprintf("transcript read (%d events): no decision and no edit in it", res.Events)
		tr.plain = plain + fmt.Sprintf("transcript read (%d events): no decision and no edit in it", res.Events)
		return
	}
	counts := fmt.Sprintf("%d %s, %d %s", decisions, plural(decisions, "decision", "decisions"), edits, plural(edits, "edit", "edits"))
	tr.summary = prefix + fmt.Sprintf("transcript read (%d events): %s, %s", res.Events, strings.Join(tr.sessions, ", "), counts)
	tr.plain = plain + fmt.Sprintf("transcript read (%d events): %d session %s, %s", res.Events, len(tr.sessions),
		plural(len(tr.sessions), "note", "notes"), counts)
}

// findTranscript finds the transcript of a session an event names without
// its file (Codex gives no transcript_path when it has no rollout file yet):
// among the files discovery finds for the client's tool, the one whose name
// holds the session id (Codex's rollout-<time>-<id>.jsonl, Claude Code's
// <id>.jsonl) or, for a name that holds only the id's start (Gemini CLI's
// session-<time>-<id8>.jsonl), whose records say so; "" when there is none.
func (n *Normalizer) findTranscript(ctx context.Context, client, session string) string {
	k, ok := transcript.ParseSource(client)
	if !ok {
		return ""
	}
	ad, ok := adapters.For(k)
	if !ok {
		return ""
	}
	d := ad.Discover(n.Env)
	var maybe []string
	for _, f := range d.Files {
		if f.Role != transcript.RoleSession {
			continue
		}
		if f.Session == session {
			return f.Path
		}
		if f.Session == "" && len(session) >= 8 && strings.Contains(filepath.Base(f.Path), session[:8]) {
			maybe = append(maybe, f.Path)
		}
	}
	for _, p := range maybe {
		if id, err := sessionOfFile(ctx, p, string(k)); err == nil && id == session {
			return p
		}
	}
	return ""
}

// errFound stops a read once the session id is known.
var errFound = errors.New("found")

// sessionOfFile reads the session id of a transcript's first events.
func sessionOfFile(ctx context.Context, p, as string) (string, error) {
	t, err := scribe.Open(p, as)
	if err != nil {
		return "", err
	}
	defer t.Close()
	id := ""
	err = t.Events(ctx, scribe.Redaction{}, func(e transcript.Event) error {
		if e.SessionID != "" {
			id = e.SessionID
			return errFound
		}
		return nil
	})
	if err != nil && !errors.Is(err, errFound) {
		return "", err
	}
	return id, nil
}

// recordKey names a session's record: its client and id; a transcript when
// the event names no session; the event itself when it names neither.
func recordKey(ev *inbox.Event) string {
	var what string
	switch {
	case ev.Session != "":
		what = "session\x00" + ev.Client + "\x00" + ev.Session
	case ev.Transcript != "":
		what = "transcript\x00" + ev.Transcript
	default:
		what = "event\x00" + ev.ID
	}
	sum := sha256.Sum256([]byte(what))
	return "capture-" + hex.EncodeToString(sum[:8])
}

// sessionRecord is the record request of a stop or pre_compact event: the
// record to create when the session has none (dated by the event), and the
// line the event adds to it.
func sessionRecord(ev *inbox.Event, tr transcriptRead) memories.RecordRequest {
	at := ev.Time.UTC().Truncate(time.Second)
	key := recordKey(ev)
	id := memories.KeyedID(at, "cortex-session-record:"+key)
	tool := ev.Client
	if k, ok := transcript.ParseSource(ev.Client); ok {
		tool = k.Name()
	}
	if tool == "" {
		tool = "Agent"
	}
	title := tool + " session"
	switch {
	case ev.Session != "":
		title += " " + shortSession(ev.Session)
	case ev.Transcript != "":
		title += " " + strings.TrimSuffix(filepath.Base(ev.Transcript), filepath.Ext(ev.Transcript))
	default:
		title += " of " + at.Format("2006-01-02 15:04")
	}
	if ev.Project != "" {
		title += " in " + ev.Project
	}
	title = oneLine(title, 100)
	project := ev.Project
	if project == "" {
		project = memories.DefaultProject
	}
	folder := "other"
	if ev.Client != "" {
		folder = vault.Slug(ev.Client)
	}
	source := memories.SourceCapture
	if ev.Origin == inbox.OriginHook {
		source = memories.SourceHook
	}
	entry := captureLine(ev, tr)
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n", title)
	fmt.Fprintf(&b, "- Tool: %s\n", tool)
	if ev.Session != "" {
		fmt.Fprintf(&b, "- Session: %s\n", codeSpan(ev.Session))
	}
	if ev.Project != "" {
		fmt.Fprintf(&b, "- Project: %s\n", ev.Project)
	}
	if ev.Cwd != "" {
		fmt.Fprintf(&b, "- Folder: %s\n", codeSpan(ev.Cwd))
	}
	b.WriteString("\nWhat the agent's hooks (or `cortex capture`) reported of the session, one line per event, and the notes each brought; the conversation itself is in the session notes linked.\n\n## Captures\n\n")
	b.WriteString(entry)
	fields := recordFields(tr)
	created := append([]memories.Field{
		{Key: "tool", Value: ev.Client},
		{Key: "session_id", Value: ev.Session},
		{Key: "cwd", Value: ev.Cwd},
	}, fields...)
	prov := provenanceOf(ev)
	prov.EventIDs = nil // Record adds the event
	prov.SourcePath = tr.path
	return memories.RecordRequest{
		Key: key, EventID: ev.ID, Entry: entry, Fields: fields, Time: at,
		Note: &memories.Memory{
			ID: id, Title: title, Type: memories.TypeSession, Project: project, Tags: cleanTags(ev.Tags), Source: source,
			Status: memories.StatusActive, Importance: memories.DefaultImportance, Created: at, Updated: at,
			Fields: created, Provenance: prov, Body: b.String(),
			Path: path.Join(SessionsDir, folder, CapturedDir, at.Format("2006-01-02")+"-"+vault.Slug(title)+"-"+id[:memories.MinPrefix]+".md"),
		},
	}
}

// recordFields are the properties an event refreshes on its session's
// record: the transcript read, and the session notes made from it.
func recordFields(tr transcriptRead) []memories.Field {
	var f []memories.Field
	if tr.path != "" {
		f = append(f, memories.Field{Key: "transcript", Value: tr.path})
	}
	if len(tr.sessions) > 0 {
		links := make([]string, len(tr.sessions))
		for i, l := range tr.sessions {
			name, _, _ := strings.Cut(strings.TrimSuffix(strings.TrimPrefix(l, "[["), "]]"), "|")
			links[i] = "[[" + name + "]]"
		}
		f = append(f, memories.Field{Key: "session_notes", List: links})
	}
	return f
}

// captureLine is the record's line for an event: when, what fired it, and
// what came of its transcript.
func captureLine(ev *inbox.Event, tr transcriptRead) string {
	parts := []string{ev.Time.UTC().Format("2006-01-02 15:04:05") + " UTC"}
	what := string(ev.Type)
	if ev.Hook != "" {
		what = oneLine(ev.Hook, 40)
	}
	if ev.Type == inbox.TypePreCompact {
		what += " (compaction)"
	}
	parts = append(parts, what)
	if ev.Trigger != "" {
		parts = append(parts, "trigger "+codeSpan(oneLine(ev.Trigger, 40)))
	}
	if ev.Reason != "" {
		parts = append(parts, "reason "+codeSpan(oneLine(ev.Reason, 40)))
	}
	parts = append(parts, "event "+codeSpan(ev.ID), tr.summary)
	return "- " + strings.Join(parts, " · ") + "\n"
}

// shortSession is the start of a session id, as people tell sessions apart.
func shortSession(id string) string {
	if len(id) > 8 {
		return id[:8]
	}
	return id
}

// codeSpan renders s as inline code, whatever backticks it holds.
func codeSpan(s string) string {
	s = oneLine(s, 400)
	fence := "`"
	for strings.Contains(s, fence) {
		fence += "`"
	}
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		return fence + " " + s + " " + fence
	}
	return fence + s + fence
}
