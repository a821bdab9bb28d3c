package transcript

import (
	"encoding/json"
)

// SchemaVersion is the version of the event encoding. Consumers gate on it; it
// changes only when a field changes meaning or disappears (new optional fields
// do not change it).
const SchemaVersion = 1

// Kind says what an event is; the event's payload field of the same name holds
// the details.
type Kind string

// The event kinds.
const (
	KindSessionStart  Kind = "session_start"
	KindUserTurn      Kind = "user_turn"
	KindAssistantTurn Kind = "assistant_turn"
	KindToolCall      Kind = "tool_call"
	KindToolResult    Kind = "tool_result"
	KindFileEdit      Kind = "file_edit"
	KindCompaction    Kind = "compaction"
	KindRewind        Kind = "rewind"
	KindSessionEnd    Kind = "session_end"
	KindUnknown       Kind = "unknown"
)

// Kinds lists every kind, in the order of the event model.
func Kinds() []Kind {
	return []Kind{KindSessionStart, KindUserTurn, KindAssistantTurn, KindToolCall, KindToolResult,
		KindFileEdit, KindCompaction, KindRewind, KindSessionEnd, KindUnknown}
}

// Event is one normalised thing that happened in an agent session: the thin
// waist between the tools' transcript formats and everything that reads them.
// Every value is copied from the source or derived from it by a pure function;
// nothing is generated (no clock, no random ids).
//
// Exactly one payload field is set: the one named by Kind. Extra holds the
// record's fields the event has no slot for, verbatim, on one event of the
// record (its main one); Unknown events hold the whole record instead.
type Event struct {
	SchemaVersion int        `json:"schema_version"`
	Source        SourceKind `json:"source"`
	// SessionID is the tool's own session (thread, task) id, verbatim; empty
	// for records before the first that names one.
	SessionID string `json:"session_id"`
	// AgentID names the subagent whose transcript this is, when it is one;
	// Sidechain marks records of a side conversation (a subagent's or an
	// inline sidechain).
	AgentID   string `json:"agent_id,omitempty"`
	Sidechain bool   `json:"sidechain,omitempty"`
	// Seq orders the events of a stream (one transcript file): it starts at 0
	// and grows by one per event, in file order, so it is monotonic within
	// every session the file holds.
	Seq uint64 `json:"seq"`
	// EventID is unique within the stream: the tool's native id when it has
	// one (a derived suffix after "#" for the second and later events of one
	// record), else a content hash. The same id in two files of one tool means
	// the same record copied (a resumed session): keep the first.
	EventID string `json:"event_id"`
	// ParentID is the event this one follows in the tool's own graph, when the
	// tool records one (Claude Code's parentUuid).
	ParentID string `json:"parent_id,omitempty"`
	// Replaces is the id of an earlier event this one is a newer version of,
	// for tools that rewrite a message in place (the last version wins).
	Replaces string `json:"replaces,omitempty"`
	// Timestamp is the record's own time, verbatim; empty when it has none.
	Timestamp  string     `json:"timestamp,omitempty"`
	Project    Project    `json:"project,omitzero"`
	Kind       Kind       `json:"kind"`
	Provenance Provenance `json:"provenance"`

	SessionStart  *SessionStart  `json:"session_start,omitempty"`
	UserTurn      *UserTurn      `json:"user_turn,omitempty"`
	AssistantTurn *AssistantTurn `json:"assistant_turn,omitempty"`
	ToolCall      *ToolCall      `json:"tool_call,omitempty"`
	ToolResult    *ToolResult    `json:"tool_result,omitempty"`
	FileEdit      *FileEdit      `json:"file_edit,omitempty"`
	Compaction    *Compaction    `json:"compaction,omitempty"`
	Rewind        *Rewind        `json:"rewind,omitempty"`
	SessionEnd    *SessionEnd    `json:"session_end,omitempty"`
	Unknown       *Unknown       `json:"unknown,omitempty"`

	Extra map[string]json.RawMessage `json:"extra,omitempty"`
}

// Project is where the session worked, as far as the record says.
type Project struct {
	Cwd        string `json:"cwd,omitempty"`
	RepoRoot   string `json:"repo_root,omitempty"`
	Repository string `json:"repository,omitempty"` // remote URL
	GitBranch  string `json:"git_branch,omitempty"`
	GitSHA     string `json:"git_sha,omitempty"`
}

// IsZero reports whether nothing is known about the project.
func (p Project) IsZero() bool { return p == Project{} }

// Provenance points back into the source bytes the event came from.
type Provenance struct {
	File string `json:"file"`
	// Offset and Length delimit the record in the file (JSON lines: the line
	// without its newline).
	Offset int64 `json:"offset"`
	Length int   `json:"length"`
	// Line is the record's 1-based line number, 0 when records are not lines.
	Line int `json:"line,omitempty"`
	// Pointer locates the record inside a document (a JSON pointer such as
	// /messages/3) for tools that rewrite one document instead of appending.
	Pointer string `json:"pointer,omitempty"`
}

// SessionStart opens a session: from a record of its own, or synthesised from
// the first record of the session when the tool writes none.
type SessionStart struct {
	// Trigger is why it started, when the tool says: startup, resume,
	// compact, clear.
	Trigger     string `json:"trigger,omitempty"`
	Model       string `json:"model,omitempty"`
	ToolVersion string `json:"tool_version,omitempty"`
	// Synthesized marks a start derived from the session's first record.
	Synthesized bool `json:"synthesized,omitempty"`
}

// Meta values of a UserTurn: why a user-role message is not something the
// person typed. An empty Meta means typed by the person.
const (
	MetaInjected         = "injected"          // added by the tool (a meta record, hook or environment context)
	MetaCommand          = "command"           // a slash command echoed (/compact, /clear)
	MetaCommandOutput    = "command_output"    // a local command's output
	MetaCaveat           = "caveat"            // the tool's caveat before command output
	MetaSystemReminder   = "system_reminder"   // <system-reminder> context
	MetaTaskNotification = "task_notification" // a background task's notification
	MetaInterrupt        = "interrupt"         // "[Request interrupted by user]"
	MetaShell            = "shell"             // a shell command typed in the agent's shell mode, or its output
)

// UserTurn is a user-role message.
type UserTurn struct {
	Text string `json:"text"`
	// Meta is empty when the person typed the text, else one of the Meta…
	// values: readers looking for what the person said skip those.
	Meta string `json:"meta,omitempty"`
	// Parts are the message's content blocks other than plain text
	// (images, documents), verbatim.
	Parts []Part `json:"parts,omitempty"`
}

// AssistantTurn is a model message, or one piece of it: tools that write one
// response over several records give each its own event, grouped by
// MessageID.
type AssistantTurn struct {
	Text     string `json:"text"`
	Thinking string `json:"thinking,omitempty"`
	Model    string `json:"model,omitempty"`
	// MessageID is the provider's message id; Continued marks the second and
	// later records of one message (they carry no Usage: it is counted once).
	MessageID  string `json:"message_id,omitempty"`
	Continued  bool   `json:"continued,omitempty"`
	StopReason string `json:"stop_reason,omitempty"`
	Usage      *Usage `json:"usage,omitempty"`
	// Parts are the content blocks other than plain text and tool calls
	// (thinking with its signature, server tool results), verbatim.
	Parts []Part `json:"parts,omitempty"`
}

// Usage is a model call's token counts.
type Usage struct {
	InputTokens      int64 `json:"input_tokens,omitempty"`
	OutputTokens     int64 `json:"output_tokens,omitempty"`
	CacheReadTokens  int64 `json:"cache_read_tokens,omitempty"`
	CacheWriteTokens int64 `json:"cache_write_tokens,omitempty"`
	ReasoningTokens  int64 `json:"reasoning_tokens,omitempty"`
	// Raw is the tool's usage object verbatim.
	Raw json.RawMessage `json:"raw,omitempty"`
}

// Part is one content block kept as the tool wrote it.
type Part struct {
	Type string          `json:"type"`
	Raw  json.RawMessage `json:"raw"`
}

// ToolCall is the model asking for a tool.
type ToolCall struct {
	CallID string `json:"call_id"`
	Name   string `json:"name"`
	// Input is the arguments verbatim as JSON: an object for most tools, a
	// string where the tool writes them as one (Codex function_call).
	Input json.RawMessage `json:"input,omitempty"`
}

// ToolResult is what a tool call returned.
type ToolResult struct {
	CallID string `json:"call_id"`
	// Name is the called tool's name, when the call was seen earlier in the
	// stream.
	Name string `json:"name,omitempty"`
	OK   bool   `json:"ok"`
	// Text is the output flattened to text; Output the output verbatim
	// (string or content blocks); Structured the tool's structured result,
	// when it writes one (Claude Code's toolUseResult).
	Text       string          `json:"text"`
	Output     json.RawMessage `json:"output,omitempty"`
	Structured json.RawMessage `json:"structured,omitempty"`
}

// File edit operations.
const (
	OpCreate = "create"
	OpUpdate = "update"
	OpDelete = "delete"
	OpMove   = "move"
)

// Where a file edit's diff came from, best first.
const (
	FromToolPatch = "tool_patch" // the tool's own patch (Claude structuredPatch, Codex changes)
	FromContent   = "content"    // the file's content before and after, diffed
	FromInput     = "input"      // the call's arguments only (the edit failed or the result says nothing)
)

// FileEdit is a change to one file made by an agent's tool, as a normalised
// diff.
type FileEdit struct {
	CallID string `json:"call_id,omitempty"`
	Tool   string `json:"tool,omitempty"`
	Path   string `json:"path"`
	// MovePath is the new path of a moved file.
	MovePath string `json:"move_path,omitempty"`
	Op       string `json:"op"`
	// OK is false when the tool call failed: the edit was attempted, not
	// made.
	OK bool `json:"ok"`
	// Old and New are the replaced text and its replacement as the tool gave
	// them (Edit: old_string and new_string; Write: the previous content
	// when known, and the new content).
	Old string `json:"old,omitempty"`
	New string `json:"new,omitempty"`
	// Unified is a unified diff (--- / +++ headers, @@ hunks); Added and
	// Removed count its + and - lines.
	Unified string `json:"unified"`
	Added   int    `json:"added"`
	Removed int    `json:"removed"`
	// From says where the diff came from (FromToolPatch, FromContent,
	// FromInput); Fragment marks a diff of the replaced text alone, whose
	// line numbers are not the file's.
	From     string `json:"from"`
	Fragment bool   `json:"fragment,omitempty"`
}

// Compaction marks the model's context being summarised and replaced.
type Compaction struct {
	Trigger    string `json:"trigger,omitempty"` // manual, auto
	PreTokens  int64  `json:"pre_tokens,omitempty"`
	PostTokens int64  `json:"post_tokens,omitempty"`
	// Summary is the text the model continues from, on the event of the
	// record that holds it.
	Summary string `json:"summary,omitempty"`
	// Continues is the id of the last event before the compaction, when the
	// tool links them.
	Continues string `json:"continues,omitempty"`
	// Details is the tool's compaction metadata verbatim.
	Details json.RawMessage `json:"details,omitempty"`
}

// Rewind marks the conversation going back to an earlier point: the events
// after To on the abandoned branch are superseded.
type Rewind struct {
	// To is the last event kept (the new branch's parent), Dropped the first
	// event of the abandoned branch, Turns the number of user turns dropped —
	// each when the tool says.
	To      string `json:"to,omitempty"`
	Dropped string `json:"dropped,omitempty"`
	Turns   int    `json:"turns,omitempty"`
}

// SessionEnd closes a session.
type SessionEnd struct {
	Reason string `json:"reason,omitempty"`
}

// Reasons an event is Unknown.
const (
	// ReasonUnmapped: a record type the adapter knows that has no event kind
	// (titles, queue operations, hook attachments): metadata.
	ReasonUnmapped = "unmapped"
	// ReasonUnrecognized: a record type the adapter has never seen — format
	// drift worth a look.
	ReasonUnrecognized = "unrecognized"
	// ReasonMalformed: not JSON, not an object, or a known type whose fields
	// do not have the expected shape.
	ReasonMalformed = "malformed"
	// ReasonDuplicate: a byte-identical copy of a record already read.
	ReasonDuplicate = "duplicate"
	// ReasonTooLarge: a record over MaxRecordBytes, kept by reference only.
	ReasonTooLarge = "too_large"
	// ReasonParserError: the adapter failed on the record (a bug).
	ReasonParserError = "parser_error"
)

// Unknown preserves a record the event model has no kind for.
type Unknown struct {
	// RawType is the record's own type name (with a subtype after "/"),
	// empty when it has none.
	RawType string `json:"raw_type,omitempty"`
	Reason  string `json:"reason"`
	// Raw is the record when it is valid JSON in UTF-8 (re-encoded
	// compactly: insignificant white space aside, verbatim); Text the record
	// when it is other UTF-8 text (a cut line); Bytes the record's bytes
	// otherwise (base64 in JSON).
	Raw   json.RawMessage `json:"raw,omitempty"`
	Text  string          `json:"text,omitempty"`
	Bytes []byte          `json:"bytes,omitempty"`
}

// payloadKind returns the kind whose payload field is set, and how many are.
func (e *Event) payloadKind() (Kind, int) {
	var k Kind
	n := 0
	set := func(ok bool, kind Kind) {
		if ok {
			k = kind
			n++
		}
	}
	set(e.SessionStart != nil, KindSessionStart)
	set(e.UserTurn != nil, KindUserTurn)
	set(e.AssistantTurn != nil, KindAssistantTurn)
	set(e.ToolCall != nil, KindToolCall)
	set(e.ToolResult != nil, KindToolResult)
	set(e.FileEdit != nil, KindFileEdit)
	set(e.Compaction != nil, KindCompaction)
	set(e.Rewind != nil, KindRewind)
	set(e.SessionEnd != nil, KindSessionEnd)
	set(e.Unknown != nil, KindUnknown)
	return k, n
}
