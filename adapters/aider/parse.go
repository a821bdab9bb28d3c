package aider

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/cortexmem/cortex/transcript"
)

// state is what the adapter remembers between records of a chat history;
// it round-trips through JSON with the stream's Context.
type state struct {
	Version string `json:"version,omitempty"`
	Model   string `json:"model,omitempty"`
	Format  string `json:"format,omitempty"` // the edit format the Models line names
	// Pending are the edits of the last reply, waiting for aider to say
	// whether it applied them.
	Pending []pending `json:"pending,omitempty"`
	// Created are the files aider created empty for them.
	Created []string `json:"created,omitempty"`
	// LastReply is a hash of the last reply's text: in architect mode
	// aider hands the architect's reply to the editor model as a prompt,
	// and writes it as the person's lines.
	LastReply string `json:"last_reply,omitempty"`
}

// pending is one edit a reply asked for.
type pending struct {
	CallID  string     `json:"call_id"`
	Tool    string     `json:"tool"` // search_replace, whole, udiff
	Path    string     `json:"path"`
	Search  string     `json:"search,omitempty"`
	Replace string     `json:"replace,omitempty"`
	Content string     `json:"content,omitempty"`
	Hunks   [][]string `json:"hunks,omitempty"`
	New     bool       `json:"new,omitempty"` // a udiff from /dev/null
}

// Parse turns one record of a chat history into events.
func (a *Adapter) Parse(rec transcript.Record, ctx *transcript.Context) []transcript.Event {
	st := transcript.StateOf[state](ctx)
	first, _, _ := lineAt(rec.Data, 0)
	kind := kindAt(first)
	if kind == recHeader {
		return header(rec, ctx, st, first)
	}
	if ctx.Session() == "" {
		// Text before the first session header (a note the person added,
		// or a file that is not a chat history).
		return []transcript.Event{transcript.UnknownEvent(ctx, rec, "before_session", transcript.ReasonUnrecognized)}
	}
	switch kind {
	case recTool:
		return toolOutput(rec, ctx, st)
	case recUser:
		return userInput(rec, ctx, st)
	}
	return reply(rec, ctx, st)
}

func header(rec transcript.Record, ctx *transcript.Context, st *state, first []byte) []transcript.Event {
	ts := strings.TrimSpace(strings.TrimPrefix(string(bytes.TrimRight(first, "\r")), headerPrefix))
	*st = state{}
	ctx.SetSession(ts)
	if dir := projectDir(ctx.File()); dir != "" {
		ctx.SetProject(transcript.Project{Cwd: dir, RepoRoot: dir})
	}
	e := ctx.NewEvent(rec, transcript.KindSessionStart, "")
	e.Timestamp = ts
	e.SessionStart = &transcript.SessionStart{}
	if bytes.Contains(rec.Data, []byte("\n")) {
		e.Extra = map[string]json.RawMessage{"record": mustJSON(string(rec.Data))}
	}
	return []transcript.Event{e}
}

// projectDir is the folder a chat history at file is in, when file is an
// absolute path (aider keeps it in the repository's root).
func projectDir(file string) string {
	if !filepath.IsAbs(file) && !strings.HasPrefix(file, "/") {
		return ""
	}
	return filepath.Dir(file)
}

func mustJSON(s string) json.RawMessage {
	b, _ := json.Marshal(s)
	return b
}

// messages splits a tool record into aider's messages: each from its "> "
// line to the line ending with two spaces, the prefix and the line breaks'
// spaces taken off.
func messages(data []byte) []string {
	var out []string
	var cur []string
	for _, l := range strings.Split(string(data), "\n") {
		l = strings.TrimSuffix(l, "\r")
		if cur == nil {
			l = strings.TrimPrefix(strings.TrimPrefix(l, ">"), " ")
		}
		end := strings.HasSuffix(l, "  ")
		cur = append(cur, strings.TrimSuffix(l, "  "))
		if end {
			out = append(out, strings.Join(cur, "\n"))
			cur = nil
		}
	}
	if cur != nil {
		out = append(out, strings.Join(cur, "\n"))
	}
	return out
}

// toolOutput reads a run of aider's messages: kept whole as unknown
// (unmapped), and read for the model and edit format, and for whether the
// last reply's edits were applied.
func toolOutput(rec transcript.Record, ctx *transcript.Context, st *state) []transcript.Event {
	u := transcript.UnknownEvent(ctx, rec, "tool_output", transcript.ReasonUnmapped)
	out := []transcript.Event{u}
	applied := func(path string, ok bool) {
		kept := st.Pending[:0]
		for _, p := range st.Pending {
			if p.Path != path {
				kept = append(kept, p)
				continue
			}
			e := ctx.NewEvent(rec, transcript.KindFileEdit, u.EventID+"#edit:"+p.CallID)
			e.ParentID = u.EventID
			e.FileEdit = p.edit(ok, contains(st.Created, path))
			out = append(out, e)
		}
		st.Pending = kept
	}
	for _, m := range messages(rec.Data) {
		first, _, _ := strings.Cut(m, "\n")
		switch {
		case strings.HasPrefix(first, "Aider v"):
			st.Version = strings.TrimPrefix(strings.Fields(first)[1], "v")
		case strings.HasPrefix(first, "Models: "), strings.HasPrefix(first, "Model: "), strings.HasPrefix(first, "Main model: "):
			_, rest, _ := strings.Cut(first, ": ")
			model, format, _ := strings.Cut(rest, " with ")
			st.Model = strings.TrimSpace(model)
			if f, _, ok := strings.Cut(format, " edit format"); ok {
				st.Format = strings.TrimSpace(f)
			}
		case strings.HasPrefix(first, "Creating empty file "):
			st.Created = append(st.Created, strings.TrimSpace(strings.TrimPrefix(first, "Creating empty file ")))
		case strings.HasPrefix(first, "Applied edit to "):
			applied(strings.TrimSpace(strings.TrimPrefix(first, "Applied edit to ")), true)
		case strings.HasPrefix(first, "Did not apply edit to "):
			path, _, _ := strings.Cut(strings.TrimPrefix(first, "Did not apply edit to "), " (")
			applied(strings.TrimSpace(path), false)
		case strings.HasPrefix(first, "Skipping edits to "):
			path, _, _ := strings.Cut(strings.TrimPrefix(first, "Skipping edits to "), " that matches")
			applied(strings.TrimSuffix(strings.TrimSpace(path), "."), false)
		case strings.HasPrefix(first, "The LLM did not conform to the edit format"),
			strings.Contains(first, "SEARCH/REPLACE block failed to match"), strings.Contains(first, "SEARCH/REPLACE blocks failed to match"):
			for _, p := range st.Pending {
				applied(p.Path, false)
			}
		}
	}
	return out
}

// userInput reads the person's lines: "#### " taken off each, and the two
// spaces of its line break.
func userInput(rec transcript.Record, ctx *transcript.Context, st *state) []transcript.Event {
	var lines []string
	for _, l := range strings.Split(string(rec.Data), "\n") {
		l = strings.TrimSuffix(strings.TrimSuffix(l, "\r"), "  ")
		l = strings.TrimPrefix(strings.TrimPrefix(l, "####"), " ")
		lines = append(lines, l)
	}
	text := strings.Join(lines, "\n")
	if text == "<blank>" {
		text = ""
	}
	meta := inputMeta(text)
	if st.LastReply != "" && normalizedHash(text) == st.LastReply {
		meta = transcript.MetaInjected // the architect's reply, handed to the editor
	}
	st.LastReply = ""
	e := ctx.NewEvent(rec, transcript.KindUserTurn, "")
	e.UserTurn = &transcript.UserTurn{Text: text, Meta: meta}
	return []transcript.Event{e}
}

// normalizedHash hashes text with each line's trailing white space and the
// whole's surrounding white space taken off, which aider's writing of a
// reply and of a prompt treat differently.
func normalizedHash(text string) string {
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " \t\r")
	}
	return transcript.HashID([]byte(strings.TrimSpace(strings.Join(lines, "\n"))))
}

// inputMeta says why a line the person's channel holds was not a prompt
// typed for the model: an in-chat command (/add, /run, …), a shell
// command (!ls), or the lint errors aider sends back to be fixed.
func inputMeta(text string) string {
	switch {
	case strings.HasPrefix(text, "/"):
		return transcript.MetaCommand
	case strings.HasPrefix(text, "!"):
		return transcript.MetaShell
	case strings.HasPrefix(text, "# Fix any errors below"):
		return transcript.MetaInjected
	}
	return ""
}

// reply reads the model's reply: its text, and a tool call for each edit
// it asks for, remembered until aider says whether it applied it.
func reply(rec transcript.Record, ctx *transcript.Context, st *state) []transcript.Event {
	text := string(rec.Data)
	e := ctx.NewEvent(rec, transcript.KindAssistantTurn, "")
	e.AssistantTurn = &transcript.AssistantTurn{Text: text, Model: st.Model}
	out := []transcript.Event{e}
	st.Pending, st.Created = nil, nil
	st.LastReply = normalizedHash(text)
	for i, p := range parseEdits(text, st.Format) {
		p.CallID = e.EventID + ":" + strconv.Itoa(i)
		c := ctx.NewEvent(rec, transcript.KindToolCall, e.EventID+"#tool_call:"+strconv.Itoa(i))
		c.ParentID = e.EventID
		c.ToolCall = &transcript.ToolCall{CallID: p.CallID, Name: p.Tool, Input: p.input()}
		out = append(out, c)
		st.Pending = append(st.Pending, p)
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
