package mcp

import (
	"context"
	"errors"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cortexmem/cortex/inbox"
)

// CaptureInput is capture's arguments.
type CaptureInput struct {
	Type       string     `json:"type" jsonschema:"what the event is: manual (something to remember, routed by project), meeting (meeting notes: a meeting note plus one note per action item and decision), stop or pre_compact (a session that ended or is about to be compacted)"`
	Content    string     `json:"content,omitempty" jsonschema:"the event's body, plain text or markdown, up to 1 MiB; required but for stop and pre_compact events that name a transcript or a session"`
	Session    string     `json:"session,omitempty" jsonschema:"the id of the agent session the event comes from"`
	Project    string     `json:"project,omitempty" jsonschema:"the project it belongs to (e.g. my-webapp): where normalize files the notes it makes"`
	Tags       StringList `json:"tags,omitempty" jsonschema:"tags for the notes made from it: a list, or one comma-separated string"`
	Transcript string     `json:"transcript,omitempty" jsonschema:"absolute path of the session's transcript file, for stop and pre_compact"`
}

// CaptureOutput is the event captured.
type CaptureOutput struct {
	ID string `json:"id" jsonschema:"the event's id (a ULID)"`
}

const captureDescription = `Drop an event into cortex's inbox, to be turned into notes later by normalize: meeting notes (a meeting note, its action items "- [ ] …" and decisions), something to remember (manual), or a session's end (stop, pre_compact) naming its transcript.

Use it for raw material that needs processing — meeting notes, a long summary to file — or when memory_save would be too slow or strict for the moment. For one clear fact or decision, memory_save is better: it checks it and files it at once.

Behaviour: writes one event file and returns only its id; it reads nothing of the content and touches no index, so it works even when the rest of cortex does not. The content is scanned later, before anything of it becomes a note: secrets are refused or redacted then. Not idempotent: each call is a new event. Local: nothing leaves the machine.`

func captureTool(srv *mcp.Server, s *server) {
	addTool(srv, s, &mcp.Tool{
		Name: "capture", Description: captureDescription,
		InputSchema: inputSchema[CaptureInput](),
		Annotations: mutation("Capture an event", false, false),
	}, s.capture)
}

// errNoInbox is capture's answer on a server started without an inbox.
var errNoInbox = errors.New("capture: this server has no inbox")

func (s *server) capture(ctx context.Context, in CaptureInput) (CaptureOutput, string, error) {
	if s.inbox == nil {
		return CaptureOutput{}, "", errNoInbox
	}
	id, err := s.inbox.Capture(inbox.Request{Type: in.Type, Content: in.Content, Session: in.Session, Project: in.Project, Tags: in.Tags,
		Transcript: in.Transcript, Origin: inbox.OriginMCP, Client: clientFrom(ctx)})
	if err != nil {
		return CaptureOutput{}, "", err
	}
	return CaptureOutput{ID: id}, id, nil
}
