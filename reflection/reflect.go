// Package reflection rolls up what happened in a session, or in a project
// over a window (SPEC §4.9; `cortex reflect`, MCP reflect): the opening
// intent, the questions asked, the decisions made (with links to their
// notes), the files changed, the friction (failed tool calls, errors,
// interruptions, rewinds), the recurring patterns (commands run and files
// touched again and again) and the open threads (open action items,
// questions left unanswered).
//
// It is built from the event stream — the agents' transcripts, read through
// the adapters — and the vault, with no model call: Reflect is a pure
// function of the events and the notes, golden-tested. Service gathers them
// through its ports (Events, Notes) and, asked to, saves the roll-up as a
// reflection note whose provenance names the sessions and transcripts it
// came from.
package reflection

import (
	"encoding/json"
	"fmt"
	"path"
	"sort"
	"strings"
	"time"

	"github.com/cortexmem/cortex/memories"
	"github.com/cortexmem/cortex/transcript"
)

// Styles of a reflection.
const (
	StyleBrief = "brief"
	StyleFull  = "full"
)

// How many lines each section keeps, per style.
const (
	briefItems = 5
	fullItems  = 50
	// lineChars bounds one line of a section.
	lineChars = 160
	// repeatAt is how often a command or file must recur to be a pattern.
	repeatAt = 3
)

// Note is a note of the vault the roll-up links to.
type Note struct {
	ID, ShortID, Title string
	// Link is the note's name, as an Obsidian link names it.
	Link    string
	Created time.Time
}

// Input is what a reflection is made of.
type Input struct {
	// Scope says what is reflected on: "session <id>" or "project <p>
	// since <date>".
	Scope string
	// Events are the sessions' events, each file's in order.
	Events []transcript.Event
	// Decisions are the decision notes of the sessions (or the project's
	// within the window); Actions the open action items.
	Decisions []Note
	Actions   []Note
	Style     string
}

// Line is one line of a section, with how often it happened when it
// recurs.
type Line struct {
	Text  string `json:"text"`
	Count int    `json:"count,omitempty"`
	// Link is the note it is about, when there is one.
	Link string `json:"link,omitempty"`
}

// Section is one part of a reflection.
type Section struct {
	Name  string `json:"name"`
	Title string `json:"title"`
	Lines []Line `json:"lines"`
	// More counts the lines the style left out.
	More int `json:"more,omitempty"`
}

// Reflection is a roll-up.
type Reflection struct {
	Scope    string    `json:"scope"`
	Style    string    `json:"style"`
	Sessions []string  `json:"sessions"`
	Files    []string  `json:"transcripts"`
	Sections []Section `json:"sections"`
	Markdown string    `json:"markdown"`
}

// Section names, in order.
const (
	SectionIntent    = "intent"
	SectionQuestions = "questions"
	SectionDecisions = "decisions"
	SectionFiles     = "files"
	SectionFriction  = "friction"
	SectionPatterns  = "patterns"
	SectionOpen      = "open"
)

// Reflect rolls up in: a pure function of it.
func Reflect(in Input) *Reflection {
	limit := briefItems
	if in.Style == StyleFull {
		limit = fullItems
	} else {
		in.Style = StyleBrief
	}
	r := &Reflection{Scope: in.Scope, Style: in.Style, Sessions: []string{}, Files: []string{}}
	sessions, files := map[string]bool{}, map[string]bool{}
	var intent []Line
	var questions []Line
	var friction []Line
	changed := map[string]*fileChange{}
	commands, touched := counter{}, counter{}
	// pending are the person's questions not yet followed by an answer.
	var pending []Line
	calls := map[string]transcript.ToolCall{}
	for _, e := range in.Events {
		if e.SessionID != "" && !sessions[e.SessionID] {
			sessions[e.SessionID] = true
			r.Sessions = append(r.Sessions, e.SessionID)
		}
		if f := e.Provenance.File; f != "" && !files[f] {
			files[f] = true
			r.Files = append(r.Files, f)
		}
		switch e.Kind {
		case transcript.KindUserTurn:
			u := e.UserTurn
			if u.Meta == transcript.MetaInterrupt {
				friction = append(friction, Line{Text: "interrupted by the person" + at(e)})
				continue
			}
			if u.Meta != "" || strings.TrimSpace(u.Text) == "" || e.Sidechain {
				continue
			}
			if len(intent) == 0 {
				intent = append(intent, Line{Text: clip(u.Text, 3*lineChars)})
			}
			for _, q := range questionsIn(u.Text) {
				l := Line{Text: q}
				questions = append(questions, l)
				pending = append(pending, l)
			}
		case transcript.KindAssistantTurn:
			if strings.TrimSpace(e.AssistantTurn.Text) != "" && !e.Sidechain {
				pending = nil
			}
			if e.AssistantTurn.StopReason == "error" || e.AssistantTurn.StopReason == "refusal" {
				friction = append(friction, Line{Text: "the model stopped: " + e.AssistantTurn.StopReason + at(e)})
			}
		case transcript.KindToolCall:
			c := *e.ToolCall
			calls[c.CallID] = c
			if cmd := commandOf(c); cmd != "" {
				commands.add(cmd)
			}
			if p := pathOf(c); p != "" {
				touched.add(p)
			}
		case transcript.KindToolResult:
			res := e.ToolResult
			if !res.OK {
				name := res.Name
				if name == "" {
					name = calls[res.CallID].Name
				}
				what := name
				if cmd := commandOf(calls[res.CallID]); cmd != "" {
					what += " `" + clip(cmd, 60) + "`"
				}
				msg := firstLine(res.Text)
				friction = append(friction, Line{Text: strings.TrimSpace(fmt.Sprintf("failed tool call %s: %s", what, clip(msg, 100))) + at(e)})
			}
		case transcript.KindFileEdit:
			fe := e.FileEdit
			if !fe.OK {
				continue
			}
			c := changed[fe.Path]
			if c == nil {
				c = &fileChange{path: fe.Path}
				changed[fe.Path] = c
			}
			c.edits++
			c.added += fe.Added
			c.removed += fe.Removed
		case transcript.KindRewind:
			t := "rewound"
			if e.Rewind.Turns > 0 {
				t += fmt.Sprintf(" %d turns", e.Rewind.Turns)
			}
			friction = append(friction, Line{Text: t + at(e)})
		case transcript.KindCompaction:
			friction = append(friction, Line{Text: "context compacted (" + or(e.Compaction.Trigger, "auto") + ")" + at(e)})
		}
	}
	if len(intent) == 0 {
		intent = append(intent, Line{Text: "no message typed by the person"})
	}
	var decisions []Line
	ds := append([]Note(nil), in.Decisions...)
	sort.SliceStable(ds, func(i, j int) bool {
		if !ds[i].Created.Equal(ds[j].Created) {
			return ds[i].Created.Before(ds[j].Created)
		}
		return ds[i].ID < ds[j].ID
	})
	for _, d := range ds {
		decisions = append(decisions, Line{Text: fmt.Sprintf("[%s] %s", d.ShortID, clip(d.Title, lineChars)), Link: d.Link})
	}
	var fileLines []Line
	for _, c := range sortedChanges(changed) {
		fileLines = append(fileLines, Line{Text: fmt.Sprintf("`%s` (+%d −%d)", c.path, c.added, c.removed), Count: c.edits})
	}
	var patterns []Line
	for _, kv := range commands.recurring() {
		patterns = append(patterns, Line{Text: "command `" + clip(kv.key, 80) + "`", Count: kv.n})
	}
	for _, kv := range touched.recurring() {
		patterns = append(patterns, Line{Text: "file `" + kv.key + "`", Count: kv.n})
	}
	var open []Line
	for _, a := range in.Actions {
		open = append(open, Line{Text: fmt.Sprintf("[%s] %s", a.ShortID, clip(a.Title, lineChars)), Link: a.Link})
	}
	for _, q := range pending {
		open = append(open, Line{Text: "unanswered: " + q.Text})
	}
	add := func(name, title string, lines []Line) {
		s := Section{Name: name, Title: title, Lines: []Line{}}
		for i, l := range lines {
			if i == limit {
				s.More = len(lines) - limit
				break
			}
			s.Lines = append(s.Lines, l)
		}
		r.Sections = append(r.Sections, s)
	}
	add(SectionIntent, "Opening intent", intent)
	add(SectionQuestions, "Questions asked", questions)
	add(SectionDecisions, "Decisions made", decisions)
	add(SectionFiles, "Files changed", fileLines)
	add(SectionFriction, "Friction", friction)
	add(SectionPatterns, "Recurring patterns", patterns)
	add(SectionOpen, "Open threads", open)
	r.Markdown = render(r)
	return r
}

func render(r *Reflection) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Reflection: %s\n\n", r.Scope)
	fmt.Fprintf(&b, "%d %s, %d %s.\n", len(r.Sessions), plural(len(r.Sessions), "session", "sessions"),
		len(r.Files), plural(len(r.Files), "transcript", "transcripts"))
	for _, s := range r.Sections {
		fmt.Fprintf(&b, "\n## %s\n\n", s.Title)
		if len(s.Lines) == 0 {
			b.WriteString("- none\n")
			continue
		}
		for _, l := range s.Lines {
			b.WriteString("- ")
			b.WriteString(l.Text)
			if l.Count > 1 {
				fmt.Fprintf(&b, " ×%d", l.Count)
			}
			if l.Link != "" {
				fmt.Fprintf(&b, " — [[%s]]", l.Link)
			}
			b.WriteString("\n")
		}
		if s.More > 0 {
			fmt.Fprintf(&b, "- … and %d more\n", s.More)
		}
	}
	return b.String()
}

type fileChange struct {
	path           string
	edits          int
	added, removed int
}

func sortedChanges(m map[string]*fileChange) []*fileChange {
	out := make([]*fileChange, 0, len(m))
	for _, c := range m {
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].edits != out[j].edits {
			return out[i].edits > out[j].edits
		}
		return out[i].path < out[j].path
	})
	return out
}

type kv struct {
	key string
	n   int
}

type counter map[string]int

func (c counter) add(k string) { c[k]++ }

// recurring are the keys seen at least repeatAt times, most first.
func (c counter) recurring() []kv {
	var out []kv
	for k, n := range c {
		if n >= repeatAt {
			out = append(out, kv{k, n})
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].n != out[j].n {
			return out[i].n > out[j].n
		}
		return out[i].key < out[j].key
	})
	return out
}

// commandOf is the shell command a tool call ran, on one line.
func commandOf(c transcript.ToolCall) string {
	args := argsOf(c)
	for _, k := range []string{"command", "cmd"} {
		switch v := args[k].(type) {
		case string:
			return oneLine(v)
		case []any:
			var parts []string
			for _, p := range v {
				if s, ok := p.(string); ok {
					parts = append(parts, s)
				}
			}
			// Codex runs ["bash", "-lc", "<command>"]: the command is the
			// last part.
			if len(parts) == 3 && (parts[1] == "-lc" || parts[1] == "-c") {
				return oneLine(parts[2])
			}
			return oneLine(strings.Join(parts, " "))
		}
	}
	return ""
}

// pathOf is the file a tool call read or wrote.
func pathOf(c transcript.ToolCall) string {
	args := argsOf(c)
	for _, k := range []string{"file_path", "path", "absolute_path", "notebook_path"} {
		if v, ok := args[k].(string); ok && v != "" {
			return v
		}
	}
	return ""
}

func argsOf(c transcript.ToolCall) map[string]any {
	var args map[string]any
	if len(c.Input) == 0 {
		return nil
	}
	if err := json.Unmarshal(c.Input, &args); err != nil {
		// Some tools write the arguments as a JSON string of an object.
		var s string
		if json.Unmarshal(c.Input, &s) == nil {
			_ = json.Unmarshal([]byte(s), &args)
		}
	}
	return args
}

// questionsIn are the sentences of a message that end with a question mark,
// outside code.
func questionsIn(text string) []string {
	var out []string
	inFence := false
	for _, l := range strings.Split(text, "\n") {
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "```") {
			inFence = !inFence
			continue
		}
		if inFence || strings.HasPrefix(t, ">") {
			continue
		}
		start := 0
		for i := 0; i < len(t); i++ {
			switch t[i] {
			case '.', '!':
				if i+1 == len(t) || t[i+1] == ' ' {
					start = i + 1
				}
			case '?':
				if i+1 == len(t) || t[i+1] == ' ' || t[i+1] == '"' || t[i+1] == ')' {
					q := strings.TrimSpace(t[start : i+1])
					if len(q) > 3 {
						out = append(out, clip(q, lineChars))
					}
					start = i + 1
				}
			}
		}
	}
	return out
}

func at(e transcript.Event) string {
	if e.Timestamp == "" {
		return ""
	}
	if t, err := time.Parse(time.RFC3339Nano, e.Timestamp); err == nil {
		return " (" + t.UTC().Format("2006-01-02 15:04") + ")"
	}
	return ""
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return s
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

func clip(s string, n int) string {
	s = oneLine(s)
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

func or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// noteOf is the roll-up's view of a memory.
func noteOf(m memories.Entry, short string) Note {
	return Note{ID: m.ID, ShortID: short, Title: m.Title, Link: strings.TrimSuffix(path.Base(m.Path), ".md"), Created: m.Created}
}
