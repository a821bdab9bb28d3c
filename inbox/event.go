package inbox

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// Type says what an event is, and so how normalize treats it.
type Type string

// The event types of SPEC §4.7.
const (
	// TypeStop is a session that ended (or a turn that finished): normalize
	// reads the transcript it names.
	TypeStop Type = "stop"
	// TypePreCompact is a session about to be compacted: treated like stop,
	// tagged apart so that it can be left out of session counts.
	TypePreCompact Type = "pre_compact"
	// TypeMeeting is meeting notes: a meeting record, its action items and
	// decisions.
	TypeMeeting Type = "meeting"
	// TypeManual is something a person or an agent asked to remember.
	TypeManual Type = "manual"
)

// Types lists every event type, in documentation order.
var Types = []Type{TypeStop, TypePreCompact, TypeMeeting, TypeManual}

// ParseType checks an event type; empty gives manual.
func ParseType(s string) (Type, error) {
	t := Type(strings.ToLower(strings.TrimSpace(s)))
	switch t {
	case "":
		return TypeManual, nil
	case TypeStop, TypePreCompact, TypeMeeting, TypeManual:
		return t, nil
	case "pre-compact", "precompact":
		return TypePreCompact, nil
	}
	return "", argError("type", "%q is not an event type; use stop, pre_compact, meeting or manual", s)
}

// Origins: how an event came into the inbox.
const (
	OriginHook = "hook"
	OriginCLI  = "cli"
	OriginMCP  = "mcp"
)

// Version is the event file format written; Parse refuses a later one.
const Version = 1

// Event is one captured event: a message from the side that must not fail
// (hooks, a person, an agent) to normalize, which reads it later.
type Event struct {
	// ID is a lower-case ULID: the file name, and the order of arrival.
	ID   string
	Type Type
	// Time is when the event was captured.
	Time time.Time
	// Origin is OriginHook, OriginCLI or OriginMCP.
	Origin string
	// Client is the agent whose hook fired ("claude-code", "codex",
	// "gemini-cli", "cursor"), or the MCP client that called capture as it
	// named itself; empty from the command line.
	Client string
	// Hook is the client's own name of the hook event ("PreCompact",
	// "PreCompress", "SessionEnd", "Stop", "AfterAgent").
	Hook    string
	Session string
	// Project is the project hint: where normalize files what it makes.
	Project string
	Tags    []string
	// Transcript is the session's transcript file, when known (Codex can
	// give none). Normalize reads it from where it left off to its end, as it
	// is when normalize runs, not as it was when the event was captured.
	Transcript string
	// TranscriptSize is the transcript's size in bytes when the event was
	// captured; -1 when unknown.
	TranscriptSize int64
	// Cwd is the folder the agent ran in.
	Cwd string
	// Trigger is what set off a compaction ("manual", "auto"); Reason why a
	// session ended, as the client said.
	Trigger, Reason string
	// Body is the content, verbatim: for a hook event, the JSON payload the
	// client sent; otherwise what was captured. Capture never reads it.
	Body string
}

// header is an event's frontmatter, in the order it is written.
type header struct {
	Format         int      `yaml:"cortex_event"`
	ID             string   `yaml:"id"`
	Type           Type     `yaml:"type"`
	Timestamp      string   `yaml:"timestamp"`
	Origin         string   `yaml:"origin"`
	Client         string   `yaml:"client,omitempty"`
	Hook           string   `yaml:"hook,omitempty"`
	Session        string   `yaml:"session,omitempty"`
	Project        string   `yaml:"project,omitempty"`
	Tags           []string `yaml:"tags,omitempty,flow"`
	Transcript     string   `yaml:"transcript,omitempty"`
	TranscriptSize *int64   `yaml:"transcript_size,omitempty"`
	Cwd            string   `yaml:"cwd,omitempty"`
	Trigger        string   `yaml:"trigger,omitempty"`
	Reason         string   `yaml:"reason,omitempty"`
}

// bodyHeading introduces the body.
const bodyHeading = "## Raw Content"

// Marshal renders an event file: YAML frontmatter, then the body under a
// "## Raw Content" heading, then one newline (which Parse takes off again, so
// that any body comes back byte for byte).
func (e *Event) Marshal() ([]byte, error) {
	h := header{
		Format: Version, ID: e.ID, Type: e.Type, Timestamp: e.Time.UTC().Format(time.RFC3339Nano), Origin: e.Origin,
		Client: e.Client, Hook: e.Hook, Session: e.Session, Project: e.Project, Tags: e.Tags,
		Transcript: e.Transcript, Cwd: e.Cwd, Trigger: e.Trigger, Reason: e.Reason,
	}
	if e.TranscriptSize >= 0 && e.Transcript != "" {
		size := e.TranscriptSize
		h.TranscriptSize = &size
	}
	fm, err := yaml.Marshal(&h)
	if err != nil {
		return nil, fmt.Errorf("event %s: %w", e.ID, err)
	}
	var b bytes.Buffer
	b.Grow(len(fm) + len(e.Body) + 32)
	b.WriteString("---\n")
	b.Write(fm)
	b.WriteString("---\n\n" + bodyHeading + "\n\n")
	b.WriteString(e.Body)
	b.WriteByte('\n')
	return b.Bytes(), nil
}

// ParseError says why an event file cannot be read.
type ParseError struct {
	Msg string
}

func (e *ParseError) Error() string { return "event file: " + e.Msg }

// Parse reads an event file as Marshal writes it. Unknown frontmatter keys
// are ignored (a later cortex may add some); a file of a later format, a
// missing or unknown type, a missing id or time, and a body not under the
// "## Raw Content" heading are errors.
func Parse(data []byte) (*Event, error) {
	bad := func(format string, a ...any) (*Event, error) {
		return nil, &ParseError{Msg: fmt.Sprintf(format, a...)}
	}
	if !utf8.Valid(data) {
		return bad("not valid UTF-8")
	}
	rest, ok := bytes.CutPrefix(data, []byte("---\n"))
	if !ok {
		return bad("does not start with a --- line")
	}
	fm, after, ok := cutLine(rest, "---")
	if !ok {
		return bad("the frontmatter has no closing --- line")
	}
	var h header
	if err := yaml.Unmarshal(fm, &h); err != nil {
		return bad("frontmatter: %v", strings.TrimPrefix(err.Error(), "yaml: "))
	}
	switch {
	case h.Format > Version:
		return bad("format %d is newer than this cortex reads (%d)", h.Format, Version)
	case h.Format < 1:
		return bad("cortex_event is missing")
	case h.ID == "":
		return bad("id is missing")
	}
	t, err := ParseType(string(h.Type))
	if err != nil || h.Type == "" {
		return bad("type %q is not an event type", h.Type)
	}
	at, err := time.Parse(time.RFC3339Nano, h.Timestamp)
	if err != nil {
		return bad("timestamp %q is not an RFC 3339 time", h.Timestamp)
	}
	body, ok := bytes.CutPrefix(after, []byte("\n"+bodyHeading+"\n\n"))
	if !ok {
		return bad("no %q heading after the frontmatter", bodyHeading)
	}
	body, ok = bytes.CutSuffix(body, []byte("\n"))
	if !ok {
		return bad("the file does not end with a newline (cut short?)")
	}
	e := &Event{
		ID: h.ID, Type: t, Time: at, Origin: h.Origin, Client: h.Client, Hook: h.Hook, Session: h.Session,
		Project: h.Project, Tags: h.Tags, Transcript: h.Transcript, TranscriptSize: -1, Cwd: h.Cwd,
		Trigger: h.Trigger, Reason: h.Reason, Body: string(body),
	}
	if len(e.Tags) == 0 {
		e.Tags = nil
	}
	if h.TranscriptSize != nil && h.Transcript != "" {
		e.TranscriptSize = *h.TranscriptSize
	}
	return e, nil
}

// cutLine splits data at the first line that is exactly line: what comes
// before it (with its final newline) and what comes after it (without the
// line's newline).
func cutLine(data []byte, line string) (before, after []byte, ok bool) {
	at := 0
	for at <= len(data) {
		end := bytes.IndexByte(data[at:], '\n')
		if end < 0 {
			if string(data[at:]) == line {
				return data[:at], nil, true
			}
			return nil, nil, false
		}
		if string(data[at:at+end]) == line {
			return data[:at], data[at+end+1:], true
		}
		at += end + 1
	}
	return nil, nil, false
}

// errNoBody is the rule of a capture with nothing in it.
var errNoBody = errors.New("give the content (or - to read it from standard input); a stop or pre_compact event may name a transcript or a session instead")
