package transcripts

import (
	"encoding/json"
	"errors"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/cortexmem/cortex/index"
	"github.com/cortexmem/cortex/pipeline"
	"github.com/cortexmem/cortex/transcript"
)

// Bounds of what one exchange keeps: enough to find it and to recognise it,
// not a copy of a pasted log or of a long agent run.
const (
	maxUser    = 8 << 10  // bytes of what the person typed
	maxReply   = 16 << 10 // bytes of the agent's replies and failed tools' output
	maxToolErr = 600      // bytes of one failed tool's output
	maxCommand = 300      // bytes of one shell command
	maxPath    = 400      // bytes of one path
	maxListed  = 64       // tools, paths or commands of one exchange
)

// errNeedFull says that records read from an offset refer to records before
// it (a rewind, a message rewritten in place) in a way the saved state
// cannot resolve: the file must be read again from its start.
var errNeedFull = errors.New("the new records reach back before the last read: read the file whole")

// exchange is a document being built: a person's turn and what followed it
// (or a compaction summary). It is saved between reads while open, so every
// text in it is redacted already.
type exchange struct {
	ID        string                `json:"id"`
	Kind      string                `json:"kind"`
	Rewound   bool                  `json:"rewound,omitempty"`
	Tool      transcript.SourceKind `json:"tool"`
	Session   string                `json:"session"`
	Agent     string                `json:"agent,omitempty"`
	Sidechain bool                  `json:"sidechain,omitempty"`
	// UserID is the event id of the person's turn; User its text.
	UserID string `json:"user_id,omitempty"`
	User   string `json:"user"`
	// Parts are the agent's replies, by event id (a message rewritten in
	// place replaces its part); Errors what failed tools said.
	Parts    []part             `json:"parts,omitempty"`
	Errors   []string           `json:"errors,omitempty"`
	Tools    []string           `json:"tools,omitempty"`
	Paths    []string           `json:"paths,omitempty"`
	Commands []string           `json:"commands,omitempty"`
	Project  transcript.Project `json:"project,omitzero"`
	Offset   int64              `json:"offset"`
	Line     int                `json:"line,omitempty"`
	EndLine  int                `json:"end_line,omitempty"`
	Pointer  string             `json:"pointer,omitempty"`
	Time     string             `json:"time,omitempty"`
	End      string             `json:"end,omitempty"`

	// start is the position of the person's turn among the events of the
	// current read; exchanges restored from an earlier read are before
	// every event of it (see builder.restore).
	start int
	// replyLen is the bytes of Parts and Errors so far.
	replyLen int
}

type part struct {
	ID   string `json:"id"`
	Text string `json:"text"`
}

// lane keys the exchanges that run side by side in one file: a side
// conversation (a subagent's records inline) has its own.
type lane struct {
	agent     string
	sidechain bool
}

// builder turns the events of one transcript file into exchanges. It reads
// a file from its start (full) or from where an earlier read stopped, with
// the exchanges that read left open.
type builder struct {
	file, fileKey string
	tool          transcript.SourceKind
	redact        func(string) string
	full          bool

	// exchanges are this read's, in order: the restored open ones first.
	exchanges []*exchange
	open      map[lane]*exchange
	// pos is every event id of this read (and the restored exchanges')
	// with its position, for rewinds and rewritten messages.
	pos map[string]int
	n   int
	// messages counts the conversation's messages read: the person's and
	// the agent's turns, tool calls and tool results.
	messages int
	ids      map[string]bool
	// memo remembers the redaction of short texts (redactShort).
	memo map[string]string
}

func newBuilder(file, fileKey string, tool transcript.SourceKind, redact func(string) string, full bool) *builder {
	if redact == nil {
		redact = func(s string) string { return s }
	}
	return &builder{file: file, fileKey: fileKey, tool: tool, redact: redact, full: full,
		open: map[lane]*exchange{}, pos: map[string]int{}, ids: map[string]bool{}}
}

// Positions of the events of restored exchanges: before every event of the
// read, the person's turn before the replies.
const (
	posRestoredTurn  = -2
	posRestoredReply = -1
)

// restore takes back the exchanges an earlier read left open.
func (b *builder) restore(open []*exchange) {
	for _, x := range open {
		x.start = posRestoredTurn
		x.replyLen = 0
		for _, p := range x.Parts {
			x.replyLen += len(p.Text)
			b.pos[p.ID] = posRestoredReply
		}
		for _, e := range x.Errors {
			x.replyLen += len(e)
		}
		if x.UserID != "" {
			b.pos[x.UserID] = posRestoredTurn
		}
		b.ids[x.ID] = true
		b.exchanges = append(b.exchanges, x)
		if x.Kind == index.KindExchange {
			b.open[lane{x.Agent, x.Sidechain}] = x
		}
	}
}

// openExchanges are the exchanges still open at the end of the read, for the
// next read to take back.
func (b *builder) openExchanges() []*exchange {
	var out []*exchange
	for _, x := range b.exchanges {
		if b.open[lane{x.Agent, x.Sidechain}] == x {
			out = append(out, x)
		}
	}
	return out
}

// add reads one event.
func (b *builder) add(e *transcript.Event) error {
	p := b.n
	b.n++
	if e.EventID != "" {
		if _, seen := b.pos[e.EventID]; !seen {
			b.pos[e.EventID] = p
		}
	}
	ln := lane{e.AgentID, e.Sidechain}
	cur := b.open[ln]
	if cur != nil {
		if e.Provenance.Line > cur.EndLine {
			cur.EndLine = e.Provenance.Line
		}
		if e.Timestamp != "" {
			cur.End = e.Timestamp
		}
		if !e.Project.IsZero() {
			cur.Project = mergeProject(cur.Project, e.Project)
		}
	}
	if e.Replaces != "" {
		handled, err := b.replace(e)
		if err != nil || handled {
			return err
		}
	}
	switch e.Kind {
	case transcript.KindUserTurn, transcript.KindAssistantTurn, transcript.KindToolCall, transcript.KindToolResult:
		b.messages++
	}
	switch e.Kind {
	case transcript.KindUserTurn:
		if e.UserTurn.Meta != "" {
			return nil
		}
		b.start(e, p)
	case transcript.KindAssistantTurn:
		if cur != nil && e.AssistantTurn.Text != "" {
			// Text past the exchange's bound is not kept: not redacted either.
			if cur.replyLen < maxReply {
				cur.addPart(e.EventID, b.redact(e.AssistantTurn.Text))
			}
		}
	case transcript.KindToolCall:
		if cur != nil {
			b.toolCall(cur, e.ToolCall)
		}
	case transcript.KindToolResult:
		if cur != nil && !e.ToolResult.OK && cur.replyLen < maxReply && len(cur.Errors) < maxListed && strings.TrimSpace(e.ToolResult.Text) != "" {
			cur.addError(trim(b.redact(e.ToolResult.Text), maxToolErr))
		}
	case transcript.KindFileEdit:
		if cur != nil {
			cur.Paths = b.addOnce(cur.Paths, e.FileEdit.Path, maxPath)
			if e.FileEdit.MovePath != "" {
				cur.Paths = b.addOnce(cur.Paths, e.FileEdit.MovePath, maxPath)
			}
		}
	case transcript.KindCompaction:
		// What the agent says after a compaction answers the summary, not
		// the person: the exchange ends here.
		delete(b.open, ln)
		if s := strings.TrimSpace(e.Compaction.Summary); s != "" {
			x := b.newExchange(e, p, index.KindCompaction, "c")
			x.addPart(e.EventID, b.redact(s))
		}
	case transcript.KindRewind:
		return b.rewind(e, p)
	}
	return nil
}

// start opens the exchange of a turn the person typed.
func (b *builder) start(e *transcript.Event, p int) {
	if prev := b.open[lane{e.AgentID, e.Sidechain}]; prev != nil && e.Provenance.Line > prev.Line && prev.EndLine >= e.Provenance.Line {
		// The record that holds this turn may also have given the previous
		// exchange an event (a rewind marker): it begins this one.
		prev.EndLine = e.Provenance.Line - 1
	}
	x := b.newExchange(e, p, index.KindExchange, "x")
	x.UserID = e.EventID
	x.User = trim(b.redact(e.UserTurn.Text), maxUser)
	b.open[lane{e.AgentID, e.Sidechain}] = x
}

func (b *builder) newExchange(e *transcript.Event, p int, kind, tag string) *exchange {
	id := b.fileKey + "/" + tag + strconv.FormatInt(e.Provenance.Offset, 10)
	if e.Provenance.Pointer != "" && e.Provenance.Line == 0 {
		id = b.fileKey + "/" + tag + e.Provenance.Pointer
	}
	for n := 2; b.ids[id]; n++ {
		id = strings.TrimSuffix(id, "~"+strconv.Itoa(n-1)) + "~" + strconv.Itoa(n)
	}
	b.ids[id] = true
	x := &exchange{
		ID: id, Kind: kind, Tool: b.tool, Session: e.SessionID, Agent: e.AgentID, Sidechain: e.Sidechain,
		Project: e.Project, Offset: e.Provenance.Offset, Line: e.Provenance.Line, EndLine: e.Provenance.Line,
		Pointer: e.Provenance.Pointer, Time: e.Timestamp, End: e.Timestamp, start: p,
	}
	b.exchanges = append(b.exchanges, x)
	return x
}

// replace applies a newer version of an earlier message (tools that rewrite
// a message in place append it again): the part or turn it replaces takes
// its text. It reports whether the event was used up.
func (b *builder) replace(e *transcript.Event) (bool, error) {
	for i := len(b.exchanges) - 1; i >= 0; i-- {
		x := b.exchanges[i]
		if x.UserID == e.Replaces && e.Kind == transcript.KindUserTurn {
			x.User = trim(b.redact(e.UserTurn.Text), maxUser)
			return true, nil
		}
		for j := range x.Parts {
			if x.Parts[j].ID == e.Replaces && e.Kind == transcript.KindAssistantTurn {
				x.replyLen -= len(x.Parts[j].Text)
				x.Parts[j] = part{ID: e.EventID, Text: b.redact(e.AssistantTurn.Text)}
				x.replyLen += len(x.Parts[j].Text)
				b.pos[e.EventID] = b.pos[e.Replaces]
				return true, nil
			}
		}
	}
	if _, known := b.pos[e.Replaces]; !known && !b.full {
		return false, errNeedFull
	}
	return false, nil
}

// rewind marks the exchanges of the abandoned branch: from the event the
// rewind names as dropped (else the one after the point it goes back to,
// else the Turns-th turn back) to the rewind.
func (b *builder) rewind(e *transcript.Event, p int) error {
	r := e.Rewind
	start, ok := 0, false
	if r.Dropped != "" {
		start, ok = b.pos[r.Dropped]
	}
	if !ok && r.To != "" {
		if q, found := b.pos[r.To]; found {
			start, ok = q+1, true
		}
	}
	if !ok && r.Turns > 0 {
		n := 0
		for i := len(b.exchanges) - 1; i >= 0 && !ok; i-- {
			x := b.exchanges[i]
			if x.Kind != index.KindExchange || x.Sidechain || x.Rewound || x.Session != e.SessionID {
				continue
			}
			if n++; n == r.Turns {
				start, ok = x.start, true
			}
		}
	}
	if !ok {
		if !b.full && (r.Dropped != "" || r.To != "" || r.Turns > 0) {
			return errNeedFull
		}
		return nil
	}
	for _, x := range b.exchanges {
		if x.Kind == index.KindExchange && x.Session == e.SessionID && x.start >= start && x.start < p {
			x.Rewound = true
			if b.open[lane{x.Agent, x.Sidechain}] == x {
				delete(b.open, lane{x.Agent, x.Sidechain})
			}
		}
	}
	return nil
}

func (x *exchange) addPart(id, text string) {
	if text == "" || x.replyLen >= maxReply {
		return
	}
	text = trim(text, maxReply-x.replyLen)
	x.Parts = append(x.Parts, part{ID: id, Text: text})
	x.replyLen += len(text)
}

func (x *exchange) addError(text string) {
	if text == "" || x.replyLen >= maxReply || len(x.Errors) >= maxListed {
		return
	}
	text = trim(text, maxReply-x.replyLen)
	x.Errors = append(x.Errors, text)
	x.replyLen += len(text)
}

// toolCall records a call's tool, and the paths and command its arguments
// name.
func (b *builder) toolCall(x *exchange, c *transcript.ToolCall) {
	if c.Name != "" {
		x.Tools = b.addOnce(x.Tools, c.Name, 100)
	}
	args := callArgs(c.Input)
	for _, k := range []string{"file_path", "path", "notebook_path", "filePath", "absolute_path", "dir_path", "directory"} {
		if s, ok := args[k].(string); ok && s != "" {
			x.Paths = b.addOnce(x.Paths, s, maxPath)
		}
	}
	if paths, ok := args["paths"].([]any); ok {
		for _, p := range paths {
			if s, ok := p.(string); ok && s != "" {
				x.Paths = b.addOnce(x.Paths, s, maxPath)
			}
		}
	}
	for _, k := range []string{"command", "cmd"} {
		switch v := args[k].(type) {
		case string:
			x.Commands = b.addOnce(x.Commands, v, maxCommand)
		case []any:
			var words []string
			for _, w := range v {
				if s, ok := w.(string); ok {
					words = append(words, s)
				}
			}
			// Codex runs ["bash", "-lc", "<script>"]: the script is the
			// command a person would recognise.
			if len(words) == 3 && (words[1] == "-lc" || words[1] == "-c") {
				words = words[2:]
			}
			if len(words) > 0 {
				x.Commands = b.addOnce(x.Commands, strings.Join(words, " "), maxCommand)
			}
		}
	}
	for _, k := range []string{"pattern", "query"} {
		if s, ok := args[k].(string); ok && s != "" {
			x.Commands = b.addOnce(x.Commands, k+": "+s, maxCommand)
		}
	}
}

// callArgKeys are the arguments of a call toolCall reads.
var callArgKeys = []string{"file_path", "path", "notebook_path", "filePath", "absolute_path", "dir_path", "directory",
	"paths", "command", "cmd", "pattern", "query"}

// callArgs decodes a call's arguments: a JSON object, or a string holding
// one (Codex function_call writes them so). Only the arguments toolCall
// reads are decoded: the others (an edit's old and new text) are skipped.
func callArgs(raw json.RawMessage) map[string]any {
	if len(raw) == 0 {
		return nil
	}
	if raw[0] == '"' {
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return nil
		}
		raw = json.RawMessage(s)
	}
	if len(raw) == 0 || raw[0] != '{' {
		return nil
	}
	var all map[string]json.RawMessage
	if json.Unmarshal(raw, &all) != nil {
		return nil
	}
	m := make(map[string]any, 2)
	for _, k := range callArgKeys {
		if v, ok := all[k]; ok {
			var a any
			if json.Unmarshal(v, &a) == nil {
				m[k] = a
			}
		}
	}
	return m
}

// addOnce adds s, redacted and trimmed to n bytes, to list unless it is
// there or the list is full.
func (b *builder) addOnce(list []string, s string, n int) []string {
	if len(list) >= maxListed {
		return list
	}
	return addOnce(list, trim(b.redactShort(s), n))
}

// Bounds of the redactions a builder remembers: the short texts a session
// repeats (tool names, paths, commands, folders).
const (
	memoBytes   = 1 << 10
	memoEntries = 4096
)

// redactShort is redact, remembered for short texts: a session names the
// same tools, files and folders again and again.
func (b *builder) redactShort(s string) string {
	if len(s) > memoBytes {
		return b.redact(s)
	}
	if r, ok := b.memo[s]; ok {
		return r
	}
	r := b.redact(s)
	if len(b.memo) < memoEntries {
		if b.memo == nil {
			b.memo = map[string]string{}
		}
		b.memo[s] = r
	}
	return r
}

func addOnce(list []string, s string) []string {
	if s == "" || len(list) >= maxListed || slices.Contains(list, s) {
		return list
	}
	return append(list, s)
}

// mergeProject fills in what a later record says of the project.
func mergeProject(p, q transcript.Project) transcript.Project {
	if q.Cwd != "" {
		p.Cwd = q.Cwd
	}
	if q.RepoRoot != "" {
		p.RepoRoot = q.RepoRoot
	}
	if q.Repository != "" {
		p.Repository = q.Repository
	}
	if q.GitBranch != "" {
		p.GitBranch = q.GitBranch
	}
	return p
}

// trim cuts s to at most n bytes, on a rune boundary, marking the cut.
func trim(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) <= n {
		return s
	}
	if n <= 3 {
		return ""
	}
	cut := n - len("…")
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return strings.TrimSpace(s[:cut]) + "…"
}

// doc is the exchange as the index holds it; file is the transcript's path.
func (x *exchange) doc(file string, redact func(string) string) index.TranscriptDoc {
	var reply []string
	for _, p := range x.Parts {
		reply = append(reply, p.Text)
	}
	reply = append(reply, x.Errors...)
	d := index.TranscriptDoc{
		ID: x.ID, Kind: x.Kind, Rewound: x.Rewound, Tool: string(x.Tool), Session: x.Session, Agent: x.Agent,
		Sidechain: x.Sidechain, User: x.User, Reply: strings.Join(reply, "\n\n"),
		Tools: x.Tools, Paths: x.Paths, Commands: x.Commands,
		Cwd: redact(x.Project.Cwd), RepoRoot: redact(x.Project.RepoRoot), Branch: redact(x.Project.GitBranch),
		File: file, FileKey: strings.SplitN(x.ID, "/", 2)[0], Offset: x.Offset, Line: x.Line, EndLine: x.EndLine,
		Pointer: x.Pointer,
	}
	if t, ok := pipeline.ParseTime(x.Time); ok {
		d.Time = t.UTC()
	}
	if t, ok := pipeline.ParseTime(x.End); ok {
		d.End = t.UTC()
	}
	if d.Time.IsZero() {
		d.Time = d.End
	}
	if x.Kind == index.KindExchange && x.UserID != "" {
		d.Dup = string(x.Tool) + ":" + x.UserID
	}
	for _, dir := range []string{d.Cwd, d.RepoRoot} {
		if dir == "" {
			continue
		}
		clean := filepath.Clean(dir)
		d.Dirs = addOnce(d.Dirs, clean)
		d.Projects = addOnce(d.Projects, strings.ToLower(filepath.Base(clean)))
	}
	if r := x.Project.Repository; r != "" {
		name := strings.TrimSuffix(r[strings.LastIndexAny(r, "/:")+1:], ".git")
		d.Projects = addOnce(d.Projects, strings.ToLower(redact(name)))
	}
	return d
}
